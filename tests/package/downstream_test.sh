#!/usr/bin/env bash
# Installs the build tree's development component (libraries, headers, CLI,
# package configuration) into a scratch prefix, then configures, builds and
# runs tests/package/downstream against it with find_package(trellis).
set -euo pipefail
build=$1 work=$2
source_dir=$(cd "$(dirname "$0")/downstream" && pwd)
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" --component development >/dev/null
test -x "$work/prefix/bin/trellis"
test -f "$work/prefix/lib/cmake/trellis/trellisConfigVersion.cmake"
cmake -S "$source_dir" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/downstream"
