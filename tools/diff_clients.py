#!/usr/bin/env python3
"""Differential test of nqueens's readers against the real clients that write the files.

For each case a random board file is written by a real client (scipy.io.savemat, h5py,
NumPy, GNU Octave), loaded back by that client, and read by `nqueens convert FILE out.txt`.
The client's load, with the rules nqueens documents (README.md, formats/mat.md,
formats/npy.md, formats/octave.md), gives the reference:

- which variable is read: `--var NAME`; else `Q` when present; else the only numeric
  (real, non-empty) vector; else none (a refusal is due);
- a board: a 1xN or Nx1 real numeric array (flattened in MATLAB's column order, which for
  a vector is its only order) of whole numbers 0..2^32-1 (with --zero-based: -1..2^32-2,
  read as value + 1); a value above n is read and called invalid (exit 1);
- anything else (logical, char, cell, struct, sparse, complex, empty, matrices, NaN,
  negative or fractional values) is refused: exit 2, one line naming the file.

Where the docs say a reader does not take something the client reads as a board (Octave
ranges, HDF5 filters other than deflate/shuffle/Fletcher-32 on columns, exotic number
layouts, links, `.npz`, ...), a clean refusal is accepted too. Never accepted: a different
vector than the client's, a board read from what the client does not hold as one, a panic
(exit 101), a signal, a hang, an unclean refusal (not exit 2 with one line naming the file).

Known bugs are modelled (KNOWN below: what the buggy reader takes the file for, limited to
the readers where it was found); a mismatch that a model predicts exactly is reported as
known, any other fails the run (`--strict`: known ones too).

Usage: tools/diff_clients.py --client scipy|h5py|numpy|octave|all --count N --seconds S
       --seed S [--bin target/release/nqueens] [--keep DIR] [--strict]
Each mismatching file is copied into DIR/CLIENT (default diff-mismatches/) with a .txt
beside it saying what was written, what the client loaded, the reference, the command that
reproduces it and what nqueens did. Exit status 1 on a mismatch no model explains.
"""
import argparse
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U32_MAX = 2**32 - 1
NUMERIC = ["double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32",
           "int64", "uint64"]
NP_OF = {"double": "f8", "single": "f4", "int8": "i1", "uint8": "u1", "int16": "i2",
         "uint16": "u2", "int32": "i4", "uint32": "u4", "int64": "i8", "uint64": "u8"}
CLASS_OF_KIND = {("f", 8): "double", ("f", 4): "single", ("i", 1): "int8", ("u", 1): "uint8",
                 ("i", 2): "int16", ("u", 2): "uint16", ("i", 4): "int32", ("u", 4): "uint32",
                 ("i", 8): "int64", ("u", 8): "uint64"}


# ---------------------------------------------------------------------------------------
# The reference: what the client loaded, judged by nqueens's documented rules.

class Var:
    """One variable as the client loaded it."""

    def __init__(self, name, cls, dims, values=None, numeric=None, note="", raw=None,
                 limits=()):
        self.name = name
        self.cls = cls            # MATLAB class, or 'logical', 'char', 'cell', ...
        self.dims = tuple(int(d) for d in dims)  # MATLAB dimensions (column-major)
        self.values = values      # flat list of Python numbers in column-major order
        self.numeric = cls in NUMERIC if numeric is None else numeric
        self.note = note          # why it is not a board although numeric: complex, sparse
        self.raw = raw            # the stored numbers of a non-numeric array (logical, an
                                  # empty array's dimensions), for the models of known bugs
        self.limits = list(limits)  # documented reasons nqueens may refuse reading it
        self.link = False         # reached through a soft or external link
        self.nonstandard = False  # a number layout the docs do not count as numeric
        self.group = False        # an HDF5 group (struct, sparse), not a dataset

    def vector(self):
        return len(self.dims) == 2 and (self.dims[0] == 1 or self.dims[1] == 1)

    def nd_vector(self):
        """An N-D array with one dimension above 1 (1x1xN): not a vector by the docs."""
        return len(self.dims) > 2 and sum(d != 1 for d in self.dims) <= 1 and min(self.dims) > 0

    def candidate(self):
        """A variable nqueens picks when no name is given: a real numeric vector."""
        return self.numeric and not self.note and self.vector() and min(self.dims) > 0

    def loose_candidate(self):
        """Numeric arrays the docs do not call real vectors but a reader may count among
        the candidates (empty, N-D, complex, sparse): a refusal as ambiguous is then
        acceptable."""
        return self.numeric and (self.vector() or self.nd_vector())

    def describe(self):
        d = "x".join(map(str, self.dims))
        return f"{self.name} ({self.cls}{' ' + self.note if self.note else ''}, {d})"

    def copy(self, **kw):
        v = Var(self.name, self.cls, self.dims, self.values, self.numeric, self.note, self.raw,
                self.limits)
        v.link, v.nonstandard, v.group = self.link, self.nonstandard, self.group
        for k, x in kw.items():
            setattr(v, k, x)
        return v


class Ref:
    """The expected outcome: `boards`, the rows nqueens may read (1-based, 0 = empty), each
    with the first row above n (exit 1 expected) or None; `refusal_ok`, whether a clean
    refusal is acceptable (always, when there is no board); `nd`, the rows of an N-D array
    the docs refuse (read anyway: a mismatch of its own class); `why`, what the client holds."""

    def __init__(self, board=None, above=None, refusal_ok=False, why="", nd=None):
        self.boards = [] if board is None else [(board, above)]
        self.refusal_ok = refusal_ok or board is None
        self.why, self.nd = why, nd

    def merge(self, other):
        """Either outcome is acceptable (a documented alternative reading)."""
        self.boards += [b for b in other.boards if b not in self.boards]
        self.refusal_ok = self.refusal_ok or other.refusal_ok
        if other.why and other.why != self.why:
            self.why += f" | or: {other.why}"
        return self


def judge(variables, var=None, zero_based=False, file_limits=()):
    """The reference for a file whose variables the client loaded: the variable chosen as
    the docs say (`--var`, else `Q`, else the only real numeric vector), then its values."""
    names = [v.name for v in variables]
    dup = [n for n in names if names.count(n) > 1]
    if dup:
        return Ref(why=f"two variables named {dup[0]}")
    loose = []
    if var is not None:
        if var not in names:
            return Ref(why=f"no variable named {var}")
        v = variables[names.index(var)]
    elif "Q" in names:
        v = variables[names.index("Q")]
    else:
        cands = [v for v in variables if v.candidate()]
        loose = [v for v in variables if v.loose_candidate()]
        if len(cands) != 1:
            return Ref(why=f"{len(cands)} candidate vectors among {len(variables)} variables")
        v = cands[0]
    ref = board_of(v, zero_based)
    limits = list(file_limits) + v.limits
    if len(loose) > 1:
        limits.append("an empty, N-D, complex or sparse array beside it may count as a "
                      "candidate")
    if ref.boards and limits:
        ref.refusal_ok = True
        ref.why += "; a refusal is documented: " + "; ".join(limits)
    return ref


def board_of(v, zero_based):
    if not v.numeric or v.note:
        return Ref(why=f"{v.describe()} is not a real numeric array")
    if not v.vector():
        if v.nd_vector():
            r = values_board(v, zero_based)
            return Ref(why=f"{v.describe()} is not a vector",
                       nd=r.boards[0] if r.boards else None)
        return Ref(why=f"{v.describe()} is not a vector")
    if min(v.dims) == 0:
        return Ref(why=f"{v.describe()} is empty")
    return values_board(v, zero_based)


