#!/usr/bin/env bash
# Fails when code under Sources/ uses standard-library API newer than the package's declared minimums
# (Package.swift `platforms:`) outside an `#available` guard, or syntax newer than its
# `swift-tools-version`. CI builds on Linux, which does not check `@available`: a use of
# `Task.immediateDetached` (macOS 26) builds there and breaks every macOS 15 / iOS 18 build.
#
#   scripts/audit-availability.sh               audit Sources/; exit 1 on an unguarded use
#   scripts/audit-availability.sh --self-test   check the audit on scripts/fixtures/availability
#   scripts/audit-availability.sh --names       list the names it knows to be newer than the minimums
#
# How: scripts/audit-availability.swift reads this toolchain's .swiftinterface of Swift,
# _Concurrency and Synchronization (in the toolchain of `swift` on PATH; SWIFT_INTERFACE_DIR, the
# folder that holds Swift.swiftmodule, overrides it) and collects each public declaration with its
# `@available`, or the one of the extension or type around it. Then it lexes every .swift file under
# Sources/ (comments and strings dropped, interpolations kept) and reports each use of a name newer
# than its scope allows. A scope is raised by the body of `if #available(...)`, by the rest of a block
# after `guard #available(...) else { ... }`, and by a declaration marked `@available(...)`.
#
# Heuristics, since there is no type checker (docs/availability.md has the details):
# - Overloads: a name is newer only where every public declaration of it is, members (used after a
#   `.`) and free declarations apart. A new overload of an old name (`Task(name:)`) is not caught.
# - A name the package declares itself (`kind`, `reset`) is taken as the package's own.
# - Scopes are found by braces; an `@available` covers the declaration after it, up to its body.
# - `#if os(Linux)` or `canImport(Glibc)` branches, and the `#else` of `#if canImport(Darwin)`, are not
#   compiled on Apple platforms: their API uses are skipped. Syntax counts in every branch (an older
#   compiler parses them all) except under `#if compiler(>=X)`.
# - Newer syntax: the `syntaxFeatures` table in the Swift file; add a row for each new feature.
#
# Not seen: Foundation (the SDK's on Apple platforms, swift-corelibs-foundation on Linux: different
# API and availability), Dispatch and the SDK frameworks; the availability of conformances (a
# `Sendable` or `Hashable` conformance added in macOS 26); uses without a name to match (operators,
# `Type(...)` for `init`, a member called without `self.` inside an extension of a standard type);
# `#unavailable` guards (their `else` is not taken as guarded).
#
# The Swift file is compiled once per version of it and of the toolchain, into .build/.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
    echo "audit-availability: $*" >&2
    exit 2
}

mode="${1:-audit}"
case "$mode" in
    audit | --self-test | --names) ;;
    -h | --help)
        sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) die "unknown argument '$mode' (try --help)" ;;
esac

command -v swift >/dev/null || die "needs swift on PATH"
command -v sha256sum >/dev/null || die "needs sha256sum (coreutils)"

# The interfaces of the toolchain that `swift` on PATH belongs to, for the host's own triple.
target_info=$(swift -print-target-info) || die "swift -print-target-info failed"
json_field() { sed -n "s/.*\"$1\": *\"\([^\"]*\)\".*/\1/p" <<<"$target_info" | head -n 1; }
triple=$(json_field moduleTriple)
platform=$(json_field platform)
resources=$(json_field runtimeResourcePath)
[[ -n $triple && -n $platform && -n $resources ]] || die "cannot read the target from swift -print-target-info"
interface_dir="${SWIFT_INTERFACE_DIR:-$resources/$platform}"
interfaces=()
for module in Swift _Concurrency Synchronization; do
    file="$interface_dir/$module.swiftmodule/$triple.swiftinterface"
    [[ -f $file ]] || die "no interface of $module at $file; set SWIFT_INTERFACE_DIR to the folder holding $module.swiftmodule"
    interfaces+=("$file")
done

# `swift file.swift` would compile the audit at every run (2-3 s); a binary keyed by the script and
# the toolchain compiles once. -Onone: -O takes 10 s to compile and saves under a second per run.
source_file=scripts/audit-availability.swift
key=$({ swift --version 2>&1; cat "$source_file"; } | sha256sum | cut -c1-16)
cache=.build/audit-availability
binary="$cache/audit-$key"
if [[ ! -x $binary ]]; then
    mkdir -p "$cache"
    find "$cache" -mindepth 1 -maxdepth 1 -name 'audit-*' ! -name "audit-$key*" -delete
    swiftc -Onone -o "$binary.$$" "$source_file" >&2 || die "cannot compile $source_file (errors above)"
    mv -f "$binary.$$" "$binary"
fi

audit() { "$binary" "$@" "${interfaces[@]}"; }
indent() { sed 's/^/  /'; }

self_test() {
    local fixture=scripts/fixtures/availability
    local failed=0 output status expected actual missed extra lines name scratch

    # The fixture marks each line the audit must report with `expect: unguarded`, in a comment.
    expected=$(cd "$fixture" && grep -rnE --include='*.swift' '// expect: unguarded$' Sources | cut -d: -f1,2 | sort)
    output=$(audit "$fixture" 2>&1) && status=0 || status=$?
    actual=$(grep -oE '^Sources/[^:]+:[0-9]+' <<<"$output" | sort -u || true)
    if [[ $status != 1 ]]; then
        echo "self-test: the audit of $fixture exited $status, not 1:" >&2
        echo "$output" >&2
        failed=1
    fi
    missed=$(comm -23 <(echo "$expected") <(echo "$actual"))
    extra=$(comm -13 <(echo "$expected") <(echo "$actual"))
    if [[ -n $missed ]]; then
        echo "self-test: unguarded uses the audit missed ($fixture):" >&2
        indent <<<"$missed" >&2
        failed=1
    fi
    if [[ -n $extra ]]; then
        echo "self-test: guarded or harmless lines the audit reported ($fixture):" >&2
        mapfile -t lines <<<"$extra"
        grep -F -f <(printf '%s:\n' "${lines[@]}") <<<"$output" | indent >&2
        failed=1
    fi
    # The fixture must keep a case of each known use, or the comparison above proves little.
    for name in immediateDetached withTaskPriorityEscalationHandler escalatePriority 'nonisolated(nonsending)'; do
        if ! grep -qF "'$name'" <<<"$output"; then
            echo "self-test: no use of '$name' reported; the fixture must keep one" >&2
            failed=1
        fi
    done
    if (($(grep -cF "'escalatePriority'" <<<"$output") < 2)); then
        echo "self-test: escalatePriority(to:) of both Task and UnsafeCurrentTask must be reported" >&2
        failed=1
    fi

    # The guarded forms alone must pass: exit 0.
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' RETURN
    mkdir -p "$scratch/Sources/Fixture"
    cp "$fixture/Package.swift" "$scratch/"
    cp "$fixture/Sources/Fixture/Guarded.swift" "$scratch/Sources/Fixture/"
    if ! output=$(audit "$scratch" 2>&1); then
        echo "self-test: the audit of the guarded forms alone (Guarded.swift) failed:" >&2
        echo "$output" >&2
        failed=1
    fi

    if ((failed)); then
        echo "audit-availability --self-test: FAILED" >&2
        return 1
    fi
    echo "audit-availability --self-test: passed ($(wc -l <<<"$expected") unguarded uses reported exactly, the guarded forms accepted)"
}

case "$mode" in
    --self-test) self_test ;;
    --names) audit --names . ;;
    audit) audit . ;;
esac
