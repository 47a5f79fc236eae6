#!/usr/bin/env bash
# Builds the DocC documentation of every library product into .build/docs/ with the toolchain's
# own `docc` (no plugin package) and fails on any docc warning.
#
#   scripts/build-docs.sh
#
# Output (.build/ is not committed):
#   .build/docs/ServiceContainer.doccarchive   every module in one site, with a landing page
#   .build/docs/<Module>.doccarchive           each module on its own
# View it with `docc preview Sources/Container/Documentation.docc --additional-symbol-graph-dir
# .build/docs/symbol-graphs/Container`, or serve the combined archive over HTTP (it is a static
# site: `python3 -m http.server -d .build/docs/ServiceContainer.doccarchive 8000`, then open
# http://localhost:8000/documentation/container).
#
# How: `swift package dump-symbol-graph` builds the package (debug, the same build as
# `swift build`, so after the tests it reuses their build) and extracts every module's symbol
# graph; `docc convert` turns each module's catalog (Sources/<Module>/Documentation.docc) and
# symbol graph into an archive; `docc merge` combines them. Container is converted first: the
# other modules link to its symbols as ``/Container/Symbol`` (an absolute link resolved against
# Container's archive, given with --dependency). Links into a module converted later are plain
# relative links (`[Config files](../plugins/configformat)`), which docc does not check.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

# The modules to document: every library product of Package.swift, Container first.
modules=(Container)
while read -r module; do
    [[ "$module" == Container ]] || modules+=("$module")
done < <(sed -n 's/^ *\.library(name: "\([A-Za-z0-9_]*\)".*/\1/p' Package.swift)

# The toolchain's docc: next to `swift` on Linux, found by xcrun on macOS; $DOCC overrides both.
if [[ -z "${DOCC:-}" ]]; then
    if command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
        DOCC="$(xcrun --find docc)"
    elif command -v docc >/dev/null 2>&1; then
        DOCC="$(command -v docc)"
    else
        DOCC="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
    fi
fi
if [[ ! -x "$DOCC" ]]; then
    echo "build-docs: no docc found (looked next to swift and with xcrun); set DOCC=/path/to/docc" >&2
    exit 1
fi

out=.build/docs
graphs="$out/symbol-graphs"
log="$out/logs"
rm -rf "$out"
mkdir -p "$graphs" "$log"

step "symbol graphs: swift package dump-symbol-graph (${modules[*]})"
extracted="$(dirname "$(swift build --show-bin-path)")/symbolgraph"
rm -rf "$extracted"
# It also tries the test runner's generated modules, which exist only once the tests are built,
# and then exits non-zero; what counts is that every documented module's graph was written.
if ! swift package dump-symbol-graph --emit-extension-block-symbols >"$log/dump-symbol-graph.log" 2>&1; then
    echo "(dump-symbol-graph exited non-zero; checking the documented modules' graphs)"
fi
for module in "${modules[@]}"; do
    if [[ ! -f "$extracted/$module.symbols.json" ]]; then
        grep -E "error|warning" "$log/dump-symbol-graph.log" >&2 || tail -30 "$log/dump-symbol-graph.log" >&2
        echo "build-docs: no symbol graph for $module (log: $log/dump-symbol-graph.log)" >&2
        exit 1
    fi
    mkdir -p "$graphs/$module"
    # The module's own symbols, and its extensions of other modules' types (Module@Other).
    cp "$extracted/$module.symbols.json" "$graphs/$module/"
    find "$extracted" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$graphs/$module/" \;
done

failed=0
step "doc comments: every public symbol has one (scripts/check-doc-comments.swift)"
dirs=()
for module in "${modules[@]}"; do dirs+=("$graphs/$module"); done
swift scripts/check-doc-comments.swift "${dirs[@]}" || failed=1

archives=()
dependencies=()
for module in "${modules[@]}"; do
    step "docc convert $module"
    catalog=()
    if [[ -d "Sources/$module/Documentation.docc" ]]; then catalog=("Sources/$module/Documentation.docc"); fi
    archive="$out/$module.doccarchive"
    status=0
    "$DOCC" convert "${catalog[@]}" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --enable-experimental-external-link-support "${dependencies[@]}" \
        --analyze >"$log/$module.log" 2>&1 || status=$?
    # Diagnostics only; docc's progress lines stay in the log.
    if grep -qE "^(warning|error|note):" "$log/$module.log"; then
        sed -n '/^\(warning\|error\|note\):/,/^$/p' "$log/$module.log"
    fi
    if [[ $status -ne 0 ]] || grep -qE "^(warning|error):" "$log/$module.log"; then
        echo "build-docs: docc warned about $module (above; full log: $log/$module.log)" >&2
        failed=1
    else
        echo "$module: no warnings"
    fi
    archives+=("$archive")
    dependencies+=(--dependency "$archive")
done
if [[ $failed -ne 0 ]]; then
    echo "build-docs: fix the warnings above (doc comments in Sources, articles in Sources/*/Documentation.docc)" >&2
    exit 1
fi

step "docc merge: one site for every module"
"$DOCC" merge "${archives[@]}" --output-path "$out/ServiceContainer.doccarchive" \
    --synthesized-landing-page-name ServiceContainer --synthesized-landing-page-kind Package \
    >"$log/merge.log" 2>&1 || { cat "$log/merge.log" >&2; exit 1; }

step "documentation built: $out/ServiceContainer.doccarchive (modules: ${modules[*]})"
