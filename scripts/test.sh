#!/usr/bin/env bash
# Runs every test: the SDK's own (core, in-memory, file store with crash tests, HTTP against the reference server,
# feeds, then a one-minute fuzz run of the feed parser), the reference server's unit tests and its PostgreSQL store
# on a throwaway PostgreSQL 15 (started and stopped here), a check of the HTTP
# conformance run against docs/openapi.yaml, and the example programs' (the diary CLI, its demo, the examples, an
# app's view-model tests, and the documentation's snippets: every Swift block of README.md, docs/*.md and the doc
# comments compiled, the guides' end-to-end ones run; the reference server's doc-comment examples compile and run
# with its own tests).
# Builds what the tests need first: the reference server and the examples; the benchmarks are only built.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> Building the reference server (Examples/DiaryServer)"
swift build --package-path Examples/DiaryServer --product DiaryServer
DIARY_SERVER_BIN="$(swift build --package-path Examples/DiaryServer --show-bin-path)/DiaryServer"
export DIARY_SERVER_BIN

echo "==> Building the benchmarks (run them as docs/PERFORMANCE.md says)"
swift build --package-path Benchmarks
swift build --package-path Benchmarks/PostgresBaseline

# The reference server's PostgreSQL store is tested on a real PostgreSQL 15: a throwaway cluster on 127.0.0.1
# (scripts/postgres.sh; installed from Debian's packages when missing and run as root), unless
# DIARY_TEST_DATABASE_URL already names one. Under CI=true its tests fail rather than skip without it.
if [ -z "${DIARY_TEST_DATABASE_URL:-}" ]; then
  echo "==> Starting a throwaway PostgreSQL 15 on 127.0.0.1 (scripts/postgres.sh)"
  # Captured first: a failure inside `eval "$(…)"` would not stop the script.
  postgres_exports="$(scripts/postgres.sh start)"
  eval "$postgres_exports"
  [ -n "${DIARY_TEST_DATABASE_URL:-}" ] || { echo "test.sh: scripts/postgres.sh gave no database URL" >&2; exit 1; }
  trap 'scripts/postgres.sh stop' EXIT
fi

echo "==> Running the reference server's own tests (with the PostgreSQL store's conformance and concurrency tests)"
swift test --package-path Examples/DiaryServer

echo "==> Running the SDK tests (the HTTP conformance run is recorded for the contract check)"
DIARY_CONTRACT_LOG="$(mktemp "${TMPDIR:-/tmp}/diary-contract.XXXXXX")"
export DIARY_CONTRACT_LOG
# Everything but the offline backend's suites, which run on their own below: their devices (each with a sync loop and
# a live change stream) and crash rounds, run beside the rest on two cores, pushed other suites' timed waits over.
swift test --skip "Offline"

echo "==> Checking every recorded request and response against docs/openapi.yaml"
python3 -m pip install -q -r scripts/requirements-contract.txt
python3 scripts/validate_contract.py docs/openapi.yaml "$DIARY_CONTRACT_LOG"
# The same run against the server on PostgreSQL, recorded in a file of its own.
python3 scripts/validate_contract.py docs/openapi.yaml "$DIARY_CONTRACT_LOG.postgres"

echo "==> Running the offline backend's tests (conformance while online, scenarios against the server, kill -9 rounds)"
env -u DIARY_CONTRACT_LOG swift test --filter "Offline"

# A short coverage-guided run of the feed parser (libFuzzer, Linux toolchains); any crash fails the test command.
# Longer runs: scripts/fuzz-feeds.sh SECONDS (docs/FEEDS.md, "Fuzzing").
if [ "$(uname -s)" = Linux ]; then
  echo "==> Fuzzing the feed parser for 60 seconds"
  scripts/fuzz-feeds.sh 60
else
  echo "==> Skipping the feed parser fuzz run (libFuzzer runs on Linux toolchains only)"
fi

echo "==> Running the example programs' tests (with the documentation's snippets: DocSnippetTests)"
swift test --package-path Examples
