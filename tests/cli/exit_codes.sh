#!/usr/bin/env bash
# The CLI's documented exit codes and messages: 0 ok, 1 runtime failure,
# 2 usage or input error; errors name the problem on stderr.
set -u
trellis=$1
failures=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

expect() {  # expect CODE PATTERN -- command...
  local want=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: '$*' exited $rc, expected $want"; echo "$out" | head -5; failures=$((failures + 1))
  elif ! grep -qiE -- "$pattern" <<<"$out"; then
    echo "FAIL: '$*' output lacks /$pattern/"; echo "$out" | head -5; failures=$((failures + 1))
  else
    echo "ok: '$*' -> $rc"
  fi
}

expect 0 '^trellis [0-9]+\.[0-9]+\.[0-9]+' -- "$trellis" --version
expect 0 'backends compiled in: reference, cpu' -- "$trellis" info
expect 0 'Usage' -- "$trellis" bench spmv --help
expect 0 '--size' -- "$trellis" bench spmv --help
expect 2 'tpu' -- "$trellis" --backend tpu info
expect 2 'frobnicate' -- "$trellis" frobnicate
expect 2 'subcommand' -- "$trellis"
expect 2 'size must be positive' -- "$trellis" bench spmv --size 0
expect 2 'precision' -- "$trellis" bench spmv --precision half
expect 2 'repeats' -- "$trellis" bench spmv --repeats -3 --size 4

if "$trellis" info | grep -q 'backends usable now: .*cuda'; then
  expect 0 'cuda' -- "$trellis" --quiet --backend cuda bench spmv --size 8 --repeats 2
else
  expect 2 'cuda backend was requested' -- "$trellis" --backend cuda bench spmv --size 8
fi
if "$trellis" info | grep -q 'backends usable now: .*vulkan'; then
  expect 0 'vulkan' -- "$trellis" --quiet --backend vulkan bench spmv --size 8 --repeats 2
fi

# Finite differences: a study, its VTK output, and refused options.
expect 0 'fitted order: normh' -- "$trellis" --quiet grid poisson --dim 2 --n 4 --levels 2 --mesh nonuniform --vtk "$scratch/u.vtk"
expect 0 'fitted order: normh' -- "$trellis" --quiet grid poisson --dim 2 --n 8 --levels 2 --mesh graded --solver mgcg --smoother line
if ! grep -q 'DATASET RECTILINEAR_GRID' "$scratch/u.vtk" 2>/dev/null; then
  echo "FAIL: grid poisson --vtk did not write a VTK file"; failures=$((failures + 1))
fi
expect 0 'steps' -- "$trellis" --quiet grid heat --dim 1 --n 4 --levels 2
expect 0 'convection-diffusion' -- "$trellis" --quiet grid convection --dim 1 --n 4 --levels 2 --matrix-free
expect 2 'dim must be 1, 2 or 3' -- "$trellis" grid poisson --dim 4
expect 2 'at least 2 cells' -- "$trellis" grid poisson --n 1
expect 2 'mesh' -- "$trellis" grid poisson --mesh curved
expect 1 'cannot' -- "$trellis" --quiet grid poisson --n 4 --levels 1 --vtk "$scratch/no/such/dir/u.vtk"
expect 2 'drop --backend' -- "$trellis" --backend cpu bench grid --size 4 --size-2d 4

# Output appears whole or not at all.
expect 0 '' -- "$trellis" --quiet bench spmv --size 6 --repeats 1 --format json -o "$scratch/t.json"
if ! python3 -c 'import json,sys; rows=json.load(open(sys.argv[1])); assert rows and "backend" in rows[0]' \
     "$scratch/t.json"; then
  echo "FAIL: --format json -o did not write a JSON table"; failures=$((failures + 1))
fi
expect 1 'cannot' -- "$trellis" --quiet bench spmv --size 6 --repeats 1 -o "$scratch/no/such/dir/t.md"
if [ -n "$(find "$scratch" -name '*.tmp.*')" ]; then
  echo "FAIL: a temporary output file was left behind"; failures=$((failures + 1))
fi

