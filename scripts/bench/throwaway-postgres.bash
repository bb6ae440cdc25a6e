# Sourced by the PostgreSQL benchmarks of this folder: starts a throwaway PostgreSQL cluster (default durability,
# a Unix socket in a temporary directory, as `nobody` when run as root) and stops and removes it on exit.
#
#   start_throwaway_postgres NAME
#
# Sets `pg_bin`, `work` (the temporary directory; the socket is in "$work/pg"), `port` and `as_postgres` (the
# command prefix that runs a server program as the cluster's owner). Exits with a message when PostgreSQL is
# not installed.
start_throwaway_postgres() {
    local name="$1"
    pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [[ -x "$pg_bin/initdb" ]] || { echo "$name: PostgreSQL is not installed; run scripts/bootstrap" >&2; exit 1; }
    work="$(mktemp -d -t "tidings-$name-XXXXXX")"
    chmod 755 "$work"
    as_postgres=()
    if [[ "$(id -u)" == 0 ]]; then as_postgres=(runuser -u nobody --); fi
    mkdir "$work/pg"
    if [[ "$(id -u)" == 0 ]]; then chown nobody "$work/pg"; fi
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    trap stop_throwaway_postgres EXIT
    "${as_postgres[@]}" "$pg_bin/initdb" -D "$work/pg/data" -U postgres -A trust -E UTF8 --locale=C >/dev/null
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
        -o "-k $work/pg -p $port -c listen_addresses=" start >/dev/null
}

stop_throwaway_postgres() {
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$work"
}

# The CPU ticks a session's backend spends running STATEMENT, read from /proc around it in the same session.
# Uses `sql`, the caller's psql command line for its database.
backend_ticks() {
    "${sql[@]}" <<SQL | awk 'NR == 1 { start = $1 } NR == 2 { print $1 - start }'
SELECT pg_backend_pid() AS pid \gset
\setenv BACKEND :pid
\! awk '{ print \$14 + \$15 }' /proc/\$BACKEND/stat
$1;
\! awk '{ print \$14 + \$15 }' /proc/\$BACKEND/stat
SQL
}

# start_throwaway_postgres NAME, with a database `bench` in tidingsd's schema made by `$TIDINGSD migrate` (a
# release build of this checkout when TIDINGSD is unset). Also sets `sql`, the psql command line for `bench`.
start_tidings_database() {
    if [[ -z "${TIDINGSD:-}" ]]; then
        swift build -c release --product tidingsd >&2
        TIDINGSD="$(swift build -c release --show-bin-path)/tidingsd"
    fi
    start_throwaway_postgres "$1"
    export PGOPTIONS="-c client_min_messages=warning"
    local psql_base=(psql -h "$work/pg" -p "$port" -U postgres -q -At -v ON_ERROR_STOP=1)
    "${psql_base[@]}" -c "CREATE DATABASE bench" postgres
    "$TIDINGSD" migrate --store "postgres://postgres@/bench?host=$work/pg&port=$port" >/dev/null
    sql=("${psql_base[@]}" bench)
}

# measure_variants ROUNDS UNIT COUNT TIMED [PREPARATION...]: for each round and each of the caller's `variants`,
# runs the caller's `restore_schema` and `apply_variant VARIANT`, then the PREPARATION statements (a warm-up, a
# checkpoint), then prints the backend's CPU microseconds per UNIT over the COUNT units that TIMED writes.
measure_variants() {
    local rounds="$1" unit="$2" count="$3" timed="$4"
    shift 4
    local preparation=() statement ticks_used hz
    for statement in "$@"; do preparation+=(-c "$statement"); done
    hz="$(getconf CLK_TCK)"
    for round in $(seq 1 "$rounds"); do
        for variant in "${variants[@]}"; do
            restore_schema
            apply_variant "$variant" >/dev/null
            "${sql[@]}" "${preparation[@]}" >/dev/null
            ticks_used="$(backend_ticks "$timed")"
            awk -v r="$round" -v v="$variant" -v t="$ticks_used" -v hz="$hz" -v n="$count" -v u="$unit" \
                'BEGIN { printf "round %d  %-26s %6.1f us of PostgreSQL CPU per %s\n", r, v, t / hz * 1e6 / n, u }'
        done
    done
}
