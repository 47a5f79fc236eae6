#!/bin/sh
# Builds and runs the out-of-tree plugin example; exits with the example's status.
# Usage: Examples/CustomPlugin/run.sh [config.json]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec swift run --package-path "$here" -Xswiftc -warnings-as-errors CustomPlugin "$@"