def values_board(v, zero_based):
    if v.values is None:
        return Ref(why=f"{v.describe()}: refused by its type")
    rows = []
    for x in v.values:
        if isinstance(x, float):
            if math.isnan(x) or math.isinf(x) or x != math.floor(x):
                return Ref(why=f"{v.describe()} holds {x}")
            x = int(x)
        x = x + 1 if zero_based else x
        if x < 0 or x > U32_MAX:
            return Ref(why=f"{v.describe()} holds {x - 1 if zero_based else x} (out of rows)")
        rows.append(x)
    n = len(rows)
    above = next((i + 1 for i, x in enumerate(rows) if x > n), None)
    return Ref(board=rows, above=above, why=f"{v.describe()}")


def reference(case, transform=None):
    """The case's reference, from its variables (transformed by a known bug's model), with
    the documented alternative readings merged in (each applied or not)."""
    variables = case["variables"]
    if transform:
        variables = [transform(v) for v in variables]
        variables = [v for v in variables if v is not None]
    limits = case.get("file_limits", ())
    ref = judge(variables, case["var"], case["zero"], limits)
    alternatives = []
    if case["reader"] == "hdf5" and any(v.group for v in variables):
        # Plain HDF5: "root datasets are the variables" (formats/octave.md).
        alternatives.append(lambda vs: [v for v in vs if not v.group])
    if any(v.nonstandard for v in variables):
        # HDF5 numbers in other layouts (half floats, another exponent bias) and Octave's
        # ranges, diagonal and permutation matrices are not numeric for nqueens
        # (formats/octave.md), so not candidates either.
        alternatives.append(lambda vs: [v.copy(numeric=False) if v.nonstandard else v
                                        for v in vs])
    if any(v.link for v in variables):
        # Soft and external links are not followed (formats/octave.md).
        alternatives.append(lambda vs: [v for v in vs if not v.link])
        ref.refusal_ok = True
        ref.why += " (the file holds links, which are not followed)"
    for mask in range(1, 1 << len(alternatives)):
        vs = variables
        for bit, alt in enumerate(alternatives):
            if mask >> bit & 1:
                vs = alt(vs)
        ref.merge(judge(vs, case["var"], case["zero"], limits))
    return ref


# ---------------------------------------------------------------------------------------
# Random values.

def rand_board(rng, n):
    return [rng.randint(0, n) for _ in range(n)]


def rand_n(rng):
    r = rng.random()
    if r < 0.05:
        return 1
    if r < 0.75:
        return rng.randint(2, 24)
    if r < 0.95:
        return rng.randint(25, 300)
    return rng.randint(301, 5000)


def class_max(cls):
    if cls == "single":
        return 2**24
    if cls == "double":
        return 2**53
    dt = np.dtype(NP_OF[cls])
    return int(np.iinfo(dt).max)


def class_min(cls):
    if cls in ("single", "double"):
        return -(2**24)
    return int(np.iinfo(np.dtype(NP_OF[cls])).min)


def board_values(rng, cls, zero_based=False):
    """A list of values for a board of class `cls`, sometimes spoiled: a value above n,
    negative, fractional, NaN, infinite, -0.0, beyond 2^32 - 1."""
    n = min(rand_n(rng), class_max(cls))
    vals = rand_board(rng, n)
    if zero_based:
        # 0-based: -1 marks an empty row, which unsigned classes cannot hold.
        vals = [max(x - 1, class_min(cls)) for x in vals]
    r = rng.random()
    if n > 0 and r < 0.35:
        i = rng.randrange(n)
        choices = ["above", "above", "zero"]
        if class_min(cls) < 0:
            choices += ["neg", "minus2"]
        if cls in ("single", "double"):
            choices += ["half", "nan", "inf", "-inf", "-0", "big", "tiny"]
        if cls in ("int64", "uint64", "double"):
            choices += ["u32max", "u32max+1"]
        kind = rng.choice(choices)
        new = {"above": n + rng.randint(1, 3), "zero": 0, "neg": -rng.randint(1, 5),
               "minus2": -2, "half": rng.randint(0, n) + 0.5, "nan": float("nan"),
               "inf": float("inf"), "-inf": float("-inf"), "-0": -0.0, "big": 1e300,
               "tiny": 1e-300, "u32max": U32_MAX, "u32max+1": U32_MAX + 1}[kind]
        if isinstance(new, int) and not (class_min(cls) <= new <= class_max(cls)):
            new = 0
        vals[i] = new
    if cls not in ("single", "double"):
        vals = [int(x) for x in vals]
    elif cls == "single":
        with np.errstate(over="ignore"):
            vals = [float(np.float32(x)) for x in vals]
    else:
        vals = [float(x) for x in vals]
    return vals


def pyval(x):
    """A numpy scalar as a Python int or float (floats stay floats: 2.0 is not 2)."""
    if isinstance(x, (np.floating, float)):
        return float(x)
    return int(x)


ODD_NAMES = ["Q", "Q", "Q", "q", "QQ", "Q1", "Q_", "board", "x", "a" * 63, "A" * 31,
             "sol_2", "ans", "Qx", "v"]


def rand_name(rng, taken):
    for _ in range(50):
        name = rng.choice(ODD_NAMES) if rng.random() < 0.7 else \
            rng.choice("abcdefghxyzQ") + "".join(rng.choice("abcxyz019_")
                                                for _ in range(rng.randint(0, 10)))
        if name not in taken:
            return name
    return f"v{len(taken)}"


def pick_var(rng, names):
    """`--var` for a case: usually none, else a held name or one the file lacks."""
    r = rng.random()
    if r < 0.7 or not names:
        return None
    if r < 0.95:
        return rng.choice(names)
    return "nope"


# ---------------------------------------------------------------------------------------
# Running nqueens and comparing.

class Outcome:
    def __init__(self, kind, detail, rows=None):
        self.kind, self.detail, self.rows = kind, detail, rows


def run_nqueens(binary, path, args, tmp, timeout=60):
    out = os.path.join(tmp, "nq-out.txt")
    if os.path.exists(out):
        os.unlink(out)
    cmd = [binary, "--threads", "1", "convert", path, out] + args
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome("hang", f"no answer in {timeout} s"), cmd
    err = p.stderr.decode(errors="replace")
    rc = p.returncode
    if rc == 0:
        with open(out) as fh:
            rows = [int(x) for x in fh.read().split()]
        return Outcome("read", "", rows), cmd
    if rc == 1:
        # A value above n: read, and refused as not a composition, naming the first row.
        m = re.search(r"row (\d+)", err)
        return Outcome("above", err.strip(), int(m.group(1)) if m else None), cmd
    if rc == 2:
        lines = err.strip("\n").split("\n")
        clean = len(lines) == 1 and path in lines[0] and not os.path.exists(out)
        return Outcome("refused" if clean else "unclean-refusal", err.strip()), cmd
    if rc < 0:
        return Outcome("signal", f"killed by signal {-rc}: {err.strip()}"), cmd
    return Outcome("panic" if rc == 101 else f"exit-{rc}", f"exit {rc}: {err.strip()}"), cmd


AGREED = ("read", "refusal")


def compare(ref, got):
    """'read' or 'refusal' when nqueens did what the reference allows, else the class of
    the mismatch."""
    if got.kind not in ("read", "above", "refused"):
        return got.kind
    if got.kind == "refused":
        return "refusal" if ref.refusal_ok else "refused-board"
    if got.kind == "read":
        if any(got.rows == b for b, above in ref.boards if above is None):
            return "read"
        if ref.nd is not None and got.rows == ref.nd[0]:
            return "read-nd-array"
        if not ref.boards:
            return "accepted-non-board"
        return "different-board"
    # above n (exit 1): the row named must be the first row above n of a board allowed
    if any(got.rows == above for _, above in ref.boards if above is not None):
        return "read"
    if ref.nd is not None and ref.nd[1] is not None and got.rows == ref.nd[1]:
        return "read-nd-array"
    if not ref.boards:
        return "accepted-non-board"
    return "different-board"


