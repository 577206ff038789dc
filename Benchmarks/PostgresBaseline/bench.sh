#!/usr/bin/env bash
# Issue 12's benchmark (docs/PERFORMANCE.md, "Reference server on PostgreSQL"): a feed page, a search, an author's
# posts and a create post, with `wrk` (1 thread, 50 connections), against three servers side by side in one run:
#   pg    the reference server (release) on PostgreSQL (DIARY_DATABASE_URL)
#   bare  BareDiaryServer (this package, release): the same tables through postgres-nio, tuned SQL, same JSON
#   file  the reference server on the file store (no DIARY_DATABASE_URL), for the record
# Each round runs every route on every server (the servers' order rotating from round to round); after each create
# phase the posts it made are deleted again and the tables vacuumed (PostgreSQL), so every round reads the same data
# without the dead rows of thousands of deletes at the newest end of every listing, which autovacuum leaves for
# long at 1,000,000 posts (its threshold is a fifth of the table); the same VACUUM analyses them, so the inserts and
# deletes of create phases never set off autoanalyze of a 1,000,000-row table in the middle of a later phase (its
# threshold is a tenth of the table: about once in three create phases). The VACUUM cleans the indexes whatever the
# number of dead rows (INDEX_CLEANUP ON): by default PostgreSQL 14+ skips that when they sit on under 2 % of the
# table's pages, which left a phase's 20,000 deleted posts in row_post_feed at the very end a search starts from,
# growing round by round (PostgreSQL CPU per search 970, 1,179, 1,482 µs in rounds 1–3). Server CPU per
# request is utime+stime from /proc/<pid>/stat around the phase, for the server and for the whole PostgreSQL
# cluster; RSS (VmRSS, VmHWM) is read at the end. Each phase starts after a `sync`, so none pays for the writeback of
# an earlier one.
#
#   Benchmarks/PostgresBaseline/bench.sh POSTS[,POSTS...] [ROUNDS] [SECONDS]     e.g. bench.sh 10000 3 10
#
# Several post counts (bench.sh 10000,1000000 3 10) run side by side: a cluster and a set of servers per count, all
# up at once, every phase of a round interleaved, so the p99 at one count is compared with the p99 at the other
# within each round, under the same load on the machine (summary.py), not across runs minutes apart.
#
# Environment: REF_BIN, BARE_BIN (default: the release builds in this worktree), CACHE
# (/tmp/diarysdk-bench-cache: the loaded PostgreSQL clusters and file stores are kept there, so a rerun does not
# load again), FILE_STORE=0 to leave the file store out (default: on up to 100,000 posts, which it loads over HTTP).
# PostgreSQL 15 runs with fsync, synchronous_commit and full_page_writes off (as scripts/postgres.sh), shared_buffers
# 512MB. Results: a TSV in $CACHE/results-<POSTS joined by +>-<time>.tsv and a Markdown summary on standard output.
set -euo pipefail

SIZES_ARG="${1:?usage: bench.sh POSTS[,POSTS...] [ROUNDS] [SECONDS]}"
IFS=, read -r -a SIZES <<<"$SIZES_ARG"
POSTS="${SIZES[0]}"
ROUNDS="${2:-3}"
SECONDS_PER_PHASE="${3:-10}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
REF_BIN="${REF_BIN:-$ROOT/Examples/DiaryServer/.build/release/DiaryServer}"
BARE_BIN="${BARE_BIN:-$HERE/.build/release/BareDiaryServer}"
CACHE="${CACHE:-/tmp/diarysdk-bench-cache}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
USERS=100
TEMPLATES=1000
FILE_STORE_SETTING="${FILE_STORE:-}"

