#!/usr/bin/env bash
# The sharded search's benchmark run (docs/align.md, "Sharded search"): a
# synthetic database of at least 2 billion residues made from the mmseqs2
# example proteins (shuffled copies) searched on one device whole and in
# pieces, then the search over 1 to 16 MPI processes on the host's cores.
# Writes the Markdown table to OUT/align-sharded.md as it goes.
#
# Usage: bench/align_sharded_run.sh STAGE OUT, where STAGE holds
#   align_sharded_bench (a CUDA build), lib/ (its shared libraries),
#   mmseqs2/{DB,QUERY}.fasta.gz, COMMIT, and optionally mpi/align_sharded_bench
#   (a build with MPI) with debs/ (Open MPI's Debian packages, unpacked here
#   when the machine has no MPI of its own).
set -u
stage=$(cd "$1" && pwd)
out=$2
residues=${SHARDED_RESIDUES:-2G}
queries=${SHARDED_QUERIES:-32}
work=${TMPDIR:-/tmp}/align-sharded
mkdir -p "$work" "$out"
table=$out/align-sharded.md
export LD_LIBRARY_PATH="$stage/lib:${LD_LIBRARY_PATH:-}"
say() { echo "$*" | tee -a "$table"; }

say "# align: sharded search"
say ""
say "- device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "- host: $(nproc) cores, $(awk '/MemTotal/ { printf("%.0f GiB", $2 / 1048576) }' /proc/meminfo)"
say "- commit: $(cat "$stage/COMMIT" 2>/dev/null)"
say "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
say "- command: bench/align_sharded_run.sh STAGE OUT (SHARDED_RESIDUES=$residues SHARDED_QUERIES=$queries)"
say ""
say "| database | sequences | residues | made |"
say "| --- | ---: | ---: | --- |"
"$stage/align_sharded_bench" make --data "$stage/mmseqs2" --residues "$residues" --queries "$queries" \
  -o "$work/sharded.tdb" -q "$work/queries.fasta" | tee -a "$table"
say ""
say "Whole searches (scores, ranking with E-values, merge, tracebacks of the top 10 per query, reading the parts"
say "from the prepared file included), BLOSUM62 11/1; TCUPS = query residues x database residues / seconds;"
say "digest: a hash of the tabular hits, equal when the hits are."
say ""
say "| processes | devices | residues at once | device memory | queries | query residues | seconds | TCUPS | hits | digest |"
say "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for split in "--host-memory 0" "--host-memory 500M" "--host-memory 125M" "--host-memory 0 --device-memory 1G"; do
  # shellcheck disable=SC2086
  timeout 70 "$stage/align_sharded_bench" search --backend cuda -q "$work/queries.fasta" -d "$work/sharded.tdb" \
    $split | tee -a "$table"
done

mpibench=$stage/mpi/align_sharded_bench
[ -x "$mpibench" ] || exit 0
mpirun=$(command -v mpirun || true)
if [ -z "$mpirun" ] && [ -d "$stage/debs" ]; then
  ompi=$work/openmpi
  mkdir -p "$ompi"
  for deb in "$stage"/debs/*.deb; do dpkg -x "$deb" "$ompi"; done
  export OPAL_PREFIX=$ompi/usr OPAL_SYSCONFDIR=$ompi/etc/openmpi
  export LD_LIBRARY_PATH="$ompi/usr/lib/x86_64-linux-gnu:$ompi/usr/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH"
  mpirun=$ompi/usr/bin/orterun
fi
cores=$(nproc)
"$stage/align_sharded_bench" make --data "$stage/mmseqs2" --residues 20M --queries 8 -o "$work/small.tdb" \
  -q "$work/small-queries.fasta" >/dev/null
say ""
say "Processes on the host's $cores cores (cpu engine, one OpenMP thread each; the last row one process on"
say "every core), 20 M residues of the same shuffled proteins, 8 queries:"
say ""
say "| processes | devices | residues at once | device memory | queries | query residues | seconds | TCUPS | hits | digest |"
say "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
mpi=("$mpirun" --oversubscribe --bind-to none --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
for n in 1 2 4 8 16; do
  [ "$n" -le "$cores" ] || continue
  OMP_NUM_THREADS=1 timeout 40 "${mpi[@]}" -x OMP_NUM_THREADS -x LD_LIBRARY_PATH -n "$n" "$mpibench" search \
    --backend cpu -q "$work/small-queries.fasta" -d "$work/small.tdb" 2>&1 | tee -a "$table"
done
OMP_NUM_THREADS=$cores timeout 40 "$mpibench" search --backend cpu -q "$work/small-queries.fasta" \
  -d "$work/small.tdb" | tee -a "$table"
