#!/usr/bin/env bash
# Runs every test: the SDK's own (core, in-memory, file store with crash tests, HTTP against the reference server,
# feeds, then a one-minute fuzz run of the feed parser) and the example programs' (the diary CLI, its demo, the
# examples, an app's view-model tests).
# Builds what the tests need first: the reference server and the examples; the benchmarks are only built.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> Building the reference server (Examples/DiaryServer)"
swift build --package-path Examples/DiaryServer --product DiaryServer
DIARY_SERVER_BIN="$(swift build --package-path Examples/DiaryServer --show-bin-path)/DiaryServer"
export DIARY_SERVER_BIN

echo "==> Building the benchmarks (run them as docs/PERFORMANCE.md says)"
swift build --package-path Benchmarks

echo "==> Running the SDK tests"
swift test

# A short coverage-guided run of the feed parser (libFuzzer, Linux toolchains); any crash fails the test command.
# Longer runs: scripts/fuzz-feeds.sh SECONDS (docs/FEEDS.md, "Fuzzing").
if [ "$(uname -s)" = Linux ]; then
  echo "==> Fuzzing the feed parser for 60 seconds"
  scripts/fuzz-feeds.sh 60
else
  echo "==> Skipping the feed parser fuzz run (libFuzzer runs on Linux toolchains only)"
fi

echo "==> Running the example programs' tests"
swift test --package-path Examples
