#!/usr/bin/env python3
"""What finding events through ranges of seq saves SQLite's writer, without the server around it.

    python3 scripts/bench/sqlite-event-ranges.py [EVENTS] [BATCH]     (defaults: 600000 events, 500 a transaction)

Inserts EVENTS events shaped like scripts/bench/events.lua (version 7 ids, 100 installations, 10 messages,
3 campaigns) into tidingsd's events table, BATCH to a transaction, twice: with the three indexes the schema
had before (installation, message, campaign), and with `event_ranges` instead (one row per installation,
message and campaign of each batch, as SQLiteStore writes them). Prints the CPU microseconds per event,
ranges included. The Python driver adds about 1.5 us per event to both alike. Uses the system libsqlite3,
the one tidingsd links.
"""
import os
import sqlite3
import sys
import tempfile

from sqlite_events import APP, cpu_per_event, event_row, events_table, version7

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 600_000
BATCH = int(sys.argv[2]) if len(sys.argv) > 2 else 500

TABLE = (
    "PRAGMA foreign_keys = ON; CREATE TABLE apps (id TEXT PRIMARY KEY);"
    + events_table(app_column="app_id TEXT NOT NULL REFERENCES apps(id)")
    + """
    CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id);
    CREATE INDEX events_user ON events(app_id, user_id) WHERE user_id IS NOT NULL;
"""
)
INDEXES = """
    CREATE INDEX events_campaign ON events(app_id, campaign_id) WHERE campaign_id IS NOT NULL;
    CREATE INDEX events_message ON events(app_id, message_id) WHERE message_id IS NOT NULL;
    CREATE INDEX events_installation ON events(app_id, installation_id, seq);
"""
RANGES = """
    CREATE TABLE event_ranges (app_id TEXT NOT NULL, scope TEXT NOT NULL, scope_id TEXT NOT NULL,
        first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL);
    CREATE INDEX event_ranges_scope ON event_ranges(app_id, scope, scope_id, first_seq);
"""


def open_database(path, schema):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA cache_size=-65536")
    db.execute("PRAGMA wal_autocheckpoint=16384")
    db.executescript(TABLE + schema)
    db.execute("INSERT INTO apps VALUES (?)", (APP,))
    return db


class RangeWriter:
    """Wraps the connection so that each COMMIT first writes the batch's ranges, as SQLiteStore does."""

    def __init__(self, db, rows):
        self.db, self.rows, self.done = db, rows, 0

    def execute(self, sql, *args):
        if sql == "COMMIT":
            batch = self.rows[self.done:self.done + BATCH]
            self.done += len(batch)
            last = self.db.execute("SELECT last_insert_rowid()").fetchone()[0]
            first = last - len(batch) + 1
            values = dict.fromkeys(
                [("installation", row[5]) for row in batch] + [("message", row[9]) for row in batch]
                + [("campaign", row[10]) for row in batch])
            self.db.executemany(
                "INSERT INTO event_ranges VALUES (?, ?, ?, ?, ?)",
                [(APP, scope, value, first, last) for scope, value in values])
        return self.db.execute(sql, *args)

    def executemany(self, sql, rows):
        return self.db.executemany(sql, rows)


with tempfile.TemporaryDirectory(prefix="tidings-sqlite-bench-") as directory:
    print(f"{EVENTS} events, {BATCH} per transaction, SQLite {sqlite3.sqlite_version}")
    rows = [event_row(number, str(version7(number))) for number in range(EVENTS)]
    indexes = open_database(os.path.join(directory, "indexes.sqlite"), INDEXES)
    print(f"{'three indexes (installation, message, campaign)':50} {cpu_per_event(indexes, rows, BATCH):6.2f} us CPU per event")
    ranges = open_database(os.path.join(directory, "ranges.sqlite"), RANGES)
    print(f"{'event_ranges instead':50} {cpu_per_event(RangeWriter(ranges, rows), rows, BATCH):6.2f} us CPU per event")