die() { echo "bench.sh: $*" >&2; exit 1; }
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
command -v wrk >/dev/null || { apt-get install -y -qq wrk >/dev/null 2>&1 || die "needs wrk (apt-get install wrk)"; }
[ -x "$REF_BIN" ] || die "no reference server at $REF_BIN (swift build -c release --package-path Examples/DiaryServer)"
[ -x "$BARE_BIN" ] || die "no BareDiaryServer at $BARE_BIN (swift build -c release --package-path Benchmarks/PostgresBaseline)"
mkdir -p "$CACHE"
chmod 755 "$CACHE"
[ -f "$CACHE/jwt-secret" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$CACHE/jwt-secret"
SECRET="$(cat "$CACHE/jwt-secret")"

as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

PIDS=()
declare -A CLUSTER_OF PGPORT_OF POSTMASTER_OF VIEWER_OF
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for cluster in "${CLUSTER_OF[@]}"; do
        if [ -f "$cluster/data/postmaster.pid" ]; then
            as_pg "$PG_BIN/pg_ctl" --pgdata="$cluster/data" --mode=fast --wait stop >/dev/null 2>&1 || true
        fi
    done
}
trap cleanup EXIT

# Starts a server binary with the given environment; sets STARTED_PID and STARTED_URL.
start_server() {
    local name="$1"; shift
    local logfile="$CACHE/$name-$POSTS.log"
    env "$@" >"$logfile" 2>&1 &
    STARTED_PID=$!
    PIDS+=("$STARTED_PID")
    for _ in $(seq 1 600); do
        local port
        port="$(grep -o 'listening on 127.0.0.1:[0-9]*' "$logfile" | head -1 | cut -d: -f2 || true)"
        if [ -n "$port" ]; then STARTED_URL="http://127.0.0.1:$port"; return; fi
        kill -0 "$STARTED_PID" 2>/dev/null || { cat "$logfile" >&2; die "$name exited"; }
        sleep 0.1
    done
    die "$name did not start"
}

stop_server() { kill "$1"; wait "$1" 2>/dev/null || true; }

psql_bench() { as_pg "$PG_BIN/psql" --quiet --no-psqlrc --host="$CLUSTER/socket" --port="$PGPORT" --username=postgres --dbname=diary_bench --set=ON_ERROR_STOP=1 "$@"; }

