"""What scripts/bench/sqlite-page-size.py, sqlite-event-index.py and sqlite-event-ranges.py share: tidingsd's
events table, events shaped like scripts/bench/events.lua, and the timed insert of them into a SQLite
database."""
import time
import uuid

APP = "app_d5b2b8569db2600b"
INSERT = ("INSERT INTO events (app_id, event_id, type, occurred_at, received_at, installation_id, platform, "
          "sdk_version, app_version, message_id, campaign_id, dialect, source, app_state, value) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")


def events_table(id_type="TEXT", app_column="app_id TEXT NOT NULL"):
    """tidingsd's events table, with the event id's column type and the app column given."""
    return f"""
    CREATE TABLE events (seq INTEGER PRIMARY KEY, {app_column}, event_id {id_type} NOT NULL,
        type TEXT NOT NULL, occurred_at INTEGER NOT NULL, received_at INTEGER NOT NULL,
        installation_id TEXT NOT NULL, platform TEXT NOT NULL, sdk_version TEXT, app_version TEXT,
        os_version TEXT, device_model TEXT, user_id TEXT, message_id TEXT, campaign_id TEXT, dialect TEXT,
        source TEXT, app_state TEXT, action_id TEXT, value TEXT, token TEXT, token_type TEXT,
        environment TEXT, permission TEXT, attributes TEXT);
"""


def version7(number):
    """A version 7 UUID: milliseconds first (50 events a millisecond here), then random bits."""
    milliseconds = int(time.time() * 1000) + number // 50
    return uuid.UUID(int=(milliseconds << 80) | (0x7 << 76) | (uuid.uuid4().int & ((1 << 76) - 1)))


def event_row(number, event_id):
    """The values of INSERT for event `number` (100 installations, 10 messages, 3 campaigns)."""
    return (APP, event_id, "delivery", 1_700_000_000_000, 1_700_000_000_000, f"bench-{number % 100}", "ios",
            "0.1.0", "1.0.0", f"m-{number % 10}", f"c-{number % 3}", "native", "app", "foreground",
            "https://example.com/x")


def cpu_per_event(db, rows, batch):
    """Inserts `rows` with INSERT, `batch` to a transaction, and returns the CPU microseconds per event."""
    cpu = time.process_time()
    for start in range(0, len(rows), batch):
        db.execute("BEGIN IMMEDIATE")
        db.executemany(INSERT, rows[start:start + batch])
        db.execute("COMMIT")
    return (time.process_time() - cpu) / len(rows) * 1e6
