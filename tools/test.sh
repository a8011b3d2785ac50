#!/usr/bin/env bash
# The test command of README.md and .ci/run: installs the command-line tools some tests run
# (zstd, whose `zstd -d` must give back a raw NQB file; the SAT solver cadical, which solves
# our CNF exports; GNU parallel, for the README's cluster recipes) when they are missing,
# then runs `cargo test` with any arguments given, then the Python package's tests
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
# The property tests draw their cases from a fixed seed here, so that a run of this script
# passes or fails the same way on every machine; `cargo test` alone draws fresh cases each
# time (set PROPTEST_RNG_SEED to replay a seed).
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261126}"
cargo test "$@"
tools/test_python.sh
