#!/usr/bin/env python3
"""Confirms an INFEASIBLE answer of `nqueens complete --certificate CERT.json` without
trusting nqueens: re-derives the input's residual from the composition itself, writes its
own CNF of it (plain pairwise encoding, one variable per free cell, numbered as
formats/dimacs.md says: free rows increasing, then free columns increasing), checks that
the CNF nqueens wrote beside the certificate describes the same residual (its counts), and
has the DRAT checker `rate` verify nqueens' proof against this script's own CNF. A proof
that checks against an encoding written independently is a proof about the board, not
about nqueens' encoding.

    tools/confirm_certificate.py COMPOSITION CERT.json [--rate PATH]

COMPOSITION: a text file of n columns (0 for an empty row; whitespace or commas between
them) or a NumPy .npy vector (needs numpy). Other formats: `nqueens convert IN board.txt`
first (for a CSPLib Excluded Diagonals file that is its reduced board, formats/csplib.md).
Exit 0: confirmed; 1: not confirmed (the reason is printed); 2: bad arguments or files.
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
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


def beside(cert, name):
    """A file the certificate names: as written, else beside the certificate."""
    p = pathlib.Path(name)
    return p if p.exists() else cert.parent / p.name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("composition", type=pathlib.Path)
    ap.add_argument("certificate", type=pathlib.Path)
    ap.add_argument("--rate", help="the rate binary (default: on PATH, else ~/.cargo/bin)")
    a = ap.parse_args()
    try:
        doc = json.loads(a.certificate.read_text())
        q = read_composition(a.composition)
    except (OSError, ValueError) as e:
        fail(2, str(e))
    proof = doc.get("proof", {})
    if "file" not in proof:
        fail(1, f"the certificate has no proof: {proof.get('missing', 'no proof record')}")
    cnf, drat = beside(a.certificate, doc["cnf"]["file"]), beside(a.certificate, proof["file"])
    n = len(q)
    free_rows, free_cols, cells = residual(q)
    if doc.get("n") not in (None, n):
        fail(1, f"the certificate is for n = {doc['n']}, the composition has n = {n}")
    want = {"n": n, "free-rows": len(free_rows), "cells": len(cells)}
    got = shipped_counts(cnf)
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
        sys.exit(0)
    rate = a.rate or shutil.which("rate") or os.path.expanduser("~/.cargo/bin/rate")
    if not os.path.exists(rate):
        fail(2, "the DRAT checker rate is needed: cargo install --locked --version 0.3.0 rate")
    with tempfile.TemporaryDirectory() as tmp:
        own = pathlib.Path(tmp) / "own.cnf"
        with open(own, "w") as f:
            f.write(f"p cnf {variables} {len(clauses)}\n")
            for c in clauses:
                f.write(" ".join(map(str, c)) + " 0\n")
        out = subprocess.run([rate, str(own), str(drat)], capture_output=True, text=True)
    verified = "s VERIFIED" in out.stdout.splitlines()
    print(
        f"{a.composition}: n = {n}, {len(free_rows)} free rows, {len(cells)} free cells, "
        f"{len(clauses)} clauses of this script's own CNF; proof {drat}: "
        + ("VERIFIED; CONFIRMED" if verified else "NOT VERIFIED")
    )
    sys.exit(0 if verified else 1)


if __name__ == "__main__":
    main()
