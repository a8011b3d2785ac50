#!/usr/bin/env bash
# Makes a Python virtual environment with packages from PyPI, unless it already imports
# what is asked: `tools/venv.sh DIR "import a, b" PACKAGE...`. Used by tools/test.sh (NVRTC)
# and tools/test_python.sh (maturin, NumPy, pytest). Debian's python3 keeps venv in a
# package of its own (python3-venv), installed with apt-get when missing.
set -euo pipefail
venv="$1" check="$2"
shift 2
if "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
  exit 0
fi
echo "tools/venv.sh: making $venv ($*, from PyPI)" >&2
if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv --clear "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$@"
