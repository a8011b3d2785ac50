"""The Python API through the built module: answers, dtypes and shapes, copies, errors."""

import json
import os
import threading
import time

import numpy as np
import pytest

import nqueens
from conftest import DATA, run_cli

DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]

# Nauck's 1850 problem: queens given in rows 1 and 6 of the 8x8 board.
NAUCK = np.array([4, 0, 0, 0, 0, 2, 0, 0], dtype=np.uint32)


def is_solution_keeping(solution, base):
    """A 1-based uint32 solution that keeps every queen of the 1-based `base`."""
    r = nqueens.verify(solution, base=base, require_complete=True)
    return r.is_solution and r.base_violation_count == 0


# -- complete -------------------------------------------------------------------------------


def test_complete_solves_nauck_and_keeps_the_given_queens():
    r = nqueens.complete(NAUCK, seed=1)
    assert r.status == "SOLVED" and r
    assert r.solution.dtype == np.uint32 and r.solution.shape == (8,)
    assert (r.solution[0], r.solution[5]) == (4, 2)
    assert is_solution_keeping(r.solution, NAUCK)
    assert r.certificate is None and r.reason is None and r.seed == 1
    assert r.stats["n"] == 8 and r.stats["free_rows"] == 6


def test_the_same_seed_gives_the_same_solution_whatever_the_threads():
    q = nqueens.generate_composition(nqueens.generate_solution(500), free=300, seed=4)
    a = nqueens.complete(q, seed=9, threads=1).solution
    b = nqueens.complete(q, seed=9, threads=2).solution
    c = nqueens.complete(q, seed=9).solution
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert nqueens.complete(q).seed != nqueens.complete(q).seed  # fresh seeds


def test_an_infeasible_board_gives_the_command_lines_certificate(cli, tmp_path):
    board = DATA / "grigoryan-n100-k92.txt"
    r = nqueens.complete(nqueens.read(board), seed=3)
    assert r.status == "INFEASIBLE" and not r and r.solution is None
    cert = tmp_path / "cert.json"
    out = run_cli(cli, "complete", board, "--certificate", cert, "--seed", "3")
    assert out.returncode == 3, out.stderr
    doc = json.loads(cert.read_text())
    for key in ("schema_version", "nqueens_version", "n", "free_rows", "certificate", "explanation"):
        assert r.certificate[key] == doc[key], key
    # The files beside the document (its CNF and proof) are the command line's.
    assert set(r.certificate) == set(doc) - {"input", "cnf", "proof"}