# Known mismatches: each is a model of one bug, a transformation of what the client loaded
# into what the buggy reader takes it for (or, for refusals, the message it gives), limited
# to the readers where it was found. A mismatch is known when the model predicts exactly
# what nqueens did; any other mismatch fails the run. `--strict` fails on known ones too.
# An entry: (id, what is wrong, {readers}, transform(Var) -> Var or None (dropped), or
# None with predicate(case, got) -> bool instead). None is open now (RELIABILITY.md).

KNOWN = [
]


def known_bug(case, got):
    for ident, _, readers, transform, predicate in KNOWN:
        if case["reader"] not in readers:
            continue
        if predicate is not None:
            if predicate(case, got):
                return ident
            continue
        changed = [v.name for v in case["variables"] if transform(v) is not v]
        if not changed or compare(reference(case, transform), got) not in AGREED:
            continue
        # A refusal the model predicts must name a variable the model changed (as the
        # message listing the vectors, or the variable refused), so that a refusal for
        # another reason is not put down to this bug.
        if got.kind == "refused" and not any(n in got.detail for n in changed):
            continue
        return ident
    # Two bugs at once (a logical and an empty v7.3 array beside a vector, ...).
    models = [(i, t) for i, _, readers, t, p in KNOWN if t and case["reader"] in readers]
    for a, ta in models:
        for b, tb in models:
            if a < b:
                both = (lambda ta, tb: lambda v: None if ta(v) is None else tb(ta(v)))(ta, tb)
                if compare(reference(case, both), got) in AGREED:
                    return f"{a}+{b}"
    return None


class Tally:
    def __init__(self, client, keep):
        self.client, self.keep = client, keep
        self.files = self.reads = self.refusals = 0
        self.mismatches = []   # (verdict, known id or None, description)
        self.classes = {}
        self.readers = {}

    def add(self, case, ref, got, cmd, verdict):
        self.files += 1
        r = self.readers.setdefault(case["reader"], [0, 0, 0])
        r[0] += 1
        if verdict == "read":
            self.reads += 1
            r[1] += 1
            return
        if verdict == "refusal":
            self.refusals += 1
            r[2] += 1
            return
        known = known_bug(case, got)
        os.makedirs(self.keep, exist_ok=True)
        stem = f"{self.client}-{self.files:06d}-{verdict}"
        kept = os.path.join(self.keep, stem + os.path.splitext(case["path"])[1])
        shutil.copyfile(case["path"], kept)
        desc = describe_case(case, ref, got, cmd, verdict, known, kept)
        self.mismatches.append((verdict, known, desc))
        key = (verdict, known)
        self.classes[key] = self.classes.get(key, 0) + 1
        with open(os.path.join(self.keep, stem + ".txt"), "w") as fh:
            fh.write(desc + "\n")

    def unknown(self):
        return sum(1 for _, k, _ in self.mismatches if k is None)

    def summary(self):
        known = len(self.mismatches) - self.unknown()
        s = (f"{self.client:7s} files {self.files:6d}  agreed reads {self.reads:6d}  "
             f"agreed refusals {self.refusals:6d}  mismatches {self.unknown():5d}  "
             f"known mismatches {known:5d}")
        s += "\n          by reader (files/reads/refusals): " + ", ".join(
            f"{k} {a}/{b}/{c}" for k, (a, b, c) in sorted(self.readers.items()))
        for (verdict, k), c in sorted(self.classes.items(), key=lambda kv: -kv[1]):
            s += f"\n          {c:6d} {verdict}" + (f" (known: {k})" if k else "")
        return s


def short(xs, limit=40):
    if xs is None:
        return "None"
    return "[" + " ".join(map(str, xs[:limit])) + (" ..." if len(xs) > limit else "") + "]"


def describe_case(case, ref, got, cmd, verdict, known, kept):
    boards = "; ".join(f"board {short(b)}" + (f" (row {a} above n)" if a else "")
                       for b, a in ref.boards) or "no board"
    args = " ".join(cmd[6:])
    return "\n".join([
        f"verdict: {verdict}" + (f" (known: {known})" if known else ""),
        f"reader: {case['reader']}",
        f"written: {case['spec']}",
        f"client loaded: {'; '.join(v.describe() for v in case['variables'])}",
        f"reference: {ref.why}; {boards}"
        + ("; a refusal is acceptable" if ref.refusal_ok and ref.boards else ""),
        f"reproduce: nqueens convert {os.path.basename(kept)} out.txt {args}".rstrip(),
        f"nqueens: {got.kind}: {got.detail.replace(case['path'], os.path.basename(kept))} "
        + (short(got.rows) if got.kind == "read" else ""),
    ])


# ---------------------------------------------------------------------------------------
# scipy.io.savemat: MAT v4 and v5 (compressed or not).

def scipy_value(rng, name):
    """A random variable for savemat: (numpy object to save, description)."""
    import scipy.sparse
    r = rng.random()
    if r < 0.70:
        cls = rng.choice(NUMERIC)
        vals = board_values(rng, cls)
        a = np.array(vals, dtype=NP_OF[cls]) if cls not in ("single", "double") else \
            np.array(vals, dtype=NP_OF[cls])
        shape = rng.choice(["row", "col", "row", "col", "1d", "matrix", "3d", "scalar"])
        if shape == "row":
            a = a.reshape(1, -1)
        elif shape == "col":
            a = a.reshape(-1, 1)
        elif shape == "matrix" and len(a) >= 2:
            k = next((d for d in (2, 3, 5, 7) if len(a) % d == 0), None)
            a = a.reshape(k, -1) if k else a.reshape(1, -1)
            if rng.random() < 0.5:
                a = np.asfortranarray(a)
        elif shape == "3d":
            a = a.reshape(1, 1, -1)
        elif shape == "scalar":
            a = a[:1].reshape(())
        return a, f"{cls} {shape} {a.shape}"
    kind = rng.choice(["logical", "char", "cell", "struct", "sparse", "empty", "complex",
                       "empty-row", "cellvec"])
    if kind == "logical":
        return np.array([rng.random() < 0.5 for _ in range(rng.randint(1, 9))]).reshape(1, -1), kind
    if kind == "char":
        return "".join(rng.choice("abc0129") for _ in range(rng.randint(1, 9))), kind
    if kind in ("cell", "cellvec"):
        c = np.empty((1, 3), dtype=object)
        for i in range(3):
            c[0, i] = np.array([[float(rng.randint(0, 3))]])
        return c, kind
    if kind == "struct":
        return {"a": np.array([[1.0, 2.0]]), "Q": np.array([[1.0]])}, kind
    if kind == "sparse":
        vals = rand_board(rng, rng.randint(1, 8))
        return scipy.sparse.csc_matrix(np.array([vals], dtype=float)), kind
    if kind == "empty":
        return np.zeros((0, 0)), kind
    if kind == "empty-row":
        return np.zeros((1, 0), dtype=rng.choice(["f8", "u4", "i2"])), kind
    vals = rand_board(rng, rng.randint(1, 8))
    a = np.array(vals, dtype=complex).reshape(1, -1)
    if rng.random() < 0.5:
        a[0, 0] += 1j
    return a, "complex"


def scipy_load(path, fmt):
    """What scipy loads, as MATLAB variables (whosmat gives the class, loadmat the data)."""
    import scipy.io
    import scipy.sparse
    listed = scipy.io.whosmat(path)
    data = scipy.io.loadmat(path)
    out = []
    for name, _, cls in listed:
        a = data[name]
        if scipy.sparse.issparse(a):
            out.append(Var(name, cls, a.shape, numeric=True, note="sparse"))
            continue
        a = np.asarray(a)
        if cls in NUMERIC and a.dtype.kind in "fiu":
            vals = [pyval(x) for x in a.ravel(order="F")]
            if fmt == "4":  # v4 stores a precision, loaded as the class of its width
                cls = CLASS_OF_KIND.get((a.dtype.kind, a.dtype.itemsize), "double")
            out.append(Var(name, cls, a.shape, vals))
        elif cls in NUMERIC and a.dtype.kind == "c":
            out.append(Var(name, cls, a.shape, numeric=True, note="complex"))
        elif cls == "logical":
            out.append(Var(name, cls, a.shape, numeric=False,
                           raw=[pyval(x) for x in a.ravel(order="F")]))
        else:
            out.append(Var(name, cls or str(a.dtype), a.shape, numeric=False))
    return out


