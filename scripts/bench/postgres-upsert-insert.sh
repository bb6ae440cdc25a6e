#!/usr/bin/env bash
# What a registration's row costs PostgreSQL, without tidingsd around it: the INSERT of an upsert group's new
# installations, and what each of its parts adds.
#
#   scripts/bench/postgres-upsert-insert.sh [ROUNDS] [GROUPS]     (defaults: 3 rounds, 2,000 groups of 13)
#   TIDINGSD=/path/to/tidingsd scripts/bench/postgres-upsert-insert.sh
#
# Starts a throwaway PostgreSQL 15 cluster (default durability, a Unix socket in a temporary directory, as
# `nobody` when run as root), lets `tidingsd migrate` create tidingsd's schema, and defines a PL/pgSQL procedure
# that inserts groups of 13 new installations shaped like scripts/bench/upsert.lua's (random ids, tokens and
# users, one app) with the store's statement shape (one array per varying column, `ON CONFLICT (app_id,
# installation_id) DO NOTHING`), one transaction a group, as an upsert group writes them (13 is the group's
# size in `scripts/bench-postgres` at 32 connections). For each variant, in interleaved rounds: empty the
# table, change the schema, warm up with half the groups, checkpoint, then print the CPU microseconds of the
# backend per installation over GROUPS groups. Building the arrays in PL/pgSQL costs every variant alike.
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds="${1:-3}"
groups="${2:-2000}"
source scripts/bench/throwaway-postgres.bash
start_tidings_database postgres-upsert-insert

# $1: what follows the INSERT (its conflict clause, or nothing).
define_procedure() {
    "${sql[@]}" <<SQL
CREATE OR REPLACE PROCEDURE insert_groups(first_group int, group_count int) LANGUAGE plpgsql AS \$\$
DECLARE ids text[]; tokens text[]; users text[]; apps text[]; now bigint;
BEGIN
    FOR g IN first_group..first_group + group_count - 1 LOOP
        now := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        SELECT array_agg(md5(g || '-' || i)), array_agg(md5('t' || g || '-' || i) || md5('u' || g || '-' || i)),
            array_agg('user-' || md5(g || 'u' || i)), array_agg('app_bench'::text)
        INTO ids, tokens, users, apps FROM generate_series(1, 13) i;
        INSERT INTO installations (app_id, installation_id, platform, apns_token, voip_token, fcm_token,
            environment, user_id, consent_notifications, consent_ads, consent_night_ads, permission, locale,
            country, timezone, app_version, sdk_version, os_version, device_model, created_at, updated_at,
            language, app_build, os_name, apns_token_registered_at, voip_token_registered_at,
            fcm_token_registered_at, secret_digest, attributes, app_version_key)
        SELECT a, id, 'ios', t, NULL, NULL, 'production', u, true, false, NULL, 'authorized', 'ja_JP', NULL,
            'Asia/Tokyo', '1.0.0', '0.1.0', '18.1', NULL, now, now, NULL, NULL, NULL, now, NULL, NULL,
            sha256(id::bytea), NULL, 'A1A0A0'
        FROM unnest(apps, ids, tokens, users) AS x(a, id, t, u) $1;
        COMMIT;
    END LOOP;
END \$\$;
SQL
}

# The schema tidingsd made, restored before each variant.
restore_schema() {
    "${sql[@]}" >/dev/null <<'SQL'
TRUNCATE installations;
CREATE UNIQUE INDEX IF NOT EXISTS installations_apns_token ON installations (app_id, apns_token)
    WHERE apns_token IS NOT NULL;
CREATE INDEX IF NOT EXISTS installations_user ON installations (app_id, user_id) WHERE user_id IS NOT NULL;
SQL
    define_procedure "ON CONFLICT (app_id, installation_id) DO NOTHING"
}

variants=(current without-conflict-clause without-user-index without-token-index current-again)
apply_variant() {
    case "$1" in
        current | current-again) ;;
        without-conflict-clause) define_procedure "" ;;
        without-user-index) "${sql[@]}" -c "DROP INDEX installations_user" ;;
        without-token-index) "${sql[@]}" -c "DROP INDEX installations_apns_token" ;;
    esac
}

echo "postgres-upsert-insert: $rounds rounds, $groups groups of 13 a variant, load average $(cut -d' ' -f1-3 /proc/loadavg)"
measure_variants "$rounds" installation "$((groups * 13))" "CALL insert_groups(100000, $groups)" \
    "CALL insert_groups(1, $((groups / 2)))" "CHECKPOINT"
