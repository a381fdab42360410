#!/usr/bin/env bash
# The vulkan backend against cuda on one GPU machine (docs/vulkan.md): the
# vulkan test instances, then `trellis bench` sssp, spmv and align with
# --backend cuda and --backend vulkan one after the other in the same run,
# each step under a time limit. Logs and tables go to OUT as they are made.
#
# Usage: bench/vulkan_run.sh BUILD OUT, where BUILD is laid out as
#   scripts/gpu-build leaves build-gpu/ (a build with CUDA and Vulkan): bin/
#   with trellis, the core, graph, grid and align test binaries and lib/;
#   data/vulkan-loader/*.deb (unpacked here when the machine lacks the Vulkan
#   loader), data/mmseqs2/{DB,QUERY}.fasta.gz and data/COMMIT. Only bin/ and
#   data/ need to travel. VULKAN_RUN="tests bench" (the default) picks the
#   parts.
set -u
stage=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
log=$out/vulkan-run.log
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! ldconfig -p | grep -q 'libvulkan\.so\.1' && [ -d "$stage/data/vulkan-loader" ]; then
  for deb in "$stage"/data/vulkan-loader/*.deb; do dpkg -x "$deb" /; done
  ldconfig
fi
trellis=$stage/bin/trellis
# NVIDIA's driver installs its manifest where the loader may not look.
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! "$trellis" info 2>/dev/null | grep -q 'Vulkan devices: *[1-9]' && [ -f "$nvidia_icd" ]; then
  export VK_DRIVER_FILES=$nvidia_icd
fi

step() {  # step SECONDS NAME COMMAND...: output to OUT/NAME.txt, its tail and time to the log
  local limit=$1 name=$2
  shift 2
  echo "+ $*" >> "$log"
  local start
  start=$(date +%s%N)
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "  exit $rc after $((($(date +%s%N) - start) / 1000000)) ms" >> "$log"
  tail -n 30 "$out/$name.txt" >> "$log"
}

{
  echo "- device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
  echo "- commit: $(cat "$stage/data/COMMIT" 2>/dev/null)"
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
} >> "$log"
step 30 info "$trellis" info
for part in ${VULKAN_RUN:-tests bench}; do
  case $part in
    tests)
      for module in core graph grid align; do
        step 180 "$module-tests" "$stage/bin/${module}_tests" --gtest_brief=1 '--gtest_filter=*Vulkan*'
      done
      ;;
    bench)
      for backend in cuda vulkan; do
        step 120 "sssp-$backend" "$trellis" --quiet --backend "$backend" bench sssp \
          --presets seed-8k seed-60k seed-180k seed-401k --batch-sizes 1 16 64 --large backplane --repeats 10 \
          -o "$out/sssp-$backend.md"
        step 120 "spmv-$backend" "$trellis" --quiet --backend "$backend" bench spmv --size 256 --repeats 50 \
          -o "$out/spmv-$backend.md"
        step 240 "align-$backend" "$trellis" --quiet --backend "$backend" bench align --data "$stage/data/mmseqs2" \
          --databases 20000 --queries 464 2005 --shuffled-residues 0 --peak-count 1000000 --peak-length 256 1024 \
          --parasail-max-cells 0 --repeats 3 -o "$out/align-$backend.md"
      done
      ;;
  esac
done
echo "done" >> "$log"
