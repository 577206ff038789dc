#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the PostgreSQL store's tests (Examples/DiaryServer/Tests/DiaryPostgresTests).
#
#   eval "$(scripts/postgres.sh start)"   # prints DIARY_TEST_DATABASE_URL and DIARY_POSTGRES_DIR exports
#   scripts/postgres.sh stop              # stops the cluster in $DIARY_POSTGRES_DIR and deletes it
#
# The cluster lives in a new temporary directory, listens on 127.0.0.1 only, on a free port, trusts loopback
# connections (and nothing else), and runs with fsync and synchronous_commit off: it is for tests, never for data.
# It has a database `diary_test` with the pg_trgm extension. Run as root, the server runs as the `postgres` user.
# Needs Debian's postgresql-15, which it installs when missing and run as root; set PG_BIN to use binaries elsewhere.
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"

die() {
    echo "postgres.sh: $*" >&2
    exit 1
}

# Runs a command as the cluster's owner: the `postgres` user when we are root (the server refuses to run as root).
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
    if [ ! -x "$PG_BIN/initdb" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "postgres.sh: installing postgresql-15" >&2
        # No default cluster: Debian's package would otherwise create and start one on port 5432 and leave it running.
        mkdir -p /etc/postgresql-common/createcluster.d
        echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/diary-sdk-tests.conf
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15; } >&2 \
            || die "could not install postgresql-15"
    fi
    [ -x "$PG_BIN/initdb" ] || die "no PostgreSQL 15 in $PG_BIN (apt-get install -y postgresql-15)"
    local dir port
    dir="$(mktemp -d "${TMPDIR:-/tmp}/diary-postgres.XXXXXX")"
    chmod 755 "$dir"
    mkdir "$dir/data" "$dir/socket"
    if [ "$(id -u)" -eq 0 ]; then chown -R postgres: "$dir"; fi

    as_owner "$PG_BIN/initdb" --pgdata="$dir/data" --username=postgres --auth=reject --encoding=UTF8 \
        --locale=C.UTF-8 --no-instructions >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; die "initdb failed"; }

    # Trust on loopback only; every other connection is rejected (initdb's --auth=reject covers the rest).
    as_owner tee "$dir/data/pg_hba.conf" >/dev/null <<'EOF'
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
host    all       all   127.0.0.1/32   trust
EOF

    # Test settings: nothing in this cluster is meant to survive a crash.
    as_owner tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/socket'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
max_pred_locks_per_transaction = 256
EOF

    # A port can be taken between choosing it and binding it: try a few.
    local attempt started=0
    for attempt in 1 2 3 4 5; do
        port="$(free_port)"
        if as_owner "$PG_BIN/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait --timeout=60 \
            -o "-c port=$port" \
            start >/dev/null 2>&1; then
            started=1
            break
        fi
    done
    if [ "$started" -ne 1 ]; then
        cat "$dir/server.log" >&2 || true
        rm -rf "$dir"
        die "the server did not start"
    fi

    as_owner "$PG_BIN/psql" --quiet --no-psqlrc --host="$dir/socket" --port="$port" --username=postgres \
        --dbname=postgres --set=ON_ERROR_STOP=1 >/dev/null <<'EOF' \
        || { stop_dir "$dir"; die "could not create the test database"; }
CREATE DATABASE diary_test;
\connect diary_test
CREATE EXTENSION pg_trgm;
EOF

    echo "export DIARY_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/diary_test"
    echo "export DIARY_POSTGRES_DIR=$dir"
}

# Stops the cluster in a directory this script made, and deletes the directory.
stop_dir() {
    local dir="$1"
    case "$dir" in
    */diary-postgres.*) ;;
    *) die "$dir is not a cluster this script started" ;;
    esac
    [ -d "$dir" ] || die "$dir does not exist"
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$PG_BIN/pg_ctl" --pgdata="$dir/data" --mode=fast --wait stop >/dev/null 2>&1 \
            || as_owner "$PG_BIN/pg_ctl" --pgdata="$dir/data" --mode=immediate --wait stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case "${1:-}" in
start) start ;;
stop)
    [ -n "${DIARY_POSTGRES_DIR:-}" ] || die "DIARY_POSTGRES_DIR is not set (eval the output of 'start')"
    stop_dir "$DIARY_POSTGRES_DIR"
    ;;
*) die "usage: $0 start|stop" ;;
esac
