#!/usr/bin/env python3
"""Confirms an INFEASIBLE answer of `nqueens complete --certificate CERT.json` without
trusting nqueens: re-derives the input's residual from the composition itself, writes its
own CNF of it (plain pairwise encoding, one variable per free cell, numbered as
formats/dimacs.md says: free rows increasing, then free columns increasing), checks that
the CNF nqueens wrote beside the certificate describes the same residual (its counts), and
has the DRAT checker `rate` verify nqueens' proof against this script's own CNF. A
`weighted_cover` certificate needs none of that: its weights are checked on the residual
in exact integers. A proof
that checks against an encoding written independently is a proof about the board, not
about nqueens' encoding.

An LRAT proof names clauses by number, so it checks only against the CNF it was written
for: for one, this script writes nqueens' encoding itself from formats/dimacs.md (clause
order, Sinz's counter and all), requires the CNF beside the certificate to be exactly that,
and has an LRAT checker verify the proof against it: tools/check_lrat.py, or the program
--lrat-check names (lrat-trim, built by tools/build_lrat_trim.sh; lrat-check, built by
tools/build_drat_trim.sh; cake_lpr). A binary LRAT proof (`--proof lrat-binary`) goes the
same way; of those, tools/check_lrat.py and lrat-trim read it.

A proof split into parts (`--proof-parts`) is checked piece by piece against the same CNF
with the clauses each piece assumes, which this script writes from the document's cubes
(tools/check_pieces.py): --jobs pieces at once. A document of one shard of the pieces
(`--proof-shard`) is refused (exit 2) unless --shard, which checks the pieces it names
(tools/prove_in_shards.py --board checks every shard so).

    tools/confirm_certificate.py COMPOSITION CERT.json [--rate PATH] [--lrat-check PATH] [--jobs N] [--shard]

COMPOSITION: a text file of n columns (0 for an empty row; whitespace or commas between
them) or a NumPy .npy vector (needs numpy). Other formats: `nqueens convert IN board.txt`
first (for a CSPLib Excluded Diagonals file that is its reduced board, formats/csplib.md).
Exit 0: confirmed; 1: not confirmed (the reason is printed); 2: bad arguments or files.
"""

import argparse
import check_pieces
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile


def fail(code, message):
    print(f"confirm_certificate: {message}", file=sys.stderr)
    sys.exit(code)


def read_composition(path):
    if path.suffix == ".npy":
        try:
            import numpy as np
        except ImportError:
            fail(2, "reading .npy needs numpy")
        return [int(v) for v in np.load(path).ravel()]
    text = path.read_text()
    return [int(tok) for tok in re.split(r"[\s,]+", text.strip()) if tok]


def residual(q):
    """Free rows, free columns and the free cells (row, column), 1-based, in variable order."""
    n = len(q)
    if any(v < 0 or v > n for v in q):
        fail(2, "a value is outside 0..n")
    cols, d1, d2 = set(), set(), set()
    for i, j in enumerate(q, start=1):
        if j == 0:
            continue
        if j in cols or (n + j - i) in d1 or (i + j) in d2:
            fail(2, f"row {i}: the given queens attack each other: not a composition")
        cols.add(j)
        d1.add(n + j - i)
        d2.add(i + j)
    free_rows = [i for i, j in enumerate(q, start=1) if j == 0]
    free_cols = [j for j in range(1, n + 1) if j not in cols]
    cells = [
        (i, j)
        for i in free_rows
        for j in free_cols
        if (n + j - i) not in d1 and (i + j) not in d2
    ]
    return free_rows, free_cols, cells


