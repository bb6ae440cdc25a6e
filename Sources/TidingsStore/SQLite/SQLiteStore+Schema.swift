import TidingsSQLite

extension SQLiteStore {
    /// The schema, one entry per version: entry `n` moves `PRAGMA user_version` from `n` to `n + 1`.
    ///
    /// Never edit a released entry; append a new one. The SQL stays within what PostgreSQL also accepts
    /// (`BLOB` becomes `bytea`, `INTEGER PRIMARY KEY` becomes `bigserial` there).
    static let migrations: [String] = [
        """
        CREATE TABLE apps (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            bundle_id TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            kind TEXT NOT NULL,
            hash BLOB NOT NULL UNIQUE,
            hint TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        );
        CREATE INDEX api_keys_app ON api_keys(app_id);
        CREATE TABLE installations (
            app_id TEXT NOT NULL REFERENCES apps(id),
            installation_id TEXT NOT NULL,
            platform TEXT NOT NULL,
            apns_token TEXT,
            voip_token TEXT,
            fcm_token TEXT,
            environment TEXT,
            user_id TEXT,
            consent_notifications INTEGER,
            consent_ads INTEGER,
            consent_night_ads INTEGER,
            permission TEXT,
            locale TEXT,
            country TEXT,
            timezone TEXT,
            app_version TEXT,
            sdk_version TEXT,
            os_version TEXT,
            device_model TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, installation_id)
        );
        CREATE UNIQUE INDEX installations_apns_token ON installations(app_id, apns_token)
            WHERE apns_token IS NOT NULL;
        CREATE UNIQUE INDEX installations_voip_token ON installations(app_id, voip_token)
            WHERE voip_token IS NOT NULL;
        CREATE UNIQUE INDEX installations_fcm_token ON installations(app_id, fcm_token)
            WHERE fcm_token IS NOT NULL;
        CREATE INDEX installations_user ON installations(app_id, user_id) WHERE user_id IS NOT NULL;
        CREATE TABLE user_tags (
            app_id TEXT NOT NULL REFERENCES apps(id),
            user_id TEXT NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (app_id, user_id, tag)
        );
        CREATE INDEX user_tags_tag ON user_tags(app_id, tag, user_id);
        CREATE TABLE app_tags (
            app_id TEXT NOT NULL REFERENCES apps(id),
            tag TEXT NOT NULL,
            users INTEGER NOT NULL,
            PRIMARY KEY (app_id, tag)
        );
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            event_id TEXT NOT NULL,
            type TEXT NOT NULL,
            occurred_at INTEGER NOT NULL,
            received_at INTEGER NOT NULL,
            installation_id TEXT NOT NULL,
            platform TEXT NOT NULL,
            sdk_version TEXT,
            app_version TEXT,
            os_version TEXT,
            device_model TEXT,
            user_id TEXT,
            message_id TEXT,
            campaign_id TEXT,
            dialect TEXT,
            source TEXT,
            app_state TEXT,
            action_id TEXT,
            value TEXT,
            token TEXT,
            token_type TEXT,
            environment TEXT,
            permission TEXT,
            attributes TEXT
        );
        CREATE UNIQUE INDEX events_event_id ON events(app_id, event_id);
        CREATE INDEX events_campaign ON events(app_id, campaign_id) WHERE campaign_id IS NOT NULL;
        CREATE INDEX events_message ON events(app_id, message_id) WHERE message_id IS NOT NULL;
        """,
        // 2: messages and their persistent fan-out, one row per (message, installation).
        """
        CREATE TABLE messages (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            state TEXT NOT NULL,
            kind TEXT NOT NULL,
            message_type TEXT NOT NULL,
            campaign_id TEXT,
            topic TEXT NOT NULL,
            payload BLOB NOT NULL,
            priority INTEGER NOT NULL,
            expires_at INTEGER,
            collapse_id TEXT,
            created_at INTEGER NOT NULL,
            finished_at INTEGER
        );
        CREATE INDEX messages_app ON messages(app_id, created_at);
        CREATE INDEX messages_active ON messages(state) WHERE state IN ('queued', 'sending');
        CREATE TABLE message_deliveries (
            message_id TEXT NOT NULL REFERENCES messages(id),
            installation_id TEXT NOT NULL,
            app_id TEXT NOT NULL,
            token TEXT NOT NULL,
            token_type TEXT NOT NULL,
            environment TEXT NOT NULL,
            state TEXT NOT NULL,
            reason TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            not_before INTEGER NOT NULL DEFAULT 0,
            claimed_by TEXT,
            claim_expires_at INTEGER,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (message_id, installation_id)
        );
        CREATE INDEX message_deliveries_pending ON message_deliveries(not_before) WHERE state = 'pending';
        CREATE INDEX message_deliveries_claimed ON message_deliveries(claim_expires_at) WHERE state = 'claimed';
        ALTER TABLE installations ADD COLUMN token_mismatch TEXT;
        ALTER TABLE installations ADD COLUMN token_mismatch_at INTEGER;
        """,
        // 3: trust on the send path. Device context, when each token was last presented, the installation's
        // secret, per-app identity verification and its keys, the night rule and target user of a message.
        """
        ALTER TABLE installations ADD COLUMN language TEXT;
        ALTER TABLE installations ADD COLUMN app_build TEXT;
        ALTER TABLE installations ADD COLUMN os_name TEXT;
        ALTER TABLE installations ADD COLUMN apns_token_registered_at INTEGER;
        ALTER TABLE installations ADD COLUMN voip_token_registered_at INTEGER;
        ALTER TABLE installations ADD COLUMN fcm_token_registered_at INTEGER;
        ALTER TABLE installations ADD COLUMN secret_digest BLOB;
        UPDATE installations SET apns_token_registered_at = updated_at WHERE apns_token IS NOT NULL;
        UPDATE installations SET voip_token_registered_at = updated_at WHERE voip_token IS NOT NULL;
        UPDATE installations SET fcm_token_registered_at = updated_at WHERE fcm_token IS NOT NULL;
        ALTER TABLE apps ADD COLUMN identity_verification TEXT NOT NULL DEFAULT 'off';
        ALTER TABLE apps ADD COLUMN requests_per_second INTEGER;
        CREATE TABLE identity_keys (
            app_id TEXT NOT NULL REFERENCES apps(id),
            key_id TEXT NOT NULL,
            algorithm TEXT NOT NULL,
            public_key_pem TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, key_id)
        );
        ALTER TABLE messages ADD COLUMN night_policy TEXT NOT NULL DEFAULT 'skip';
        ALTER TABLE message_deliveries ADD COLUMN target_user_id TEXT;
        CREATE INDEX events_user ON events(app_id, user_id) WHERE user_id IS NOT NULL;
        CREATE TABLE instances (
            id TEXT PRIMARY KEY,
            heartbeat_at INTEGER NOT NULL
        );
        CREATE TABLE admin_keys (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            hash BLOB NOT NULL UNIQUE,
            hint TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        );
        """,
        // Named leases, so that one instance runs scheduled work (ClusterStore).
        """
        CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_at INTEGER NOT NULL
        );
        """,
        // Event forwarding: destinations with their cursors and leases, and the batches they refused.
        """
        CREATE TABLE forwarders (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            kind TEXT NOT NULL,
            settings TEXT NOT NULL,
            filter TEXT NOT NULL,
            state TEXT NOT NULL,
            event_cursor INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            failing_since INTEGER,
            last_error TEXT,
            last_success_at INTEGER,
            backfill_since INTEGER,
            backfill_until INTEGER,
            backfill_cursor INTEGER,
            lease_owner TEXT,
            lease_until INTEGER
        );
        CREATE INDEX forwarders_app ON forwarders(app_id);
        CREATE TABLE forwarder_dead_letters (
            id TEXT PRIMARY KEY,
            forwarder_id TEXT NOT NULL REFERENCES forwarders(id),
            app_id TEXT NOT NULL,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            event_count INTEGER NOT NULL,
            status INTEGER,
            error TEXT NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX forwarder_dead_letters_forwarder ON forwarder_dead_letters(forwarder_id, created_at);
        """,
        // Campaign sending: message rates, claims by message, app send settings, frequency-cap slots, custom
        // attributes.
        """
        ALTER TABLE messages ADD COLUMN rate_per_second INTEGER;
        CREATE INDEX message_deliveries_due_by_message ON message_deliveries(message_id, not_before)
            WHERE state = 'pending';
        CREATE TABLE app_send_settings (
            app_id TEXT PRIMARY KEY REFERENCES apps(id),
            rate_per_second INTEGER,
            frequency_cap_count INTEGER,
            frequency_cap_window INTEGER,
            default_ttl INTEGER
        );
        CREATE TABLE frequency_slots (
            app_id TEXT NOT NULL,
            installation_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            reserved_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, installation_id, message_id)
        );
        CREATE INDEX frequency_slots_window ON frequency_slots(app_id, installation_id, reserved_at);
        """,
        // 4: campaigns. A message's audience is resolved in the background from its plan, in chunks, with a
        // cursor and a leased resolver; deliveries remember the variant and language they were given.
        """
        ALTER TABLE messages ADD COLUMN plan TEXT;
        ALTER TABLE messages ADD COLUMN resolve_at INTEGER;
        ALTER TABLE messages ADD COLUMN resolve_cursor TEXT;
        ALTER TABLE messages ADD COLUMN resolver TEXT;
        ALTER TABLE messages ADD COLUMN resolver_expires_at INTEGER;
        ALTER TABLE messages ADD COLUMN payload_variants TEXT;
        CREATE INDEX messages_resolution ON messages(resolve_at) WHERE state IN ('scheduled', 'resolving');
        CREATE INDEX messages_app_state ON messages(app_id, state, created_at);
        ALTER TABLE message_deliveries ADD COLUMN variant TEXT;
        ALTER TABLE message_deliveries ADD COLUMN language TEXT;
        """,
        """
        CREATE TABLE live_activity_tokens (
            app_id TEXT NOT NULL REFERENCES apps(id),
            installation_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            scope TEXT NOT NULL,
            attributes_type TEXT NOT NULL,
            token TEXT NOT NULL,
            environment TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            last_sent_at INTEGER,
            last_outcome TEXT,
            PRIMARY KEY (app_id, installation_id, kind, scope)
        );
        CREATE UNIQUE INDEX live_activity_tokens_token ON live_activity_tokens(app_id, token);
        CREATE INDEX live_activity_tokens_activity ON live_activity_tokens(app_id, scope) WHERE kind = 'update';
        CREATE TABLE live_activity_budgets (
            app_id TEXT NOT NULL REFERENCES apps(id),
            activity_id TEXT NOT NULL,
            window_start INTEGER NOT NULL,
            used INTEGER NOT NULL,
            PRIMARY KEY (app_id, activity_id)
        );
        """,
        // The console: operators, their server-side sessions and the audit log of their writes; indexes for
        // a device's timeline, its deliveries, and the overview's days of sending.
        """
        CREATE TABLE operators (
            name TEXT PRIMARY KEY,
            role TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE operator_sessions (
            id_digest BLOB PRIMARY KEY,
            operator_name TEXT NOT NULL REFERENCES operators(name),
            csrf_token TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL
        );
        CREATE INDEX operator_sessions_operator ON operator_sessions(operator_name);
        CREATE TABLE audit_log (
            seq INTEGER PRIMARY KEY,
            at INTEGER NOT NULL,
            operator_name TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            app_id TEXT,
            status INTEGER NOT NULL
        );
        CREATE INDEX events_installation ON events(app_id, installation_id, seq);
        CREATE INDEX message_deliveries_installation ON message_deliveries(app_id, installation_id);
        CREATE INDEX message_deliveries_app_updated ON message_deliveries(app_id, updated_at);
        """,
        // Claims take a message's due rows in (not_before, installation_id) order: with installation_id in the
        // index a claim reads its LIMIT rows instead of sorting every pending row of a million-row campaign.
        """
        DROP INDEX message_deliveries_due_by_message;
        CREATE INDEX message_deliveries_due_by_message ON message_deliveries(message_id, not_before, installation_id)
            WHERE state = 'pending';
        """,
        // Custom attributes of installations (personalised messages): one JSON object per installation.
        """
        ALTER TABLE installations ADD COLUMN attributes TEXT;
        """,
        // APNs keys and FCM service accounts, shared by every instance instead of files in each data directory.
        """
        CREATE TABLE push_credentials (
            app_id TEXT NOT NULL REFERENCES apps(id),
            provider TEXT NOT NULL,
            secret BLOB NOT NULL,
            settings TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, provider)
        );
        """,
        // Events are found by installation, message and campaign through ranges of `seq` (EventScope) instead of
        // three indexes that cost every event a B-tree insert each. Existing events get one range each.
        // `event_ranges` has no foreign key: its rows are derived from `events`, which has one.
        """
        CREATE TABLE event_ranges (
            app_id TEXT NOT NULL,
            scope TEXT NOT NULL,
            scope_id TEXT NOT NULL,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL
        );
        CREATE INDEX event_ranges_scope ON event_ranges(app_id, scope, scope_id, first_seq);
        INSERT INTO event_ranges (app_id, scope, scope_id, first_seq, last_seq)
            SELECT app_id, scope, scope_id, seq, seq FROM (
                SELECT seq, app_id, 'installation' AS scope, installation_id AS scope_id FROM events
                UNION ALL
                SELECT seq, app_id, 'message', message_id FROM events WHERE message_id IS NOT NULL
                UNION ALL
                SELECT seq, app_id, 'campaign', campaign_id FROM events WHERE campaign_id IS NOT NULL
            ) AS scoped
            ORDER BY seq;
        DROP INDEX events_installation;
        DROP INDEX events_campaign;
        DROP INDEX events_message;
        """,
        // The client address of each audited write (a trusted proxy's client, else the TCP peer).
        """
        ALTER TABLE audit_log ADD COLUMN address TEXT;
        """,
        // Answers kept under Idempotency-Keys for 24 hours, per app and credential (IdempotencyStore).
        """
        CREATE TABLE idempotency_keys (
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint BLOB NOT NULL,
            status INTEGER,
            headers TEXT,
            body BLOB,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            locked_until INTEGER NOT NULL,
            PRIMARY KEY (scope, key)
        );
        CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
        """,
        // Browsers and addresses each operator signed in from, so failed guesses elsewhere cannot lock them out.
        """
        CREATE TABLE operator_sign_in_trust (
            operator_name TEXT NOT NULL REFERENCES operators(name),
            kind TEXT NOT NULL,
            digest BLOB NOT NULL,
            last_used_at INTEGER NOT NULL,
            PRIMARY KEY (operator_name, kind, digest)
        );
        """,
        // Every state-changing call is audited, by keys too: which credential, which key; `at` for retention.
        """
        ALTER TABLE audit_log ADD COLUMN credential TEXT NOT NULL DEFAULT 'operator';
        ALTER TABLE audit_log ADD COLUMN key_id TEXT;
        CREATE INDEX audit_log_at ON audit_log(at);
        """,
        // The fence of each delivery's claim: raised by every claim and every release, so an outcome or a send
        // checked against the epoch a worker claimed under matches no row once the claim was taken from it.
        """
        ALTER TABLE message_deliveries ADD COLUMN claim_epoch INTEGER NOT NULL DEFAULT 0;
        """,
        // A local-time delivery's own due time (kept when a retry or a night moves not_before: the schedule shows
        // it) and its own expiry (due time plus the message's time to live).
        """
        ALTER TABLE message_deliveries ADD COLUMN due_at INTEGER;
        ALTER TABLE message_deliveries ADD COLUMN expires_at INTEGER;
        """,
        // Shared rates (message rates, app ceilings, key rates): each one's next free slot, in microseconds.
        """
        CREATE TABLE rate_schedules (
            name TEXT PRIMARY KEY,
            next_at INTEGER NOT NULL
        );
        """,
        // Cancelled deliveries get a state of their own: they were `skipped` with the reason `cancelled`, and
        // rows a cancel missed (claimed at the time, or released after it) stayed queued under their
        // cancelled message for ever.
        """
        UPDATE message_deliveries SET state = 'cancelled', reason = NULL
        WHERE (state = 'skipped' AND reason = 'cancelled')
            OR (state IN ('pending', 'claimed') AND message_id IN (SELECT id FROM messages WHERE state = 'cancelled'));
        """,
        // Split tests by person: the user a delivery's variant was assigned by (its conversions count on any of
        // the user's devices), and whether a button's `action` opened the app, as the SDK reports it (1 or 0;
        // NULL from SDKs that do not say).
        """
        ALTER TABLE message_deliveries ADD COLUMN split_user_id TEXT;
        ALTER TABLE events ADD COLUMN opens_app INTEGER;
        """,
        // Erasure that erases: each app's key for the pseudonyms and tombstones of erased users, the tombstones
        // (a keyed digest of the user id, never the id), and the `user.deleted` notices waiting for each
        // forwarder, removed once delivered (the one deliberate copy of an erased id).
        """
        CREATE TABLE erasure_keys (
            app_id TEXT PRIMARY KEY REFERENCES apps(id),
            key BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE erased_users (
            app_id TEXT NOT NULL REFERENCES apps(id),
            digest BLOB NOT NULL,
            erased_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, digest)
        );
        CREATE TABLE erasure_notices (
            id TEXT PRIMARY KEY,
            forwarder_id TEXT NOT NULL REFERENCES forwarders(id),
            app_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            pseudonym TEXT NOT NULL,
            erased_at INTEGER NOT NULL
        );
        CREATE INDEX erasure_notices_forwarder ON erasure_notices(forwarder_id, erased_at);
        """,
        // Operators' TOTP second factors (the secret sealed), their recovery codes by digest, the challenges of
        // sign-ins waiting for a code, and failed sign-in counts shared by every instance on the store.
        """
        CREATE TABLE operator_second_factors (
            operator_name TEXT PRIMARY KEY REFERENCES operators(name),
            secret BLOB NOT NULL,
            confirmed_at INTEGER,
            last_used_step INTEGER NOT NULL,
            recovery_salt BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE operator_recovery_codes (
            operator_name TEXT NOT NULL REFERENCES operators(name),
            digest BLOB NOT NULL,
            PRIMARY KEY (operator_name, digest)
        );
        CREATE TABLE operator_sign_in_challenges (
            id_digest BLOB PRIMARY KEY,
            operator_name TEXT NOT NULL REFERENCES operators(name),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            tries INTEGER NOT NULL
        );
        CREATE TABLE sign_in_failures (
            bucket TEXT PRIMARY KEY,
            level INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX sign_in_failures_updated ON sign_in_failures(updated_at);
        """,
        // Split tests that pick their winner: each test's decision, due its wait after the test's audience is
        // resolved, then what was decided, on which numbers, and the follow-up message sending the winner.
        """
        CREATE TABLE split_decisions (
            message_id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL,
            state TEXT NOT NULL,
            after_ms INTEGER NOT NULL,
            not_before INTEGER NOT NULL,
            decide_at INTEGER,
            decided_at INTEGER,
            follow_up_message_id TEXT,
            decision TEXT
        );
        CREATE INDEX split_decisions_due ON split_decisions(state, decide_at);
        """,
        // Bulk imports: each import's cursor and counts, written with each of its batches.
        """
        CREATE TABLE imports (
            app_id TEXT NOT NULL,
            import_id TEXT NOT NULL,
            profile TEXT NOT NULL,
            rows_done INTEGER NOT NULL,
            imported INTEGER NOT NULL,
            updated INTEGER NOT NULL,
            unchanged INTEGER NOT NULL,
            rejected INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, import_id)
        );
        """,
        // Journeys: their versions, one run per person in one, entry history, per-step counts and the queue of
        // signals (events and attribute changes) the engine reacts to.
        """
        CREATE TABLE journeys (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL,
            name TEXT NOT NULL,
            state TEXT NOT NULL,
            version INTEGER NOT NULL,
            trigger_kind TEXT NOT NULL,
            trigger_key TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX journeys_app ON journeys(app_id, created_at);
        CREATE TABLE journey_versions (
            journey_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            definition TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (journey_id, version)
        );
        CREATE TABLE journey_runs (
            id TEXT PRIMARY KEY,
            journey_id TEXT NOT NULL,
            app_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            subject TEXT NOT NULL,
            state TEXT NOT NULL,
            step_id TEXT NOT NULL,
            resume_step TEXT,
            due_at INTEGER,
            wait_event TEXT,
            on_event_step TEXT,
            entered_at INTEGER NOT NULL,
            ended_at INTEGER,
            end_reason TEXT,
            entry_key TEXT NOT NULL,
            walks INTEGER NOT NULL DEFAULT 0,
            last_send_step TEXT,
            epoch INTEGER NOT NULL DEFAULT 0,
            owner TEXT,
            lease_until INTEGER
        );
        CREATE UNIQUE INDEX journey_runs_one_at_a_time ON journey_runs(journey_id, subject)
            WHERE state IN ('ready', 'waiting');
        CREATE UNIQUE INDEX journey_runs_entry ON journey_runs(journey_id, entry_key);
        CREATE INDEX journey_runs_due ON journey_runs(due_at) WHERE state IN ('ready', 'waiting');
        CREATE INDEX journey_runs_subject ON journey_runs(app_id, subject) WHERE state IN ('ready', 'waiting');
        CREATE TABLE journey_entries (
            journey_id TEXT NOT NULL,
            subject TEXT NOT NULL,
            last_entered_at INTEGER NOT NULL,
            times INTEGER NOT NULL,
            PRIMARY KEY (journey_id, subject)
        );
        CREATE TABLE journey_counts (
            journey_id TEXT NOT NULL,
            step_id TEXT NOT NULL,
            metric TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (journey_id, step_id, metric)
        );
        CREATE TABLE journey_signals (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            app_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            installation_id TEXT NOT NULL,
            user_id TEXT,
            value TEXT,
            attributes TEXT,
            occurred_at INTEGER NOT NULL
        );
        """,
        // Audience conditions on events (`event purchase count >= 2 within 30d`) read the installations with such
        // events from this index alone, instead of every event or one lookup per installation. It costs each
        // event one more B-tree insert (BENCHMARKS.md, Segments).
        """
        CREATE INDEX events_type_time ON events(app_id, type, occurred_at, installation_id);
        """,
        // User profiles: attributes set for a user, which every device of the user shares (docs/audiences.md).
        """
        CREATE TABLE user_profiles (
            app_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            attributes TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, user_id)
        );
        """,
        // Saved segments: named audience expressions that `segment:NAME` stands for (docs/audiences.md).
        """
        CREATE TABLE segments (
            app_id TEXT NOT NULL,
            segment_id TEXT NOT NULL,
            name TEXT NOT NULL,
            expression TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, segment_id)
        );
        CREATE UNIQUE INDEX segments_name ON segments(app_id, name);
        """,
        // The messages a claim looks at (every one queued, resolving or sending, oldest first), without a scan of
        // every message ever sent: with journeys that is thousands of one-push messages a minute.
        """
        CREATE INDEX messages_in_flight ON messages(created_at, id) WHERE state IN ('queued', 'resolving', 'sending');
        """,
        // Split tests in journey send steps (docs/journeys.md): one per journey version and step, decided once; and
        // the messages each test's share was sent, whose conversions decide it.
        """
        CREATE TABLE journey_step_tests (
            app_id TEXT NOT NULL,
            journey_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            step_id TEXT NOT NULL,
            started_at INTEGER NOT NULL,
            test_ends_at INTEGER NOT NULL,
            decide_at INTEGER NOT NULL,
            rule TEXT NOT NULL,
            decided_at INTEGER,
            winner TEXT,
            decision TEXT,
            PRIMARY KEY (journey_id, version, step_id)
        );
        CREATE INDEX journey_step_tests_due ON journey_step_tests(decide_at) WHERE decided_at IS NULL;
        CREATE TABLE journey_step_test_sends (
            app_id TEXT NOT NULL,
            journey_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            step_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            PRIMARY KEY (journey_id, version, step_id, message_id)
        );
        """,
        // Membership of the segment a segment-triggered journey names, per person, so that a join is a transition
        // (docs/journeys.md); the row with an empty subject marks the members the journey started with as taken.
        """
        CREATE TABLE journey_segment_members (
            journey_id TEXT NOT NULL,
            segment TEXT NOT NULL,
            subject TEXT NOT NULL,
            member INTEGER NOT NULL,
            joins INTEGER NOT NULL,
            changed_at INTEGER NOT NULL,
            PRIMARY KEY (journey_id, segment, subject)
        );
        """,
        // Claims read `message_deliveries_due_by_message` per message; the index of every pending row by time
        // served a claim across messages that is gone, and cost each delivery two B-tree writes (issue #39).
        """
        DROP INDEX message_deliveries_pending;
        """,
        // Only sent and failed deliveries are counted by day (the overview), and a delivery is neither while it
        // waits or is sent: indexing every row by time cost each delivery a B-tree write when it was resolved and
        // another when its outcome moved it (issue #39).
        """
        DROP INDEX message_deliveries_app_updated;
        CREATE INDEX message_deliveries_app_updated ON message_deliveries(app_id, updated_at)
            WHERE state IN ('sent', 'failed');
        """,
    ]

    /// Applies every migration newer than the database's `user_version`, each in its own transaction.
    static func migrate(_ database: SQLiteDatabase) throws {
        try database.read { connection in
            let current = Int(try connection.scalar("PRAGMA user_version")?.integerValue ?? 0)
            guard current <= migrations.count else {
                throw StoreError(
                    code: .conflict,
                    message:
                        "the database is at schema version \(current), newer than this tidingsd knows (\(migrations.count))"
                )
            }
            for version in current..<migrations.count {
                try connection.transaction {
                    try connection.execute(migrations[version])
                    try connection.execute("PRAGMA user_version = \(version + 1)")
                }
            }
        }
    }
}
