#!/usr/bin/env python3
"""What the event_id unique index costs SQLite, without the server around it.

    python3 scripts/bench/sqlite-event-index.py [EVENTS] [BATCH]     (defaults: 600000 events, 500 a transaction)

Inserts EVENTS events shaped like scripts/bench/events.lua into the events table of tidingsd's schema (WAL,
synchronous=NORMAL, 64 MiB cache, SQLite's own checkpoints at ~64 MiB of log), BATCH to a transaction,
with random (version 4) event ids, once per index variant, then once with version 7 (time-ordered) ids
as the SDK makes them, and prints the CPU microseconds per event.
The Python driver adds about 1.5 us per event to every variant alike. Uses the system libsqlite3, the
one tidingsd links.
"""
import os
import sqlite3
import sys
import tempfile
import uuid

from sqlite_events import cpu_per_event, event_row, events_table, version7

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 600_000
BATCH = int(sys.argv[2]) if len(sys.argv) > 2 else 500

VARIANTS = {
    "text id, UNIQUE (app_id, event_id) (tidingsd's schema)": ("TEXT", "CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id)"),
    "version 7 text id, UNIQUE (app_id, event_id) (the SDK's ids)": ("TEXT-V7", "CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id)"),
    "16-byte BLOB id, UNIQUE (app_id, event_id)": ("BLOB", "CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id)"),
    "16-byte BLOB id, UNIQUE (event_id) only": ("BLOB", "CREATE UNIQUE INDEX events_event_id ON events(event_id)"),
    "no event_id index (no de-duplication)": ("TEXT", None),
}


def run(label, id_kind, index_sql, directory):
    id_type = "TEXT" if id_kind == "TEXT-V7" else id_kind
    path = os.path.join(directory, f"{abs(hash(label))}.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")
    db.execute("PRAGMA wal_autocheckpoint=16384")
    db.executescript(events_table(id_type) + """
        CREATE INDEX events_campaign ON events(app_id, campaign_id) WHERE campaign_id IS NOT NULL;
        CREATE INDEX events_message ON events(app_id, message_id) WHERE message_id IS NOT NULL;
    """)
    if index_sql:
        db.execute(index_sql)
    rows = []
    for number in range(EVENTS):
        event_id = version7(number) if id_kind == "TEXT-V7" else uuid.uuid4()
        rows.append(event_row(number, event_id.bytes if id_type == "BLOB" else str(event_id)))
    microseconds = cpu_per_event(db, rows, BATCH)
    db.close()
    print(f"{label:58} {microseconds:6.2f} us CPU per event")


with tempfile.TemporaryDirectory(prefix="tidings-sqlite-bench-") as directory:
    print(f"{EVENTS} events, {BATCH} per transaction, SQLite {sqlite3.sqlite_version}")
    for label, (id_type, index_sql) in VARIANTS.items():
        run(label, id_type, index_sql, directory)