def test_a_time_limit_gives_unknown_with_the_reason():
    r = nqueens.complete(np.zeros(200_000, np.uint32), time_limit=1e-6, seed=1)
    assert r.status == "UNKNOWN" and r.solution is None
    assert "time limit" in r.reason
    with pytest.raises(ValueError, match="time_limit"):
        nqueens.complete(NAUCK, time_limit=-1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ["flat", "row", "column"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_every_integer_dtype_shape_and_order_comes_back_alike(dtype, shape, order):
    n = 12
    base = nqueens.generate_composition(nqueens.generate_solution(n), k=5, seed=2)
    want = nqueens.complete(base, seed=5).solution  # uint32, 1-based
    dims = {"flat": (n,), "row": (1, n), "column": (n, 1)}[shape]
    q = np.asarray(base.astype(dtype).reshape(dims), order=order)
    r = nqueens.complete(q, seed=5)
    assert r.solution.dtype == dtype and r.solution.shape == dims
    assert np.array_equal(r.solution.ravel().astype(np.uint32), want)
    if np.issubdtype(dtype, np.signedinteger):
        q0 = np.asarray((base.astype(np.int64) - 1).astype(dtype).reshape(dims), order=order)
        r0 = nqueens.complete(q0, seed=5, zero_based=True)
        assert r0.solution.dtype == dtype and r0.solution.shape == dims
        assert np.array_equal(r0.solution.ravel().astype(np.int64), want.astype(np.int64) - 1)


def test_lists_strided_views_and_other_byte_orders_are_read_as_values():
    want = nqueens.complete(NAUCK, seed=1).solution
    assert np.array_equal(nqueens.complete(NAUCK.tolist(), seed=1).solution, want)
    wide = np.zeros(16, np.int32)
    wide[::2] = NAUCK
    assert np.array_equal(nqueens.complete(wide[::2], seed=1).solution, want)
    assert np.array_equal(nqueens.complete(NAUCK[::-1][::-1], seed=1).solution, want)
    big_endian = NAUCK.astype(">u4")
    assert np.array_equal(nqueens.complete(big_endian, seed=1).solution, want)


def test_a_c_contiguous_uint32_board_of_65536_rows_or_more_is_read_in_place():
    address = lambda a: a.__array_interface__["data"][0]  # noqa: E731
    big = 1 << 16
    q = np.zeros(big, np.uint32)
    assert nqueens._native._rows_address(q) == address(q)
    row = np.zeros((1, big), np.uint32, order="F")
    assert nqueens._native._rows_address(row) == address(row)
    column = np.zeros((big, 1), np.uint32)
    assert nqueens._native._rows_address(column) == address(column)
    # Anything else is converted: another dtype, 0-based values, a strided view, and
    # fewer rows (a copy costs less than the borrow's bookkeeping).
    wide = q.astype(np.int64)
    assert nqueens._native._rows_address(wide) != address(wide)
    assert nqueens._native._rows_address(q, True) != address(q)
    strided = np.zeros(2 * big, np.uint32)[::2]
    assert nqueens._native._rows_address(strided) != address(strided)
    small = np.zeros(big - 1, np.uint32)
    assert nqueens._native._rows_address(small) != address(small)


def test_complete_many_of_many_boards_holds_no_borrows():
    # 20,000 rows of one 2-D array: each was borrowed, and each borrow was checked against
    # all those held (quadratic); now copied. The answers are those given one by one.
    boards = np.stack([NAUCK] * 20_000)
    answers = nqueens.complete_many(boards, seed=1)
    assert len(answers) == 20_000 and all(a == answers[0] for a in answers)
    assert answers[0] == nqueens.complete(NAUCK, seed=1)


def test_the_gil_is_released_while_the_library_works():
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        start = time.perf_counter()
        nqueens.count(13, threads=1)
        took = time.perf_counter() - start
    finally:
        stop.set()
        t.join()
    during = [x for x in ticks if start < x < start + took]
    # Held GIL: the ticker runs at most every switch interval (5 ms) and not at all while
    # a C call holds it; released, it ticks every millisecond or so.
    assert took > 0.05 and len(during) > 0.3 * took / 0.001, (took, len(during))


# -- complete_many --------------------------------------------------------------------------


def test_complete_many_answers_in_order_like_complete():
    sol = nqueens.generate_solution(60)
    boards = [nqueens.generate_composition(sol, free=f, seed=f) for f in range(5, 50, 5)]
    boards.append(np.array([4, 0, 0, 0, 0, 2, 0, 0], np.int16))  # another n and dtype
    boards.append(np.loadtxt(DATA / "grigoryan-n100-k92.txt", dtype=np.uint32))
    many = nqueens.complete_many(boards, seed=11)
    assert len(many) == len(boards)
    for q, r in zip(boards, many):
        one = nqueens.complete(q, seed=11)
        assert r.status == one.status and r.seed == 11
        if r.status == "SOLVED":
            assert r.solution.dtype == q.dtype and np.array_equal(r.solution, one.solution)
    assert many[-1].status == "INFEASIBLE" and many[-2].solution.dtype == np.int16


def test_complete_many_takes_a_2d_array_and_names_an_invalid_board():
    sol = nqueens.generate_solution(30, zero_based=True)
    boards = np.stack([nqueens.generate_composition(sol, free=10, seed=s, zero_based=True) for s in range(4)])
    many = nqueens.complete_many(boards, seed=1, zero_based=True, threads=1)
    assert [r.status for r in many] == ["SOLVED"] * 4
    assert all(r.solution.shape == (30,) and r.solution.dtype == np.int64 for r in many)
    boards[2, :2] = [0, 1]  # rows 1 and 2 on a diagonal
    with pytest.raises(ValueError, match="board 2"):
        nqueens.complete_many(boards, zero_based=True)
    assert nqueens.complete_many([]) == []


# -- verify ---------------------------------------------------------------------------------


def test_verify_reports_conflicts_bases_and_files(tmp_path):
    r = nqueens.verify([1, 2, 0, 0])
    assert r.verdict == "invalid" and not r and not r.is_solution
    assert r.first_problem == "rows 1 and 2 share a D1 diagonal (columns 1 and 2)"
    assert r.conflicts == [{"kind": "d1", "first": [1, 1], "second": [2, 2]}]
    assert nqueens.verify([2, 4, 1, 3]).is_solution
    partial = nqueens.verify([2, 0, 0, 0])
    assert partial.verdict == "composition" and partial and partial.k == 1
    assert nqueens.verify([2, 0, 0, 0], require_complete=True).verdict == "incomplete"
    moved = nqueens.verify([3, 1, 4, 2], base=[2, 0, 0, 0])
    assert moved.verdict == "invalid" and moved.base_violations == [{"row": 1, "base": 2, "found": 3}]
    assert nqueens.verify([1, 3, 0, 2], zero_based=True).is_solution  # [2, 4, 1, 3]
    assert nqueens.verify([9, 0, 0, 0]).out_of_range == [{"row": 1, "value": 9}]
    # Files, verified as they stream.
    path = tmp_path / "s.nqb"
    nqueens.write(path, nqueens.generate_solution(1000))
    on_disk = nqueens.verify(path)
    assert on_disk.is_solution and on_disk.checksum_verified
    assert nqueens.verify(str(path), base=path, require_complete=True).is_solution
    with pytest.raises(ValueError, match="n = 4"):
        nqueens.verify([2, 4, 1, 3], base=[1, 0, 0, 0, 0])


def test_a_base_is_checked_whole_before_it_is_used(tmp_path):
    # A base whose payload was damaged on disk (row 8's queen zeroed) was read as it was:
    # a board that drops that queen passed as keeping every queen of the base.
    base = tmp_path / "base.nqb"
    nqueens.write(base, np.array([2, 4, 6, 8, 3, 1, 7, 5], dtype=np.uint32))
    with open(base, "r+b") as f:
        f.seek(64 + 4 * 7)
        f.write((0).to_bytes(4, "little"))
    dropped = np.array([2, 4, 6, 8, 3, 1, 7, 0], dtype=np.uint32)
    with pytest.raises(OSError, match="checksum"):
        nqueens.verify(dropped, base=base)
    with pytest.raises(ValueError, match="base is not a valid composition"):
        nqueens.verify([2, 4, 1, 3], base=[1, 2, 0, 0])


# -- read and write -------------------------------------------------------------------------

FORMATS = {
    "nqb": "s.nqb",
    "zstd": "s.zst",
    "text": "s.txt",
    "mat": "s.mat",
    "mat-v6": "s6.mat",
    "mat-v73": "s73.mat",
    "csplib": "s.param",
    "npy": "s.npy",
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_write_and_read_back_every_format(tmp_path, fmt):
    q = nqueens.generate_composition(nqueens.generate_solution(50), free=20, seed=1)
    named = tmp_path / FORMATS[fmt]
    nqueens.write(named, q, format=fmt)
    assert np.array_equal(nqueens.read(named), q)
    by_extension = tmp_path / ("x-" + FORMATS[fmt])
    if fmt not in ("mat-v6", "mat-v73"):
        nqueens.write(by_extension, q)
        assert np.array_equal(nqueens.read(by_extension), q)


def test_read_maps_a_raw_nqb_file_without_copying_and_checks_on_request(tmp_path):
    path = tmp_path / "s.nqb"
    nqueens.write(path, nqueens.generate_solution(100_000))
    m = nqueens.read(path)
    assert isinstance(m, np.memmap) and m.dtype == np.dtype("<u4") and m.shape == (100_000,)
    assert not m.flags.writeable and m.offset == 64
    assert nqueens.verify(m).is_solution
    # The rows are the file's own pages: a write to the file shows through the map.
    with open(path, "r+b") as f:
        f.seek(64)
        f.write((7).to_bytes(4, "little"))
    assert m[0] == 7
    with pytest.raises(OSError, match="checksum"):
        nqueens.read(path, check=True)
    with pytest.raises(OSError, match="checksum"):
        nqueens.verify(path)


def test_zero_based_files_and_arrays(tmp_path):
    path = tmp_path / "z.txt"
    path.write_text("1\n3\n0\n2\n")  # 0-based [2, 4, 1, 3]
    assert nqueens.read(path, zero_based=True).tolist() == [2, 4, 1, 3]
    nqueens.write(tmp_path / "o.txt", np.array([1, 3, 0, -1]), zero_based=True)
    assert nqueens.read(tmp_path / "o.txt").tolist() == [2, 4, 1, 0]


def test_file_errors_are_os_errors_with_the_librarys_message(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.nqb: cannot open"):
        nqueens.read(tmp_path / "missing.nqb")
    with pytest.raises(IsADirectoryError):
        nqueens.read(tmp_path)
    empty = tmp_path / "empty.nqb"
    empty.write_bytes(b"")
    with pytest.raises(OSError, match="empty file"):
        nqueens.read(empty)
    with pytest.raises(OSError, match="does not exist|cannot write|No such file"):
        nqueens.write(tmp_path / "no" / "dir.nqb", NAUCK)
    with pytest.raises(ValueError, match="format"):
        nqueens.write(tmp_path / "x", NAUCK, format="xml")
    assert not (tmp_path / "x").exists()


# -- count ----------------------------------------------------------------------------------


def test_count_matches_the_known_totals():
    assert [nqueens.count(n) for n in range(1, 11)] == [1, 0, 0, 2, 10, 4, 40, 92, 352, 724]
    assert nqueens.count(8, distinct=True) == (92, 12)
    assert nqueens.count(8, place=[(1, 1)]) == 4
    assert nqueens.count(8, place=[(1, 1), (2, 2)]) == 0  # attacking pieces
    assert nqueens.count(8, piece="rook") == 40320
    assert nqueens.count(6, piece="bishop") == nqueens.count(6, piece="bishop", threads=1)
    assert nqueens.count(10, kind="super") == 4
    assert nqueens.count(12, threads=1) == 14200


def test_count_errors_are_value_errors():
    with pytest.raises(ValueError, match="largest n ever counted"):
        nqueens.count(32)
    with pytest.raises(ValueError, match="off the 8 x 8 board"):
        nqueens.count(8, place=[(9, 1)])
    with pytest.raises(ValueError, match="piece"):
        nqueens.count(8, piece="king")
    with pytest.raises(ValueError, match="kind"):
        nqueens.count(8, kind="mega")
    with pytest.raises(ValueError, match="n: 0 is out of range"):
        nqueens.count(0)


# -- generate -------------------------------------------------------------------------------


def test_generate_solution_sources():
    for source in ("construction", "transposed", "mirrored"):
        s = nqueens.generate_solution(1001, source=source)
        assert s.dtype == np.uint32 and nqueens.verify(s).is_solution
    lin = nqueens.generate_solution(7, source="linear", a=3)
    assert lin.tolist() == [(3 * i) % 7 + 1 for i in range(7)]
    a = nqueens.generate_solution(300, source="random", seed=5)
    assert nqueens.verify(a).is_solution
    assert np.array_equal(a, nqueens.generate_solution(300, source="random", seed=5))
    z = nqueens.generate_solution(8, zero_based=True)
    assert z.dtype == np.int64 and z.min() == 0 and nqueens.verify(z, zero_based=True).is_solution
    for bad in (2, 3):
        with pytest.raises(ValueError, match="no solution"):
            nqueens.generate_solution(bad)
    with pytest.raises(ValueError, match="linear"):
        nqueens.generate_solution(12, source="linear")
    with pytest.raises(ValueError, match="seed"):
        nqueens.generate_solution(8, seed=1)


def test_generate_composition_clearings_agree_with_the_command_line(cli, tmp_path):
    sol = nqueens.generate_solution(1000)
    nqueens.write(tmp_path / "s.nqb", sol)
    cases = [
        (dict(clear="random", k=600), ["--k", "600"]),
        (dict(clear="random", free="2%"), ["--free", "2%"]),
        (dict(clear="block", free=0.02), ["--clear", "block", "--free", "0.02"]),
        (dict(clear="stride", free=50), ["--clear", "stride", "--free", "50"]),
        (dict(clear="columns", free=30, at=5), ["--clear", "columns", "--free", "30", "--at", "5"]),
        (dict(clear="diagonals", free=40, direction="d2"), ["--clear", "diagonals", "--free", "40", "--direction", "d2"]),
        (dict(clear="region", free=25), ["--clear", "region", "--free", "25"]),
        (dict(clear="random", free=100, move=3), ["--free", "100", "--move", "3"]),
    ]
    for kw, args in cases:
        mine = nqueens.generate_composition(sol, seed=7, **kw)
        out = tmp_path / "c.nqb"
        done = run_cli(cli, "generate", "composition", "--from", tmp_path / "s.nqb", "--seed", "7", "-o", out, *args)
        assert done.returncode == 0, done.stderr
        assert np.array_equal(mine, nqueens.read(out)), kw
        out.unlink()
    z = nqueens.generate_composition(sol.astype(np.int32) - 1, free=10, seed=1, zero_based=True)
    assert z.dtype == np.int32 and (z == -1).sum() == 10
    with pytest.raises(ValueError, match="needs free"):
        nqueens.generate_composition(sol, clear="block")
    with pytest.raises(ValueError, match="not a valid composition"):
        nqueens.generate_composition([1, 2, 0, 0])
    with pytest.raises(OverflowError):
        nqueens.generate_composition(sol.astype(np.uint32) - 1, free=1, zero_based=True)


# -- argument errors ------------------------------------------------------------------------


def test_argument_errors():
    with pytest.raises(TypeError, match="integers"):
        nqueens.complete(np.zeros(8))
    with pytest.raises(ValueError, match=r"shape \(n,\), \(1, n\) or \(n, 1\)"):
        nqueens.complete(np.zeros((3, 4), np.uint32))
    with pytest.raises(ValueError, match="row 2: value -3 is negative"):
        nqueens.complete([0, -3, 0, 0])
    with pytest.raises(ValueError, match="-2 is negative"):
        nqueens.complete([0, -2, 0, 0], zero_based=True)
    with pytest.raises(ValueError, match="empty array"):
        nqueens.complete(np.zeros(0, np.uint32))
    with pytest.raises(OverflowError, match="int8"):
        nqueens.complete(np.zeros(200, np.int8))
    with pytest.raises(ValueError, match="row 1: value 9 is not a column"):
        nqueens.complete([9, 0, 0, 0])
