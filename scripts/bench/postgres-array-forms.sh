#!/usr/bin/env bash
# What PostgreSQL's CPU pays to read a batch's array parameters in their text form (what tidingsd binds:
# `{"a",NULL,"b"}`) against their binary form, without tidingsd around it.
#
#   scripts/bench/postgres-array-forms.sh [STATEMENTS]      (default: 400 statements a form, two rounds each)
#
# Needs Python's psycopg (`pip install 'psycopg[binary]'`), which sends either form. Starts a throwaway
# PostgreSQL 15 cluster (a Unix socket in a temporary directory, as `nobody` when run as root), then runs one
# prepared statement that unnests 23 arrays of 500 elements shaped like an event batch (ids, types, times,
# installations, versions, 12 columns of NULLs) and counts the rows, alternating the two forms, and prints the
# backend's CPU milliseconds per statement (from /proc, so the client's own encoding is not counted).
set -euo pipefail

cd "$(dirname "$0")/../.."

statements="${1:-400}"
python3 -c 'import psycopg' 2>/dev/null ||
    { echo "postgres-array-forms: needs psycopg (pip install 'psycopg[binary]')" >&2; exit 1; }
source scripts/bench/throwaway-postgres.bash
start_throwaway_postgres postgres-array-forms

SOCKET="$work/pg" PORT="$port" STATEMENTS="$statements" python3 - <<'EOF'
import os, random, uuid
import psycopg

size = 500
columns = [
    [str(uuid.uuid4()) for _ in range(size)], ["opened"] * size, [1_800_000_000_000 + i for i in range(size)],
    ["inst-%06d" % random.randrange(100_000) for _ in range(size)], ["ios"] * size,
    ["1.4.0"] * size, ["2.3.1"] * size, ["17.2"] * size, ["iPhone15,2"] * size,
    ["user-%d" % i for i in range(size)], [str(uuid.uuid4())] * size,
] + [[None] * size for _ in range(12)]
types = ["bigint" if index == 2 else "text" for index in range(len(columns))]

def quoted(value):
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'

literals = ["{" + ",".join("NULL" if v is None else quoted(v) for v in column) + "}" for column in columns]
sql = "SELECT count(*) FROM unnest(%s)" % ", ".join("%%s::%s[]" % name for name in types)

def backend_cpu(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

connection = psycopg.connect(
    "host=%s port=%s user=postgres dbname=postgres" % (os.environ["SOCKET"], os.environ["PORT"]), autocommit=True)
pid = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
cursor = connection.cursor()
count = int(os.environ["STATEMENTS"])
for form, parameters, binary in [("text", literals, False), ("binary", columns, True)] * 2:
    cursor.execute(sql, parameters, binary=binary, prepare=True)
    assert cursor.fetchone()[0] == size
    before = backend_cpu(pid)
    for _ in range(count):
        cursor.execute(sql, parameters, binary=binary, prepare=True)
    print("%-6s form: %.2f ms of the backend's CPU a statement (23 arrays of %d)"
          % (form, (backend_cpu(pid) - before) * 1000 / count, size))
EOF
