#!/usr/bin/env python3
"""Writes tests/data/clients/: the smallest files, made by the real clients (scipy, h5py,
GNU Octave), that reproduce each class of mismatch tools/diff_clients.py found, one per
class and reader. expect.tsv (kept by hand) says what each must give by the docs and, while
the bug is open, what the binary gives now (tests/it/client_files.rs runs them).
Needs scipy, h5py and octave:  python3 tools/make_client_fixtures.py
"""
import os
import shutil
import subprocess

import h5py
import numpy as np
import scipy.io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "clients")
SOLUTION = [2, 4, 1, 3]  # the 4-queens solution: read, it is VALID SOLUTION


def path(name):
    return os.path.join(OUT, name)


def v73(name, fill, libver="earliest"):
    """A MAT v7.3 file as MATLAB lays it out (user block with the MAT header)."""
    with h5py.File(path(name), "w", userblock_size=512, libver=libver) as f:
        fill(f)
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Thu Nov 26 00:00:00 2026 HDF5 schema 1.00 ."
    with open(path(name), "r+b") as fh:
        fh.write(text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM")


def var(f, name, data, cls):
    d = f.create_dataset(name, data=data)
    d.attrs["MATLAB_class"] = np.bytes_(cls)
    return d


def row(values, dtype="<f8"):
    return np.array(values, dtype=dtype).reshape(-1, 1)  # MATLAB 1xN is HDF5 (N, 1)


def octave(script):
    subprocess.run(["octave-cli", "--norc", "--quiet", "--eval", f"cd('{OUT}'); {script}"],
                   check=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    q = np.array([SOLUTION], dtype=float)

    # logical-as-numeric: a logical read as a board (MAT v5), or counted among the vectors.
    scipy.io.savemat(path("mat5-logical-q.mat"), {"Q": np.array([[True, False]])})
    scipy.io.savemat(path("mat5-logical-beside-vector.mat"),
                     {"flags": np.array([[True, False]]), "x": q})

    # empty-as-dims: MATLAB's v7.3 empty array holds its dimensions.
    def empty_q(f):
        d = var(f, "Q", np.array([0, 2], dtype="<u8"), "double")
        d.attrs["MATLAB_empty"] = np.uint8(1)
    v73("v73-empty-q.mat", empty_q)

    def empty_beside_vector(f):
        d = var(f, "e", np.array([1, 0], dtype="<u8"), "double")
        d.attrs["MATLAB_empty"] = np.uint8(1)
        var(f, "x", row(SOLUTION), "double")
    v73("v73-empty-beside-vector.mat", empty_beside_vector)

    # v73-group-q-skipped: a struct or sparse Q (an HDF5 group) passed over.
    def struct_q(f):
        g = f.create_group("Q")
        g.attrs["MATLAB_class"] = np.bytes_("struct")
        var(g, "a", np.array([[1.0]]), "double")
        var(f, "x", row(SOLUTION), "double")
    v73("v73-struct-q-beside-vector.mat", struct_q)

    def sparse_q(f):
        g = f.create_group("Q")
        g.attrs["MATLAB_class"] = np.bytes_("double")
        g.attrs["MATLAB_sparse"] = np.uint64(1)
        g.create_dataset("data", data=np.array([1.0, 2.0]))
        g.create_dataset("ir", data=np.array([0, 0], dtype="<u8"))
        g.create_dataset("jc", data=np.array([0, 1, 2], dtype="<u8"))
        var(f, "x", row(SOLUTION), "double")
    v73("v73-sparse-q-beside-vector.mat", sparse_q)

    # hdf5-2-layouts: HDF5 2.x's newest structures (libver='latest'): a filtered chunked
    # dataset (data layout message version 5), one resizable in two dimensions (a version 2
    # B-tree chunk index).
    with h5py.File(path("hdf5-latest-gzip.h5"), "w", libver="latest") as f:
        f.create_dataset("Q", data=np.array(SOLUTION, dtype="<u4"), chunks=(2,),
                         compression="gzip")
    with h5py.File(path("hdf5-latest-resizable-2d.h5"), "w", libver="latest") as f:
        f.create_dataset("Q", data=np.array(SOLUTION, dtype="<u4").reshape(-1, 1),
                         chunks=(2, 1), maxshape=(None, None))
    # The same structures found by hand elsewhere: an extensible array index of version 5,
    # a link in dense storage (more than 8 variables), a MAT v7.3 file (a user block).
    with h5py.File(path("hdf5-latest-extensible.h5"), "w", libver="latest") as f:
        f.create_dataset("Q", data=np.array(SOLUTION, dtype="<f8"), chunks=(1,),
                         maxshape=(None,), compression="gzip", shuffle=True, fletcher32=True)
    with h5py.File(path("hdf5-latest-dense-links.h5"), "w", libver="latest") as f:
        for k in range(9):
            f.create_dataset(f"m{k}", data=np.zeros((2, 2)))
        f.create_dataset("Q", data=np.array(SOLUTION, dtype="<i2"), chunks=(3,),
                         compression="gzip")

    def latest(f):
        d = f.create_dataset("Q", data=row(SOLUTION), chunks=(3, 1), compression="gzip")
        d.attrs["MATLAB_class"] = np.bytes_("double")
    v73("v73-latest.mat", latest, libver="latest")

    # checks-every-variable: a bad variable beside the one chosen refuses the file.
    scipy.io.savemat(path("mat4-q-beside-empty.mat"),
                     {"Q": q, "e": np.zeros((1, 0))}, format="4")
    scipy.io.savemat(path("mat4-q-beside-negative.mat"),
                     {"Q": q, "y": np.array([[-1.0, 5.0]])}, format="4")

    # Octave: nd-as-vector, binary-q-matrix-skipped, checks-every-variable,
    # octave-hdf5-types-counted, empty-as-dims.
    octave("Q = reshape([2 4 1 3], 1, 1, []); save('-text', 'octave-text-1x1x4.txt', 'Q');"
           "save('-binary', 'octave-binary-1x1x4.bin', 'Q');"
           "Q = [1 2; 3 4]; x = [2 4 1 3]; save('-binary', 'octave-binary-matrix-q.bin', 'Q', 'x');"
           "Q = [2 4 1 3]; y = [-1 5]; save('-binary', 'octave-binary-q-beside-negative.bin', 'Q', 'y');"
           "s = 'ab'; save('-hdf5', 'octave-hdf5-char-beside-vector.h5', 's', 'x');"
           "e = []; save('-hdf5', 'octave-hdf5-empty-beside-vector.h5', 'e', 'x');")
    for f in sorted(os.listdir(OUT)):
        print(f"{os.path.getsize(path(f)):7d} {f}")


if __name__ == "__main__":
    if not shutil.which("octave-cli"):
        raise SystemExit("octave-cli is needed (apt-get install octave)")
    main()