def check_cover(n, free_rows, free_cols, cells, cert, what):
    """Checks weights on free rows and columns, and weights of at least 0 on diagonals,
    such that every free cell's row and column weigh at most its two diagonals, while the
    rows and columns weigh more in all (formats/certificate.md, `weighted_cover`). A
    completion's queens (one per free row and column, at most one per diagonal) would make
    the rows and columns weigh at most the diagonals: there is none. Exact integers.
    Returns the two totals; fails (exit 1) naming `what` otherwise."""
    if not isinstance(cert, dict) or cert.get("kind") != "weighted_cover":
        fail(1, f"{what}: not a weighted_cover")

    def weights(field, lines, nonnegative):
        v = cert.get(field)
        if not isinstance(v, list):
            fail(1, f"{what}: {field!r} is not a list")
        out = {}
        for e in v:
            if not (isinstance(e, list) and len(e) == 2 and all(type(x) is int for x in e)):
                fail(1, f"{what}: {field!r} holds {e!r}, not a [line, weight] pair of integers")
            line, w = e
            if line in out:
                fail(1, f"{what}: {field!r} lists line {line} twice")
            if lines is not None and line not in lines:
                fail(1, f"{what}: {field!r} weighs line {line}, which is not free")
            if nonnegative and w < 0:
                fail(1, f"{what}: {field!r} gives line {line} the negative weight {w}")
            out[line] = w
        return out

    a = weights("rows", set(free_rows), False)
    b = weights("columns", set(free_cols), False)
    w1 = weights("d1", None, True)
    w2 = weights("d2", None, True)
    for i, j in cells:
        if a.get(i, 0) + b.get(j, 0) > w1.get(n + j - i, 0) + w2.get(i + j, 0):
            fail(1, f"{what}: free cell ({i}, {j}) weighs more by its row and column than by its diagonals")
    total, bound = sum(a.values()) + sum(b.values()), sum(w1.values()) + sum(w2.values())
    if total <= bound:
        fail(1, f"{what}: the rows and columns weigh {total}, not more than the diagonals' {bound}")
    return total, bound


def confirm_weighted_cover(path, q, doc, cert):
    """A `weighted_cover` certificate: the weights checked on the composition's residual."""
    n = len(q)
    if doc.get("n") not in (None, n):
        fail(1, f"the certificate is for n = {doc['n']!r}, the composition has n = {n}")
    free_rows, free_cols, cells = residual(q)
    total, bound = check_cover(n, free_rows, free_cols, cells, cert, "weighted_cover")
    print(f"{path}: n = {n}: {len(free_rows)} free rows; rows and columns weigh {total} > {bound} on the diagonals: no completion; CONFIRMED")
    sys.exit(0)


def confirm_refuted_cells(path, q, cert):
    """The cells an `exhausted_search` says its search never placed (`refuted_cells`), in order:
    each a free cell, and its `cover` a weighted cover of the residual left by a queen on
    it, with the cells listed before it taken out. So no completion uses any of them."""
    listed = cert.get("refuted_cells", [])
    if not isinstance(listed, list):
        fail(1, "exhausted_search: 'refuted_cells' is not a list")
    if not listed:
        return set()
    n = len(q)
    free_rows, free_cols, cells = residual(q)
    out = set()
    for k, e in enumerate(listed):
        what = f"refuted cell {k + 1}"
        if not isinstance(e, dict) or type(e.get("row")) is not int or type(e.get("column")) is not int:
            fail(1, f"{what}: not a {{row, column, cover}} record")
        i, j = e["row"], e["column"]
        if (i, j) not in cells or (i, j) in out:
            fail(1, f"{what}: ({i}, {j}) is not a free cell (or is listed twice)")
        rows = [r for r in free_rows if r != i]
        cols = [c for c in free_cols if c != j]
        left = [
            (r, c)
            for r, c in cells
            if r != i and c != j and c - r != j - i and r + c != i + j and (r, c) not in out
        ]
        check_cover(n, rows, cols, left, e.get("cover"), f"{what} ({i}, {j})")
        out.add((i, j))
    print(f"{path}: the {len(listed)} cells the search never placed are each refuted by their weights: in no completion")
    return out


def confirm_refuted_pairs(path, q, cert, refuted):
    """The pairs of cells an `exhausted_search` says its search took as attacking each
    other (`refuted_pairs`): each two free cells, not refuted, that do not attack each other,
    listed once, and its `cover` a weighted cover of the residual left by queens on both,
    with every refuted cell taken out. So no completion uses both."""
    listed = cert.get("refuted_pairs", [])
    if not isinstance(listed, list):
        fail(1, "exhausted_search: 'refuted_pairs' is not a list")
    if not listed:
        return
    n = len(q)
    free_rows, free_cols, cells = residual(q)
    seen = set()
    for k, e in enumerate(listed):
        what = f"refuted pair {k + 1}"
        pair = e.get("cells") if isinstance(e, dict) else None
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(x, list) and len(x) == 2 and all(type(v) is int for v in x) for x in pair)
        ):
            fail(1, f"{what}: not a {{cells: [[row, column], [row, column]], cover}} record")
        (i1, j1), (i2, j2) = pair
        for i, j in pair:
            if (i, j) not in cells or (i, j) in refuted:
                fail(1, f"{what}: ({i}, {j}) is not a free cell (or is a refuted one)")
        if i1 == i2 or j1 == j2 or j1 - i1 == j2 - i2 or i1 + j1 == i2 + j2:
            fail(1, f"{what}: ({i1}, {j1}) and ({i2}, {j2}) attack each other")
        key = frozenset(((i1, j1), (i2, j2)))
        if key in seen:
            fail(1, f"{what}: ({i1}, {j1}) and ({i2}, {j2}) are listed twice")
        seen.add(key)
        rows = [r for r in free_rows if r not in (i1, i2)]
        cols = [c for c in free_cols if c not in (j1, j2)]
        left = [
            (r, c)
            for r, c in cells
            if all(r != i and c != j and c - r != j - i and r + c != i + j for i, j in pair) and (r, c) not in refuted
        ]
        check_cover(n, rows, cols, left, e.get("cover"), f"{what} ({i1}, {j1}), ({i2}, {j2})")
    print(f"{path}: the {len(listed)} pairs of cells the search took as attacking are each refuted by their weights: in no completion together")


