#!/usr/bin/env bash
# The test command of README.md and .ci/run: installs the command-line tools some tests run
# (zstd, whose `zstd -d` must give back a raw NQB file; the SAT solver cadical, which solves
# our CNF exports; the DRAT checker rate, through cargo, which verifies the proofs beside
# certificates; GNU parallel, for the README's cluster recipes; the clients of the
# differential test: GNU Octave, and scipy, h5py and NumPy for python3) when they are
# missing, then runs `cargo test` with any arguments given, then the GPU backend's tests
# (`--features gpu`, fake CUDA libraries), then compiles the count's CUDA
# kernel to PTX with NVRTC from PyPI (tools/check_cuda_kernel.py), then the Python package's tests
# (tools/test_python.sh: the bindings built with maturin in a virtual environment of their
# own, pytest through the built module; a failure to build them fails this script).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for tool in zstd cadical parallel; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tools/test.sh: installing ${missing[*]} (apt-get)" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The differential test against the real clients (tests/it/client_files.rs, running
# tools/diff_clients.py) needs python3 with scipy, h5py and NumPy, and GNU Octave (without
# its recommended packages: 135 packages, about 35 s). A client that cannot be installed
# fails that test: it never passes by skipping.
if ! command -v octave-cli >/dev/null 2>&1; then
  echo "tools/test.sh: installing octave (apt-get, no recommended packages)" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  [ ${#missing[@]} -gt 0 ] || $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends octave >/dev/null
fi
if ! python3 -c "import scipy.io, h5py, numpy" >/dev/null 2>&1; then
  echo "tools/test.sh: installing scipy, h5py and numpy (pip)" >&2
  # The versions RELIABILITY.md's runs used. A Debian python3 refuses pip installs outside
  # a virtual environment (PEP 668).
  clients=(scipy==1.17.1 h5py==3.16.0 numpy==2.4.6)
  python3 -m pip install --quiet "${clients[@]}" \
    || python3 -m pip install --quiet --break-system-packages "${clients[@]}"
fi
# The DRAT proof checker rate (crates.io), which verifies the proofs beside certificates
# (tests/it/proof_cli.rs, tools/check_proof.sh); a missing checker fails that test.
if ! command -v rate >/dev/null 2>&1 && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/rate" ]; then
  echo "tools/test.sh: installing the proof checker rate (cargo install)" >&2
  cargo install --quiet --locked --version 0.3.0 --root "${CARGO_HOME:-$HOME/.cargo}" rate
fi
# The property tests draw their cases from a fixed seed here, so that a run of this script
# passes or fails the same way on every machine; `cargo test` alone draws fresh cases each
# time (set PROPTEST_RNG_SEED to replay a seed).
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261126}"
# Tests that need root (they mount a small tmpfs to fill a disk) are marked #[ignore]; run
# as root, as .ci/run is, they run too, and fail rather than skip if they cannot mount.
if [ "$(id -u)" -eq 0 ] && ! printf '%s\n' "$@" | grep -qx -- '--'; then
  cargo test "$@" -- --include-ignored
else
  cargo test "$@"
fi
# The GPU backend (feature gpu) with fake CUDA libraries built by cc (count::gpu::tests: a
# driver too old or incomplete is a reason to count on the CPU, never a crash); no GPU,
# driver or toolkit needed.
cargo test --features gpu --lib count::gpu
# The count's CUDA kernel (src/count/batch.cu) compiled to PTX by NVRTC, as a GPU backend
# compiles it at run time: NVRTC from PyPI (no GPU, driver or toolkit needed), in a
# virtual environment of its own; a kernel that does not compile fails this script. (Its
# host build is run and checked node by node by `cargo test`, count::batch.)
nvrtc_env="${CARGO_TARGET_DIR:-$PWD/target}/nvrtc-env"
tools/venv.sh "$nvrtc_env" "import nvidia.cuda_nvrtc" "nvidia-cuda-nvrtc-cu12==12.9.86"
"$nvrtc_env/bin/python" tools/check_cuda_kernel.py
tools/test_python.sh
