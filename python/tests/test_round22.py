"""Round 22 of black-box testing (RELIABILITY.md): arguments, equality, byte order, write,
read of a replaced file, memory limits, messages, rooks up to symmetry."""

import os
import subprocess
import sys
import textwrap
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import nqueens

SOLUTION = nqueens.generate_solution(1000)


@pytest.mark.parametrize(
    "call",
    [
        lambda: nqueens.count(8, place=[(1.5, 1)]),
        lambda: nqueens.count(8, place=[(1, 2.99)]),
        lambda: nqueens.count(np.float64(8.0)),
        lambda: nqueens.count(8, place=[("3", "5")]),
        lambda: nqueens.complete([0] * 8, seed=True),
        lambda: nqueens.complete([0] * 8, threads=1.0),
        lambda: nqueens.generate_solution(8.0),
    ],
)
def test_non_integers_are_refused_not_truncated(call):
    with pytest.raises(TypeError, match="expected an integer"):
        call()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: nqueens.count(-1), "n"),
        (lambda: nqueens.count(2**64), "n"),
        (lambda: nqueens.count(8, place=[(-1, 1)]), "place: row"),
        (lambda: nqueens.count(8, place=[(1, 0)]), "place: column"),
        (lambda: nqueens.count(8, threads=-1), "threads"),
        (lambda: nqueens.complete([0] * 8, seed=-1), "seed"),
        (lambda: nqueens.complete_many([[0] * 8], seed=2**64), "seed"),
        (lambda: nqueens.generate_solution(-5), "n"),
        (lambda: nqueens.generate_composition([2, 4, 1, 3], k=-1), "k"),
        (lambda: nqueens.generate_composition([2, 4, 1, 3], clear="block", free=1, at=-1), "at"),
    ],
)
def test_out_of_range_arguments_are_value_errors_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}: "):
        call()


def test_place_takes_any_iterable_of_pairs_and_refuses_other_shapes():
    assert nqueens.count(8, place=np.array([[1, 1]])) == nqueens.count(8, place=[(1, 1)]) == 4
    for bad in ([(1, 1, 1)], "11", [5]):
        with pytest.raises(ValueError, match="place: expected"):
            nqueens.count(8, place=bad)


@pytest.mark.parametrize("free", [500, np.array(500), np.array(0.5), Fraction(1, 2), 0.5, "50%"])
def test_free_as_any_number(free):
    q = nqueens.generate_composition(SOLUTION, free=free, seed=1)
    assert int((q == 0).sum()) == 500


@pytest.mark.parametrize("free", [[500], Decimal("0.5"), True, {"a": 1}])
def test_free_of_another_type_is_refused(free):
    with pytest.raises(TypeError, match="free: expected"):
        nqueens.generate_composition(SOLUTION, free=free, seed=1)


def test_free_text_that_is_no_number_is_refused():
    with pytest.raises(ValueError, match="free: 'abc'"):
        nqueens.generate_composition(SOLUTION, free="abc", seed=1)


def test_answers_compare_by_value_and_hash():
    q = nqueens.generate_composition(SOLUTION, free=100, seed=2)
    a, b = nqueens.complete(q, seed=3), nqueens.complete(q.copy(), seed=3)
    assert a == b and not (a != b) and a in [b] and hash(a) == hash(b)
    assert a != nqueens.complete(q.astype(np.int64), seed=3)  # another dtype
    assert len({a, b}) == 1
    r1, r2 = nqueens.verify(SOLUTION), nqueens.verify(SOLUTION.copy())
    assert r1 == r2 and hash(r1) == hash(r2) and r1 != nqueens.verify(q)


@pytest.mark.parametrize("dtype", [">i4", ">u2", ">i8", "<u4"])
def test_answers_keep_the_input_byte_order(dtype):
    q = nqueens.generate_composition(SOLUTION, free=100, seed=2).astype(dtype)
    r = nqueens.complete(q, seed=1)
    assert r.solution.dtype == np.dtype(dtype)
    [m] = nqueens.complete_many([q], seed=1)
    assert m.solution.dtype == np.dtype(dtype) and np.array_equal(m.solution, r.solution)
    g = nqueens.generate_composition(SOLUTION.astype(dtype), free=10, seed=1)
    assert g.dtype == np.dtype(dtype)


