#!/usr/bin/env bash
# Coverage-guided fuzzing of the feed parser with libFuzzer (Linux, with a Swift toolchain that ships
# libclang_rt.fuzzer, as the swift.org toolchains do).
#
#   scripts/fuzz-feeds.sh [SECONDS | -runs=N] [more libFuzzer flags]      (default: 60 seconds)
#
# Compiles Fuzz/FeedParserFuzz/main.swift together with the parser's sources (Sources/DiarySDK/Feeds without the
# URLSession fetcher) with -sanitize=fuzzer,address into .build/fuzz/ (again only when a source changed), seeds a
# temporary corpus with a copy of the shared feed fixtures ($DIARYSDK_FEEDS_DIR, else ../shared/feeds) and
# Fuzz/FeedParserFuzz/seeds, and runs for the given time or number of inputs. A crash, a sanitizer report, a hang
# (-timeout) or running out of memory ends the run with a non-zero status and leaves the input in Fuzz/artifacts/
# (gitignored). Reproduce one with:  .build/fuzz/feed-parser-fuzz-O Fuzz/artifacts/crash-…
#
# FUZZ_CORPUS=DIR keeps the inputs the run finds in DIR (for example .build/fuzz/corpus) for the next run to start from;
# by default they go to a temporary directory that is removed.
#
# FUZZ_OPTIMIZATION=-Onone compiles in about a third of the time of the default -O, but runs about a seventh of the
# inputs per second: only worth it for a few hundred inputs.
set -euo pipefail
cd "$(dirname "$0")/.."

limit="${1:-60}"
[ "$#" -gt 0 ] && shift
case "$limit" in
  -runs=[0-9]*) budget="$limit" ;;
  '' | *[!0-9]*) echo "usage: $0 [SECONDS | -runs=N] [libFuzzer flags]" >&2; exit 2 ;;
  *) budget="-max_total_time=$limit" ;;
esac

feeds="${DIARYSDK_FEEDS_DIR:-../shared/feeds}"
if [ ! -d "$feeds" ]; then
  echo "error: feed fixtures not found at $feeds (set DIARYSDK_FEEDS_DIR)" >&2
  exit 1
fi

optimization="${FUZZ_OPTIMIZATION:--O}"
case "$optimization" in
  -Onone | -O) ;;
  *) echo "error: FUZZ_OPTIMIZATION must be -O or -Onone" >&2; exit 2 ;;
esac
out=.build/fuzz
binary="$out/feed-parser-fuzz$optimization"
artifacts=Fuzz/artifacts
mkdir -p "$out" "$artifacts"
sources=(Fuzz/FeedParserFuzz/main.swift)
while IFS= read -r file; do sources+=("$file"); done < <(find Sources/DiarySDK/Feeds -name '*.swift' ! -name 'FeedFetching*' | sort)

flags=(-sanitize=fuzzer,address -parse-as-library -module-name FeedParserFuzz -swift-version 6 "$optimization" -g)
if [ -x "$(dirname "$(command -v swiftc)")/ld.lld" ]; then flags+=(-use-ld=lld); fi
# Rebuild when the sources, their list, the flags or the compiler changed.
stamp="$( (printf '%s\n' "${flags[@]}" "${sources[@]}"; cat "${sources[@]}"; swiftc --version 2>&1) | cksum)"
if [ ! -x "$binary" ] || [ "$(cat "$binary.stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "==> Compiling the feed parser fuzz target ($binary)"
  swiftc "${flags[@]}" "${sources[@]}" -o "$binary"
  printf '%s' "$stamp" > "$binary.stamp"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus="${FUZZ_CORPUS:-$work/corpus}"
mkdir -p "$corpus" "$work/feeds"
cp -R "$feeds/." "$work/feeds/"

echo "==> Fuzzing the feed parser ($budget)"
status=0
# Leak checking is off: Foundation and libxml2 keep process-wide caches that LeakSanitizer reports at exit.
ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" "$binary" "$budget" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" "$corpus" "$work/feeds" Fuzz/FeedParserFuzz/seeds || status=$?
if [ "$status" -ne 0 ]; then
  echo "error: the feed parser fuzz target failed (status $status); the input is in $artifacts/" >&2
fi
exit "$status"
