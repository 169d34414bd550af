#!/usr/bin/env bash
# The whole test suite; the DocC archive, with zero warnings and every public symbol documented
# (scripts/docs.sh); the concurrency tests again under ThreadSanitizer (in a build directory of
# their own, so the two builds do not invalidate each other), with the engine's tests of work
# done on another thread during a transaction (leaves encoded and pages written ahead of the
# commit), where any report fails; then each fuzz target for a minute (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
swift test
bash scripts/docs.sh
TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
    swift test --sanitize=thread --scratch-path .build/tsan --filter 'AsyncRealmConcurrencyTests|EarlyPageWritesTests|TreeTests|ShortLockedTests'
bash scripts/fuzz.sh