@pytest.mark.parametrize("ext", ["nqb", "txt", "mat", "npy", "zst", "param"])
def test_write_refuses_values_off_the_board_and_writes_nothing(tmp_path, ext):
    path = tmp_path / f"big.{ext}"
    with pytest.raises(ValueError, match="column 9 is off the 4 x 4 board"):
        nqueens.write(path, [9, 0, 0, 0])
    assert os.listdir(tmp_path) == []


def test_read_refuses_a_file_replaced_while_it_is_read(tmp_path, monkeypatch):
    path, other = tmp_path / "a.nqb", tmp_path / "b.nqb"
    nqueens.write(path, nqueens.generate_solution(1000))
    nqueens.write(other, nqueens.generate_solution(2000))
    real = nqueens._native.read

    def replaced_after(*args):
        answer = real(*args)
        os.replace(other, path)
        return answer

    monkeypatch.setattr(nqueens._native, "read", replaced_after)
    with pytest.raises(OSError, match="replaced while it was read"):
        nqueens.read(path)
    monkeypatch.undo()
    assert nqueens.read(path).shape == (2000,)


def test_read_of_a_file_left_alone_is_a_map_of_it(tmp_path):
    path = tmp_path / "a.nqb"
    nqueens.write(path, SOLUTION)
    rows = nqueens.read(path)
    assert isinstance(rows, np.memmap) and np.array_equal(rows, SOLUTION)


