#!/usr/bin/env python3
"""Writes tests/data/npy/: .npy files as NumPy itself writes them (np.save), for the
reader's tests. Needs numpy. The board is the 8-queens solution 1 5 8 6 3 7 2 4 (and a
composition with empty rows), stored in every dtype and shape a user may have.

Usage: tools/make_npy_fixtures.py [OUT_DIR]
"""
import os, sys
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "npy")
os.makedirs(out, exist_ok=True)
q = [1, 5, 8, 6, 3, 7, 2, 4]
good = {
    "u4.npy": np.array(q, dtype=np.uint32),
    "i8-column.npy": np.array(q, dtype=np.int64).reshape(8, 1),
    "f8-row.npy": np.array(q, dtype=np.float64).reshape(1, 8),
    "be-i4.npy": np.array(q, dtype=">i4"),
    "u1.npy": np.array(q, dtype=np.uint8),
    "f4-fortran.npy": np.asfortranarray(np.array(q, dtype=np.float32).reshape(8, 1)),
    "composition-u2.npy": np.array([1, 0, 8, 0, 3, 0, 0, 4], dtype=np.uint16),
}
bad = {
    "bad-matrix.npy": np.array([q, q], dtype=np.uint32),
    "bad-fraction.npy": np.array([1.0, 5.5, 8, 6, 3, 7, 2, 4]),
    "bad-negative.npy": np.array([1, -5, 8, 6, 3, 7, 2, 4], dtype=np.int32),
    "bad-bool.npy": np.array([True] * 8),
    "bad-empty.npy": np.array([], dtype=np.uint32),
}
for name, a in {**good, **bad}.items():
    np.save(os.path.join(out, name), a)
# A file cut short: the header promises 8 values, 5 follow.
whole = open(os.path.join(out, "u4.npy"), "rb").read()
open(os.path.join(out, "bad-truncated.npy"), "wb").write(whole[:-12])
print(f"wrote {len(good) + len(bad) + 1} files to {out}")
