# Sourced by the GPU scripts (bench_count_gpu.sh, probe_count_gpu.sh) with $bin (nqueens
# built with `--features gpu`), $scratch (a scratch directory) and $log (a file): makes
# `$bin count --gpu` find the CUDA driver and NVRTC, or returns 1 with what it found in
# $log. NVRTC may be there only under a versioned name the loader is not asked for
# (libnvrtc.so.13): it is offered as libnvrtc.so, with its directory (for its builtins).
gpu_probe() { NQUEENS_GPU_CPU_THREADS=0 timeout 60 "$bin" count 12 --gpu --json 2>&1 >/dev/null; }
gpu_libs() {
  gpu_probe | grep -q "^nqueens: counting on" && return 0
  local links="$scratch/links" name lib; mkdir -p "$links"
  for name in nvrtc cuda; do
    lib=$(find /usr/local /usr/lib /usr/lib64 /opt -name "lib$name.so*" 2>/dev/null \
          | grep -v -e builtins -e stubs | sort -V | tail -1)
    [ -n "$lib" ] || continue
    ln -sf "$lib" "$links/lib$name.so"
    export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
  export LD_LIBRARY_PATH="$links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  gpu_probe | grep -q "^nqueens: counting on" && return 0
  { echo "the GPU is not used:"; gpu_probe; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    ldconfig -p | grep -E "nvrtc|libcuda"
    find /usr/local /usr/lib /usr/lib64 /opt -name 'libnvrtc*' -o -name 'libcuda.so*' 2>/dev/null
  } >>"$log" 2>&1
  return 1
}