# --- The PostgreSQL cluster, loaded once per post count -------------------------------------------------------------
REF_ARGS=("$REF_BIN" --port 0 --access-token-lifetime 7200)
# Makes POSTS the post count the functions below work on (its cluster, port and database URL).
use_size() {
    POSTS="$1"
    CLUSTER="$CACHE/pg-$POSTS"
    [ -n "${PGPORT_OF[$POSTS]:-}" ] || PGPORT_OF[$POSTS]="$(free_port)"
    CLUSTER_OF[$POSTS]="$CLUSTER"
    PGPORT="${PGPORT_OF[$POSTS]}"
    DB_URL="postgres://postgres@127.0.0.1:$PGPORT/diary_bench"
    REF_PG_ENV=(DIARY_DATABASE_URL="$DB_URL" DIARY_JWT_SECRET="$SECRET" DIARY_AUTH_RATE_LIMIT=0)
    FILE_DIR="$CACHE/file-$POSTS"
    FILE_STORE="${FILE_STORE_SETTING:-$([ "$POSTS" -le 100000 ] && echo 1 || echo 0)}"
}
start_cluster() {
    as_pg "$PG_BIN/pg_ctl" --pgdata="$CLUSTER/data" --log="$CLUSTER/server.log" --wait --timeout=120 \
        -o "-c port=$PGPORT -c unix_socket_directories=$CLUSTER/socket" start >/dev/null
}
# Starts (loading it first if needed) the cluster of the current post count, and loads its file store.
prepare_size() {
    if [ ! -f "$CLUSTER/loaded" ]; then
        log "loading $POSTS posts into a new cluster in $CLUSTER"
        rm -rf "$CLUSTER"
        mkdir -p "$CLUSTER/data" "$CLUSTER/socket"
        [ "$(id -u)" -ne 0 ] || chown -R postgres: "$CLUSTER"
        as_pg "$PG_BIN/initdb" --pgdata="$CLUSTER/data" --username=postgres --auth=reject --encoding=UTF8 \
            --locale=C.UTF-8 --no-instructions >"$CLUSTER/initdb.log"
        printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' | as_pg tee "$CLUSTER/data/pg_hba.conf" >/dev/null
        printf "listen_addresses = '127.0.0.1'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\nmax_pred_locks_per_transaction = 256\nshared_buffers = 512MB\n" \
            | as_pg tee -a "$CLUSTER/data/postgresql.conf" >/dev/null
        start_cluster
        as_pg "$PG_BIN/psql" --quiet --no-psqlrc --host="$CLUSTER/socket" --port="$PGPORT" --username=postgres --dbname=postgres \
            -c "CREATE DATABASE diary_bench" -c "\\connect diary_bench" -c "CREATE EXTENSION pg_trgm" >/dev/null
        start_server seed-pg "${REF_PG_ENV[@]}" "${REF_ARGS[@]}"
        python3 "$HERE/seed.py" "$STARTED_URL" users "$USERS"
        python3 "$HERE/seed.py" "$STARTED_URL" posts "$(( POSTS < TEMPLATES ? POSTS : TEMPLATES ))" "$USERS"
        stop_server "$STARTED_PID"
        if [ "$POSTS" -gt "$TEMPLATES" ]; then
            log "cloning to $POSTS posts"
            psql_bench -v total="$POSTS" -f "$HERE/clone.sql" >/dev/null
        fi
        psql_bench -c "VACUUM ANALYZE" >/dev/null
        psql_bench -At -c "SELECT count(*) FROM public.row_post" | grep -qx "$POSTS" || die "the cluster does not hold $POSTS posts"
        touch "$CLUSTER/loaded"
        log "loaded"
    else
        start_cluster
    fi
    POSTMASTER_OF[$POSTS]="$(head -1 "$CLUSTER/data/postmaster.pid")"

    # --- The file store, loaded over HTTP -----------------------------------------------------------------------------------
    if [ "$FILE_STORE" = 1 ] && [ ! -f "$FILE_DIR.loaded" ]; then
        log "loading $POSTS posts into the file store over HTTP"
        rm -rf "$FILE_DIR"
        start_server seed-file DIARY_JWT_SECRET="$SECRET" DIARY_AUTH_RATE_LIMIT=0 "${REF_ARGS[@]}" --data-dir "$FILE_DIR"
        python3 "$HERE/seed.py" "$STARTED_URL" users "$USERS"
        python3 "$HERE/seed.py" "$STARTED_URL" posts "$POSTS" "$USERS"
        stop_server "$STARTED_PID"
        touch "$FILE_DIR.loaded"
    fi
}

