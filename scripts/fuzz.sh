#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer and runs each on its checked-in
# corpus (Fuzz/corpus/<name>), for FUZZ_SECONDS seconds each (60 by default; the test command
# runs them so). New inputs that reach new code go to a scratch corpus, not the checked-in
# one; a crash is written to .build/fuzz/crashes/ and fails the run.
#
#     bash scripts/fuzz.sh                      # every target (FuzzQuery, FuzzFile, FuzzNode), a minute each
#     FUZZ_SECONDS=600 bash scripts/fuzz.sh     # ten minutes each: after changing the parser or the file reader
#     bash scripts/fuzz.sh FuzzQuery            # one target
#     .build/debug/FuzzQuery crash-<hash>       # replay an input with a plain build
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzQuery FuzzFile FuzzNode)
build=.build/fuzz
mkdir -p "$build/crashes"
# libFuzzer without its own main (SwiftPM gives each executable a main of its own, which
# calls LLVMFuzzerRunDriver; see Fuzz/FuzzSupport), and the coverage -sanitize=fuzzer adds.
fuzzer_library="$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/clang/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a"
for target in "${targets[@]}"; do
    swift build --scratch-path "$build" --product "$target" \
        -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
        -Xswiftc -D -Xswiftc FUZZING -Xlinker "$fuzzer_library" -Xlinker -lstdc++
done
for target in "${targets[@]}"; do
    corpus="Fuzz/corpus/$(echo "${target#Fuzz}" | tr '[:upper:]' '[:lower:]')"
    scratch="$build/corpus-$target"
    mkdir -p "$scratch"
    echo "fuzzing $target for ${seconds}s from $corpus"
    # Leak detection is off: a realm's caches live as long as the process, which libFuzzer
    # would report as leaks at exit.
    ASAN_OPTIONS="detect_leaks=0" "$build/debug/$target" "$scratch" "$corpus" \
        -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
        -artifact_prefix="$build/crashes/$target-" -print_final_stats=1
done
