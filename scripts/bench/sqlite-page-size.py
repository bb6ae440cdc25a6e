#!/usr/bin/env python3
"""What SQLite's page size does to storing events, without the server around it.

    python3 scripts/bench/sqlite-page-size.py [EVENTS]     (default: 200000 events, 500 a transaction)

Inserts EVENTS events shaped like scripts/bench/events.lua (version 7 ids, 100 installations, 10 messages,
3 campaigns) into tidingsd's events table with all five of its indexes (WAL, synchronous=NORMAL, 64 MiB
cache), once per page size, twice for 4 and 8 KiB to show the noise, and prints the CPU microseconds per
event. The page size is set before WAL is turned on: a WAL database cannot change it later. Uses the system
libsqlite3, the one tidingsd links; the Python driver adds about 1.5 us per event to every variant alike.
"""
import os
import sqlite3
import sys
import tempfile

from sqlite_events import cpu_per_event, event_row, events_table, version7

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
BATCH = 500
SCHEMA = events_table() + """
    CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id);
    CREATE INDEX events_campaign ON events(app_id, campaign_id) WHERE campaign_id IS NOT NULL;
    CREATE INDEX events_message ON events(app_id, message_id) WHERE message_id IS NOT NULL;
    CREATE INDEX events_user ON events(app_id, user_id) WHERE user_id IS NOT NULL;
    CREATE INDEX events_installation ON events(app_id, installation_id, seq);
"""
ROWS = [event_row(number, str(version7(number))) for number in range(EVENTS)]


def run(label, page_size, directory):
    db = sqlite3.connect(os.path.join(directory, f"{label}.sqlite"), isolation_level=None)
    db.execute(f"PRAGMA page_size={page_size}")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")
    db.execute("PRAGMA wal_autocheckpoint=65536")
    db.executescript(SCHEMA)
    microseconds = cpu_per_event(db, ROWS, BATCH)
    db.close()
    print(f"{label:24} {microseconds:6.2f} us CPU per event")


with tempfile.TemporaryDirectory(prefix="tidings-sqlite-page-size-") as directory:
    print(f"{EVENTS} events, {BATCH} per transaction, SQLite {sqlite3.sqlite_version}")
    for label, page_size in [("4 KiB", 4096), ("8 KiB", 8192), ("16 KiB", 16384), ("4 KiB again", 4096),
                             ("8 KiB again", 8192)]:
        run(label, page_size, directory)