def own_cnf(n, free_rows, free_cols, cells):
    """Clauses: at least one cell per free row and per free column, at most one per row,
    column and diagonal (pairwise)."""
    var = {cell: k for k, cell in enumerate(cells, start=1)}
    groups = {}
    for (i, j), v in var.items():
        for key in (("row", i), ("col", j), ("d1", n + j - i), ("d2", i + j)):
            groups.setdefault(key, []).append(v)
    clauses = []
    for i in free_rows:
        clauses.append(groups.get(("row", i), []))
    for j in free_cols:
        clauses.append(groups.get(("col", j), []))
    for vs in groups.values():
        for a in range(len(vs)):
            for b in range(a + 1, len(vs)):
                clauses.append([-vs[a], -vs[b]])
    return len(cells), clauses


def nqueens_cnf(n, free_rows, free_cols, cells):
    """nqueens' own encoding as formats/dimacs.md gives it, clause for clause: per free row
    then per free column its at-least-one clause and its at-most-one, then the at-most-ones
    of the D1 diagonals (by n + j - i) and of the D2 diagonals (by i + j); pairwise over at
    most 5 cells, else Sinz's counter with fresh variables after the cells."""
    var = {cell: k for k, cell in enumerate(cells, start=1)}
    rows, cols, d1, d2 = {}, {}, {}, {}
    for (i, j), v in var.items():
        rows.setdefault(i, []).append(v)
        cols.setdefault(j, []).append(v)
        d1.setdefault(n + j - i, []).append(v)
        d2.setdefault(i + j, []).append(v)
    clauses, top = [], len(cells)

    def fresh():
        nonlocal top
        top += 1
        return top

    def at_most_one(vs):
        k = len(vs)
        if k <= 5:
            clauses.extend([-vs[a], -vs[b]] for a in range(k) for b in range(a + 1, k))
            return
        prev = fresh()
        clauses.append([-vs[0], prev])
        for x in vs[1 : k - 1]:
            s = fresh()
            clauses.extend([[-x, s], [-prev, s], [-x, -prev]])
            prev = s
        clauses.append([-vs[k - 1], -prev])

    for line in [rows.get(i, []) for i in free_rows] + [cols.get(j, []) for j in free_cols]:
        if not line:
            x = fresh()
            clauses.extend([[x], [-x]])
            continue
        clauses.append(list(line))
        at_most_one(line)
    for group in (d1, d2):
        for key in sorted(group):
            at_most_one(group[key])
    return top, clauses


# A number as nqueens (and DIMACS) writes it: "01", "+5", "1_0" are read by Python's int()
# as numbers, but otherwise, or not at all, by a C checker.
CANONICAL = re.compile(r"-?(0|[1-9][0-9]*)\Z")


def read_cnf(path):
    """The header's counts and the clauses of a DIMACS file written as nqueens writes one
    (ValueError otherwise)."""
    header, clauses, current = None, [], []
    with open(path, encoding="ascii") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("c"):
                continue
            words = line.split()
            if line.startswith("p"):
                if len(words) != 4 or words[1] != "cnf" or not all(CANONICAL.match(w) for w in words[2:]):
                    raise ValueError(f"line {number}: not a DIMACS header")
                header = (int(words[2]), int(words[3]))
                continue
            for w in words:
                if not CANONICAL.match(w):
                    raise ValueError(f"line {number}: {w!r} is not a number as nqueens writes it")
                lit = int(w)
                if lit:
                    current.append(lit)
                else:
                    clauses.append(current)
                    current = []
    if current:
        raise ValueError("the last clause has no terminating 0")
    return header, clauses