def gen_scipy(rng, tmp, i):
    import scipy.io
    import warnings
    fmt = rng.choice(["4", "5", "5"])
    compress = fmt == "5" and rng.random() < 0.5
    nvars = rng.choice([1, 1, 1, 2, 3, 5]) if rng.random() < 0.97 else rng.randint(10, 60)
    mdict, spec = {}, []
    for _ in range(nvars):
        name = rand_name(rng, mdict)
        val, what = scipy_value(rng, name)
        mdict[name] = val
        spec.append(f"{name}: {what}")
    path = os.path.join(tmp, f"scipy-{i}.mat")
    oned = rng.choice(["row", "column"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scipy.io.savemat(path, mdict, format=fmt, do_compression=compress, oned_as=oned)
    except Exception:
        return None  # the client cannot write it (v4 of a cell, a struct, ...)
    variables = scipy_load(path, fmt)
    var = pick_var(rng, [v.name for v in variables])
    zero = rng.random() < 0.1
    args = (["--var", var] if var else []) + (["--zero-based"] if zero else [])
    spec = (f"scipy {__import__('scipy').__version__} savemat format {fmt}"
            f"{' compressed' if compress else ''} oned_as={oned}: " + "; ".join(spec))
    return {"path": path, "args": args, "spec": spec, "variables": variables, "var": var,
            "zero": zero, "reader": "mat4" if fmt == "4" else "mat5"}


# ---------------------------------------------------------------------------------------
# h5py: MAT v7.3 (user block with the MATLAB header, MATLAB_class attributes) and plain HDF5.

H5_TYPES = ["<i1", "<u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4", "<i8", ">i8",
            "<u8", ">u8", "<f4", ">f4", "<f8", ">f8"]


def h5_write_dataset(rng, f, name, data, mat_class=None):
    """Creates dataset `name` holding `data` with a random layout and filters; returns a
    description and the reasons the docs give for a refusal, if any."""
    import h5py
    notes, limits = [], []
    n = data.size
    layout = rng.choice(["contiguous", "contiguous", "chunked", "chunked", "chunked", "compact"])
    if layout == "compact" and data.nbytes > 30000:
        layout = "chunked"
    kw = {}
    if layout == "chunked" and n > 0:
        chunk = tuple(max(1, min(s, rng.choice([1, 2, 3, 7, 16, 64, 1000]))) if s > 1 else 1
                      for s in data.shape) if data.ndim else None
        kw["chunks"] = chunk
        if rng.random() < 0.5:
            kw["compression"] = "gzip"
            kw["compression_opts"] = rng.randint(0, 9)
        elif rng.random() < 0.2:
            kw["compression"] = "lzf"
            limits.append("lzf filter")
        if rng.random() < 0.4:
            kw["shuffle"] = True
        if rng.random() < 0.3:
            kw["fletcher32"] = True
        if rng.random() < 0.08 and data.dtype.kind in "iu" and "fletcher32" not in kw:
            kw["scaleoffset"] = 0
            limits.append("scale-offset filter")
        if rng.random() < 0.2:
            kw["maxshape"] = tuple(None for _ in data.shape)
        notes.append(f"chunked {chunk} " + " ".join(f"{k}={v}" for k, v in kw.items()
                                                    if k != "chunks"))
    elif layout == "compact":
        notes.append("compact")
    else:
        notes.append("contiguous")
    if layout == "compact" and data.ndim:
        space = h5py.h5s.create_simple(data.shape)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        tid = h5py.h5t.py_create(data.dtype)
        dsid = h5py.h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl)
        dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data))
        d = f[name]
    else:
        if layout == "chunked" and data.ndim == 0:
            kw = {}
        d = f.create_dataset(name, data=data, **kw)
    if mat_class is not None:
        d.attrs["MATLAB_class"] = np.bytes_(mat_class)
    return " ".join(notes), limits


def h5_odd_type(rng, f, name, vals):
    """A dataset of a float type with another exponent bias (HDF5 converts on write). Integer
    types with a bit offset or a narrow precision cannot be made with h5py over HDF5 2.x
    ("unusual datatype": the relaxing property is not exposed); tests/data/bad keeps one
    made with an older HDF5."""
    import h5py
    if rng.random() < 0.5:
        tid, dt = h5py.h5t.IEEE_F64LE.copy(), "<f8"
        tid.set_ebias(rng.choice([1000, 1023, 1030]))
    else:
        tid, dt = h5py.h5t.IEEE_F32BE.copy(), ">f4"
        tid.set_ebias(rng.choice([100, 127]))
    data = np.array(vals, dtype=dt)
    shape = (len(data), 1) if rng.random() < 0.5 else (1, len(data))
    space = h5py.h5s.create_simple(shape)
    dsid = h5py.h5d.create(f.id, name.encode(), tid, space)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data.reshape(shape)))
    return f"{dt} with exponent bias {tid.get_ebias()} {shape}"


