import Foundation
import TidingsStore

extension PostgresStore {
    /// The schema, one entry per version: entry `n` takes `schema_version` from `n` to `n + 1`.
    ///
    /// Never edit a released entry; append a new one. Version 1 is the logical schema of ``SQLiteStore`` at its
    /// version 3, in PostgreSQL's types (`bigint` times in unix milliseconds, `bytea`, `boolean` consents), with
    /// identifiers in the `C` collation so listings page in byte order as they do on SQLite, and events
    /// partitioned by month of arrival.
    static let migrations: [String] = [
        """
        CREATE TABLE apps (
            id text COLLATE "C" PRIMARY KEY,
            name text COLLATE "C" NOT NULL UNIQUE,
            bundle_id text NOT NULL,
            created_at bigint NOT NULL,
            identity_verification text NOT NULL DEFAULT 'off',
            requests_per_second bigint
        );
        CREATE TABLE api_keys (
            id text COLLATE "C" PRIMARY KEY,
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            kind text NOT NULL,
            hash bytea NOT NULL UNIQUE,
            hint text NOT NULL,
            created_at bigint NOT NULL,
            revoked_at bigint
        );
        CREATE INDEX api_keys_app ON api_keys (app_id);
        CREATE TABLE admin_keys (
            id text COLLATE "C" PRIMARY KEY,
            kind text NOT NULL,
            hash bytea NOT NULL UNIQUE,
            hint text NOT NULL,
            created_at bigint NOT NULL,
            revoked_at bigint
        );
        CREATE TABLE instances (
            id text PRIMARY KEY,
            heartbeat_at bigint NOT NULL
        );
        CREATE TABLE identity_keys (
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            key_id text COLLATE "C" NOT NULL,
            algorithm text NOT NULL,
            public_key_pem text NOT NULL,
            created_at bigint NOT NULL,
            PRIMARY KEY (app_id, key_id)
        );
        CREATE TABLE installations (
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            installation_id text COLLATE "C" NOT NULL,
            platform text NOT NULL,
            apns_token text,
            voip_token text,
            fcm_token text,
            environment text,
            user_id text COLLATE "C",
            consent_notifications boolean,
            consent_ads boolean,
            consent_night_ads boolean,
            permission text,
            locale text,
            country text,
            timezone text,
            app_version text,
            sdk_version text,
            os_version text,
            device_model text,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            language text,
            app_build text,
            os_name text,
            apns_token_registered_at bigint,
            voip_token_registered_at bigint,
            fcm_token_registered_at bigint,
            secret_digest bytea,
            token_mismatch text,
            token_mismatch_at bigint,
            PRIMARY KEY (app_id, installation_id)
        );
        CREATE UNIQUE INDEX installations_apns_token ON installations (app_id, apns_token) WHERE apns_token IS NOT NULL;
        CREATE UNIQUE INDEX installations_voip_token ON installations (app_id, voip_token) WHERE voip_token IS NOT NULL;
        CREATE UNIQUE INDEX installations_fcm_token ON installations (app_id, fcm_token) WHERE fcm_token IS NOT NULL;
        CREATE INDEX installations_user ON installations (app_id, user_id) WHERE user_id IS NOT NULL;
        CREATE INDEX installations_without_timezone ON installations (app_id) WHERE timezone IS NULL;
        CREATE TABLE user_tags (
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            user_id text COLLATE "C" NOT NULL,
            tag text COLLATE "C" NOT NULL,
            PRIMARY KEY (app_id, user_id, tag)
        );
        CREATE INDEX user_tags_tag ON user_tags (app_id, tag, user_id);
        CREATE TABLE app_tags (
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            tag text COLLATE "C" NOT NULL,
            users bigint NOT NULL,
            PRIMARY KEY (app_id, tag)
        );
        CREATE SEQUENCE events_seq AS bigint;
        CREATE TABLE events (
            seq bigint NOT NULL DEFAULT nextval('events_seq'),
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            event_id text COLLATE "C" NOT NULL,
            type text NOT NULL,
            occurred_at bigint NOT NULL,
            received_at bigint NOT NULL,
            installation_id text COLLATE "C" NOT NULL,
            platform text NOT NULL,
            sdk_version text,
            app_version text,
            os_version text,
            device_model text,
            user_id text COLLATE "C",
            message_id text COLLATE "C",
            campaign_id text COLLATE "C",
            dialect text,
            source text,
            app_state text,
            action_id text,
            value text,
            token text,
            token_type text,
            environment text,
            permission text,
            attributes text
        ) PARTITION BY RANGE (received_at);
        ALTER SEQUENCE events_seq OWNED BY events.seq;
        CREATE TABLE events_default PARTITION OF events DEFAULT;
        CREATE INDEX events_app_seq ON events (app_id, seq);
        CREATE INDEX events_campaign ON events (app_id, campaign_id) WHERE campaign_id IS NOT NULL;
        CREATE INDEX events_message ON events (app_id, message_id) WHERE message_id IS NOT NULL;
        CREATE INDEX events_user ON events (app_id, user_id) WHERE user_id IS NOT NULL;
        CREATE TABLE event_ids (
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            event_id text COLLATE "C" NOT NULL,
            received_at bigint NOT NULL,
            PRIMARY KEY (app_id, event_id)
        );
        CREATE INDEX event_ids_received ON event_ids (received_at);
        CREATE TABLE messages (
            id text COLLATE "C" PRIMARY KEY,
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            state text NOT NULL,
            kind text NOT NULL,
            message_type text NOT NULL,
            campaign_id text COLLATE "C",
            topic text NOT NULL,
            payload bytea NOT NULL,
            priority bigint NOT NULL,
            expires_at bigint,
            collapse_id text,
            created_at bigint NOT NULL,
            finished_at bigint,
            night_policy text NOT NULL DEFAULT 'skip'
        );
        CREATE INDEX messages_app ON messages (app_id, created_at);
        CREATE INDEX messages_campaign ON messages (app_id, campaign_id) WHERE campaign_id IS NOT NULL;
        CREATE INDEX messages_active ON messages (state) WHERE state IN ('queued', 'sending');
        CREATE TABLE message_deliveries (
            message_id text COLLATE "C" NOT NULL REFERENCES messages(id),
            installation_id text COLLATE "C" NOT NULL,
            app_id text COLLATE "C" NOT NULL,
            token text NOT NULL,
            token_type text NOT NULL,
            environment text NOT NULL,
            state text NOT NULL,
            reason text,
            attempts bigint NOT NULL DEFAULT 0,
            not_before bigint NOT NULL DEFAULT 0,
            claimed_by text,
            claim_expires_at bigint,
            updated_at bigint NOT NULL,
            target_user_id text COLLATE "C",
            PRIMARY KEY (message_id, installation_id)
        );
        CREATE INDEX message_deliveries_pending ON message_deliveries (not_before) WHERE state = 'pending';
        CREATE INDEX message_deliveries_claimed ON message_deliveries (claim_expires_at) WHERE state = 'claimed';
        CREATE INDEX message_deliveries_target_user ON message_deliveries (app_id, target_user_id)
            WHERE target_user_id IS NOT NULL;
        """,
        // Named leases, so that one instance runs scheduled work (ClusterStore); claims looked up by holder
        // when an instance goes silent.
        """
        CREATE TABLE leases (
            name text PRIMARY KEY,
            holder text NOT NULL,
            expires_at bigint NOT NULL
        );
        CREATE INDEX message_deliveries_claimed_by ON message_deliveries (claimed_by) WHERE state = 'claimed';
        """,
        // Event forwarding: destinations with their cursors and leases, and the batches they refused.
        """
        CREATE TABLE forwarders (
            id text COLLATE "C" PRIMARY KEY,
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            kind text NOT NULL,
            settings text NOT NULL,
            filter text NOT NULL,
            state text NOT NULL,
            event_cursor bigint NOT NULL,
            created_at bigint NOT NULL,
            failing_since bigint,
            last_error text,
            last_success_at bigint,
            backfill_since bigint,
            backfill_until bigint,
            backfill_cursor bigint,
            lease_owner text,
            lease_until bigint
        );
        CREATE INDEX forwarders_app ON forwarders (app_id);
        CREATE TABLE forwarder_dead_letters (
            id text COLLATE "C" PRIMARY KEY,
            forwarder_id text COLLATE "C" NOT NULL REFERENCES forwarders(id),
            app_id text COLLATE "C" NOT NULL,
            first_seq bigint NOT NULL,
            last_seq bigint NOT NULL,
            event_count bigint NOT NULL,
            status bigint,
            error text NOT NULL,
            state text NOT NULL,
            attempts bigint NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL
        );
        CREATE INDEX forwarder_dead_letters_forwarder ON forwarder_dead_letters (forwarder_id, created_at);
        """,
        // Campaign sending: message rates, claims by message, app send settings, frequency-cap slots, custom
        // attributes.
        """
        ALTER TABLE messages ADD COLUMN rate_per_second bigint;
        CREATE INDEX message_deliveries_due_by_message ON message_deliveries (message_id, not_before)
            WHERE state = 'pending';
        CREATE TABLE app_send_settings (
            app_id text COLLATE "C" PRIMARY KEY REFERENCES apps(id),
            rate_per_second bigint,
            frequency_cap_count bigint,
            frequency_cap_window bigint,
            default_ttl bigint
        );
        CREATE TABLE frequency_slots (
            app_id text COLLATE "C" NOT NULL,
            installation_id text COLLATE "C" NOT NULL,
            message_id text COLLATE "C" NOT NULL,
            reserved_at bigint NOT NULL,
            PRIMARY KEY (app_id, installation_id, message_id)
        );
        CREATE INDEX frequency_slots_window ON frequency_slots (app_id, installation_id, reserved_at);
        """,
        // 2: campaigns. A message's audience is resolved in the background from its plan, in chunks, with a
        // cursor and a leased resolver; deliveries remember the variant and language they were given.
        """
        ALTER TABLE messages ADD COLUMN plan text;
        ALTER TABLE messages ADD COLUMN resolve_at bigint;
        ALTER TABLE messages ADD COLUMN resolve_cursor text COLLATE "C";
        ALTER TABLE messages ADD COLUMN resolver text;
        ALTER TABLE messages ADD COLUMN resolver_expires_at bigint;
        ALTER TABLE messages ADD COLUMN payload_variants text;
        CREATE INDEX messages_resolution ON messages (resolve_at) WHERE state IN ('scheduled', 'resolving');
        CREATE INDEX messages_app_state ON messages (app_id, state, created_at);
        ALTER TABLE message_deliveries ADD COLUMN variant text COLLATE "C";
        ALTER TABLE message_deliveries ADD COLUMN language text COLLATE "C";
        """,
        """
        CREATE TABLE live_activity_tokens (
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            installation_id text COLLATE "C" NOT NULL,
            kind text NOT NULL,
            scope text COLLATE "C" NOT NULL,
            attributes_type text NOT NULL,
            token text NOT NULL,
            environment text NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            last_sent_at bigint,
            last_outcome text,
            PRIMARY KEY (app_id, installation_id, kind, scope)
        );
        CREATE UNIQUE INDEX live_activity_tokens_token ON live_activity_tokens (app_id, token);
        CREATE INDEX live_activity_tokens_activity ON live_activity_tokens (app_id, scope) WHERE kind = 'update';
        CREATE TABLE live_activity_budgets (
            app_id text COLLATE "C" NOT NULL REFERENCES apps(id),
            activity_id text COLLATE "C" NOT NULL,
            window_start bigint NOT NULL,
            used bigint NOT NULL,
            PRIMARY KEY (app_id, activity_id)
        );
        """,
        // The console: operators, their server-side sessions and the audit log of their writes; indexes for
        // a device's timeline, its deliveries, and the overview's days of sending.
        """
        CREATE TABLE operators (
            name text COLLATE "C" PRIMARY KEY,
            role text NOT NULL,
            password_hash text NOT NULL,
            created_at bigint NOT NULL
        );
        CREATE TABLE operator_sessions (
            id_digest bytea PRIMARY KEY,
            operator_name text COLLATE "C" NOT NULL REFERENCES operators(name),
            csrf_token text NOT NULL,
            created_at bigint NOT NULL,
            last_seen_at bigint NOT NULL
        );
        CREATE INDEX operator_sessions_operator ON operator_sessions (operator_name);
        CREATE TABLE audit_log (
            seq bigserial PRIMARY KEY,
            at bigint NOT NULL,
            operator_name text NOT NULL,
            action text NOT NULL,
            target text NOT NULL,
            app_id text,
            status bigint NOT NULL
        );
        CREATE INDEX events_installation ON events (app_id, installation_id, seq);
        CREATE INDEX message_deliveries_installation ON message_deliveries (app_id, installation_id);
        CREATE INDEX message_deliveries_app_updated ON message_deliveries (app_id, updated_at);
        """,
        // Claims take a message's due rows in (not_before, installation_id) order: with installation_id in the
        // index a claim reads its LIMIT rows instead of sorting every pending row of a million-row campaign.
        """
        DROP INDEX message_deliveries_due_by_message;
        CREATE INDEX message_deliveries_due_by_message
            ON message_deliveries (message_id, not_before, installation_id) WHERE state = 'pending';
        """,
        // Custom attributes of installations (personalised messages): one JSON object per installation, jsonb so
        // audiences can filter on them in the database.
        """
        ALTER TABLE installations ADD COLUMN attributes jsonb;
        """,
        // Audiences: the sortable key of a version (`VersionKey` in Swift computes the same text for SQLite),
        // indexed for counts narrowed by app version. Not `updated_at` (last_seen): every registration changes
        // it, and an index on it would take heap-only updates away from the hottest write.
        #"""
        CREATE FUNCTION tidings_version_key(version text) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
            SELECT CASE WHEN bool_or(length(ltrim(raw, '0')) > 30) THEN NULL
                ELSE string_agg(chr(64 + length(ltrim(raw, '0'))) || ltrim(raw, '0'), '.' ORDER BY position) END
            FROM unnest(string_to_array(
                regexp_replace(substring(version FROM '^[0-9]+(?:\.[0-9]+)*'), '(\.0+)+$', ''), '.'))
                WITH ORDINALITY AS component(raw, position)
        $$;
        CREATE INDEX installations_app_version_key
            ON installations (app_id, (tidings_version_key(app_version)) COLLATE "C");
        """#,
        // APNs keys and FCM service accounts, shared by every instance instead of files in each data directory.
        """
        CREATE TABLE push_credentials (
            app_id text NOT NULL REFERENCES apps(id),
            provider text NOT NULL,
            secret bytea NOT NULL,
            settings text NOT NULL,
            updated_at bigint NOT NULL,
            PRIMARY KEY (app_id, provider)
        );
        """,
        // Events and their ids stop referencing apps. The check looked the app up for every row, two lookups
        // per event: a quarter of PostgreSQL's CPU during ingest. It guarded nothing: an event is written only
        // for the app its key authenticates, and apps are never deleted. (SQLite declares the same references
        // without enforcing them.)
        """
        ALTER TABLE event_ids DROP CONSTRAINT event_ids_app_id_fkey;
        ALTER TABLE events DROP CONSTRAINT events_app_id_fkey;
        """,
        // Installations cost PostgreSQL less to write (BENCHMARKS.md, *Installations cheaper for PostgreSQL to write*):
        // - They store the key of their app version, which tidingsd computes as it writes them (`VersionKey`),
        //   instead of an index on `tidings_version_key(app_version)`: PostgreSQL ran that SQL function, and
        //   planned its query, for every installation written. The triggers keep the key right for rows
        //   written by a tidingsd of an earlier version during a rolling upgrade; their conditions are false
        //   for this version's writes, so they cost nothing then.
        // - They stop referencing apps, as events did (the version before): the check looked the app up for
        //   every installation written, and an installation is written only for the app its key authenticates.
        """
        ALTER TABLE installations DROP CONSTRAINT installations_app_id_fkey;
        ALTER TABLE installations ADD COLUMN app_version_key text COLLATE "C";
        UPDATE installations SET app_version_key = tidings_version_key(app_version) WHERE app_version IS NOT NULL;
        DROP INDEX installations_app_version_key;
        CREATE INDEX installations_app_version_key ON installations (app_id, app_version_key);
        CREATE FUNCTION tidings_installation_version_key() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            NEW.app_version_key := tidings_version_key(NEW.app_version);
            RETURN NEW;
        END
        $$;
        CREATE TRIGGER installations_version_key_on_insert BEFORE INSERT ON installations FOR EACH ROW
            WHEN (NEW.app_version IS NOT NULL AND NEW.app_version_key IS NULL)
            EXECUTE FUNCTION tidings_installation_version_key();
        CREATE TRIGGER installations_version_key_on_update BEFORE UPDATE ON installations FOR EACH ROW
            WHEN (NEW.app_version IS DISTINCT FROM OLD.app_version
                AND NEW.app_version_key IS NOT DISTINCT FROM OLD.app_version_key)
            EXECUTE FUNCTION tidings_installation_version_key();
        """,
        // The client address of each audited write (a trusted proxy's client, else the TCP peer).
        """
        ALTER TABLE audit_log ADD COLUMN address text;
        """,
        // Answers kept under Idempotency-Keys for 24 hours, per app and credential (IdempotencyStore).
        """
        CREATE TABLE idempotency_keys (
            scope text COLLATE "C" NOT NULL,
            key text COLLATE "C" NOT NULL,
            fingerprint bytea NOT NULL,
            status bigint,
            headers text,
            body bytea,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            locked_until bigint NOT NULL,
            PRIMARY KEY (scope, key)
        );
        CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
        """,
        // Browsers and addresses each operator signed in from, so failed guesses elsewhere cannot lock them out.
        """
        CREATE TABLE operator_sign_in_trust (
            operator_name text COLLATE "C" NOT NULL REFERENCES operators(name),
            kind text NOT NULL,
            digest bytea NOT NULL,
            last_used_at bigint NOT NULL,
            PRIMARY KEY (operator_name, kind, digest)
        );
        """,
        // Every state-changing call is audited, by keys too: which credential, which key; `at` for retention.
        """
        ALTER TABLE audit_log ADD COLUMN credential text NOT NULL DEFAULT 'operator';
        ALTER TABLE audit_log ADD COLUMN key_id text;
        CREATE INDEX audit_log_at ON audit_log (at);
        """,
        // The fence of each delivery's claim: raised by every claim and every release, so an outcome or a send
        // checked against the epoch a worker claimed under matches no row once the claim was taken from it.
        """
        ALTER TABLE message_deliveries ADD COLUMN claim_epoch bigint NOT NULL DEFAULT 0;
        """,
        // A local-time delivery's own due time (kept when a retry or a night moves not_before: the schedule shows
        // it) and its own expiry (due time plus the message's time to live).
        """
        ALTER TABLE message_deliveries ADD COLUMN due_at bigint;
        ALTER TABLE message_deliveries ADD COLUMN expires_at bigint;
        """,
        // Shared rates (message rates, app ceilings, key rates): each one's next free slot, in microseconds on
        // the database's clock, so every instance takes its slots from one schedule.
        """
        CREATE TABLE rate_schedules (
            name text COLLATE "C" PRIMARY KEY,
            next_at bigint NOT NULL
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
        ALTER TABLE message_deliveries ADD COLUMN split_user_id text COLLATE "C";
        ALTER TABLE events ADD COLUMN opens_app smallint;
        """,
        // Erasure that erases: each app's key for the pseudonyms and tombstones of erased users, the tombstones
        // (a keyed digest of the user id, never the id), and the `user.deleted` notices waiting for each
        // forwarder, removed once delivered (the one deliberate copy of an erased id).
        """
        CREATE TABLE erasure_keys (
            app_id text PRIMARY KEY REFERENCES apps(id),
            key bytea NOT NULL,
            created_at bigint NOT NULL
        );
        CREATE TABLE erased_users (
            app_id text NOT NULL REFERENCES apps(id),
            digest bytea NOT NULL,
            erased_at bigint NOT NULL,
            PRIMARY KEY (app_id, digest)
        );
        CREATE TABLE erasure_notices (
            id text PRIMARY KEY,
            forwarder_id text NOT NULL REFERENCES forwarders(id),
            app_id text NOT NULL,
            user_id text NOT NULL,
            pseudonym text NOT NULL,
            erased_at bigint NOT NULL
        );
        CREATE INDEX erasure_notices_forwarder ON erasure_notices (forwarder_id, erased_at);
        """,
        // Operators' TOTP second factors (the secret sealed), their recovery codes by digest, the challenges of
        // sign-ins waiting for a code, and failed sign-in counts shared by every instance on the store.
        """
        CREATE TABLE operator_second_factors (
            operator_name text COLLATE "C" PRIMARY KEY REFERENCES operators(name),
            secret bytea NOT NULL,
            confirmed_at bigint,
            last_used_step bigint NOT NULL,
            recovery_salt bytea NOT NULL,
            created_at bigint NOT NULL
        );
        CREATE TABLE operator_recovery_codes (
            operator_name text COLLATE "C" NOT NULL REFERENCES operators(name),
            digest bytea NOT NULL,
            PRIMARY KEY (operator_name, digest)
        );
        CREATE TABLE operator_sign_in_challenges (
            id_digest bytea PRIMARY KEY,
            operator_name text COLLATE "C" NOT NULL REFERENCES operators(name),
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            tries integer NOT NULL
        );
        CREATE TABLE sign_in_failures (
            bucket text COLLATE "C" PRIMARY KEY,
            level bigint NOT NULL,
            updated_at bigint NOT NULL
        );
        CREATE INDEX sign_in_failures_updated ON sign_in_failures (updated_at);
        """,
        // Split tests that pick their winner: each test's decision, due its wait after the test's audience is
        // resolved, then what was decided, on which numbers, and the follow-up message sending the winner.
        """
        CREATE TABLE split_decisions (
            message_id text COLLATE "C" PRIMARY KEY,
            app_id text COLLATE "C" NOT NULL,
            state text NOT NULL,
            after_ms bigint NOT NULL,
            not_before bigint NOT NULL,
            decide_at bigint,
            decided_at bigint,
            follow_up_message_id text COLLATE "C",
            decision text
        );
        CREATE INDEX split_decisions_due ON split_decisions (state, decide_at);
        """,
        // Bulk imports: each import's cursor and counts, written with each of its batches.
        """
        CREATE TABLE imports (
            app_id text COLLATE "C" NOT NULL,
            import_id text COLLATE "C" NOT NULL,
            profile text NOT NULL,
            rows_done bigint NOT NULL,
            imported bigint NOT NULL,
            updated bigint NOT NULL,
            unchanged bigint NOT NULL,
            rejected bigint NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            PRIMARY KEY (app_id, import_id)
        );
        """,
        // Journeys: their versions, one run per person in one, entry history, per-step counts and the queue of
        // signals (events and attribute changes) the engine reacts to.
        """
        CREATE TABLE journeys (
            id text COLLATE "C" PRIMARY KEY,
            app_id text COLLATE "C" NOT NULL,
            name text NOT NULL,
            state text NOT NULL,
            version bigint NOT NULL,
            trigger_kind text NOT NULL,
            trigger_key text NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL
        );
        CREATE INDEX journeys_app ON journeys(app_id, created_at);
        CREATE TABLE journey_versions (
            journey_id text COLLATE "C" NOT NULL,
            version bigint NOT NULL,
            definition text NOT NULL,
            created_at bigint NOT NULL,
            PRIMARY KEY (journey_id, version)
        );
        CREATE TABLE journey_runs (
            id text COLLATE "C" PRIMARY KEY,
            journey_id text COLLATE "C" NOT NULL,
            app_id text COLLATE "C" NOT NULL,
            version bigint NOT NULL,
            subject text COLLATE "C" NOT NULL,
            state text NOT NULL,
            step_id text COLLATE "C" NOT NULL,
            resume_step text,
            due_at bigint,
            wait_event text,
            on_event_step text,
            entered_at bigint NOT NULL,
            ended_at bigint,
            end_reason text,
            entry_key text COLLATE "C" NOT NULL,
            walks bigint NOT NULL DEFAULT 0,
            last_send_step text,
            epoch bigint NOT NULL DEFAULT 0,
            owner text,
            lease_until bigint
        );
        CREATE UNIQUE INDEX journey_runs_one_at_a_time ON journey_runs(journey_id, subject)
            WHERE state IN ('ready', 'waiting');
        CREATE UNIQUE INDEX journey_runs_entry ON journey_runs(journey_id, entry_key);
        CREATE INDEX journey_runs_due ON journey_runs(due_at) WHERE state IN ('ready', 'waiting');
        CREATE INDEX journey_runs_subject ON journey_runs(app_id, subject) WHERE state IN ('ready', 'waiting');
        CREATE TABLE journey_entries (
            journey_id text COLLATE "C" NOT NULL,
            subject text COLLATE "C" NOT NULL,
            last_entered_at bigint NOT NULL,
            times bigint NOT NULL,
            PRIMARY KEY (journey_id, subject)
        );
        CREATE TABLE journey_counts (
            journey_id text COLLATE "C" NOT NULL,
            step_id text COLLATE "C" NOT NULL,
            metric text NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (journey_id, step_id, metric)
        );
        CREATE TABLE journey_signals (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app_id text COLLATE "C" NOT NULL,
            kind text NOT NULL,
            name text NOT NULL,
            installation_id text COLLATE "C" NOT NULL,
            user_id text,
            value text,
            attributes text,
            occurred_at bigint NOT NULL
        );
        """,
        // Audience conditions on events read the installations with such events from this index alone (as on
        // SQLite); the complement asks events_installation per installation.
        """
        CREATE INDEX events_type_time ON events (app_id, type, occurred_at, installation_id);
        """,
        // User profiles: attributes set for a user, which every device of the user shares.
        """
        CREATE TABLE user_profiles (
            app_id text COLLATE "C" NOT NULL,
            user_id text COLLATE "C" NOT NULL,
            attributes jsonb NOT NULL,
            updated_at bigint NOT NULL,
            PRIMARY KEY (app_id, user_id)
        );
        """,
        // Saved segments: named audience expressions that `segment:NAME` stands for.
        """
        CREATE TABLE segments (
            app_id text COLLATE "C" NOT NULL,
            segment_id text COLLATE "C" NOT NULL,
            name text COLLATE "C" NOT NULL,
            expression text NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            PRIMARY KEY (app_id, segment_id)
        );
        CREATE UNIQUE INDEX segments_name ON segments (app_id, name);
        """,
        // The messages a claim looks at (every one queued, resolving or sending, oldest first), without a scan of
        // every message ever sent: with journeys that is thousands of one-push messages a minute.
        """
        CREATE INDEX messages_in_flight ON messages (created_at, id) WHERE state IN ('queued', 'resolving', 'sending');
        """,
        // Split tests in journey send steps (docs/journeys.md): one per journey version and step, decided once; and
        // the messages each test's share was sent, whose conversions decide it.
        """
        CREATE TABLE journey_step_tests (
            app_id text COLLATE "C" NOT NULL,
            journey_id text COLLATE "C" NOT NULL,
            version BIGINT NOT NULL,
            step_id text COLLATE "C" NOT NULL,
            started_at BIGINT NOT NULL,
            test_ends_at BIGINT NOT NULL,
            decide_at BIGINT NOT NULL,
            rule text NOT NULL,
            decided_at BIGINT,
            winner text,
            decision text,
            PRIMARY KEY (journey_id, version, step_id)
        );
        CREATE INDEX journey_step_tests_due ON journey_step_tests(decide_at) WHERE decided_at IS NULL;
        CREATE TABLE journey_step_test_sends (
            app_id text COLLATE "C" NOT NULL,
            journey_id text COLLATE "C" NOT NULL,
            version BIGINT NOT NULL,
            step_id text COLLATE "C" NOT NULL,
            message_id text COLLATE "C" NOT NULL,
            PRIMARY KEY (journey_id, version, step_id, message_id)
        );
        """,
        // Membership of the segment a segment-triggered journey names, per person, so that a join is a transition
        // (docs/journeys.md); the row with an empty subject marks the members the journey started with as taken.
        """
        CREATE TABLE journey_segment_members (
            journey_id text COLLATE "C" NOT NULL,
            segment text COLLATE "C" NOT NULL,
            subject text COLLATE "C" NOT NULL,
            member boolean NOT NULL,
            joins bigint NOT NULL,
            changed_at bigint NOT NULL,
            PRIMARY KEY (journey_id, segment, subject)
        );
        """,
        // Claims read `message_deliveries_due_by_message` per message; the index of every pending row by time
        // served a claim across messages that is gone, and cost each delivery two B-tree writes (issue #39).
        """
        DROP INDEX message_deliveries_pending;
        """,
        // Events are found by installation, message and campaign through ranges of `seq` (EventScope), as on
        // SQLite, instead of three indexes that cost every event a B-tree insert each (issue #39). A batch takes
        // one `nextval` and numbers its events from it, so its `seq`s are consecutive whatever other batches do
        // at the same time: `events_seq` steps by `eventSequenceBlock`. A range keeps its batch's `received_at`,
        // the partition key, so a lookup reads one partition per range and retention drops ranges with their
        // month. Existing events get one range each.
        """
        CREATE TABLE event_ranges (
            app_id text COLLATE "C" NOT NULL,
            scope text NOT NULL,
            scope_id text COLLATE "C" NOT NULL,
            first_seq bigint NOT NULL,
            last_seq bigint NOT NULL,
            received_at bigint NOT NULL,
            PRIMARY KEY (app_id, scope, scope_id, first_seq)
        );
        INSERT INTO event_ranges (app_id, scope, scope_id, first_seq, last_seq, received_at)
            SELECT app_id, 'installation', installation_id, seq, seq, received_at FROM events
            UNION ALL
            SELECT app_id, 'message', message_id, seq, seq, received_at FROM events WHERE message_id IS NOT NULL
            UNION ALL
            SELECT app_id, 'campaign', campaign_id, seq, seq, received_at FROM events WHERE campaign_id IS NOT NULL;
        DROP INDEX events_installation;
        DROP INDEX events_campaign;
        DROP INDEX events_message;
        ALTER SEQUENCE events_seq INCREMENT BY 1024;
        """,
        // Only sent and failed deliveries are counted by day (the overview), and a delivery is neither while it
        // waits or is sent: indexing every row by time cost each delivery an index entry when it was resolved and
        // another when its outcome moved it (issue #39).
        """
        DROP INDEX message_deliveries_app_updated;
        CREATE INDEX message_deliveries_app_updated ON message_deliveries (app_id, updated_at)
            WHERE state IN ('sent', 'failed');
        """,
        // Deliveries stop referencing messages, as installations and events stopped referencing apps: the check
        // ran a look-up of the message for every delivery written, a chunk's thousand at a time, and a delivery
        // is written only by the message's own resolution, in a transaction that has just read or written the
        // message. Messages are never deleted (issue #39).
        """
        ALTER TABLE message_deliveries DROP CONSTRAINT message_deliveries_message_id_fkey;
        """,
        // An upsert that takes a token from another installation looks the holder up by app and token, which
        // `installations_apns_token` (and its VoIP and FCM peers) answers at once. With statistics from before an
        // app's installations existed, every index led by the app looks as cheap as that one, and PostgreSQL
        // took the smallest, the app versions', and read every installation of the app for each token moved:
        // up to 5 ms a move instead of 5 µs (issue #39, BENCHMARKS.md). Partial, it is
        // no candidate for statements that do not compare versions; those that do imply the key is set.
        """
        DROP INDEX installations_app_version_key;
        CREATE INDEX installations_app_version_key ON installations (app_id, app_version_key)
            WHERE app_version_key IS NOT NULL;
        """,
        // A silent instance's claims are found among all claims, through `message_deliveries_claimed`: the
        // instance is matched by a prefix of the worker id, which no index on `claimed_by` serves as a look-up.
        // The second partial index of the claims cost every claim a B-tree insert (issue #39).
        """
        DROP INDEX message_deliveries_claimed_by;
        """,
    ]

    /// How many `seq`s each `nextval('events_seq')` reserves: the most events one insert statement numbers
    /// (``insertEvents(appID:events:receivedAt:signalling:)`` splits larger batches).
    static let eventSequenceBlock = 1024

    /// The advisory lock (`pg_advisory_lock`) migrations run under, so two instances starting together take
    /// turns: the second finds the schema current.
    static let migrationLock: Int64 = 0x7469_6469_6E67_7301
    /// The advisory lock creating an event partition runs under.
    static let partitionLock: Int64 = 0x7469_6469_6E67_7302

    static func schemaVersion(_ db: PostgresConnection) throws -> Int {
        Int(try db.scalar("SELECT COALESCE(MAX(version), 0)::bigint FROM schema_version") ?? 0)
    }

    /// Applies every migration newer than the database's `schema_version`, each in its own transaction, under
    /// the migration lock.
    static func migrate(_ db: PostgresConnection) throws {
        try db.execute("SELECT pg_advisory_lock(\(migrationLock))")
        defer { try? db.execute("SELECT pg_advisory_unlock(\(migrationLock))") }
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_version (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let current = try schemaVersion(db)
        guard current <= migrations.count else {
            throw StoreError(
                code: .conflict,
                message:
                    "the database is at schema version \(current), newer than this tidingsd knows (\(migrations.count))"
            )
        }
        for version in current..<migrations.count {
            try db.transaction {
                try db.execute(migrations[version])
                try db.run("INSERT INTO schema_version (version) VALUES ($1)", [.integer(Int64(version + 1))])
            }
        }
    }

    // MARK: Event partitions

    /// Creates the partition of `events` for the month `receivedAt` falls in, unless it is known to exist.
    ///
    /// Runs in its own short transaction under the partition lock, before the insert that needs it. Should
    /// the default partition already hold rows of that month (a partition dropped by hand), PostgreSQL
    /// refuses; the month's events then keep going to the default partition, which is still correct.
    func ensureEventPartition(receivedAt: Int64) throws {
        let partition = EventPartition(containing: receivedAt)
        if knownPartitions.withLock({ $0.contains(partition.key) }) { return }
        do {
            try write { db in
                try db.execute("SELECT pg_advisory_xact_lock(\(Self.partitionLock))")
                try db.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(partition.name) PARTITION OF events
                    FOR VALUES FROM (\(partition.start)) TO (\(partition.end))
                    """)
            }
        } catch let error as PostgresError where error.sqlState == "23514" {
            // check_violation: the default partition holds rows of this month; they stay there.
        }
        knownPartitions.withLock { _ = $0.insert(partition.key) }
    }
}