LIMITED = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    import nqueens
    resource.setrlimit(resource.RLIMIT_AS, (2_500_000_000, 2_500_000_000))
    calls = {
        "generate_solution": lambda: nqueens.generate_solution(700_000_000),
        "complete": lambda: nqueens.complete(np.zeros(400_000_000, dtype=np.uint32)),
        "complete_many": lambda: nqueens.complete_many([np.zeros(400_000_000, dtype=np.uint32)]),
        "verify": lambda: nqueens.verify(np.broadcast_to(np.uint64(0), (600_000_000,))),
        "read": lambda: nqueens.read(sys.argv[1]),
    }
    for name, call in calls.items():
        try:
            call()
            print(name, "returned")
        except MemoryError as e:
            print(name, "MemoryError", e)
    """
)


def test_memory_refused_is_a_memory_error_not_an_abort(tmp_path):
    # 600 million zeros compress to about 580 KB: read() would need 2.4 GB.
    bomb = tmp_path / "bomb.npz"
    np.savez_compressed(bomb, Q=np.zeros(600_000_000, dtype=np.uint8))
    done = subprocess.run(
        [sys.executable, "-c", LIMITED, str(bomb)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and all(" MemoryError " in line for line in lines), done.stdout


def test_messages_name_the_module_arguments(tmp_path):
    two = tmp_path / "two.npz"
    np.savez(two, a=np.array([2, 4, 1, 3]), b=np.array([3, 1, 4, 2]))
    with pytest.raises(OSError, match="name one with var="):
        nqueens.read(two)
    with pytest.raises(ValueError, match=r"preplace queens \(place=\)"):
        nqueens.count(40)
    nqb = tmp_path / "a.nqb"
    nqueens.write(nqb, [2, 4, 1, 3])
    with pytest.raises(ValueError, match="zero_based=True applies"):
        nqueens.verify(nqb, zero_based=True)


def test_bishops_up_to_symmetry_by_burnside():
    # The value the enumeration of every placement gave (it took about 2 minutes).
    assert nqueens.count(9, piece="bishop", distinct=True) == (565532992, 70707774)
    with pytest.raises(ValueError, match="at most 14"):
        nqueens.count(15, piece="bishop", distinct=True)


def test_rooks_up_to_symmetry_at_any_size():
    assert nqueens.count(10, piece="rook", distinct=True) == (3628800, 456454)
    total, distinct = nqueens.count(35, piece="rook", distinct=True)
    assert total == 10333147966386144929666651337523200000000 and distinct > total // 8


# -- the second round, on the fixes ----------------------------------------------------------


def test_read_refuses_a_replacement_that_reuses_the_inode_number(tmp_path, monkeypatch):
    # The replacement is written in place of the path's file (same inode), as a file
    # renamed onto the path may get the inode number the replaced one freed: size and
    # times tell them apart.
    path = tmp_path / "a.nqb"
    nqueens.write(path, nqueens.generate_solution(1000))
    other = tmp_path / "b.nqb"
    nqueens.write(other, nqueens.generate_solution(2000))
    real = nqueens._native.read

    def rewritten_after(*args):
        answer = real(*args)
        with open(path, "r+b") as f:
            f.write(other.read_bytes())
        return answer

    monkeypatch.setattr(nqueens._native, "read", rewritten_after)
    with pytest.raises(OSError, match="replaced while it was read"):
        nqueens.read(path)


def test_a_start_near_two_to_the_64_is_refused_not_wrapped():
    for clear in ("block", "columns", "diagonals", "region"):
        for at in (2**64 - 1, 2**64 - 2):
            with pytest.raises(ValueError):
                nqueens.generate_composition(SOLUTION, clear=clear, free=4, at=at, seed=1)


def test_counts_of_more_than_4300_digits():
    total, distinct = nqueens.count(2000, piece="rook", distinct=True)
    assert total == __import__("math").factorial(2000)
    assert total // 8 < distinct < total


def test_free_too_large_for_a_count_names_free():
    for free in (1e20, "1e20", 2.0**64):
        with pytest.raises(ValueError, match="^free: "):
            nqueens.generate_composition(SOLUTION, free=free, seed=1)


def test_a_hash_does_not_move_when_an_answer_is_changed_in_place():
    # The hash is made of what cannot change in place (not the solution's values, not the
    # certificate), so an answer changed in place stays in its set.
    import dataclasses

    c = nqueens.complete(nqueens.generate_composition(SOLUTION, free=10, seed=1), seed=1)
    changed = dataclasses.replace(c, solution=c.solution[::-1].copy())
    assert hash(changed) == hash(c) and changed != c
    moved = dataclasses.replace(c, certificate={"kind": "x"})
    assert hash(moved) == hash(c)


@pytest.mark.parametrize(
    "call",
    [
        lambda: nqueens.count(8, place=[(np.array(1.0), 1)]),
        lambda: nqueens.count(8, place=np.zeros((1, 2, 2), dtype=np.int64)),
        lambda: nqueens.complete([0] * 8, seed=np.array([1, 2])),
        lambda: nqueens.complete([0] * 8, time_limit=True),
    ],
)
def test_arrays_and_bools_where_a_number_is_due_name_the_argument(call):
    with pytest.raises(TypeError, match="^(place: row|seed|time_limit): expected"):
        call()


def test_write_under_a_memory_limit_is_a_memory_error(tmp_path):
    script = textwrap.dedent(
        """
        import os, resource, sys
        import numpy as np
        import nqueens
        q = np.zeros(100_000_000, dtype=np.uint32)
        q[0] = 1  # mapped in
        # Room for half the copy a writer holds: the address space used now, and 200 MB.
        used = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (used + 200_000_000, used + 200_000_000))
        for fmt in ("nqb", "zstd", "mat", "npy"):
            try:
                nqueens.write(os.path.join(sys.argv[1], "q." + fmt), q, format=fmt)
                print(fmt, "written")
            except MemoryError:
                print(fmt, "MemoryError")
        print(sorted(os.listdir(sys.argv[1])))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[:4] == [f"{f} MemoryError" for f in ("nqb", "zstd", "mat", "npy")], done.stdout
    assert lines[4] == "[]"