# --- The servers, per post count ---------------------------------------------------------------------------------------
declare -A URL PID TOKEN AUTHOR KIND SIZE
SERVERS=()
BODY='{"title":"A benchmark post","body":"Written by wrk to measure creating a post: a few sentences of text, about as long as a short diary entry that someone shares with everyone.","tags":["bench","diary"],"images":[],"isAnonymous":false}'
for size in "${SIZES[@]}"; do
    use_size "$size"
    prepare_size
    start_server pg "${REF_PG_ENV[@]}" "${REF_ARGS[@]}"
    URL[pg:$size]="$STARTED_URL"; PID[pg:$size]="$STARTED_PID"
    start_server bare DIARY_DATABASE_URL="$DB_URL" DIARY_JWT_SECRET="$SECRET" "$BARE_BIN" --port 0
    URL[bare:$size]="$STARTED_URL"; PID[bare:$size]="$STARTED_PID"
    TOKEN[pg:$size]="$(python3 "$HERE/seed.py" "${URL[pg:$size]}" token)"
    TOKEN[bare:$size]="${TOKEN[pg:$size]}"
    AUTHOR[pg:$size]="$(python3 "$HERE/seed.py" "${URL[pg:$size]}" id 1)"
    AUTHOR[bare:$size]="${AUTHOR[pg:$size]}"
    VIEWER_OF[$size]="$(python3 "$HERE/seed.py" "${URL[pg:$size]}" id 0)"
    SERVERS+=("pg:$size" "bare:$size")
    if [ "$FILE_STORE" = 1 ]; then
        start_server file DIARY_JWT_SECRET="$SECRET" "${REF_ARGS[@]}" --data-dir "$FILE_DIR"
        URL[file:$size]="$STARTED_URL"; PID[file:$size]="$STARTED_PID"
        TOKEN[file:$size]="$(python3 "$HERE/seed.py" "${URL[file:$size]}" token)"
        AUTHOR[file:$size]="$(python3 "$HERE/seed.py" "${URL[file:$size]}" id 1)"
        SERVERS+=("file:$size")
    fi

    # The same JSON: the first page of each read route, from the reference server and the bare one.
    for path in "/v1/feed?size=20" "/v1/posts/search?text=lighthouse&size=20" "/v1/users/${AUTHOR[pg:$size]}/posts?size=20"; do
        for server in pg bare; do
            curl -sf -H "Authorization: Bearer ${TOKEN[$server:$size]}" "${URL[$server:$size]}$path" \
                | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))' >"$CACHE/answer-$server.json"
        done
        cmp -s "$CACHE/answer-pg.json" "$CACHE/answer-bare.json" || die "the bare server's answer to $path differs (see $CACHE/answer-*.json)"
    done
    for server in pg bare; do
        curl -sf -X POST -H "Authorization: Bearer ${TOKEN[$server:$size]}" -H "Content-Type: application/json" -d "$BODY" \
            "${URL[$server:$size]}/v1/posts" | python3 -c 'import json,sys; p=json.load(sys.stdin); [p.pop(k) for k in ("id","createdAt","updatedAt")]; print(json.dumps(p, sort_keys=True))' \
            >"$CACHE/answer-$server.json" || die "$server: POST /v1/posts failed"
    done
    cmp -s "$CACHE/answer-pg.json" "$CACHE/answer-bare.json" || die "the bare server's answer to POST /v1/posts differs (see $CACHE/answer-*.json)"
    log "$size posts: the bare server answers the same JSON on the four routes (a created post: but for its id and dates)"
done
for server in "${SERVERS[@]}"; do KIND[$server]="${server%%:*}"; SIZE[$server]="${server#*:}"; done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
cluster_ticks() {
    local total=0 pid
    local postmaster="${POSTMASTER_OF[$POSTS]}"
    for pid in "$postmaster" $(pgrep -P "$postmaster"); do
        [ -r "/proc/$pid/stat" ] && total=$(( total + $(cpu_ticks "$pid" 2>/dev/null || echo 0) ))
    done
    echo "$total"
}
TICKS="$(getconf CLK_TCK)"
POST_LUA="$CACHE/post.lua"
cat >"$POST_LUA" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$BODY'
EOF
path_of() {
    case "$1" in
    feed) echo "/v1/feed?size=20" ;;
    search) echo "/v1/posts/search?text=lighthouse&size=20" ;;
    author) echo "/v1/users/${AUTHOR[$2]}/posts?size=20" ;;
    create) echo "/v1/posts" ;;
    esac
}
delete_created() {
    psql_bench >/dev/null <<EOF
CREATE TEMP TABLE created AS SELECT key FROM public.ls_posts_by_author_created_at WHERE partition = '${VIEWER_OF[$POSTS]}';
SELECT format('DELETE FROM public.%I WHERE key IN (SELECT key FROM created)', tablename) FROM pg_tables
WHERE schemaname = 'public' AND (tablename LIKE 'ls\_%' OR tablename LIKE 'ix\_%' OR tablename = 'row_post') \gexec
SELECT format('VACUUM (ANALYZE, INDEX_CLEANUP ON) public.%I', tablename) FROM pg_tables
WHERE schemaname = 'public' AND (tablename LIKE 'ls\_%' OR tablename LIKE 'ix\_%' OR tablename = 'row_post') \gexec
EOF
}

