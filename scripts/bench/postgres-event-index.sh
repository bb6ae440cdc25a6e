#!/usr/bin/env bash
# What each index of the event tables costs PostgreSQL, without tidingsd around it.
#
#   scripts/bench/postgres-event-index.sh [ROUNDS] [BATCHES]     (defaults: 3 rounds, 400 batches of 500 events)
#   TIDINGSD=/path/to/tidingsd scripts/bench/postgres-event-index.sh
#
# Starts a throwaway PostgreSQL 15 cluster (default durability, a Unix socket in a temporary directory, as
# `nobody` when run as root), lets `tidingsd migrate` create tidingsd's schema, and defines a PL/pgSQL
# procedure that inserts batches of 500 events shaped like scripts/bench/events.lua (version 7 style ids,
# 100 installations, 10 messages, 3 campaigns) with the same statement shape as the store (unnest, DISTINCT ON,
# event_ids first, ON CONFLICT DO NOTHING), one transaction a batch. For each schema variant, in interleaved
# rounds: empty the tables, change the schema, warm up with half the batches, then print the CPU microseconds
# of the backend per event over BATCHES batches. Generating the arrays in PL/pgSQL costs every variant alike.
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds="${1:-3}"
batches="${2:-400}"
source scripts/bench/throwaway-postgres.bash
start_tidings_database postgres-event-index

# $1: the id type (text or uuid).
define_procedure() {
    local cast=""
    [[ "$1" == uuid ]] && cast="::uuid"
    "${sql[@]}" <<SQL
CREATE OR REPLACE PROCEDURE insert_batches(first_batch int, batch_count int) LANGUAGE plpgsql AS \$\$
DECLARE ids $1[]; types text[]; installations text[]; messages text[]; campaigns text[]; now bigint; stored int;
BEGIN
    FOR b IN first_batch..first_batch + batch_count - 1 LOOP
        now := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        SELECT array_agg((lpad(to_hex(b), 8, '0') || '-0000-7000-8000-' || lpad(to_hex(i), 12, '0'))$cast ORDER BY i),
            array_agg((ARRAY['delivery', 'open', 'dismiss', 'link_open'])[i % 4 + 1] ORDER BY i),
            array_agg('bench-' || (i % 100) ORDER BY i), array_agg('m-' || (b % 10) ORDER BY i),
            array_agg('c-' || (b % 3) ORDER BY i)
        INTO ids, types, installations, messages, campaigns FROM generate_series(1, 500) i;
        WITH input AS (
            SELECT * FROM unnest(ids, types, installations, messages, campaigns)
                WITH ORDINALITY AS i(event_id, type, installation_id, message_id, campaign_id, ord)),
        first AS (SELECT DISTINCT ON (event_id) * FROM input ORDER BY event_id, ord),
        fresh AS (
            INSERT INTO event_ids (app_id, event_id, received_at) SELECT 'app_bench', event_id, now FROM first
            ON CONFLICT (app_id, event_id) DO NOTHING RETURNING event_id),
        inserted AS (
            INSERT INTO events (app_id, event_id, received_at, type, occurred_at, installation_id, platform,
                sdk_version, app_version, message_id, campaign_id, dialect, source, app_state, value)
            SELECT 'app_bench', f.event_id, now, f.type, now, f.installation_id, 'ios', '0.1.0', '1.0.0',
                f.message_id, f.campaign_id, 'native', 'app', 'foreground', 'https://example.com/x'
            FROM first f JOIN fresh USING (event_id) ORDER BY f.ord)
        SELECT count(*) INTO stored FROM first f JOIN fresh USING (event_id);
        COMMIT;
    END LOOP;
END \$\$;
SQL
}

# The schema tidingsd made, restored before each variant.
restore_schema() {
    "${sql[@]}" >/dev/null <<'SQL'
TRUNCATE events, event_ids;
DROP INDEX IF EXISTS event_ids_received_brin;
DROP INDEX IF EXISTS events_installation_only;
CREATE INDEX IF NOT EXISTS event_ids_received ON event_ids (received_at);
CREATE INDEX IF NOT EXISTS events_installation ON events (app_id, installation_id, seq);
SQL
    if [[ "$("${sql[@]}" -c "SELECT data_type FROM information_schema.columns WHERE table_name = 'event_ids' AND column_name = 'event_id'")" == uuid ]]; then
        "${sql[@]}" -c 'ALTER TABLE event_ids ALTER event_id TYPE text COLLATE "C"' \
            -c 'ALTER TABLE events ALTER event_id TYPE text COLLATE "C"' >/dev/null
    fi
    define_procedure text
}

variants=(current no-received-index brin-received-index uuid-ids installation-without-app no-installation-index)
apply_variant() {
    case "$1" in
        current) ;;
        no-received-index) "${sql[@]}" -c "DROP INDEX event_ids_received" ;;
        brin-received-index)
            "${sql[@]}" -c "DROP INDEX event_ids_received" \
                -c "CREATE INDEX event_ids_received_brin ON event_ids USING brin (received_at)" ;;
        uuid-ids)
            "${sql[@]}" -c "ALTER TABLE event_ids ALTER event_id TYPE uuid USING event_id::uuid" \
                -c "ALTER TABLE events ALTER event_id TYPE uuid USING event_id::uuid"
            define_procedure uuid ;;
        installation-without-app)
            "${sql[@]}" -c "DROP INDEX events_installation" \
                -c "CREATE INDEX events_installation_only ON events (installation_id, seq)" ;;
        no-installation-index) "${sql[@]}" -c "DROP INDEX events_installation" ;;
    esac
}

echo "postgres-event-index: $rounds rounds, $batches batches of 500 events a variant, load average $(cut -d' ' -f1-3 /proc/loadavg)"
measure_variants "$rounds" event "$((batches * 500))" "CALL insert_batches(100000, $batches)" \
    "CHECKPOINT" "CALL insert_batches(1, $((batches / 2)))"
