#!/usr/bin/env bash
# Builds every ```swift block of the documentation, so that no example rots: README.md and every
# article of Sources/*/Documentation.docc (ConfigFormat.md and TraceFormat.md are links to
# Configs/README.md and docs/trace-format.md, which are checked as those files).
#
#   scripts/check-doc-snippets.sh
#
# scripts/doc-snippets/Generate.swift writes a throwaway package to .build/doc-snippets/ (not
# committed) that depends on this one by path, with one module per snippet, and `swift build`
# builds it: an error or a warning (-warnings-as-errors) in any block fails, reported at its
# Markdown file and line.
# The package builds this one's library products again in its own .build (30-60 s from scratch on
# 2 cores; later runs rebuild only what changed, seconds for a doc).
#
# A block is Swift an app could write: its declarations at file scope, its statements in an
# `async throws` function. It may use the library products (Container and its catalog's module
# are imported for it, and Foundation) and what the articles take as given, in
# scripts/doc-snippets/: Givens.swift (`graph`, `container`, `applicationSupport`, ...) and
# ExampleApp.swift (an app's own `Settings`, `Database`, `Session`, ..., for blocks that do not
# import Plugins). A marker, an HTML comment on the line right before the fence, changes that:
#
#   <!-- snippet: continues -->       the same module as the file's previous compiled block: its
#                                     declarations join that block's, its statements run after
#                                     that block's (in a nested scope: they may reuse its names)
#   <!-- snippet: top-level -->       the whole block at file scope (no statements)
#   <!-- snippet: manifest -->        arguments of Package(...) in a Package.swift after `name:`;
#                                     checked with `swift package dump-package`
#   <!-- snippet: skip (reason) -->   not built; only for what cannot build on Linux (SwiftUI).
#                                     Output and pseudo-code are not ```swift blocks at all.
#
# Markers combine with commas (`continues, top-level`).
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build/doc-snippets
mkdir -p "$out"
root="$(pwd)"

# Reads diagnostics (`file:line:col: error: ...`) and prints the blocks they are in (`FILE:LINE` of
# the opening fence), from the generator's list of blocks.
blame() {
    awk -F'\t' '
        NR == FNR {
            if ($1 == "compiled") {
                count++; place[count] = $2
                firstOf[$3] = firstOf[$3] ? firstOf[$3] : $2
            }
            next
        }
        match($0, /^[^ :]+:[0-9]+:[0-9]+: /) {
            split($0, part, ":"); file = part[1]; line = part[2] + 0; block = ""
            for (i = 1; i <= count; i++) {
                split(place[i], p, ":")
                if (p[1] == file && p[2] + 0 <= line) block = place[i]
            }
            # A line the generator added: the generated file names its module.
            if (block == "" && match(file, /Sources\/Snippet_[A-Za-z0-9_]+\//)) {
                block = firstOf[substr(file, RSTART + 8, RLENGTH - 9)]
            }
            if (block != "") print block
        }' "$out/blocks.tsv" - | sort -u
}

if ! swift scripts/doc-snippets/Generate.swift "$out" >"$out/blocks.tsv"; then
    echo "check-doc-snippets: fix the markers above" >&2
    exit 1
fi
compiled=$(grep -c '^compiled' "$out/blocks.tsv" || true)
manifests=$(grep -c '^manifest' "$out/blocks.tsv" || true)
skipped=$(grep -c '^skipped' "$out/blocks.tsv" || true)
echo "doc snippets: $compiled blocks to build, $manifests Package.swift fragments, $skipped skipped"
grep '^skipped' "$out/blocks.tsv" | awk -F'\t' '{ printf "  skipped %s: %s\n", $2, $3 }'

failed=0

# Package.swift fragments: the manifest must evaluate (nothing is resolved or fetched).
while IFS=$'\t' read -r kind place folder; do
    [[ "$kind" == manifest ]] || continue
    if ! swift package dump-package --package-path "$out/$folder" >/dev/null 2>"$out/$folder/dump.log"; then
        IFS=$'\t' read -r first docLine docFile <"$out/$folder/source.tsv"
        # Manifest lines are the block's lines from line $first on.
        awk -v gen="$root/$out/$folder/Package.swift" -v first="$first" -v docLine="$docLine" -v doc="$docFile" '
            index($0, gen ":") == 1 {
                rest = substr($0, length(gen) + 2); split(rest, part, ":")
                sub(/^[0-9]+/, doc ":" (part[1] - first + docLine), rest)
                print rest; next
            }
            { print }' "$out/$folder/dump.log" | grep -vE '^error: .*(Invalid manifest|invalid manifests)' >&2 || true
        echo "check-doc-snippets: the Package.swift fragment at $place does not evaluate" >&2
        failed=1
    fi
done <"$out/blocks.tsv"

# Every other block, built. The snippets' modules build with -warnings-as-errors (so that a module
# with a warning is never up to date); SwiftPM silences warnings in the dependency, this package.
started=$SECONDS
log="$out/build.log"
status=0
swift build --package-path "$out" >"$log" 2>&1 || status=$?
if [[ $status -ne 0 ]]; then
    # SwiftPM stops at the first module that fails: build each snippet's module on its own to
    # report every failing block at once (what already built is not compiled again).
    log="$out/build-each.log"
    : >"$log"
    for module in DocSnippetGivens DocSnippetExampleApp $(awk -F'\t' '$1 == "compiled" { print $3 }' "$out/blocks.tsv" | sort -u); do
        swift build --package-path "$out" --target "$module" >>"$log" 2>&1 || true
    done
fi
# The modules that failed in build.log are built again in build-each.log, with the same errors.
logs=("$out/build.log")
if [[ "$log" != "$out/build.log" ]]; then logs+=("$log"); fi
diagnostics="$(cat "${logs[@]}" | grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning):' | sort -u || true)"
if [[ $status -ne 0 || -n "$diagnostics" ]]; then
    # Each diagnostic once, with its source excerpt; progress lines stay in the logs.
    cat "${logs[@]}" | awk '
        /^\[[0-9]+\/[0-9]+\]|^Building for |^Build complete|^Build of target|^Compiling |^Write |^Emitting / { next }
        /^[^ ]+:[0-9]+:[0-9]+: (error|warning|note):/ { repeat = seen[$0]++ > 0 }
        !repeat { print }' | sed "s|$root/||g" >&2
    echo >&2
    echo "check-doc-snippets: these blocks do not build (logs: ${logs[*]}):" >&2
    printf '%s\n' "$diagnostics" | sed "s|$root/||g" | blame | sed 's/^/  /' >&2
    if [[ $status -ne 0 && -z "$diagnostics" ]]; then echo "  (no diagnostic: see the log)" >&2; fi
    failed=1
fi
echo "doc snippets: swift build took $((SECONDS - started))s"

if [[ $failed -ne 0 ]]; then
    echo "check-doc-snippets: fix the documentation (or, for an example type an app declares itself," >&2
    echo "scripts/doc-snippets/ExampleApp.swift); the generated sources are in $out/Sources" >&2
    exit 1
fi
echo "doc snippets: every block builds ($compiled built, $manifests manifest fragments, $skipped skipped)"