RESULTS="$CACHE/results-$(IFS=+; echo "${SIZES[*]}")-$(date -u +%Y%m%dT%H%M%S).tsv"
printf 'posts\tround\troute\tserver\trps\tp50\tp99\trequests\terrors\tserver_cpu_us\tpg_cpu_us\n' >"$RESULTS"
phase() {  # route server seconds record(round or -)
    local route="$1" server="$2" seconds="$3" round="$4" out="$CACHE/wrk.out"
    local lua=() cpu0 pg0 cpu1 pg1
    use_size "${SIZE[$server]}"
    [ "$route" = create ] && lua=(-s "$POST_LUA")
    # Every phase starts with nothing of an earlier one left to write: the file store's journal, the pages
    # PostgreSQL wrote (without fsync) and the vacuum after a create phase. Left to the kernel's writeback, they were
    # written during whichever phase came next: a create at 1,000,000 posts right after the file store's create
    # phase stalled (p99 924 ms against 51 ms in the round where it ran first).
    sync
    cpu0="$(cpu_ticks "${PID[$server]}")"; pg0="$(cluster_ticks)"
    wrk -t1 -c50 -d"${seconds}s" --timeout 10s --latency "${lua[@]}" -H "Authorization: Bearer ${TOKEN[$server]}" \
        "${URL[$server]}$(path_of "$route" "$server")" >"$out"
    cpu1="$(cpu_ticks "${PID[$server]}")"; pg1="$(cluster_ticks)"
    [ "$route" = create ] && [ "${KIND[$server]}" != file ] && delete_created
    [ "$round" = - ] && return
    python3 - "$out" "$POSTS" "$round" "$route" "${KIND[$server]}" "$(( cpu1 - cpu0 ))" "$(( pg1 - pg0 ))" "$TICKS" >>"$RESULTS" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
posts, rnd, route, server, cpu, pg, ticks = sys.argv[2:9]
def ms(value):
    number, unit = re.match(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
p50 = ms(re.search(r"\s50%\s+(\S+)", text).group(1))
p99 = ms(re.search(r"\s99%\s+(\S+)", text).group(1))
requests = int(re.search(r"(\d+) requests in", text).group(1))
errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", text))
errors += sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", text))
per = lambda t: int(t) / int(ticks) * 1e6 / max(requests, 1)
print(f"{posts}\t{rnd}\t{route}\t{server}\t{rps:.1f}\t{p50:.2f}\t{p99:.2f}\t{requests}\t{errors}\t{per(cpu):.0f}\t{per(pg):.0f}")
EOF
    tail -1 "$RESULTS" >&2
}

for size in "${SIZES[@]}"; do use_size "$size"; delete_created; done
log "warming up: 2 s per route and server"
for route in feed search author create; do
    for server in "${SERVERS[@]}"; do phase "$route" "$server" 2 -; done
done
log "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
    for route in feed search author create; do
        count=${#SERVERS[@]}
        for i in $(seq 0 $(( count - 1 ))); do
            phase "$route" "${SERVERS[$(( (i + round) % count ))]}" "$SECONDS_PER_PHASE" "$round"
        done
    done
done
log "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for server in "${SERVERS[@]}"; do
    printf '%s\t%s\t%s\t%s\n' "${KIND[$server]}" "${SIZE[$server]}" "$(grep VmRSS "/proc/${PID[$server]}/status" | awk '{print $2}')" \
        "$(grep VmHWM "/proc/${PID[$server]}/status" | awk '{print $2}')"
done >"$RESULTS.rss"
python3 "$HERE/summary.py" "$RESULTS"
