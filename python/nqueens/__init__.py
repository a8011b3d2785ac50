"""n-queens compositions from Python: complete, verify, count and generate, over NumPy arrays.

A *composition* is a vector ``Q`` of n integers: ``Q[i]`` is the column of the queen in row
i, 1-based, with 0 for an empty row (or, with ``zero_based=True``, 0-based with -1 for an
empty row). *Completing* adds a queen to every empty row without moving the given ones, or
proves that no completion exists.

Arrays may have any integer dtype, shape ``(n,)``, ``(1, n)`` or ``(n, 1)``, C or Fortran
order; a C-contiguous ``uint32`` array of 1-based columns of 65,536 rows or more is read in
place, without a copy.
Answers come back with the input's dtype, shape and index base. The work runs in the
nqueens library (Rust) with the GIL released, on every core (or ``threads``), and Ctrl-C
stops a long ``complete``, ``complete_many`` or ``count`` with ``KeyboardInterrupt``.

Errors: ``ValueError`` for an invalid board (the verifier's first problem) or argument,
``TypeError`` for a non-integer array, ``OverflowError`` when the dtype cannot hold the
answer's columns, ``OSError`` (``FileNotFoundError``, ``PermissionError``...) for files,
with the library's one-line message.
"""

from __future__ import annotations

import json
import numbers
import operator
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native

__all__ = [
    "Completion",
    "Report",
    "complete",
    "complete_many",
    "verify",
    "read",
    "write",
    "count",
    "generate_solution",
    "generate_composition",
    "__version__",
]

__version__: str = _native.version()

PathLike = Union[str, "os.PathLike[str]"]

_U64 = 2**64 - 1


def _integer(name: str, value: Any, low: int = 0, high: int = _U64) -> int:
    """``value`` as an ``int`` in ``low..=high``: an integer (Python's or NumPy's, not a
    bool, a float or a string), else ``TypeError``; out of range, ``ValueError``; both
    naming the argument."""
    wrong = TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    if isinstance(value, (bool, np.bool_)):
        raise wrong
    try:
        v = operator.index(value)
    except TypeError:
        # Not an integer (a float array's __index__ raises too).
        raise wrong from None
    if not low <= v <= high:
        raise ValueError(f"{name}: {v} is out of range ({low}..{high})")
    return v


def _optional(name: str, value: Any, low: int = 0, high: int = _U64) -> Optional[int]:
    return None if value is None else _integer(name, value, low, high)


