#!/usr/bin/env bash
# The Python package's tests (tools/test.sh runs them after `cargo test`): builds the
# bindings (python/, PyO3 + rust-numpy) with maturin into a virtual environment of their own
# ($CARGO_TARGET_DIR/pyenv, or target/pyenv: maturin, numpy and pytest from PyPI), builds
# the command line the readers are compared with, then runs pytest on python/tests through
# the built module. Any step that fails fails the script: nothing is skipped.
# Arguments go to pytest (`tools/test_python.sh -k interrupt`).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target/pyenv"
if ! "$venv/bin/python" -c "import maturin, numpy, pytest" >/dev/null 2>&1; then
  echo "tools/test_python.sh: making $venv (maturin, numpy, pytest from PyPI)" >&2
  if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
    # Debian's python3 keeps venv in a package of its own.
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv --clear "$venv"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9,<2" numpy pytest
fi
# The command line, debug build, as `cargo test` leaves it (a no-op after it).
cargo build --quiet --bin nqueens
# The bindings, debug build (the dependencies are those `cargo test` compiled), installed
# into the environment as an editable package.
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" "$venv/bin/maturin" develop --quiet \
  --manifest-path python/Cargo.toml
NQUEENS_BIN="$target/debug/nqueens" CARGO_TARGET_DIR="$target" \
  exec "$venv/bin/python" -m pytest -q python/tests "$@"
