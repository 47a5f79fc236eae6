#!/usr/bin/env bash
# Checks the public surface of the Container module: at most 40 top-level public types (a user
# needs about six to start; the rest nest in the type they belong to), each curated in a topic
# list (a `- ``Name``` line) of the DocC catalog.
#
#     scripts/check-public-surface.sh
set -euo pipefail
cd "$(dirname "$0")/.."

limit=40
catalog=Sources/Container/Documentation.docc
types=$(grep -rhoE '^public (final class|class|struct|enum|protocol|actor|typealias) [A-Za-z_]+' Sources/Container \
    | awk '{print $NF}' | sort -u)
count=$(echo "$types" | wc -l | tr -d ' ')
uncurated=()
for type in $types; do
    grep -rqE "^- \`\`$type\`\`" "$catalog" || uncurated+=("$type")
done
status=0
if ((count > limit)); then
    echo "check-public-surface: $count top-level public types in Container, at most $limit:" \
        "nest a type in the one a user names it through, or make it internal" >&2
    status=1
fi
if ((${#uncurated[@]} > 0)); then
    echo "check-public-surface: not in a topic list of $catalog: ${uncurated[*]}" \
        "(add a \`- \`\`Name\`\`\` line to the article that explains it)" >&2
    status=1
fi
((status == 0)) && echo "check-public-surface: $count top-level public types (at most $limit), each in a DocC topic list"
exit $status