# Shortest paths from the command line (ids follow the file: 1-based .gr).
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
expect 0 '^4 2$' -- "$trellis" --quiet sssp "$examples/diamond.gr" --source 1 --target 4
expect 0 '^4 2$' -- "$trellis" --quiet sssp --source 1 "$examples/diamond.gr" --target 4
expect 0 '^4 1$' -- "$trellis" --quiet sssp "$examples/diamond.gr" --source 1 --source 3 --target 4
expect 0 '^path 1 2 4$' -- "$trellis" --quiet sssp "$examples/diamond.gr" --source 1 --target 4 --path
expect 0 '^6 inf$' -- "$trellis" --quiet sssp "$examples/diamond.gr" --source 1
expect 0 'unreachable' -- "$trellis" sssp "$examples/diamond.gr" --source 1 --target 6
expect 2 'source 7 is not a node' -- "$trellis" sssp "$examples/diamond.gr" --source 7
expect 2 'source 0 is not a node' -- "$trellis" sssp "$examples/diamond.gr" --source 0
expect 2 '--path needs --target' -- "$trellis" sssp "$examples/diamond.gr" --source 1 --path
expect 2 'no dijkstra|has no' -- "$trellis" --backend cpu sssp "$examples/diamond.gr" --source 1 --algorithm dijkstra
expect 2 'unknown shortest-path algorithm' -- "$trellis" sssp "$examples/diamond.gr" --source 1 --algorithm astar
expect 2 'missing.gr' -- "$trellis" sssp "$scratch/missing.gr" --source 1
printf 'p sp 2 1\na 1 2 -1\n' > "$scratch/negative.gr"
expect 2 'negative.gr:2' -- "$trellis" sssp "$scratch/negative.gr" --source 1
expect 2 'negative.gr:2' -- "$trellis" sssp "$scratch/negative.gr" --source 1 -o "$scratch/never.txt"
if [ -e "$scratch/never.txt" ]; then echo "FAIL: output written for bad input"; failures=$((failures + 1)); fi
expect 0 '' -- "$trellis" --quiet sssp "$examples/diamond.gr" --source 1 --binary -o "$scratch/d.bin"
if [ "$(stat -c %s "$scratch/d.bin")" -ne 24 ]; then echo "FAIL: --binary wrote $(stat -c %s "$scratch/d.bin") bytes, expected 24"; failures=$((failures + 1)); fi
expect 0 '401800' -- "$trellis" graph gen --list-presets
expect 0 '' -- "$trellis" --quiet graph gen --preset seed-2k -o "$scratch/lattice.gr"
expect 0 'edges' -- "$trellis" graph stats "$scratch/lattice.gr"
expect 2 '' -- "$trellis" graph gen --preset seed-2k --rmat 10 -o "$scratch/x.gr"

# Design-rule check: usage and bad input (boards with known answers are in route_tests).
expect 0 'Design-rule check' -- "$trellis" drc --help
expect 2 'cannot open' -- "$trellis" drc "$scratch/missing.dsn"
printf '(pcb broken\n  (parser\n' > "$scratch/truncated.dsn"
expect 2 'truncated.dsn' -- "$trellis" drc "$scratch/truncated.dsn"
expect 2 'directions' -- "$trellis" route "$scratch/truncated.dsn" --directions sideways
expect 2 'concurrent-nets' -- "$trellis" route "$scratch/truncated.dsn" --concurrent-nets -1
expect 2 'truncated.dsn' -- "$trellis" route "$scratch/truncated.dsn" --directions alternate -o "$scratch/never.ses"
if [ -e "$scratch/never.ses" ]; then echo "FAIL: route wrote a session for bad input"; failures=$((failures + 1)); fi
# A net the board lacks, asked for by --net: a usage error naming it, nothing written.
cat > "$scratch/two_nets.dsn" <<'DSN'
(pcb two_nets
  (resolution um 10)
  (unit um)
  (structure
    (layer F.Cu (type signal))
    (layer B.Cu (type signal))
    (boundary (rect pcb 0 0 20000 20000))
    (via via600)
    (rule (width 250) (clearance 200)))
  (placement
    (component pad_image
      (place P1 2000 2000 front 0) (place P2 18000 2000 front 0)
      (place P3 2000 18000 front 0) (place P4 18000 18000 front 0)))
  (library
    (image pad_image (pin round 1 0 0))
    (padstack round (shape (circle F.Cu 800)))
    (padstack via600 (shape (circle F.Cu 600)) (shape (circle B.Cu 600))))
  (network
    (net A (pins P1-1 P2-1))
    (net B (pins P3-1 P4-1))))
DSN
expect 0 '1 of 1 nets routed' -- "$trellis" route "$scratch/two_nets.dsn" --net B -o "$scratch/b.ses"
expect 2 "no net named 'C'" -- "$trellis" route "$scratch/two_nets.dsn" --net B --net C -o "$scratch/c.ses"
if [ -e "$scratch/c.ses" ]; then echo "FAIL: route wrote a session for an unknown net"; failures=$((failures + 1)); fi

