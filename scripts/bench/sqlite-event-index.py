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
import time
import uuid

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 600_000
BATCH = int(sys.argv[2]) if len(sys.argv) > 2 else 500
APP = "app_d5b2b8569db2600b"

VARIANTS = {
    "text id, UNIQUE (app_id, event_id) (tidingsd's schema)": ("TEXT", "CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id)"),
    "version 7 text id, UNIQUE (app_id, event_id) (the SDK's ids)": ("TEXT-V7", "CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id)"),
    "16-byte BLOB id, UNIQUE (app_id, event_id)": ("BLOB", "CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id)"),
    "16-byte BLOB id, UNIQUE (event_id) only": ("BLOB", "CREATE UNIQUE INDEX events_event_id ON events(event_id)"),
    "no event_id index (no de-duplication)": ("TEXT", None),
}


def version7(number):
    """A version 7 UUID: milliseconds first (50 events a millisecond here), then random bits."""
    milliseconds = int(time.time() * 1000) + number // 50
    return uuid.UUID(int=(milliseconds << 80) | (0x7 << 76) | (uuid.uuid4().int & ((1 << 76) - 1)))


def run(label, id_kind, index_sql, directory):
    id_type = "TEXT" if id_kind == "TEXT-V7" else id_kind
    path = os.path.join(directory, f"{abs(hash(label))}.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")
    db.execute("PRAGMA wal_autocheckpoint=16384")
    db.executescript(f"""
        CREATE TABLE events (seq INTEGER PRIMARY KEY, app_id TEXT NOT NULL, event_id {id_type} NOT NULL,
            type TEXT NOT NULL, occurred_at INTEGER NOT NULL, received_at INTEGER NOT NULL,
            installation_id TEXT NOT NULL, platform TEXT NOT NULL, sdk_version TEXT, app_version TEXT,
            os_version TEXT, device_model TEXT, user_id TEXT, message_id TEXT, campaign_id TEXT, dialect TEXT,
            source TEXT, app_state TEXT, action_id TEXT, value TEXT, token TEXT, token_type TEXT,
            environment TEXT, permission TEXT, attributes TEXT);
        CREATE INDEX events_campaign ON events(app_id, campaign_id) WHERE campaign_id IS NOT NULL;
        CREATE INDEX events_message ON events(app_id, message_id) WHERE message_id IS NOT NULL;
    """)
    if index_sql:
        db.execute(index_sql)
    rows = []
    for number in range(EVENTS):
        event_id = version7(number) if id_kind == "TEXT-V7" else uuid.uuid4()
        rows.append((APP, event_id.bytes if id_type == "BLOB" else str(event_id), "delivery", 1_700_000_000_000,
                     1_700_000_000_000, f"bench-{number % 100}", "ios", "0.1.0", "1.0.0", f"m-{number % 10}",
                     f"c-{number % 3}", "native", "app", "foreground", "https://example.com/x"))
    insert = ("INSERT INTO events (app_id, event_id, type, occurred_at, received_at, installation_id, platform, "
              "sdk_version, app_version, message_id, campaign_id, dialect, source, app_state, value) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
    cpu = time.process_time()
    for start in range(0, EVENTS, BATCH):
        db.execute("BEGIN IMMEDIATE")
        db.executemany(insert, rows[start:start + BATCH])
        db.execute("COMMIT")
    cpu = time.process_time() - cpu
    db.close()
    print(f"{label:58} {cpu / EVENTS * 1e6:6.2f} us CPU per event")


with tempfile.TemporaryDirectory(prefix="tidings-sqlite-bench-") as directory:
    print(f"{EVENTS} events, {BATCH} per transaction, SQLite {sqlite3.sqlite_version}")
    for label, (id_type, index_sql) in VARIANTS.items():
        run(label, id_type, index_sql, directory)
