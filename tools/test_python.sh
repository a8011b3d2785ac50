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
tools/venv.sh "$venv" "import maturin, numpy, pytest" "maturin>=1.9,<2" numpy pytest
# The command line, debug build, as `cargo test` leaves it (a no-op after it).
cargo build --quiet --bin nqueens
# The bindings, debug build (the dependencies are those `cargo test` compiled), installed
# into the environment as an editable package.
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" "$venv/bin/maturin" develop --quiet \
  --manifest-path python/Cargo.toml
NQUEENS_BIN="$target/debug/nqueens" CARGO_TARGET_DIR="$target" \
  exec "$venv/bin/python" -m pytest -q python/tests "$@"
