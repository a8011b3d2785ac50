#!/usr/bin/env python3
"""Makes tests/data/mat/hdf5storage-v73-fletcher.mat with hdf5storage (issue 44), which
writes MAT v7.3 with the Fletcher-32 filter on by default (after shuffle and deflate): a
composition of n = 3001 (the linear solution, column 2i mod n + 1, n prime to 6, with five
rows cleared, all in the first of its two chunks of 1501) as a 1xN double row beside two
other variables, so that `complete` answers it by patching that chunk. With NAME.expected.txt
(the rows it reads as) and NAME.solution.txt (the solution its rows were taken from).
Run from anywhere, with numpy, h5py and hdf5storage installed:
  python3 -m venv /tmp/venv-matlab && /tmp/venv-matlab/bin/pip install numpy h5py hdf5storage
  /tmp/venv-matlab/bin/python tools/make_hdf5storage_fixture.py
"""
import os
import h5py
import hdf5storage
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "mat")
NAME = "hdf5storage-v73-fletcher"


def main():
    n = 3001
    solution = (2 * np.arange(n)) % n + 1
    given = solution.copy()
    given[[0, 17, 500, 1001, 1400]] = 0
    path = os.path.join(OUT, NAME + ".mat")
    hdf5storage.savemat(path, {"a_seed": np.array([[7.0]]),
                               "Q": given.astype(np.float64).reshape(1, -1),
                               "note": "hi"},
                        format="7.3", matlab_compatible=True, store_python_metadata=False)
    with h5py.File(path, "r") as f:
        q = f["Q"]
        # What the test relies on: Fletcher-32 after deflate, two chunks, the free rows in
        # the first.
        assert q.fletcher32 and q.compression == "gzip" and q.chunks == (1501, 1), \
            (q.fletcher32, q.compression, q.chunks)
        assert q.id.get_num_chunks() == 2
        assert np.array_equal(q[:, 0], given)
    np.savetxt(os.path.join(OUT, NAME + ".expected.txt"), given, fmt="%d")
    np.savetxt(os.path.join(OUT, NAME + ".solution.txt"), solution, fmt="%d")


if __name__ == "__main__":
    main()
