#!/usr/bin/env python3
"""Makes the MAT fixtures under tests/data/mat with real writers (scipy.io.savemat for v5/v7,
h5py for v7.3 with MATLAB's 512-byte header and attributes; Octave when installed) plus
hand-built files for what those writers never produce (big-endian files, broken files). Each
good fixture NAME.mat comes with NAME.expected.txt, the rows it must read as. Run from
anywhere: python3 tools/make_mat_fixtures.py (needs numpy, scipy and h5py).
"""
import os, shutil, struct, subprocess, zlib
import h5py
import numpy as np
import scipy.io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "mat")
K47 = np.loadtxt(os.path.join(ROOT, "tests", "data", "grigoryan-n100-k47.txt"), dtype=np.int64)


def good(name, rows, write):
    path = os.path.join(OUT, name + ".mat")
    write(path)
    np.savetxt(os.path.join(OUT, name + ".expected.txt"), rows, fmt="%d")


def save(path, compress, **variables):
    scipy.io.savemat(path, variables, do_compression=compress)


def header(endian=b"IM"):
    text = b"MATLAB 5.0 MAT-file, hand-built test fixture".ljust(116, b" ")
    version = b"\x00\x01" if endian == b"IM" else b"\x01\x00"
    return text + b"\x00" * 8 + version + endian


def element(fmt, ty, data):
    pad = (-len(data)) % 8
    return struct.pack(fmt + "II", ty, len(data)) + data + b"\x00" * pad


def matrix(fmt, cls, dims, name, data_type, data):
    body = element(fmt, 6, struct.pack(fmt + "II", cls, 0))
    body += element(fmt, 5, struct.pack(fmt + "%di" % len(dims), *dims))
    body += element(fmt, 1, name)
    body += element(fmt, data_type, data)
    return struct.pack(fmt + "II", 14, len(body)) + body


def main():
    os.makedirs(OUT, exist_ok=True)
    small = K47[:20].copy()
    small[small > 20] = 0  # keep a valid-looking 20-row vector
    # scipy: every numeric class, row and column vectors, compressed and not.
    good("scipy-double-row-v5", K47, lambda p: save(p, False, Q=K47.astype(np.float64).reshape(1, -1)))
    good("scipy-double-row-v7", K47, lambda p: save(p, True, Q=K47.astype(np.float64).reshape(1, -1)))
    good("scipy-uint32-col-v7", K47, lambda p: save(p, True, Q=K47.astype(np.uint32).reshape(-1, 1)))
    for dt in ["single", "int8", "uint8", "int16", "uint16", "int32", "int64", "uint64"]:
        npdt = {"single": np.float32}.get(dt, getattr(np, dt, None))
        good(f"scipy-{dt}-v5", small, lambda p, npdt=npdt: save(p, False, Q=small.astype(npdt).reshape(1, -1)))
    good("scipy-named-var", K47, lambda p: save(p, True, sol=K47.astype(np.uint32), note=np.array(["hi"])))
    # Big-endian, by hand (scipy writes native order only).
    good("bigendian-double", small, lambda p: open(p, "wb").write(
        header(b"MI") + matrix(">", 6, [1, len(small)], b"Q", 9, struct.pack(">%dd" % len(small), *small))))
    # Bad files.
    bad = {}
    full = open(os.path.join(OUT, "scipy-double-row-v5.mat"), "rb").read()
    bad["truncated-header"] = full[:100]
    lying = bytearray(full)
    struct.pack_into("<I", lying, 132, 10_000_000)
    bad["lying-size"] = bytes(lying)
    comp = bytearray(open(os.path.join(OUT, "scipy-double-row-v7.mat"), "rb").read())
    for i in range(150, 170):
        comp[i] ^= 0x5A
    bad["corrupt-zlib"] = bytes(comp)
    path = os.path.join(OUT, "bad-char.mat")
    save(path, False, Q=np.array(["abc"]))
    bad["char"] = open(path, "rb").read()
    save(path, False, Q=np.ones((3, 4)))
    bad["matrix-2d"] = open(path, "rb").read()
    save(path, False, Q=np.array([1 + 2j, 0]))
    bad["complex"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, -2.0, 0.0]))
    bad["negative"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, 2.5, 0.0]))
    bad["fraction"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, np.nan, 0.0]))
    bad["nan"] = open(path, "rb").read()
    save(path, False, Q=np.array([1.0, 9.0, 0.0]))
    bad["too-large"] = open(path, "rb").read()
    save(path, False, A=np.array([1.0, 0.0]), B=np.array([0.0, 1.0]))
    bad["two-vectors"] = open(path, "rb").read()
    os.remove(path)
    for name, data in bad.items():
        open(os.path.join(OUT, f"bad-{name}.mat"), "wb").write(data)
    v73(small)
    # Octave, when present, as a second real writer.
    if shutil.which("octave"):
        script = (f"Q = uint32([{' '.join(map(str, K47))}]); save('-v7', '{OUT}/octave-v7.mat', 'Q'); "
                  f"save('-v6', '{OUT}/octave-v6.mat', 'Q');")
        subprocess.run(["octave", "--no-gui", "--eval", script], check=True)
        for name in ("octave-v7", "octave-v6"):
            np.savetxt(os.path.join(OUT, name + ".expected.txt"), K47, fmt="%d")


