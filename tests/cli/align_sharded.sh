#!/usr/bin/env bash
# `trellis align search` sharded: over 1 to 4 MPI processes (mpirun, cpu,
# oversubscribed), over device threads (--devices on cpu) and in pieces
# (--host-memory), the output is byte-identical to one process over the whole
# database, on mmseqs2 example proteins and on random databases with ties; a
# damaged part or a missing file fails with a clear message, exit 2 and no
# output file. Usage: align_sharded.sh TRELLIS [MPIEXEC] (no MPIEXEC: the
# in-process splits only).
set -u
trellis=$1
mpiexec=${2:-}
failures=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export OMP_NUM_THREADS=1  # the processes share the cores

mpi=()
if [ -n "$mpiexec" ]; then
  mpi=("$mpiexec" --oversubscribe --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
fi

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# same_as_one_process NAME -- search arguments...: every split gives the bytes of one process.
same_as_one_process() {
  local name=$1
  shift 2
  "$trellis" --backend cpu --quiet align search "$@" -o "$scratch/$name.one" || { fail "$name: one process"; return; }
  local variant
  for variant in "--devices 0,1,2" "--host-memory 20K" "--devices 0,1 --host-memory 7K"; do
    # shellcheck disable=SC2086
    "$trellis" --backend cpu --quiet align search "$@" $variant -o "$scratch/$name.split" &&
      cmp -s "$scratch/$name.one" "$scratch/$name.split" && echo "ok: $name $variant" ||
      fail "$name $variant differs from one process"
  done
  [ -n "$mpiexec" ] || return
  local n
  for n in 1 2 3 4; do
    "${mpi[@]}" -n "$n" "$trellis" --backend cpu --quiet align search "$@" -o "$scratch/$name.mpi$n" &&
      cmp -s "$scratch/$name.one" "$scratch/$name.mpi$n" && echo "ok: $name mpirun -n $n" ||
      fail "$name: mpirun -n $n differs from one process"
  done
}

# Random databases with ties: families of exact copies and relatives, shuffled.
random_fasta() {  # SEED FAMILIES
  awk -v seed="$1" -v families="$2" 'BEGIN {
    srand(seed); letters = "ACDEFGHIKLMNPQRSTVWY"; n = 0
    for (f = 0; f < families; f++) {
      len = 20 + int(rand() * 100); s = ""
      for (i = 0; i < len; i++) s = s substr(letters, 1 + int(rand() * 20), 1)
      copies = 1 + int(rand() * 4)
      for (c = 0; c < copies; c++) seq[n++] = s
      for (r = 0; r < 2; r++) {
        t = ""
        for (i = 1; i <= len; i++) t = t (rand() < 0.15 ? substr(letters, 1 + int(rand() * 20), 1) : substr(s, i, 1))
        seq[n++] = t
      }
    }
    for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = seq[i]; seq[i] = seq[j]; seq[j] = t }
    for (i = 0; i < n; i++) printf(">r%d family member\n%s\n", i, seq[i])
  }'
}

for seed in 1 2; do
  random_fasta "$seed" 150 >"$scratch/random$seed.fasta"
  awk 'NR % 40 == 2 { printf(">q%d\n%sW\n", NR, $0) }' "$scratch/random$seed.fasta" >"$scratch/queries$seed.fasta"
  "$trellis" --quiet align makedb "$scratch/random$seed.fasta" -o "$scratch/random$seed.tdb" >/dev/null
  same_as_one_process "random$seed-top3" -- -q "$scratch/queries$seed.fasta" -d "$scratch/random$seed.tdb" --top 3 \
    --outfmt "7 std score qlen slen"
  same_as_one_process "random$seed-none" -- -q "$scratch/queries$seed.fasta" -d "$scratch/random$seed.tdb" --top 5 \
    --statistics none --format json
done
same_as_one_process "random1-fasta" -- -q "$scratch/queries1.fasta" -d "$scratch/random1.fasta" --top 4 \
  --statistics karlin-altschul

# Fewer sequences than processes: some parts are empty.
printf '>a one\nMKVWWAC\n>b two\nWWWWC\n' >"$scratch/tiny.fasta"
same_as_one_process tiny -- -q "$scratch/tiny.fasta" -d "$scratch/tiny.fasta" --outfmt "6 std stitle"

examples=${TRELLIS_MMSEQS2_EXAMPLES:-/usr/share/doc/mmseqs2/example-data}
if [ -r "$examples/DB.fasta.gz" ]; then
  zcat "$examples/DB.fasta.gz" | awk '/^>/ { n++ } n <= 1500' >"$scratch/mmseqs2.fasta"
  zcat "$examples/QUERY.fasta.gz" | awk '/^>/ { n++ } n <= 3' >"$scratch/mmseqs2_queries.fasta"
  "$trellis" --quiet align makedb "$scratch/mmseqs2.fasta" -o "$scratch/mmseqs2.tdb" >/dev/null
  same_as_one_process mmseqs2 -- -q "$scratch/mmseqs2_queries.fasta" -d "$scratch/mmseqs2.tdb" --outfmt 7
else
  echo "skipped: the mmseqs2 example proteins ($examples) are not installed"
fi

# Failures: exit 2, the problem named, no output file.
expect_failure() {  # NAME PATTERN -- command...
  local name=$1 pattern=$2
  shift 3
  rm -f "$scratch/failed.out"
  local out rc
  out=$("$@" -o "$scratch/failed.out" 2>&1)
  rc=$?
  if [ "$rc" -ne 2 ]; then
    fail "$name exited $rc, expected 2"; echo "$out" | head -5
  elif ! grep -qiE -- "$pattern" <<<"$out"; then
    fail "$name: output lacks /$pattern/"; echo "$out" | head -5
  elif [ -e "$scratch/failed.out" ]; then
    fail "$name left an output file"
  else
    echo "ok: $name -> $rc"
  fi
}
# Damage the last residue, which only the last part holds.
cp "$scratch/random1.tdb" "$scratch/damaged.tdb"
residues=$(od -An -t u8 -j 32 -N 8 "$scratch/damaged.tdb" | tr -d ' ')
printf '\x63' | dd of="$scratch/damaged.tdb" bs=1 seek=$((104 + residues - 1)) conv=notrunc status=none
expect_failure "damaged part, in pieces" "invalid residue code 99" -- \
  "$trellis" --backend cpu --quiet align search -q "$scratch/queries1.fasta" -d "$scratch/damaged.tdb" --host-memory 5K
expect_failure "missing database, in pieces" "cannot open" -- \
  "$trellis" --backend cpu --quiet align search -q "$scratch/queries1.fasta" -d "$scratch/none.tdb" --devices 0,1
if [ -n "$mpiexec" ]; then
  expect_failure "damaged part, mpirun -n 3" "rank 2 of 3: .*invalid residue code 99" -- \
    "${mpi[@]}" -n 3 "$trellis" --backend cpu --quiet align search -q "$scratch/queries1.fasta" -d "$scratch/damaged.tdb"
  expect_failure "missing queries, mpirun -n 2" "rank 0 of 2: .*cannot open" -- \
    "${mpi[@]}" -n 2 "$trellis" --backend cpu --quiet align search -q "$scratch/none.fasta" -d "$scratch/random1.tdb"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
