#!/usr/bin/env bash
# Runs every test: the SDK's own (core, in-memory, file store, HTTP against the reference server, feeds) and the
# example programs'. Builds what the tests need first (the reference server, the examples, the benchmarks).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> Building the SDK and its tests"
swift build --build-tests

echo "==> Running the SDK tests"
swift test

echo "==> Running the example programs' tests"
swift test --package-path Examples
