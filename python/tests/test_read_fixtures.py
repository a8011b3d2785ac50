"""`nqueens.read` of every fixture under tests/data (hostile ones included), and of every
format the command line writes, agrees with the command line's reading: the rows of
`nqueens convert FILE out.txt` when it reads the file, an OSError when it cannot."""

import pathlib

import numpy as np
import pytest

import nqueens
from conftest import DATA, run_cli

# A CSPLib board of n = 184,467,440 with two queens: its text conversion would be 1.5 GB,
# so it is compared with the command line's verdict on it instead (below).
HUGE = DATA / "bad" / "fuzz-csplib-ebf0e44a11dec67a.param"

FIXTURES = sorted(
    p
    for p in DATA.rglob("*")
    if p.is_file() and p.suffix not in (".expected", ".tsv") and p != HUGE
)


def cli_rows(cli, path: pathlib.Path, out: pathlib.Path, *opts):
    """The rows the command line reads from `path` (None when it cannot read it) and its
    exit code."""
    done = run_cli(cli, "convert", path, out, "--to", "text", *opts)
    if done.returncode != 0:
        return None, done
    rows = np.loadtxt(out, dtype=np.uint64, ndmin=1) if out.stat().st_size else np.zeros(0)
    out.unlink()
    return rows, done


def assert_reads_alike(cli, path, tmp_path, **kw):
    opts = ["--var", kw["var"]] if kw.get("var") else []
    want, done = cli_rows(cli, path, tmp_path / "out.txt", *opts)
    if want is None:
        if done.returncode == 2:  # unreadable: read must say so too
            with pytest.raises(OSError):
                nqueens.read(path, **kw)
        else:  # readable, but values above n (exit 1): read gives the rows, verify says
            rows = nqueens.read(path, **kw)
            assert nqueens.verify(rows).out_of_range_count > 0, done.stderr
        return
    got = nqueens.read(path, **kw)
    assert got.dtype == np.uint32
    assert np.array_equal(got.astype(np.uint64), want), path


def test_there_are_fixtures():
    assert len(FIXTURES) > 50
    assert {p.suffix for p in FIXTURES} >= {".txt", ".mat", ".npy", ".param", ".h5"}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(DATA)))
def test_read_agrees_with_the_command_line(cli, path, tmp_path):
    assert_reads_alike(cli, path, tmp_path)


@pytest.mark.parametrize("to", ["nqb", "text", "mat", "mat-v6", "mat-v73", "csplib", "npy", "zstd"])
def test_read_agrees_on_every_format_the_command_line_writes(cli, tmp_path, to):
    src = DATA / "grigoryan-n100-k47.txt"
    out = tmp_path / f"board.{to}"
    if to == "zstd":
        done = run_cli(cli, "convert", src, out, "--to", "nqb", "--encoding", "zstd")
    else:
        done = run_cli(cli, "convert", src, out, "--to", to)
    assert done.returncode == 0, done.stderr
    assert_reads_alike(cli, out, tmp_path)
    assert np.array_equal(nqueens.read(out), nqueens.read(src))


def test_read_of_a_huge_sparse_board_agrees_with_the_command_lines_verdict(cli):
    done = run_cli(cli, "verify", HUGE)
    assert "VALID COMPOSITION (2 of 184467440)" in done.stdout, done.stdout + done.stderr
    q = nqueens.read(HUGE)
    assert q.shape == (184467440,) and np.flatnonzero(q).tolist() == [0, 5]
    assert q[[0, 5]].tolist() == [4, 2]  # the file's 0-based [[0,3],[5,1]]
