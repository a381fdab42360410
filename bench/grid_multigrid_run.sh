#!/usr/bin/env bash
# The multigrid rows on a device machine: the cuda grid tests, then 3-D
# Poisson with the coarse operators formed by axes and as 3-D products, in
# one run. Usage: bench/grid_multigrid_run.sh [BIN [OUT]] (BIN defaults to
# build-gpu/bin, OUT to $OUT or ./multigrid-out); the log goes to
# OUT/multigrid.log.
set -u
bin=${1:-build-gpu/bin}
out=${2:-${OUT:-multigrid-out}}
mkdir -p "$out"
exec >"$out/multigrid.log" 2>&1
poisson() { "$bin/trellis" --backend cuda grid poisson --dim 3 --tolerance 1e-8 "$@"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
echo "== grid_tests, cuda and multigrid"
"$bin/grid_tests" --gtest_filter='*Multigrid*:*multigrid*:*Cuda*:*cuda*' 2>&1 | grep -E '^\[  (FAILED|PASSED|SKIPPED) |Failure|error' | head -40
for n in 256 512; do
  for coarse in products axes; do
    for solver in mgcg mg; do
      echo "== $n^3 $solver --coarse $coarse"
      poisson --n "$n" --levels 1 --solver "$solver" --coarse "$coarse" --phases
    done
  done
done
echo "== 256^3 cg (Jacobi)"
poisson --n 256 --levels 1 --solver cg
echo "== refinement, mgcg --coarse axes"
poisson --n 32 --levels 4 --solver mgcg --coarse axes
echo "== 256^3 mgcg --smoother gauss-seidel (8 colours; Kronecker levels take a residual a colour)"
poisson --n 256 --levels 1 --solver mgcg --smoother gauss-seidel --phases
echo "== graded meshes (cells up to 256:1), mgcg, Chebyshev against line relaxation and Gauss-Seidel"
for smoother in chebyshev line gauss-seidel; do
  "$bin/trellis" --backend cuda grid poisson --dim 3 --n 16 --levels 3 --mesh graded --solver mgcg --smoother "$smoother" --tolerance 1e-8
done
echo "== 256^3 mgcg --coarse axes --matrix-free"
poisson --n 256 --levels 1 --solver mgcg --coarse axes --matrix-free
if command -v nsys >/dev/null; then
  echo "== nsys, 256^3 mgcg --coarse axes"
  nsys profile -o "$out/mgcg" --force-overwrite true --stats=false \
    "$bin/trellis" --backend cuda grid poisson --dim 3 --n 256 --levels 1 --solver mgcg --tolerance 1e-8 >/dev/null
  nsys stats --report cuda_gpu_kern_sum --format csv "$out/mgcg.nsys-rep" | head -40
  rm -f "$out"/mgcg.nsys-rep "$out"/mgcg.sqlite
elif command -v ncu >/dev/null; then
  echo "== ncu, 256^3 mgcg --coarse axes: each kernel's time over the iterations"
  ncu --metrics gpu__time_duration.sum --csv \
    "$bin/trellis" --backend cuda grid poisson --dim 3 --n 256 --levels 1 --solver mgcg --tolerance 1e-8 \
    >"$out/mgcg-ncu.csv" 2>&1
  python3 "$(dirname "$0")/kernel_times.py" "$out/mgcg-ncu.csv" --after smoothing | head -30
  rm -f "$out/mgcg-ncu.csv"
else
  echo "neither nsys nor ncu"
fi
echo "== done"
