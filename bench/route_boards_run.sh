#!/usr/bin/env bash
# Every shared board routed alone on a device machine's host, one
# `trellis bench route` a board and backend, each under a time limit, so
# that a slow board costs its limit and no more. Each run's JSON tables
# are appended to OUT/route-boards.json as they are made (one file: a
# device call brings back only so many); OUT/route-boards.log has each
# run's exit status and time (124: over the limit).
#
# Usage: bench/route_boards_run.sh BUILD OUT, where BUILD is laid out as
#   scripts/gpu-build leaves build-gpu/ (bin/trellis, bin/lib,
#   data/boards). ROUTE_BACKENDS (default "cpu"), ROUTE_LIMIT_S (default
#   120), ROUTE_SKIP (default "MonApollo RainbowFox": the two largest
#   boards, several minutes each) and ROUTE_ONLY (names; default every
#   board) pick what runs.
set -u
stage=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
log=$out/route-boards.log
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
boards_dir=$stage/data/boards
skip=${ROUTE_SKIP-MonApollo RainbowFox}
limit=${ROUTE_LIMIT_S:-120}

names=()
if [ -n "${ROUTE_ONLY:-}" ]; then
  read -r -a names <<<"$ROUTE_ONLY"
else
  for dir in "$boards_dir"/pcbench/*/; do names+=("pcbench/$(basename "$dir")"); done
  for file in "$boards_dir"/dac2020/*.unrouted.dsn "$boards_dir"/kicad/*.unrouted.dsn; do
    suite=$(basename "$(dirname "$file")")
    names+=("$suite/$(basename "$file" .unrouted.dsn)")
  done
fi

{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  echo "host cores: $(nproc); commit: $(cat "$stage/data/COMMIT" 2>/dev/null || echo unknown)"
} >>"$log"
for name in "${names[@]}"; do
  skipped=false
  for s in $skip; do [[ $name == *"$s"* ]] && skipped=true; done
  $skipped && continue
  for backend in ${ROUTE_BACKENDS:-cpu}; do
    row=$(mktemp)
    start=$(date +%s%N)
    timeout "$limit" "$stage/bin/trellis" --quiet --backend "$backend" bench route --boards "$boards_dir" \
      --skip-backplane --only "$name" --format json -o "$row" 2>>"$log"
    rc=$?
    cat "$row" >>"$out/route-boards.json"
    rm -f "$row"
    echo "$name $backend rc $rc $((($(date +%s%N) - start) / 1000000)) ms" >>"$log"
  done
done
date -u >>"$log"