def shipped_counts(cnf):
    """The counts nqueens' CNF states in its comments."""
    counts = {}
    with open(cnf) as f:
        for line in f:
            if not line.startswith("c"):
                break
            m = re.match(r"c nqueens (n|free-rows|cells) (\d+)", line)
            if m:
                counts[m.group(1)] = int(m.group(2))
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("composition", type=pathlib.Path)
    ap.add_argument("certificate", type=pathlib.Path)
    ap.add_argument("--rate", help="the rate binary (default: on PATH, else ~/.cargo/bin)")
    ap.add_argument(
        "--lrat-check",
        help="an LRAT checker run as PROG CNF LRAT, VERIFIED in its output (default: tools/check_lrat.py)",
    )
    ap.add_argument("--jobs", type=check_pieces.jobs_arg, default=os.cpu_count() or 1, help="pieces of a split proof checked at once")
    ap.add_argument("--shard", action="store_true", help="check the pieces of the document's shard (complete --proof-shard)")
    a = ap.parse_args()
    if not isinstance(a.jobs, int):
        ap.error("argument --jobs: expected a whole number from 1")
    for flag, program in (("--rate", a.rate), ("--lrat-check", a.lrat_check)):
        if program is not None and not (os.path.isfile(program) and os.access(program, os.X_OK)):
            fail(2, f"{flag} {program!r}: not a program this script can run")
    try:
        doc = check_pieces.load_json(a.certificate)
        q = read_composition(check_pieces.regular(a.composition))
    except (OSError, ValueError, check_pieces.Refused) as e:
        fail(2, str(e))
    cert = doc.get("certificate") if isinstance(doc, dict) else None
    if isinstance(cert, dict) and cert.get("kind") == "weighted_cover":
        # Weights on lines: checked on the board itself, no CNF or proof needed.
        confirm_weighted_cover(a.composition, q, doc, cert)
    # A document of another shape is no certificate of nqueens: said, not a traceback.
    if not isinstance(doc, dict) or not isinstance(doc.get("cnf"), dict):
        fail(2, f"{a.certificate}: not a certificate of nqueens (no \"cnf\" record)")
    if isinstance(cert, dict) and cert.get("kind") == "exhausted_search":
        # Not needed for the proof below (a proof of the whole residual), but what the
        # search relied on: checked too.
        refuted = confirm_refuted_cells(a.composition, q, cert)
        confirm_refuted_pairs(a.composition, q, cert, refuted)
    proof = doc.get("proof")
    if not isinstance(proof, dict):
        fail(1, f"{a.certificate}: the certificate has no proof record")
    if not isinstance(proof.get("file"), str):
        fail(1, f"the certificate has no proof: {proof.get('missing', 'no proof file named')}")
    if not isinstance(doc["cnf"].get("file"), str):
        fail(2, f"{a.certificate}: its \"cnf\" record names no file")
    shard = proof.get("shard")
    if shard is not None and not a.shard:
        # Refused before anything else, the board's own refutation included: the
        # document's proof is not all there.
        try:
            check_pieces.pieces(doc, a.certificate, 1 << 62)
        except check_pieces.NotAFile as e:
            fail(2, str(e))
        except check_pieces.Refused as e:
            fail(1, str(e))
    cnf = check_pieces.beside(a.certificate, doc["cnf"]["file"])
    n = len(q)
    free_rows, free_cols, cells = residual(q)
    if doc.get("n") not in (None, n):
        fail(1, f"the certificate is for n = {doc['n']!r}, the composition has n = {n}")
    want = {"n": n, "free-rows": len(free_rows), "cells": len(cells)}
    try:
        got = shipped_counts(check_pieces.regular(cnf))
    except (OSError, ValueError, check_pieces.Refused) as e:
        fail(2, str(e))
    if got != want:
        fail(1, f"nqueens' CNF {cnf} states {got}, the composition gives {want}")
    variables, clauses = own_cnf(n, free_rows, free_cols, cells)
    # A free row or column with no free cell needs no proof (and an empty clause is more
    # than rate's parser takes): the board plainly has no completion.
    empty = [c for c in clauses if not c]
    if empty:
        rows_with = {i for i, _ in cells}
        cols_with = {j for _, j in cells}
        what = [f"row {i}" for i in free_rows if i not in rows_with]
        what += [f"column {j}" for j in free_cols if j not in cols_with]
        print(f"{a.composition}: n = {n}: free {what[0]} has no free cell: no completion; CONFIRMED")
        if a.shard and isinstance(shard, dict):
            print(f"s SHARD {shard.get('index')}/{shard.get('of')} VERIFIED")
        sys.exit(0)
    # Documents from before LRAT have no format: theirs is DRAT.
    kind = proof.get("format", "drat")
    if kind in ("lrat", "lrat-binary"):
        # An LRAT proof names clauses by number: nqueens' CNF must be exactly this script's
        # own writing of nqueens' encoding.
        variables, clauses = nqueens_cnf(n, free_rows, free_cols, cells)
        try:
            header, shipped = read_cnf(cnf)
        except (OSError, ValueError) as e:
            fail(1, f"{cnf}: {e}")
        if header != (variables, len(clauses)) or shipped != clauses:
            fail(1, f"nqueens' CNF {cnf} is not the encoding of this board that formats/dimacs.md gives")
        here = pathlib.Path(__file__).resolve().parent
        checker = [a.lrat_check] if a.lrat_check else [sys.executable, str(here / "check_lrat.py")]
        what = "the same as nqueens' CNF"
    elif kind == "drat":
        rate = a.rate or shutil.which("rate") or os.path.expanduser("~/.cargo/bin/rate")
        if not os.path.exists(rate):
            fail(2, "the DRAT checker rate is needed: cargo install --locked --version 0.3.0 rate")
        checker = [rate]
        what = "of this script's own CNF"
    else:
        fail(1, f"the certificate's proof is in a format this script does not know: {kind!r}")
    # The checker reads this script's own writing of the CNF, not nqueens' file: the two
    # are equal as numbers, but a checker may read a token ("-08") otherwise than Python.
    with tempfile.TemporaryDirectory() as tmp:
        own = pathlib.Path(tmp) / "own.cnf"
        with open(own, "w") as f:
            f.write(f"p cnf {variables} {len(clauses)}\n")
            for c in clauses:
                f.write(" ".join(map(str, c + [0])) + "\n")
        try:
            listed = check_pieces.pieces(doc, a.certificate, len(cells), a.shard)
        except check_pieces.NotAFile as e:
            fail(2, str(e))
        except check_pieces.Refused as e:
            fail(1, str(e))
        # lrat-check reads text LRAT only: it would call a good binary proof NOT VERIFIED.
        if os.path.basename(checker[0]) == "lrat-check":
            for _, piece, _ in listed:
                with open(piece, "rb") as f:
                    if f.read(1) in (b"a", b"d"):
                        fail(2, f"{piece} is binary LRAT, which lrat-check does not read: use lrat-trim or tools/check_lrat.py")
        results, _ = check_pieces.check(own, listed, a.jobs, checker)
    # A checker that could not run is no verdict on the proof.
    for label, _, _, reason, cannot in results:
        if cannot:
            fail(2, f"{label}: not checked: {reason}")
    verified = all(ok for _, ok, _, _, _ in results)
    if not listed:
        files = "no piece in this shard"
    elif len(listed) == 1:
        files = listed[0][1]
    elif isinstance(shard, dict):
        files = f"{listed[0][1]} and {len(listed) - 1} more pieces"
    else:
        files = f"{listed[0][1]} and {len(listed) - 1} parts"
    if isinstance(shard, dict):
        files = f"shard {shard['index']}/{shard['of']}, {files}"
    for label, ok, _, reason, _ in results:
        if not ok:
            print(f"{label}: NOT VERIFIED: {reason}")
    if isinstance(shard, dict):
        # One shard confirms nothing by itself: its pieces are VERIFIED, no more.
        print(
            f"{a.composition}: n = {n}, {len(free_rows)} free rows, {len(cells)} free cells, "
            f"{len(clauses)} clauses, {what}; proof {files}: "
            + ("VERIFIED (the answer is confirmed when every shard is)" if verified else "NOT VERIFIED")
        )
        print(check_pieces.verdict(doc, verified))
    else:
        print(
            f"{a.composition}: n = {n}, {len(free_rows)} free rows, {len(cells)} free cells, "
            f"{len(clauses)} clauses, {what}; proof {files}: "
            + ("VERIFIED; CONFIRMED" if verified else "NOT VERIFIED")
        )
    sys.exit(0 if verified else 1)


if __name__ == "__main__":
    check_pieces.interruptible(main, "confirm_certificate")