/// One month of events by arrival time, in UTC: `[start, end)` in unix milliseconds.
struct EventPartition: Hashable {
    var year: Int
    var month: Int
    var start: Int64
    var end: Int64

    init(containing milliseconds: Int64) {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let components = Self.calendar.dateComponents([.year, .month], from: date)
        self.init(year: components.year ?? 1970, month: components.month ?? 1)
    }

    /// The partition a table is named after (`events_p202701`); nil for any other name.
    init?(name: String) {
        guard name.hasPrefix("events_p"), name.count == 14, let digits = Int(name.dropFirst(8)) else { return nil }
        let (year, month) = digits.quotientAndRemainder(dividingBy: 100)
        guard (1...12).contains(month) else { return nil }
        self.init(year: year, month: month)
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    init(year: Int, month: Int) {
        self.year = year
        self.month = month
        let calendar = Self.calendar
        let first = calendar.date(from: DateComponents(year: year, month: month, day: 1))!
        let next = calendar.date(byAdding: .month, value: 1, to: first)!
        start = Int64((first.timeIntervalSince1970 * 1000).rounded())
        end = Int64((next.timeIntervalSince1970 * 1000).rounded())
    }

    var key: Int { year * 100 + month }
    /// `events_p202701` for January 2027.
    var name: String { "events_p" + String(format: "%04d%02d", year, month) }
}
