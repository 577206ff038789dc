#!/usr/bin/env bash
# Counts the SQL statements the reference server sends PostgreSQL for one request of each benchmark route (a feed
# page, a search, an author's posts, creating a post), from PostgreSQL's own statement log (`log_statement = all`).
# Starts a throwaway cluster (scripts/postgres.sh) and the server on it, publishes 60 posts over HTTP (seed.py), then
# logs one request of each route after a warm-up. docs/PERFORMANCE.md, "Reference server on PostgreSQL", has the counts.
#
#   Benchmarks/PostgresBaseline/count-statements.sh [SERVER_BINARY]     SHOW=1 prints the statements too
#
# The change feed polls every 250 ms (the change log, or, with no subscriber, only the current snapshot); its lines
# are counted apart.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${1:-$ROOT/Examples/DiaryServer/.build/debug/DiaryServer}"
[ -x "$BIN" ] || { echo "count-statements.sh: no server at $BIN" >&2; exit 1; }
command -v curl >/dev/null || { echo "count-statements.sh: needs curl" >&2; exit 1; }
cd "$ROOT"
out="$(scripts/postgres.sh start)"
eval "$out"
SPID=""
cleanup() {
    [ -z "$SPID" ] || kill "$SPID" 2>/dev/null || true
    scripts/postgres.sh stop
}
trap cleanup EXIT
PORT_PG="$(echo "$DIARY_TEST_DATABASE_URL" | sed -E 's#.*:([0-9]+)/.*#\1#')"
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql_test() { as_pg /usr/lib/postgresql/15/bin/psql -q --no-psqlrc --host="$DIARY_POSTGRES_DIR/socket" --port="$PORT_PG" -U postgres -d diary_test "$@"; }
LOG="$DIARY_POSTGRES_DIR/diary-server.log"
SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
env DIARY_DATABASE_URL="$DIARY_TEST_DATABASE_URL" DIARY_JWT_SECRET="$SECRET" DIARY_AUTH_RATE_LIMIT=0 "$BIN" --port 0 >"$LOG" 2>&1 &
SPID=$!
port=""
for _ in $(seq 1 300); do
    port="$(grep -o 'listening on 127.0.0.1:[0-9]*' "$LOG" | head -1 | cut -d: -f2 || true)"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$LOG" >&2; echo "count-statements.sh: the server did not start" >&2; exit 1; }
URL="http://127.0.0.1:$port"
python3 "$HERE/seed.py" "$URL" users 5 >/dev/null
python3 "$HERE/seed.py" "$URL" posts 60 5 >/dev/null
TOKEN="$(python3 "$HERE/seed.py" "$URL" token)"
AUTHOR="$(python3 "$HERE/seed.py" "$URL" id 1)"
psql_test -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
SERVER_LOG="$DIARY_POSTGRES_DIR/server.log"
BODY='{"title":"t","body":"b","tags":[],"images":[],"isAnonymous":false}'
request() {
    case "$1" in
    create) curl -s -o /dev/null -X POST -H "Content-Type: application/json" -H "Authorization: Bearer $TOKEN" -d "$BODY" "$URL/v1/posts" ;;
    *) curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" "$URL$1" ;;
    esac
}
for route in "/v1/feed?size=20" "/v1/posts/search?text=lighthouse&size=20" "/v1/users/$AUTHOR/posts?size=20" create; do
    request "$route"
    sleep 0.3
    before="$(wc -l <"$SERVER_LOG")"
    request "$route"
    sleep 0.5
    lines="$(tail -n +"$((before + 1))" "$SERVER_LOG" | grep -E 'LOG:  (statement|execute)' || true)"
    polls="$(grep -cE 'change_log" WHERE|pg_current_snapshot\(\)' <<<"$lines" || true)"
    total="$(grep -c . <<<"$lines" || true)"
    echo "$route: $((total - polls)) statements (and $polls change-feed polls)"
    if [ -n "${SHOW:-}" ]; then grep -vE 'change_log" WHERE|pg_current_snapshot\(\)' <<<"$lines" | sed -E 's/^.*LOG:  //' | cut -c1-200; fi
done