# Protein database search: tabular and pairwise output, refused input.
printf '>q1 a query\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEV\n' > "$scratch/q.fasta"
printf '>s1 a relative\nMKTAYIAKQRQLSFVKSHFSRQ\n>s2\nGGGGGG\n' > "$scratch/db.fasta"
search=(align search -q "$scratch/q.fasta" -d "$scratch/db.fasta")
expect 0 '^q1[[:space:]]+s1[[:space:]]+' -- "$trellis" --quiet "${search[@]}"
expect 0 '^Sbjct  1 ' -- "$trellis" --quiet "${search[@]}" --format pairwise --top 1
expect 0 '' -- "$trellis" --quiet "${search[@]}" --format json -o "$scratch/hits.json"
if ! python3 -c 'import json,sys; q=json.load(open(sys.argv[1])); assert q[0]["hits"][0]["subject"] == "s1"' \
     "$scratch/hits.json"; then
  echo "FAIL: align search --format json -o did not write the hits"; failures=$((failures + 1))
fi
expect 2 "unknown output column 'bogus'" -- "$trellis" "${search[@]}" --columns std,bogus
expect 2 'neither a built-in matrix' -- "$trellis" "${search[@]}" --matrix NOSUCH
expect 2 'cuda' -- "$trellis" --backend cuda "${search[@]}"
expect 2 'missing.fasta' -- "$trellis" align search -q "$scratch/missing.fasta" -d "$scratch/db.fasta"
expect 2 'missing.fasta' -- "$trellis" align search -q "$scratch/q.fasta" -d "$scratch/missing.fasta" -o "$scratch/never.tsv"
if [ -e "$scratch/never.tsv" ]; then echo "FAIL: align search wrote output for bad input"; failures=$((failures + 1)); fi
expect 1 'cannot' -- "$trellis" --quiet "${search[@]}" -o "$scratch/no/such/dir/hits.tsv"

# BLAST+'s tabular formats, database size and statistics.
expect 0 '^# Fields: query acc.ver, subject acc.ver, % identity' -- "$trellis" --quiet "${search[@]}" --outfmt 7
expect 0 '^q1[[:space:]]+s1[[:space:]]+22[[:space:]]+100.00[[:space:]]+69$' -- "$trellis" --quiet "${search[@]}" --outfmt '6 qseqid sseqid positive ppos qcovhsp' --top 1
expect 2 "unknown output column 'qcovz'" -- "$trellis" "${search[@]}" --outfmt '6 std qcovz'
expect 2 "outfmt '5'" -- "$trellis" "${search[@]}" --outfmt 5
expect 2 'without --format' -- "$trellis" "${search[@]}" --outfmt 6 --format json
expect 2 'database size' -- "$trellis" "${search[@]}" --dbsize 0
expect 2 'database size' -- "$trellis" "${search[@]}" --dbsize=-5
expect 2 'dbsize' -- "$trellis" "${search[@]}" --dbsize lots
expect 2 'gap open/extend 5/5.*11/1' -- "$trellis" "${search[@]}" --gap-open 5 --gap-extend 5
expect 0 '^q1[[:space:]]+s1.*-[[:space:]]+-$' -- "$trellis" --quiet "${search[@]}" --gap-open 5 --gap-extend 5 --statistics none

# Prepared databases: makedb, the same hits from the database as from the FASTA, refused input.
expect 0 '2 sequences, 28 residues, lengths 6 to 22' -- "$trellis" --quiet align makedb "$scratch/db.fasta" -o "$scratch/db.tdb"
from_fasta=$("$trellis" --quiet "${search[@]}" --columns 'std stitle sseq')
from_database=$("$trellis" --quiet align search -q "$scratch/q.fasta" -d "$scratch/db.tdb" --columns 'std stitle sseq')
if [ -z "$from_fasta" ] || [ "$from_fasta" != "$from_database" ]; then
  echo "FAIL: align search on the made database differs from the search on the FASTA"; failures=$((failures + 1))
fi
expect 2 'missing.fasta' -- "$trellis" align makedb "$scratch/missing.fasta" -o "$scratch/never.tdb"
printf '\n\n' > "$scratch/blank.fasta"
expect 2 'no FASTA records' -- "$trellis" align makedb "$scratch/blank.fasta" -o "$scratch/never.tdb"
if [ -e "$scratch/never.tdb" ]; then echo "FAIL: align makedb wrote a database for bad input"; failures=$((failures + 1)); fi
expect 1 'cannot' -- "$trellis" --quiet align makedb "$scratch/db.fasta" -o "$scratch/no/such/dir/db.tdb"
head -c 100 "$scratch/db.tdb" > "$scratch/cut.tdb"
expect 2 'cut.tdb: truncated' -- "$trellis" align search -q "$scratch/q.fasta" -d "$scratch/cut.tdb"
if ls "$scratch" | grep -q '\.tmp\.'; then echo "FAIL: a temporary file was left behind"; failures=$((failures + 1)); fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