def h5_value(rng, f, name, mat):
    """Writes one random variable: a dataset (numeric of every type, logical, char,
    complex, empty, odd layouts) or a group (struct, cell as references, sparse), or a link."""
    import h5py
    r = rng.random()
    if r < 0.72:
        dt = np.dtype(rng.choice(H5_TYPES))
        cls = CLASS_OF_KIND[(dt.kind, dt.itemsize)]
        vals = board_values(rng, cls)
        data = np.array(vals, dtype=dt)
        shape = rng.choice(["row", "col", "row", "col", "1d", "matrix", "scalar"])
        if shape == "row":      # MATLAB 1xN is HDF5 (N, 1)
            data = data.reshape(-1, 1)
        elif shape == "col":
            data = data.reshape(1, -1)
        elif shape == "matrix" and data.size >= 2:
            k = next((d for d in (2, 3, 5) if data.size % d == 0), None)
            data = data.reshape(k, -1) if k else data.reshape(-1, 1)
        elif shape == "scalar":
            data = data[:1].reshape(())
        klass = cls
        if mat and rng.random() < 0.03:
            klass = None  # a v7.3 dataset without MATLAB_class
        desc, limits = h5_write_dataset(rng, f, name, data, klass if mat else None)
        return f"{dt.str} {shape} {data.shape} {desc}", limits
    kind = rng.choice(["logical", "char", "complex", "empty", "struct", "cellref", "sparse",
                       "odd-type", "softlink", "hardlink", "extlink", "f2"])
    if kind == "logical":
        d = f.create_dataset(name, data=np.array([[rng.randint(0, 1)] for _ in range(5)], "u1"))
        if mat:
            d.attrs["MATLAB_class"] = np.bytes_("logical")
            d.attrs["MATLAB_int_decode"] = np.int32(1)
        else:
            # h5py's own booleans: an HDF5 enum of FALSE/TRUE over int8
            del f[name]
            f.create_dataset(name, data=np.array([True, False, True]))
        return kind, []
    if kind == "char":
        d = f.create_dataset(name, data=np.frombuffer(b"hi Q", dtype="<u2").reshape(-1, 1))
        if mat:
            d.attrs["MATLAB_class"] = np.bytes_("char")
            d.attrs["MATLAB_int_decode"] = np.int32(2)
        else:
            del f[name]
            f.create_dataset(name, data=np.bytes_("1 2 3"))
        return kind, []
    if kind == "complex":
        vals = rand_board(rng, rng.randint(1, 6))
        data = np.zeros((len(vals), 1), dtype=[("real", "<f8"), ("imag", "<f8")])
        data["real"][:, 0] = vals
        if mat:
            d = f.create_dataset(name, data=data)
            d.attrs["MATLAB_class"] = np.bytes_("double")
        else:
            f.create_dataset(name, data=np.array(vals, dtype=complex))
        return kind, []
    if kind == "empty":
        if mat:  # MATLAB: the dimensions as data, with MATLAB_empty
            d = f.create_dataset(name, data=np.array([0, rng.choice([0, 1, 5])], dtype="u8"))
            d.attrs["MATLAB_class"] = np.bytes_("double")
            d.attrs["MATLAB_empty"] = np.uint8(1)
        else:
            f.create_dataset(name, shape=(0,), dtype=rng.choice(["<f8", "<u4"]))
        return kind, []
    if kind == "struct":
        g = f.create_group(name)
        g.create_dataset("Q", data=np.array([[1.0], [0.0]]))
        if mat:
            g.attrs["MATLAB_class"] = np.bytes_("struct")
            g["Q"].attrs["MATLAB_class"] = np.bytes_("double")
        return kind, []
    if kind == "cellref":
        refs = f.require_group("#refs#")
        target = refs.create_dataset(f"c{len(refs)}", data=np.array([[1.0], [2.0]]))
        if mat:
            target.attrs["MATLAB_class"] = np.bytes_("double")
        d = f.create_dataset(name, data=np.array([[target.ref]], dtype=h5py.ref_dtype))
        if mat:
            d.attrs["MATLAB_class"] = np.bytes_("cell")
        return kind, []
    if kind == "sparse":
        g = f.create_group(name)
        g.create_dataset("data", data=np.array([1.0, 2.0]))
        g.create_dataset("ir", data=np.array([0, 1], dtype="u8"))
        g.create_dataset("jc", data=np.array([0, 1, 2], dtype="u8"))
        if mat:
            g.attrs["MATLAB_class"] = np.bytes_("double")
            g.attrs["MATLAB_sparse"] = np.uint64(2)
        return kind, []
    if kind == "odd-type":
        vals = rand_board(rng, rng.randint(1, 9))
        return h5_odd_type(rng, f, name, vals), ["number layout"]
    if kind == "f2":
        vals = rand_board(rng, rng.randint(1, 9))
        f.create_dataset(name, data=np.array(vals, dtype="<f2").reshape(-1, 1))
        if mat:
            f[name].attrs["MATLAB_class"] = np.bytes_("double")
        return kind, ["16-bit float"]
    # links: to a numeric vector dataset elsewhere
    vals = rand_board(rng, rng.randint(1, 9))
    tname = f"t_{name}_{rng.randint(0, 1 << 30)}"
    grp = f.require_group("store")
    tgt = grp.create_dataset(tname, data=np.array(vals, dtype="<f8").reshape(-1, 1))
    if mat:
        tgt.attrs["MATLAB_class"] = np.bytes_("double")
    if kind == "softlink":
        f[name] = h5py.SoftLink(tgt.name)
        return f"soft link to {tgt.name}", ["links are not followed"]
    if kind == "hardlink":
        f[name] = tgt
        return f"hard link to {tgt.name}", []
    ext = f.filename + f".{name}.ext.h5"
    with h5py.File(ext, "w") as g:
        g.create_dataset("x", data=np.array(vals, dtype="<f8").reshape(-1, 1))
    f[name] = h5py.ExternalLink(os.path.basename(ext), "/x")
    return f"external link to {os.path.basename(ext)}:/x", ["links are not followed"]


def h5_load(path, mat, limits):
    """What h5py loads, read as MATLAB loads a v7.3 file (or, for plain HDF5, as the root's
    datasets): each root member, with MATLAB's dimensions (HDF5's reversed). `limits`: the
    documented reasons for refusing each member, from the writer."""
    import h5py
    out = []
    with h5py.File(path, "r") as f:
        for name in f.keys():
            if mat and name == "#refs#" or name == "store":
                continue
            v = h5_member(f, name, mat)
            link = f.get(name, getlink=True)
            v.link = isinstance(link, (h5py.SoftLink, h5py.ExternalLink))
            v.limits += limits.get(name, [])
            out.append(v)
    return out


def h5_member(f, name, mat):
    import h5py
    try:
        obj = f[name]
    except Exception:
        return Var(name, "broken link", (0, 0), numeric=False)
    if isinstance(obj, h5py.Group):
        cls = obj.attrs.get("MATLAB_class", b"group")
        cls = cls.decode() if isinstance(cls, bytes) else str(cls)
        sparse = "MATLAB_sparse" in obj.attrs
        v = Var(name, cls, (1, 1), numeric=sparse, note="sparse" if sparse else "")
        v.group = True
        return v
    cls = obj.attrs.get("MATLAB_class", None)
    cls = cls.decode() if isinstance(cls, bytes) else cls
    dt, shape = obj.dtype, obj.shape
    limits = []
    if shape == ():
        dims = (1, 1)
        limits.append("an HDF5 scalar dataspace")
    elif len(shape) == 1:
        dims = (1, shape[0])  # MATLAB has no 1-D arrays: a vector either way
    else:
        dims = tuple(reversed(shape))
    if mat and "MATLAB_empty" in obj.attrs:
        # MATLAB's empty array: the dataset holds its dimensions.
        return Var(name, cls or "double", (0, 0), [], numeric=cls in NUMERIC,
                   raw=[pyval(x) for x in np.asarray(obj[()]).ravel()])
    if dt.names and set(dt.names) == {"real", "imag"} or dt.kind == "c":
        return Var(name, cls or "complex", dims, numeric=True, note="complex")
    if h5py.check_enum_dtype(dt) is not None or dt.kind == "b":
        # h5py's booleans (an HDF5 enum of FALSE and TRUE)
        return Var(name, "bool", dims, numeric=False,
                   raw=[int(x) for x in np.asarray(obj[()]).ravel(order="C")])
    if dt.kind not in "iuf":
        return Var(name, cls or str(dt), dims, numeric=False)
    if cls is None:
        # Plain HDF5 (or a v7.3 dataset without MATLAB_class): its number type. Floats
        # h5py converts from other layouts (half, another exponent bias: float128 here)
        # are numbers too; the docs allow refusing them.
        cls = CLASS_OF_KIND.get((dt.kind, dt.itemsize), "double" if dt.kind == "f" else "other")
        if mat:
            limits.append("a v7.3 dataset without MATLAB_class")
    # HDF5 holds MATLAB's column-major data in row-major order with the dimensions reversed:
    # the C-order flattening of the dataset is MATLAB's column order.
    vals = [pyval(x) for x in np.asarray(obj[()]).ravel(order="C")]
    nonstandard = (dt.kind, dt.itemsize) not in CLASS_OF_KIND or not h5_standard(obj)
    if cls == "logical":
        return Var(name, cls, dims, numeric=False, raw=vals)
    if cls not in NUMERIC:
        return Var(name, cls, dims, numeric=False)
    v = Var(name, cls, dims, vals, limits=limits)
    v.nonstandard = nonstandard
    return v


def h5_standard(obj):
    """Whether a dataset's number type is a standard integer or IEEE float."""
    import h5py
    tid = obj.id.get_type()
    if isinstance(tid, h5py.h5t.TypeFloatID):
        size = tid.get_size()
        return (size, tid.get_ebias()) in ((4, 127), (8, 1023))
    return True


