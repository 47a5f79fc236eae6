#!/usr/bin/env bash
# Fuzzes the config loader (ConfigLoader.load(data:file:)) with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz-config.sh [seconds]     (default 60; 0 builds only)
#
# `swift build` products are not instrumented for fuzzing, so this compiles the Container and
# Plugins sources itself (two modules, -sanitize=fuzzer,address) and links them with the entry
# point in Fuzz/ConfigFuzzer into one binary, under .build/fuzz. The seed corpus is the shipped
# configs (Configs/*.json and Configs/*/*.json: overlays, reload versions, settings) plus the hand-made seeds in Fuzz/corpus; Fuzz/config.dict lists the
# format's keys. New interesting inputs go to .build/fuzz/corpus (kept between runs).
#
# Exits 0 when the run ends without a finding; otherwise non-zero, printing the path of the
# input that crashed, hung (over 10 s) or used over 2 GB. Replay one with:
#   .build/fuzz/config-fuzzer <path>
# Needs a Linux Swift toolchain (its clang runtime has libFuzzer) and SQLite's headers and library
# (Debian: libsqlite3-dev), like the package.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz-config.sh [seconds]" >&2
    exit 2
fi

work=.build/fuzz
modules="$work/modules"
mkdir -p "$modules" "$work/corpus" "$work/seeds" "$work/artifacts"

# The package's settings (Package.swift): Swift 6 mode, the same upcoming features, one package
# name so that `package` declarations are shared between the two modules.
flags=(
    -sanitize=fuzzer,address -O -g -parse-as-library -swift-version 6
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
    -enable-upcoming-feature InternalImportsByDefault -package-name ServiceContainer
    -I "$modules" -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap
)

# Rebuilds a module when one of its sources, or a module it imports (named after it), is newer
# than its object file: a stale object could disagree with its dependency's layout (ASan then
# reports reads past a witness table).
build_module() {
    local name="$1" object="$modules/$1.o"
    shift
    local sources=() source fresh=yes dependency
    while IFS= read -r source; do sources+=("$source"); done < <(find "Sources/$name" -name '*.swift' | sort)
    [[ -f "$object" ]] || fresh=no
    [[ $fresh == yes && -n "$(find "Sources/$name" -name '*.swift' -newer "$object")" ]] && fresh=no
    for dependency in "$@"; do
        [[ $fresh == yes && "$modules/$dependency.o" -nt "$object" ]] && fresh=no
    done
    [[ $fresh == yes ]] && return
    echo "fuzz: compiling $name (${#sources[@]} files)"
    swiftc "${flags[@]}" -module-name "$name" -wmo -c "${sources[@]}" -o "$object" \
        -emit-module -emit-module-path "$modules/$name.swiftmodule"
}

build_module Container
build_module Plugins Container
echo "fuzz: linking $work/config-fuzzer"
# gold warns about every ASan helper symbol ("Cannot export local symbol"): noise, dropped.
swiftc "${flags[@]}" -module-name ConfigFuzzer Fuzz/ConfigFuzzer/main.swift \
    "$modules/Container.o" "$modules/Plugins.o" -lsqlite3 -o "$work/config-fuzzer" 2>&1 |
    { grep -v "Cannot export local symbol" || true; } >&2
[[ -x "$work/config-fuzzer" ]] || {
    echo "fuzz: linking failed" >&2
    exit 1
}

[[ "$seconds" == 0 ]] && exit 0

rm -f "$work"/seeds/*
cp Fuzz/corpus/* "$work/seeds/"
# Every shipped config, overlays and reload versions included (named by their path: no clashes).
for config in Configs/*.json Configs/*/*.json; do cp "$config" "$work/seeds/${config//\//_}"; done
rm -f "$work"/artifacts/*
log="$work/last-run.log"

echo "fuzz: running for ${seconds}s (log: $log)"
set +e
# Swift's backtracer would wait on a crashing process under ASan: let libFuzzer report instead.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$work/config-fuzzer" \
    "$work/corpus" "$work/seeds" \
    -dict=Fuzz/config.dict -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=16384 -artifact_prefix="$work/artifacts/" -print_final_stats=1 >"$log" 2>&1
status=$?
set -e

grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)" "$log" || true
finding=$(grep -oE "Test unit written to [^ ]+" "$log" | head -1 | sed 's/Test unit written to //' || true)
if [[ $status -ne 0 || -n "$finding" ]]; then
    tail -n 40 "$log" >&2
    echo >&2
    echo "fuzz: FAILED (libFuzzer exit status $status)" >&2
    [[ -n "$finding" ]] && echo "fuzz: the input is $finding (replay: $work/config-fuzzer $finding)" >&2
    exit 1
fi
echo "fuzz: no crash, hang or memory blow-up in ${seconds}s"
