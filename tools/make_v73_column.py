#!/usr/bin/env python3
"""Writes an NQB raw file as a MATLAB v7.3 Nx1 column vector (HDF5 shape (1, N)) with h5py,
contiguous or in deflate+shuffle chunks of 2^20, for the column-vector convert benchmark.
Usage: make_v73_column.py IN.nqb OUT.mat contig|chunked 64 (64: the NQB header size)."""
import h5py, numpy as np, sys
src, out, chunked = sys.argv[1], sys.argv[2], sys.argv[3] == "chunked"
q = np.memmap(src, dtype="<u4", mode="r", offset=int(sys.argv[4]))
n = q.shape[0]
with h5py.File(out, "w", userblock_size=512, libver="earliest") as f:
    kw = dict(chunks=(1, 1 << 20), compression="gzip", compression_opts=1, shuffle=True) if chunked else {}
    d = f.create_dataset("Q", shape=(1, n), dtype="<u4", **kw)
    d.attrs["MATLAB_class"] = np.bytes_("uint32")
    step = 1 << 24
    for i in range(0, n, step):
        d[0, i:i + step] = q[i:i + step]
text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Sat Nov 21 00:00:00 2026 HDF5 schema 1.00 ."
with open(out, "r+b") as fh:
    fh.write(text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM")
