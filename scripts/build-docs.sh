#!/usr/bin/env bash
# Builds the DocC documentation of every library product into .build/docs/ with the toolchain's
# own `docc` (no plugin package) and fails on any docc warning or undocumented public symbol.
#
#   scripts/build-docs.sh
#
# Output (.build/ is not committed):
#   .build/docs/ServiceContainer.doccarchive   every module in one static site
#   .build/docs/<Module>.doccarchive           each module on its own
#   .build/docs/logs/                          docc's full output
# Read it over HTTP (`python3 -m http.server -d .build/docs/ServiceContainer.doccarchive 8000`,
# then http://localhost:8000/documentation), or open an archive in Xcode.
#
# How: `swift package dump-symbol-graph` builds the package (debug: the same build as
# `swift build`, so after the tests it only extracts) and writes every module's symbol graph;
# scripts/check-doc-comments.swift fails on a public symbol without a doc comment; `docc convert`
# turns each module's catalog (Sources/<Module>/Documentation.docc) and symbol graphs into an
# archive, twice: pass 1 only makes every module's link targets, pass 2 gets the other modules'
# pass-1 archives with --dependency, so that links across modules are checked like any other:
# ``/Container/ServiceOptions`` for a symbol, <doc:/Plugins/ConfigFormat> for an article.
# `docc merge` then puts the modules into one site.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

# convert MODULE ARCHIVE LOG [--dependency ARCHIVE ...]: one module's catalog (when it has one)
# and symbol graphs into ARCHIVE; docc's output goes to LOG.
convert() {
    local module="$1" archive="$2" logfile="$3"
    shift 3
    local catalog=()
    if [[ -d "Sources/$module/Documentation.docc" ]]; then catalog=("Sources/$module/Documentation.docc"); fi
    "$DOCC" convert ${catalog[@]+"${catalog[@]}"} \
        --additional-symbol-graph-dir "$graphs/$module" \
        --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --enable-experimental-external-link-support "$@" \
        --analyze >"$logfile" 2>&1
}

# The modules to document: every library product of Package.swift (one target each).
modules=()
while read -r module; do modules+=("$module"); done < <(
    sed -n 's/^ *\.library(name: "\([A-Za-z0-9_]*\)".*/\1/p' Package.swift)
if [[ ${#modules[@]} -eq 0 ]]; then
    echo "build-docs: found no .library(name: ...) products in Package.swift" >&2
    exit 1
fi

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

# The articles that are files of the repository shown in a catalog stay links to them, so the
# two can never drift apart (a merge once turned one into a stale copy).
for article in Sources/Plugins/Documentation.docc/ConfigFormat.md:../../../Configs/README.md \
    Sources/ContainerTrace/Documentation.docc/TraceFormat.md:../../../docs/trace-format.md; do
    path="${article%%:*}" target="${article#*:}"
    if [[ ! -L "$path" || "$(readlink "$path")" != "$target" ]]; then
        echo "build-docs: $path must be a symbolic link to $target (ln -sf $target $path)" >&2
        exit 1
    fi
done

out=.build/docs
graphs="$out/symbol-graphs"
log="$out/logs"
rm -rf "$out"
mkdir -p "$graphs" "$log" "$out/link-targets"

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

# Pass 1 makes every module's link targets, so that pass 2 can check links in any direction:
# its warnings are ignored (a module's links into modules not converted yet cannot resolve).
step "docc convert, pass 1: link targets"
targets=()
for module in "${modules[@]}"; do
    convert "$module" "$out/link-targets/$module.doccarchive" "$log/$module-link-targets.log" \
        ${targets[@]+"${targets[@]}"} || true
    targets+=(--dependency "$out/link-targets/$module.doccarchive")
done

archives=()
for module in "${modules[@]}"; do
    step "docc convert $module"
    others=()
    for other in "${modules[@]}"; do
        [[ "$other" == "$module" ]] || others+=(--dependency "$out/link-targets/$other.doccarchive")
    done
    status=0
    convert "$module" "$out/$module.doccarchive" "$log/$module.log" ${others[@]+"${others[@]}"} || status=$?
    # Diagnostics only; docc's progress lines stay in the log.
    if grep -qE "^(warning|error|note):" "$log/$module.log"; then
        sed -E -n '/^(warning|error|note):/,/^$/p' "$log/$module.log"
    fi
    if [[ $status -ne 0 ]] || grep -qE "^(warning|error):" "$log/$module.log"; then
        echo "build-docs: docc warned about $module (above; full log: $log/$module.log)" >&2
        failed=1
    else
        echo "$module: no warnings"
    fi
    archives+=("$out/$module.doccarchive")
done
if [[ $failed -ne 0 ]]; then
    echo "build-docs: fix the warnings above (doc comments in Sources, articles in Sources/*/Documentation.docc)" >&2
    exit 1
fi

step "docc merge: one site for every module"
"$DOCC" merge "${archives[@]}" --output-path "$out/ServiceContainer.doccarchive" \
    --synthesized-landing-page-name ServiceContainer --synthesized-landing-page-kind Package \
    >"$log/merge.log" 2>&1 || { cat "$log/merge.log" >&2; exit 1; }

# docc cannot check a web link; the few that point into the site (a Plugins article linking a
# Container article: `Container` is also the name of Plugins' page of extended types, so
# <doc:/Container/...> resolves there) must name a page of it.
for link in $(grep -rhoE '\]\(/documentation/[^)]+\)' Sources/*/Documentation.docc | sort -u); do
    page="${link#](}"
    page="${page%)}"
    if [[ ! -f "$out/ServiceContainer.doccarchive/data$page.json" ]]; then
        echo "build-docs: the link $page in Sources/*/Documentation.docc names no page" >&2
        failed=1
    fi
done
if [[ $failed -ne 0 ]]; then exit 1; fi

step "documentation built in ${SECONDS}s: $out/ServiceContainer.doccarchive (modules: ${modules[*]})"
