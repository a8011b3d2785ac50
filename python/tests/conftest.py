"""Shared fixtures of the Python tests (run by tools/test.sh through the built module)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def cli_path() -> pathlib.Path:
    """The command line the readers are compared with: $NQUEENS_BIN, else the debug build."""
    if "NQUEENS_BIN" in os.environ:
        return pathlib.Path(os.environ["NQUEENS_BIN"])
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug" / "nqueens"


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    path = cli_path()
    # No skip: a missing binary is a broken test setup (tools/test.sh builds it).
    assert path.is_file(), f"{path}: build it first (cargo build), or set NQUEENS_BIN"
    return path


def run_cli(cli: pathlib.Path, *args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(cli), *map(str, args)], capture_output=True, text=True, timeout=120, **kw
    )