def gen_h5py(rng, tmp, i):
    import h5py
    mat = rng.random() < 0.6
    nvars = rng.choice([1, 1, 1, 2, 3, 4]) if rng.random() < 0.97 else rng.randint(8, 40)
    path = os.path.join(tmp, f"h5py-{i}.{'mat' if mat else 'h5'}")
    for old in os.listdir(tmp):
        if old.startswith(f"h5py-{i}."):
            os.unlink(os.path.join(tmp, old))
    spec, limits, taken = [], {}, set(["store"])
    kw = {"userblock_size": 512} if mat else {}
    libver = rng.choice(["earliest", "earliest", "earliest", "latest"])
    with h5py.File(path, "w", libver=libver, **kw) as f:
        for _ in range(nvars):
            name = rand_name(rng, taken)
            taken.add(name)
            what, lim = h5_value(rng, f, name, mat)
            spec.append(f"{name}: {what}")
            if lim:
                limits[name] = lim
    if mat:
        text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Thu Nov 26 00:00:00 2026 HDF5 schema 1.00 ."
        with open(path, "r+b") as fh:
            fh.write(text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM")
    variables = h5_load(path, mat, limits)
    var = pick_var(rng, [v.name for v in variables])
    zero = rng.random() < 0.1
    args = (["--var", var] if var else []) + (["--zero-based"] if zero else [])
    spec = (f"h5py {h5py.__version__} (HDF5 {h5py.version.hdf5_version}) "
            f"{'MAT v7.3' if mat else 'plain HDF5'} libver={libver}: " + "; ".join(spec))
    case = {"path": path, "args": args, "spec": spec, "variables": variables, "var": var,
            "zero": zero, "reader": "mat73" if mat else "hdf5"}
    if not mat:
        # formats/octave.md: "A single numeric 1-D (or 1xN, Nx1) dataset is read; several
        # need --var", where mat.md gives Q precedence in v7.3: either is acceptable.
        case["file_limits"] = ["plain HDF5: several numeric datasets need --var"] \
            if var is None and sum(v.candidate() for v in variables) > 1 else []
    return case


# ---------------------------------------------------------------------------------------
# NumPy: .npy of every dtype and byte order, C and Fortran order, 0-d/1-d/2-d; .npz.

NPY_TYPES = ["|i1", "|u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4", "<i8",
             ">i8", "<u8", ">u8", "<f4", ">f4", "<f8", ">f8", "<f2", ">f2", "|b1", "<c8",
             ">c16", "<U1", "|S2", "|O", "<m8[s]", "<M8[D]", "<f16", "record"]


def gen_numpy(rng, tmp, i):
    if rng.random() < 0.1:
        return gen_savetxt(rng, tmp, i)
    name = rng.choice(NPY_TYPES[:18]) if rng.random() < 0.8 else rng.choice(NPY_TYPES)
    dt = np.dtype([("a", "<u4")] if name == "record" else name)
    zero = rng.random() < 0.15
    if dt.kind in "iuf" and (dt.kind, dt.itemsize) in CLASS_OF_KIND:
        cls = CLASS_OF_KIND[(dt.kind, dt.itemsize)]
        a = np.array(board_values(rng, cls, zero), dtype=dt)
    elif dt.kind == "b":
        a = np.array([rng.random() < 0.5 for _ in range(rng.randint(1, 9))], dtype=dt)
    elif dt.kind == "O":
        a = np.array([1, 2, None], dtype=object)
    elif dt.kind == "V":
        a = np.array([(x,) for x in rand_board(rng, rng.randint(1, 9))], dtype=dt)
    elif dt.kind in "mM":
        a = np.array([1, 2, 0], dtype="i8").astype(dt)
    else:  # f2, long double, complex, strings
        a = np.array(rand_board(rng, rng.randint(1, 9))).astype(dt)
    shape = rng.choice(["1d", "1d", "row", "col", "0d", "matrix", "3d", "empty"])
    if shape == "row":
        a = a.reshape(1, -1)
    elif shape == "col":
        a = a.reshape(-1, 1)
    elif shape == "0d":
        a = a[:1].reshape(())
    elif shape == "matrix" and a.size >= 2:
        k = next((d for d in (2, 3, 5) if a.size % d == 0), None)
        a = a.reshape(k, -1) if k else a.reshape(1, -1)
    elif shape == "3d":
        a = a.reshape(1, -1, 1)
    elif shape == "empty":
        a = a[:0]
    order = rng.choice(["C", "F"])
    if order == "F":
        a = np.asfortranarray(a)
    args = ["--zero-based"] if zero else []
    reader = "npy"
    if rng.random() < 0.05:
        # formats/npy.md: the board of an archive is the array --var names, else Q, else
        # the only one; it is then read as that .npy file.
        import zipfile
        reader = "npz"
        path = os.path.join(tmp, f"numpy-{i}.npz")
        (np.savez_compressed if rng.random() < 0.5 else np.savez)(path, Q=a)
        back = np.load(path, allow_pickle=True)["Q"]
        with zipfile.ZipFile(path) as z, z.open("Q.npy") as fh:
            fortran = b"'fortran_order': True" in fh.read(256)
        spec = f"numpy {np.__version__} savez: Q {a.dtype.str} {a.shape}"
    else:
        path = os.path.join(tmp, f"numpy-{i}.npy")
        version = rng.choice([None, None, (1, 0), (2, 0), (3, 0)])
        if version is None:
            np.save(path, a, allow_pickle=True)
        else:
            with open(path, "wb") as fh:
                np.lib.format.write_array(fh, a, version=version, allow_pickle=True)
        back = np.load(path, allow_pickle=True)
        with open(path, "rb") as fh:
            fortran = b"'fortran_order': True" in fh.read(256)
        spec = (f"numpy {np.__version__} save (format {version or 'default'}): {back.dtype.str} "
                f"shape {back.shape}, fortran_order {fortran}")
    dk = back.dtype
    # formats/npy.md: a vector (n,), (n, 1) or (1, n) of integers of 1 to 8 bytes or floats
    # of 4 or 8 bytes, either byte order. The docs' MATLAB-style dimensions: (n,) is 1xn.
    dims = (1, back.shape[0]) if back.ndim == 1 else back.shape if back.ndim else ()
    if dk.kind in "iuf":
        cls = CLASS_OF_KIND.get((dk.kind, dk.itemsize), "double")
        # One order for a vector; for other shapes the order of the file's bytes.
        vals = [pyval(x) for x in back.ravel(order="F" if fortran else "C")]
        limits = [] if (dk.kind, dk.itemsize) in CLASS_OF_KIND else [f"dtype {dk.str}"]
        v = Var("array", cls, dims, vals, limits=limits)
        if back.ndim == 0:
            v.dims = (1, 1, 1)  # 0-d: not a vector by the docs, holding one value
    elif dk.kind == "b":
        v = Var("array", "bool", dims or (1, 1), numeric=False,
                raw=[int(x) for x in back.ravel()])
    elif dk.kind == "c":
        v = Var("array", "complex", dims or (1, 1), numeric=True, note="complex")
    else:
        v = Var("array", dk.str, dims or (1, 1), numeric=False)
    return {"path": path, "args": args, "spec": spec, "variables": [v], "var": None,
            "zero": zero, "reader": reader}


def gen_savetxt(rng, tmp, i):
    """numpy.savetxt of a vector (formats/text.md: MATLAB's dlmwrite and NumPy's savetxt),
    loaded back with numpy.loadtxt; text has no shape, so only vectors are written."""
    zero = rng.random() < 0.15
    cls = rng.choice(["int64", "double"])
    vals = board_values(rng, cls, zero)
    a = np.array(vals, dtype=NP_OF[cls])
    fmt = rng.choice(["%d"] if cls == "int64" else ["%.18e", "%g", "%.1f", "%.3f"])
    delim = rng.choice([" ", ",", "\t", ";", ", "])
    shape = rng.choice(["column", "row"])
    if shape == "row":
        a = a.reshape(1, -1)
    header = rng.choice(["", "board", "n = 8\nwritten by numpy"])
    path = os.path.join(tmp, f"numpy-{i}.{rng.choice(['txt', 'csv', 'dat'])}")
    np.savetxt(path, a, fmt=fmt, delimiter=delim, header=header,
               newline=rng.choice(["\n", "\r\n"]))
    back = np.loadtxt(path, delimiter=delim.strip() or None, ndmin=1, dtype=float)
    vals = [pyval(x) for x in back.ravel()]
    spec = (f"numpy {np.__version__} savetxt {shape} fmt={fmt!r} delimiter={delim!r} "
            f"header={header!r}")
    return {"path": path, "args": ["--zero-based"] if zero else [], "spec": spec,
            "variables": [Var("text", "double", (1, len(vals)), vals)], "var": None,
            "zero": zero, "reader": "text"}


# ---------------------------------------------------------------------------------------
# GNU Octave: save -text, -binary, -hdf5, -v6, -v7, -zip (text and binary), -v4, -ascii.
# Octave writes a batch of files in one process, then loads each back and prints what it
# holds; the reference is that print.

OCT_FORMATS = ["-text", "-text", "-binary", "-hdf5", "-v6", "-v7", "-zip", "-binary -zip",
               "-v4", "-float-binary", "-ascii"]


def oct_num(x):
    if isinstance(x, float):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "Inf" if x > 0 else "-Inf"
        return repr(x)
    return str(x)


def octave_value(rng, fmt):
    """A random Octave expression and its description."""
    r = rng.random()
    if r < 0.72 or fmt == "-ascii":
        cls = rng.choice(NUMERIC)
        vals = board_values(rng, cls)
        body = " ".join(oct_num(x) for x in vals)
        shape = rng.choice(["row", "col", "row", "col", "matrix", "scalar", "3d"])
        if fmt == "-ascii":
            shape = rng.choice(["row", "col"])
        if shape == "col":
            expr = "[" + "; ".join(oct_num(x) for x in vals) + "]"
        elif shape == "matrix" and len(vals) >= 2:
            k = next((d for d in (2, 3, 5) if len(vals) % d == 0), None)
            expr = f"reshape([{body}], {k}, [])" if k else f"[{body}]"
        elif shape == "scalar":
            expr = oct_num(vals[0])
        elif shape == "3d":
            expr = f"reshape([{body}], 1, 1, [])"
        else:
            expr = f"[{body}]"
        if cls != "double":
            expr = f"{cls}({expr})"
        return expr, f"{cls} {shape}"
    kind = rng.choice(["logical", "char", "cell", "struct", "sparse", "empty", "zeros10",
                       "complex", "range", "diag", "bool1", "int-empty", "perm"])
    n = rng.randint(1, 8)
    vals = rand_board(rng, n)
    body = " ".join(map(str, vals))
    expr = {
        "logical": f"logical([{' '.join(str(rng.randint(0, 1)) for _ in range(n))}])",
        "char": "'" + "".join(rng.choice("abc012 ") for _ in range(n)) + "'",
        "cell": f"{{{', '.join(body.split())}}}",
        "struct": f"struct('a', [{body}], 'Q', 1)",
        "sparse": f"sparse([{body}])",
        "empty": "[]",
        "zeros10": rng.choice(["zeros(1,0)", "zeros(0,1)", "zeros(0,3)"]),
        "complex": f"[{body}] + 1i",
        "range": f"1:{n}" if rng.random() < 0.5 else f"0:{n - 1}",
        "diag": f"eye({n})" if rng.random() < 0.5 else f"diag([{body}])",
        "bool1": "true",
        "int-empty": "uint32(zeros(1,0))",
        "perm": f"eye({n})(randperm({n}),:)",
    }[kind]
    return expr, kind


def oct_str(s):
    return "'" + s.replace("'", "''") + "'"


OCT_DUMP = r"""
function nq_dump(file, out, fmt)
  fid = fopen(out, 'w');
  try
    if strcmp(fmt, '-ascii')
      S = struct('Q', load('-ascii', file));
    else
      S = load(file);
    end
  catch err
    fprintf(fid, 'ERROR %s\n', strrep(err.message, sprintf('\n'), ' '));
    fclose(fid);
    return;
  end
  names = fieldnames(S);
  for i = 1:numel(names)
    v = S.(names{i});
    fprintf(fid, 'VAR %s\n', names{i});
    fprintf(fid, 'CLASS %s\n', class(v));
    fprintf(fid, 'DIMS %s\n', sprintf('%d ', size(v)));
    fprintf(fid, 'FLAGS %d %d %d\n', isnumeric(v), iscomplex(v), issparse(v));
    if (isnumeric(v) || islogical(v)) && ~iscomplex(v) && ~issparse(v) && numel(v) <= 100000
      v = v(:);
      if isinteger(v) || islogical(v)
        fprintf(fid, 'INTS %s\n', sprintf('%d ', v));
      else
        fprintf(fid, 'FLOATS %s\n', sprintf('%.17g ', double(v)));
      end
    end
  end
  fclose(fid);
end
"""


def parse_octave_dump(text):
    if text.startswith("ERROR"):
        return None, text.strip()
    out, cur = [], None
    for line in text.splitlines():
        key, _, rest = line.partition(" ")
        if key == "VAR":
            cur = {"name": rest}
            out.append(cur)
        elif key == "CLASS":
            cur["cls"] = rest
        elif key == "DIMS":
            cur["dims"] = [int(x) for x in rest.split()]
        elif key == "FLAGS":
            cur["flags"] = [int(x) for x in rest.split()]
        elif key == "INTS":
            cur["values"] = [int(x) for x in rest.split()]
        elif key == "FLOATS":
            cur["values"] = [float(x) for x in rest.split()]
    variables = []
    for v in out:
        isnum, cplx, sparse = v["flags"]
        note = "complex" if cplx else "sparse" if sparse else ""
        if v["cls"] == "logical":
            variables.append(Var(v["name"], "logical", v["dims"], numeric=False,
                                 raw=v.get("values")))
        else:
            variables.append(Var(v["name"], v["cls"], v["dims"], v.get("values"),
                                 numeric=bool(isnum) and v["cls"] in NUMERIC, note=note))
    return variables, ""


OCT_READER = {"-text": "octave-text", "-zip": "octave-text", "-binary": "octave-binary",
              "-binary -zip": "octave-binary", "-float-binary": "octave-binary",
              "-hdf5": "octave-hdf5", "-v6": "mat5", "-v7": "mat5", "-v4": "mat4",
              "-ascii": "text"}


def gen_octave_batch(rng, tmp, start, count, octave, version):
    """Writes `count` files with one Octave process and loads each back; returns cases."""
    jobs = []
    lines = [OCT_DUMP.replace("function nq_dump", "1;\nfunction nq_dump"),
             "warning('off', 'all');"]
    for k in range(count):
        i = start + k
        fmt = rng.choice(OCT_FORMATS)
        nvars = 1 if fmt in ("-ascii",) else (rng.choice([1, 1, 1, 2, 3])
                                               if rng.random() < 0.97 else rng.randint(8, 30))
        ext = {"-hdf5": "h5", "-v6": "mat", "-v7": "mat", "-v4": "mat", "-ascii": "txt"}.get(
            fmt, rng.choice(["txt", "mat", "octave", "bin"]))
        path = os.path.join(tmp, f"octave-{i}.{ext}")
        names, spec, kinds = [], [], {}
        for _ in range(nvars):
            name = rand_name(rng, names) if fmt != "-ascii" else "Q"
            if fmt == "-v4":
                name = name[:19]
                if name in names:
                    continue
            names.append(name)
            expr, what = octave_value(rng, fmt)
            kinds[name] = what
            lines.append(f"{name} = {expr};")
            spec.append(f"{name} = {expr if len(expr) < 200 else expr[:200] + '...'} ({what})")
        opts = ", ".join(oct_str(o) for o in fmt.split())
        lines.append(f"try; save({opts}, {oct_str(path)}, {', '.join(oct_str(n) for n in names)}); "
                     f"nq_dump({oct_str(path)}, {oct_str(path + '.ref')}, {oct_str(fmt)}); "
                     f"catch e; fid = fopen({oct_str(path + '.ref')}, 'w'); "
                     f"fprintf(fid, 'NOSAVE %s\\n', e.message); fclose(fid); end")
        lines.append(f"clear {' '.join(names)};")
        jobs.append((path, fmt, kinds, "; ".join(spec)))
    script = os.path.join(tmp, "batch.m")
    with open(script, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    subprocess.run([octave, "--no-gui", "--norc", "--quiet", script], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    cases = []
    for path, fmt, kinds, spec in jobs:
        try:
            dump = open(path + ".ref").read()
        except FileNotFoundError:
            continue
        if dump.startswith("NOSAVE") or not os.path.exists(path):
            continue
        variables, err = parse_octave_dump(dump)
        reader = OCT_READER[fmt]
        case = {"path": path, "args": [], "spec": f"{version} save {fmt}: {spec}",
                "var": None, "zero": False, "reader": reader}
        if variables is None:
            case["variables"] = [Var("?", f"unloadable: {err}", (0, 0), numeric=False)]
            cases.append(case)
            continue
        if fmt == "-ascii":
            # Plain numbers: nqueens reads them as text, one row per number; only vectors
            # are written, so the shape is no question.
            v = variables[0]
            variables = [v.copy(name="Q", dims=(1, len(v.values or [])))]
        var = pick_var(rng, [v.name for v in variables]) if fmt != "-ascii" else None
        zero = rng.random() < 0.1
        case.update(variables=variables, var=var, zero=zero,
                    args=(["--var", var] if var else []) + (["--zero-based"] if zero else []))
        odd = [n for n, k in kinds.items() if k in ("range", "diag", "perm", "sparse")]
        limits = []
        if reader == "octave-text" and odd:
            limits.append(f"Octave text: {', '.join(kinds[n] for n in odd)} anywhere in the file")
        if reader == "octave-binary":
            # Every other type is walked past by its declared sizes (formats/octave.md);
            # a permutation matrix's width depends on how Octave was built.
            other = [n for n, k in kinds.items() if k == "perm"]
            for v in variables:
                if kinds.get(v.name) in ("range", "diag"):
                    # Walked past, but not one of the numeric types the reader takes
                    # (formats/octave.md): refused when chosen, and no candidate.
                    v.limits.append(f"an Octave {kinds[v.name]} in -binary")
                    v.nonstandard = True
            if other:
                limits.append("Octave binary: a type the reader does not walk: "
                              + ", ".join(kinds[n] for n in other))
        if reader == "octave-hdf5":
            for v in variables:
                if v.numeric and v.values is not None and min(v.dims) == 0:
                    v.raw = list(v.dims)  # OCTAVE_EMPTY_MATRIX: the value holds the dims
                if v.dims == (1, 1):
                    v.limits.append("an HDF5 scalar dataspace (Octave's 1x1)")
                if kinds.get(v.name) in ("range", "diag", "perm"):
                    # Not one of the numeric types the reader takes (formats/octave.md):
                    # refused when chosen, and no candidate.
                    v.limits.append(f"an Octave {kinds[v.name]} in -hdf5")
                    v.nonstandard = True
        case["file_limits"] = limits
        cases.append(case)
    return cases


# ---------------------------------------------------------------------------------------

def run_client(client, args):
    rng = random.Random(f"{args.seed}/{client}")
    tally = Tally(client, os.path.join(args.keep, client))
    deadline = time.monotonic() + args.seconds if args.seconds else None
    octave = shutil.which("octave-cli") or shutil.which("octave")
    version = ""
    if client == "octave":
        version = subprocess.run([octave, "--version"], capture_output=True,
                                 text=True).stdout.split("\n")[0]
    with tempfile.TemporaryDirectory(prefix=f"diff-{client}-") as tmp:
        i = 0
        while tally.files < args.count and (deadline is None or time.monotonic() < deadline):
            work = os.path.join(tmp, f"b{i}")
            os.makedirs(work)
            if client == "octave":
                batch = min(100, args.count - tally.files)
                cases = gen_octave_batch(rng, work, i, batch, octave, version)
                i += batch
            else:
                gen = {"scipy": gen_scipy, "h5py": gen_h5py, "numpy": gen_numpy}[client]
                made = gen(rng, work, i)
                i += 1
                cases = [made] if made else []
            for case in cases:
                if tally.files >= args.count:
                    break
                if client != "octave" and rng.random() < 0.05:
                    # Any gzipped input is read as what it holds (README, Octave's -zip).
                    import gzip
                    with open(case["path"], "rb") as src, \
                            gzip.open(case["path"] + ".gz", "wb") as dst:
                        shutil.copyfileobj(src, dst)
                    case["path"] += ".gz"
                    case["spec"] = "gzip of " + case["spec"]
                ref = reference(case)
                got, cmd = run_nqueens(args.bin, case["path"], case["args"], work)
                tally.add(case, ref, got, cmd, compare(ref, got))
                if args.verbose:
                    print(case["spec"][:200], "->", got.kind, file=sys.stderr)
            shutil.rmtree(work)
    return tally


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--client", default="all", choices=["scipy", "h5py", "numpy", "octave", "all"])
    ap.add_argument("--count", type=int, default=1000, help="files per client (default 1000)")
    ap.add_argument("--seconds", type=float, default=0,
                    help="at most this long per client (0: no limit)")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--bin", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "nqueens"))
    ap.add_argument("--keep", default="diff-mismatches",
                    help="folder for the mismatching files (default diff-mismatches)")
    ap.add_argument("--strict", action="store_true",
                    help="fail on known mismatches too")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    clients = ["scipy", "h5py", "numpy", "octave"] if args.client == "all" else [args.client]
    missing = []
    for c in clients:
        try:
            if c in ("scipy", "h5py"):
                __import__({"scipy": "scipy.io", "h5py": "h5py"}[c])
            elif c == "octave" and not (shutil.which("octave-cli") or shutil.which("octave")):
                raise ImportError("octave is not on PATH")
        except ImportError as e:
            missing.append(f"{c}: {e}")
    if missing:
        sys.exit("diff_clients: a client is missing (tools/test.sh installs them): "
                 + "; ".join(missing))
    if not os.path.exists(args.bin):
        sys.exit(f"diff_clients: no binary at {args.bin}")
    version = subprocess.run([args.bin, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"diff_clients: seed {args.seed}, {version}, numpy {np.__version__}")
    bad = known = 0
    for c in clients:
        t0 = time.monotonic()
        tally = run_client(c, args)
        print(tally.summary() + f"\n          ({time.monotonic() - t0:.0f} s)", flush=True)
        bad += tally.unknown()
        known += len(tally.mismatches) - tally.unknown()
        for verdict, k, desc in tally.mismatches:
            if k is None:
                print(desc + "\n", file=sys.stderr)
        if tally.files == 0:
            print(f"diff_clients: {c} gave no file", file=sys.stderr)
            bad += 1
    if known:
        print("known mismatches (reported, not failed without --strict):")
        for ident, text, readers, _, _ in KNOWN:
            print(f"  {ident}: {text} [{', '.join(sorted(readers))}]")
    if bad or (args.strict and known):
        print(f"diff_clients: {bad} mismatches, {known} known; files and descriptions in "
              f"{args.keep}/")
        sys.exit(1)
    print(f"diff_clients: no mismatch ({known} known)")


if __name__ == "__main__":
    main()