def _seconds(value: Any) -> Any:
    """A time limit: a bool is no number of seconds (``True`` was taken as 1 s)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"time_limit: expected a number of seconds, got {value!r}")
    return value


def _like(answer: Any, q: Any) -> Any:
    """``answer`` in the byte order of the array ``q`` it answers (the library works in
    this machine's order and gives the same values back in it)."""
    if (
        isinstance(answer, np.ndarray)
        and isinstance(q, np.ndarray)
        and answer.dtype != q.dtype
        and answer.dtype == q.dtype.newbyteorder("=")
    ):
        return answer.astype(q.dtype)
    return answer


@dataclass(frozen=True, eq=False)
class Completion:
    """The answer of :func:`complete`.

    Attributes:
        status: ``"SOLVED"``, ``"INFEASIBLE"`` (no completion exists: see ``certificate``)
            or ``"UNKNOWN"`` (the time limit ran out first: see ``reason``).
        solution: with ``"SOLVED"``, the completed board as an array of the input's dtype,
            shape and index base (every given queen kept, verified); else ``None``.
        certificate: with ``"INFEASIBLE"``, the proof as the command line's certificate
            document (``complete --certificate``; formats/certificate.md) without what only
            a file has (the input's path, the CNF beside it): ``schema_version``,
            ``nqueens_version``, ``n``, ``free_rows``, ``certificate`` (``kind`` and its
            fields) and ``explanation``; else ``None``.
        seed: the seed of every random choice (pass it again to repeat the run).
        reason: with ``"UNKNOWN"``, which budget ran out; else ``None``.
    """

    status: str
    solution: Optional[np.ndarray]
    certificate: Optional[dict]
    seed: int
    reason: Optional[str]
    _stats: str = field(repr=False)

    def _key(self) -> tuple:
        # Everything but the statistics (times differ from run to run); the solution by
        # its dtype, shape and values.
        s = self.solution
        sol = None if s is None else (s.dtype.str, s.shape, np.ascontiguousarray(s).tobytes())
        cert = json.dumps(self.certificate, sort_keys=True)
        return (self.status, sol, cert, self.seed, self.reason)

    def __eq__(self, other: object) -> bool:
        """The same answer: status, solution (dtype, shape and values), certificate, seed
        and reason; the statistics are not compared."""
        if not isinstance(other, Completion):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        # From what cannot change: the solution's values and the certificate can be
        # changed in place, and a hash must not move with them (equal answers agree on
        # these, so they hash alike).
        s = self.solution
        return hash((self.status, self.seed, self.reason, None if s is None else s.shape))

    @property
    def stats(self) -> dict:
        """What the engine did: the ``stats`` object of ``nqueens complete --json``
        (time and queens per phase, search nodes, restarts, ...; formats/json.md)."""
        return json.loads(self._stats)

    def __bool__(self) -> bool:
        return self.status == "SOLVED"


def _completion(t: tuple, q: Any) -> Completion:
    status, solution, certificate, stats, seed, reason = t
    return Completion(
        status=status,
        solution=_like(solution, q),
        certificate=None if certificate is None else json.loads(certificate),
        seed=seed,
        reason=reason,
        _stats=stats,
    )


def complete(
    q: Any,
    *,
    seed: Optional[int] = None,
    time_limit: Optional[float] = None,
    threads: Optional[int] = None,
    zero_based: bool = False,
) -> Completion:
    """Completes the composition ``q``: a queen added to every empty row, none moved.

    Args:
        q: the composition, an integer array (or sequence) of n columns.
        seed: seed of every random choice (default: a fresh one, in the answer's ``seed``);
            the same seed and board give the same answer whatever ``threads`` is.
        time_limit: seconds before giving up with ``"UNKNOWN"`` (default: none).
        threads: size of a local thread pool for this call (default: every core).
        zero_based: columns 0..n-1 with -1 for an empty row (in and out).

    Returns:
        A :class:`Completion`; its ``solution`` is an array like ``q``.

    Raises:
        ValueError: ``q`` is not a valid composition (the verifier's first problem).
        OverflowError: ``q``'s dtype cannot hold the columns of an n-board.
        KeyboardInterrupt: Ctrl-C (the run stops within a fraction of a second).
    """
    seed, threads = _optional("seed", seed), _optional("threads", threads)
    time_limit = _seconds(time_limit)
    return _completion(_native.complete(q, seed, time_limit, threads, zero_based), q)


def complete_many(
    boards: Any,
    *,
    seed: Optional[int] = None,
    time_limit: Optional[float] = None,
    threads: Optional[int] = None,
    zero_based: bool = False,
) -> list:
    """Completes many compositions at once, spread over every core.

    Args:
        boards: a sequence of compositions (arrays of any sizes and dtypes), or a 2-D array
            whose rows are compositions.
        seed: the seed of every board (default: one fresh seed for the call).
        time_limit: seconds each board may take before it answers ``"UNKNOWN"``.
        threads: size of a local thread pool for this call (default: every core).
        zero_based: columns 0..n-1 with -1 for an empty row (in and out).

    Returns:
        A list of :class:`Completion`, in the order of ``boards``.

    Raises:
        ValueError: a board is not a valid composition (its index is named).
        KeyboardInterrupt: Ctrl-C.
    """
    seed, threads = _optional("seed", seed), _optional("threads", threads)
    time_limit = _seconds(time_limit)
    boards = list(boards)
    return [
        _completion(t, q)
        for t, q in zip(_native.complete_many(boards, seed, time_limit, threads, zero_based), boards)
    ]


@dataclass(frozen=True, eq=False)
class Report:
    """What :func:`verify` found.

    Attributes:
        verdict: ``"solution"`` (every row holds a queen, none attacks another),
            ``"composition"`` (valid, with empty rows), ``"incomplete"`` (valid, but
            ``require_complete`` asked for a solution) or ``"invalid"``.
        n: board size.
        k: queens found.
        first_problem: the first thing wrong, as one line (``None`` when valid).
        conflict_count: the sum over lines of (queens on it - 1): 0 when no two attack.
        conflicts: the first conflicts, each ``{"kind": "column" | "d1" | "d2",
            "first": [row, column], "second": [row, column]}`` (1-based).
        out_of_range_count, out_of_range: values that are not a column (``{"row",
            "value"}``).
        base_violation_count, base_violations: queens of ``base`` not kept (``{"row",
            "base", "found"}``).
        checksum_verified: whether a file's stored payload checksum was checked.
        looks_zero_based: a 0-based solution read as 1-based, by the look of it.
    """

    verdict: str
    n: int
    k: int
    first_problem: Optional[str]
    conflict_count: int
    conflicts: list
    out_of_range_count: int
    out_of_range: list
    base_violation_count: int
    base_violations: list
    checksum_verified: bool
    looks_zero_based: bool = False

    @property
    def is_solution(self) -> bool:
        """Whether the board is a full solution."""
        return self.verdict == "solution"

    @property
    def valid(self) -> bool:
        """Whether the board is a valid composition (a solution included) that meets what
        was required."""
        return self.verdict in ("solution", "composition")

    def __bool__(self) -> bool:
        return self.valid

    def _key(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    def __eq__(self, other: object) -> bool:
        """Every field the same."""
        if not isinstance(other, Report):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        # The scalar fields only: the lists can be changed in place.
        return hash((self.verdict, self.n, self.k, self.first_problem, self.conflict_count))


def verify(
    q: Any,
    *,
    base: Any = None,
    require_complete: bool = False,
    zero_based: bool = False,
    var: Optional[str] = None,
) -> Report:
    """Checks a composition or solution, as ``nqueens verify``.

    Args:
        q: the board: an integer array, or a path to a file in any format the command line
            reads (then verified as it streams, its checksum checked, without loading it).
        base: a composition (array or path) whose every queen ``q`` must keep.
        require_complete: every row must hold a queen (else the verdict is
            ``"incomplete"``).
        zero_based: arrays (and files of plain numbers) hold columns 0..n-1, -1 for empty.
        var: the variable of a MAT, Octave or HDF5 file.

    Returns:
        A :class:`Report`; an invalid board is a report, not an exception.

    Raises:
        OSError: a file cannot be read (``FileNotFoundError`` when missing).
        ValueError: ``base`` has another n.
    """
    report, first = _native.verify(q, base, require_complete, zero_based, var)
    fields = json.loads(report)
    fields["first_problem"] = first
    return Report(**fields)


def read(
    path: PathLike,
    *,
    var: Optional[str] = None,
    diags: Optional[int] = None,
    zero_based: bool = False,
    check: bool = False,
) -> np.ndarray:
    """Reads a composition from a file in any format the command line reads.

    NQB, NQB+zstd, MAT v4/v5/v7/v7.3, Octave text and binary, HDF5, NumPy ``.npy``,
    CSPLib 079 (Excluded Diagonals instances through their reduction) and text are
    recognised by content. The answer is a ``uint32`` vector of 1-based columns (0 for an
    empty row). A raw NQB file is not copied: the answer is a read-only ``np.memmap`` of its
    rows, after the library checked the header (magic, version, header checksum) and the
    size; its payload checksum and queen count are checked with ``check=True`` (one pass
    over the file) or by :func:`verify` of the path. Every other format is read whole and
    checked as the command line checks it.

    A map is the file itself, as ``np.memmap`` always is: a write to the file shows in the
    array, and a file truncated (shortened) while the array lives makes the next access to
    the rows it lost end the process with SIGBUS, in NumPy or in this module alike (the
    command line, which owns its process, reports such a file as an error instead). Take a
    copy (``np.array(read(path))``) of a file that another process may change.

    Args:
        path: the file (``"-"``: standard input).
        var: the variable of a MAT, Octave or HDF5 file (default ``Q``, or the only vector).
        diags: for a CSPLib Excluded Diagonals file, the first ``diags`` diagonals.
        zero_based: the file holds columns 0..n-1 with -1 for an empty row (text, NumPy,
            MAT, Octave, HDF5), as the command line's ``--zero-based``; the answer is still
            1-based.
        check: also check a raw NQB file's payload checksum and queen count.

    Raises:
        OSError: the file is missing (``FileNotFoundError``), unreadable or corrupt.
    """
    diags = _optional("diags", diags)
    name = os.fspath(path)
    n, rows, identity = _native.read(name, var, diags, zero_based, check)
    if rows is not None:
        return rows
    # Mapped here, from the file the library checked: another one renamed onto the path
    # in between is refused, not mapped with this one's n.
    with open(name, "rb") as f:
        st = os.fstat(f.fileno())
        found = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if found != tuple(identity):
            raise OSError(f"{name}: the file was replaced while it was read; read it again")
        if st.st_size < 64 + 4 * n:
            raise OSError(f"{name}: the file shrank while it was read")
        return np.memmap(f, dtype="<u4", mode="r", offset=64, shape=(n,))


def write(
    path: PathLike,
    q: Any,
    *,
    format: Optional[str] = None,
    zero_based: bool = False,
) -> None:
    """Writes the composition ``q`` to ``path``, atomically (the file appears complete or
    not at all).

    Args:
        path: the file (``"-"``: standard output).
        q: the composition, an integer array.
        format: ``"nqb"`` (raw), ``"zstd"``, ``"text"``, ``"mat"`` (v7), ``"mat-v6"``,
            ``"mat-v73"``, ``"csplib"`` or ``"npy"``; default from the extension, as the
            command line (``.txt``/``.csv``/``.dat`` text, ``.mat``, ``.npy``, ``.param``,
            ``.zst``/``.nqbz``, anything else raw NQB).
        zero_based: ``q`` holds columns 0..n-1 with -1 for empty; the file is 1-based.

    Raises:
        OSError: the file cannot be written.
    """
    _native.write(os.fspath(path), q, format, zero_based)


def count(
    n: int,
    *,
    piece: str = "queen",
    kind: str = "regular",
    distinct: bool = False,
    place: Optional[Iterable[Tuple[int, int]]] = None,
    threads: Optional[int] = None,
) -> Union[int, Tuple[int, int]]:
    """Counts the placements of n non-attacking pieces on the n x n board, as
    ``nqueens count``.

    Args:
        n: board size and number of pieces.
        piece: ``"queen"``, ``"rook"`` or ``"bishop"``.
        kind: ``"regular"``, ``"super"`` (plus knight leaps) or ``"awesome"`` (plus
            nightrider rays).
        distinct: also count the placements distinct up to the 8 symmetries.
        place: preplaced pieces, (row, column) pairs, 1-based, which every placement counted
            contains (pieces that attack each other give 0).
        threads: size of a local thread pool for this call (default: every core).

    Returns:
        The number of placements, or ``(placements, distinct)`` with ``distinct=True``.

    Raises:
        ValueError: n or ``place`` out of range, or a count too large for its engine.
        KeyboardInterrupt: Ctrl-C.
    """
    n = _integer("n", n, 1, 2**32 - 1)
    threads = _optional("threads", threads)
    pairs = []
    for item in [] if place is None else place:
        try:
            r, c = item
        except (TypeError, ValueError):
            raise ValueError(f"place: expected (row, column) pairs, got {item!r}") from None
        pairs.append((_integer("place: row", r, 1), _integer("place: column", c, 1)))
    total, dist = _native.count(n, piece, kind, distinct, pairs, threads)
    # Big-endian bytes: `int(text)` refuses more than 4,300 digits.
    if distinct:
        return int.from_bytes(total, "big"), int.from_bytes(dist, "big")
    return int.from_bytes(total, "big")


def generate_solution(
    n: int,
    *,
    source: str = "construction",
    seed: Optional[int] = None,
    a: int = 2,
    zero_based: bool = False,
) -> np.ndarray:
    """A solution of the n-queens problem (n = 1 or n >= 4), as ``nqueens generate solution``.

    Args:
        n: board size.
        source: ``"construction"`` (the explicit construction, O(n)), ``"transposed"``,
            ``"mirrored"``, ``"linear"`` (q(i) = a (i - 1) mod n + 1, n prime to 6) or
            ``"random"`` (the completion engine on the empty board).
        seed: seed of a random solution (default: a fresh one).
        a: the multiplier of a linear solution.
        zero_based: an ``int64`` array of columns 0..n-1 (default: ``uint32``, 1..n).

    Raises:
        ValueError: no such solution (n = 2 or 3, a linear solution n does not have).
    """
    n, a, seed = _integer("n", n), _integer("a", a), _optional("seed", seed)
    return _native.generate_solution(n, source, a, seed, zero_based)


def generate_composition(
    solution: Any,
    *,
    clear: str = "random",
    free: Union[int, float, str, None] = None,
    k: Optional[int] = None,
    at: Optional[int] = None,
    direction: str = "d1",
    move: int = 0,
    seed: Optional[int] = None,
    zero_based: bool = False,
) -> np.ndarray:
    """A composition made by clearing part of a board's queens, as
    ``nqueens generate composition``; the same seed gives the same board.

    Args:
        solution: the board whose queens are cleared (an integer array).
        clear: ``"random"`` (a random subset, the seed paper's protocol), ``"block"`` (a
            run of rows), ``"stride"`` (every s-th row), ``"columns"``, ``"diagonals"`` (a
            band of one direction) or ``"region"`` (a square).
        free: how much to clear: a count (``2000``), a fraction of n (``0.02``) or a
            percentage (``"2%"``). Required by every clearing but ``"random"``, where the
            default keeps a uniform number of queens in 1..k-1.
        k: queens to keep (``clear="random"`` only).
        at: where the part starts (first row, column or diagonal; default from the seed).
        direction: the diagonals of ``clear="diagonals"``, ``"d1"`` or ``"d2"``.
        move: then move this many kept queens, each to another cell of its row that
            attacks no queen (the result may have no completion).
        seed: seed of every random choice (default: a fresh one).
        zero_based: ``solution`` holds columns 0..n-1 (and the answer -1 for empty rows).

    Returns:
        The composition, an array like ``solution``.

    Raises:
        ValueError: ``solution`` is not a valid composition, or the clearing does not fit.
    """
    k, at = _optional("k", k), _optional("at", at)
    move, seed = _integer("move", move), _optional("seed", seed)
    free_count: Optional[int] = None
    free_fraction: Optional[float] = None
    given = free
    if isinstance(free, np.ndarray) and free.ndim == 0:
        free = free.item()
    if isinstance(free, str):
        text = free.strip()
        try:
            if text.endswith("%"):
                free_fraction = float(text[:-1]) / 100
                free = None
            else:
                free = float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            raise ValueError(
                f"free: {given!r} is not a count, a fraction or a percentage"
            ) from None
    if free is None or free_fraction is not None:
        pass
    elif isinstance(free, (bool, np.bool_)) or not isinstance(free, numbers.Real):
        raise TypeError(
            f"free: expected a count, a fraction or a percentage, got {type(given).__name__} {given!r}"
        )
    elif isinstance(free, numbers.Integral):
        free_count = _integer("free", free)
    else:
        value = float(free)
        if value >= 1 and value.is_integer():
            free_count = _integer("free", int(value))
        else:
            free_fraction = value
    return _like(
        _native.generate_composition(
            solution, clear, k, free_count, free_fraction, at, direction, move, seed, zero_based
        ),
        solution,
    )