def v73_file(path, fill):
    """A MAT v7.3 file as MATLAB lays it out: HDF5 with a 512-byte user block holding the
    MAT header (text, version 0x0200, endian indicator), then the variables."""
    with h5py.File(path, "w", userblock_size=512, libver="earliest") as f:
        fill(f)
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Sat Nov 21 00:00:00 2026 HDF5 schema 1.00 ."
    with open(path, "r+b") as fh:
        fh.write(text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM")


def var(f, name, data, cls, **kw):
    """A MATLAB variable: MATLAB's dims reversed (column-major), with its class attribute."""
    d = f.create_dataset(name, data=data, **kw)
    d.attrs["MATLAB_class"] = np.bytes_(cls)
    return d


def v73(small):
    row = lambda a, dt: np.asarray(a, dtype=dt).reshape(-1, 1)  # MATLAB 1xN is HDF5 (N, 1)
    good("h5py-v73-uint32-row", K47, lambda p: v73_file(p, lambda f: var(f, "Q", row(K47, np.uint32), "uint32")))
    good("h5py-v73-double-chunked", K47, lambda p: v73_file(p, lambda f: var(
        f, "Q", row(K47, np.float64), "double", chunks=(16, 1), compression="gzip", shuffle=True)))
    good("h5py-v73-int32-col", small, lambda p: v73_file(p, lambda f: var(
        f, "Q", np.asarray(small, dtype=np.int32).reshape(1, -1), "int32")))
    good("h5py-v73-bigendian", small, lambda p: v73_file(p, lambda f: var(f, "Q", row(small, ">f8"), "double")))
    # Column vectors (MATLAB Nx1, HDF5 (1, N)) in chunks, read window by window without the
    # crate: deflate with shuffle, and big-endian with Fletcher-32 checksums.
    col = lambda a, dt: np.asarray(a, dtype=dt).reshape(1, -1)
    good("h5py-v73-double-col-chunked", K47, lambda p: v73_file(p, lambda f: var(
        f, "Q", col(K47, np.float64), "double", chunks=(1, 16), compression="gzip", shuffle=True)))
    good("h5py-v73-int16-col-fletcher", small, lambda p: v73_file(p, lambda f: var(
        f, "Q", col(small, ">i2"), "int16", chunks=(1, 7), compression="gzip", fletcher32=True)))

    def unaligned(f):
        var(f, "a", np.array([[1]], dtype=np.uint8), "uint8")
        var(f, "Q", row(K47, np.uint16), "uint16")
        var(f, "note", np.frombuffer(b"hi", dtype=np.uint16).reshape(-1, 1), "char")
    good("h5py-v73-unaligned-named", K47, lambda p: v73_file(p, unaligned))
    bad = {
        "2d": lambda f: var(f, "Q", np.ones((4, 3)), "double"),
        "negative": lambda f: var(f, "Q", row([1, -2, 0], np.int32), "int32"),
        "fraction": lambda f: var(f, "Q", row([1, 2.5, 0], np.float64), "double"),
        "too-large": lambda f: var(f, "Q", row([1, 9, 0], np.float64), "double"),
        "char": lambda f: var(f, "Q", row([104, 105], np.uint16), "char"),
        "logical": lambda f: var(f, "Q", row([1, 0], np.uint8), "logical"),
        "two-vectors": lambda f: (var(f, "A", row([1, 0], np.float64), "double"),
                                  var(f, "B", row([0, 1], np.float64), "double")),
        "complex": lambda f: var(f, "Q", np.array([[(1.0, 2.0)], [(0.0, 0.0)]],
                                                  dtype=[("real", "<f8"), ("imag", "<f8")]), "double"),
    }
    for name, fill in bad.items():
        v73_file(os.path.join(OUT, f"bad-v73-{name}.mat"), fill)
    # A column vector whose second chunk's deflate stream is damaged.
    path = os.path.join(OUT, "bad-v73-col-corrupt.mat")
    v73_file(path, lambda f: var(f, "Q", col(K47, np.uint32), "uint32", chunks=(1, 16), compression="gzip"))
    with h5py.File(path, "r") as f:
        info = f["Q"].id.get_chunk_info(1)
    with open(path, "r+b") as fh:
        fh.seek(info.byte_offset + 2)
        fh.write(b"\xff" * 6)
    whole = open(os.path.join(OUT, "h5py-v73-uint32-row.mat"), "rb").read()
    open(os.path.join(OUT, "bad-v73-truncated.mat"), "wb").write(whole[:700])


def patchable():
    """Compositions an answer is written to as the input patched (`mat73::patch`): a
    solution of n = 2003 (the linear one, column 2i mod n + 1, n prime to 6) with six rows
    cleared, the last in the partial last chunk, deflated in chunks of 16 beside two
    other variables; a row vector as MATLAB writes it, and a shuffled column. Each comes
    with NAME.solution.txt, the solution its rows were taken from."""
    n = 2003
    solution = (2 * np.arange(n)) % n + 1
    given = solution.copy()
    given[[0, 17, 500, 1001, 1999, 2001]] = 0
    for name, shape, shuffle in [("h5py-v73-patchable", (n, 1), False),
                                 ("h5py-v73-patchable-col", (1, n), True)]:
        def fill(f, shape=shape, shuffle=shuffle):
            var(f, "a_seed", np.array([[7.0]]), "double")
            var(f, "Q", given.astype(np.float64).reshape(shape), "double",
                chunks=(16, 1) if shape[1] == 1 else (1, 16), compression="gzip",
                compression_opts=3, shuffle=shuffle)
            var(f, "note", np.frombuffer(b"hi", dtype=np.uint16).reshape(-1, 1), "char")
        good(name, given, lambda p: v73_file(p, fill))
        np.savetxt(os.path.join(OUT, name + ".solution.txt"), solution, fmt="%d")


if __name__ == "__main__":
    main()
