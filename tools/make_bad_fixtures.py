#!/usr/bin/env python3
"""Makes the hand-built regression inputs of tests/data/bad: files that once crashed a
reader, allocated gigabytes or aborted (see tests/data/bad/expect.tsv for what each must
give now). Inputs found by the fuzzer (examples/fuzz.rs) are copied there as found.
Needs numpy, h5py and xxhash: python3 tools/make_bad_fixtures.py
"""
import os, struct, sys, zlib
import numpy as np
import h5py
import xxhash

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "bad")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from make_mat_fixtures import v73_file, var  # MATLAB's v7.3 layout


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def nqb_header(n, k, checksum):
    h = b"\x8bNQB\r\n\x1a\n" + struct.pack("<HH4xQQQ16x", 1, 0, n, k, checksum)
    return h + struct.pack("<Q", xxhash.xxh3_64_intdigest(h))


def zstd_header_frame(header):
    """The hand-built stored-block frame NQB uses for the header (formats/nqb.md)."""
    block = struct.pack("<I", 1 | (64 << 3))[:3]
    return (b"\x28\xb5\x2f\xfd" + bytes([0b0010_0100, 64]) + block + header
            + struct.pack("<I", xxhash.xxh64_intdigest(header) & 0xFFFFFFFF))


def seek_table(frames):
    body = b"".join(struct.pack("<II", c, d) for c, d in frames)
    body += struct.pack("<IBI", len(frames), 0, 0x8F92EAB1)
    return struct.pack("<II", 0x184D2A5E, len(body)) + body


def main():
    os.makedirs(OUT, exist_ok=True)
    # DIMACS models: a literal of -2^63 panicked, one of 3e9 allocated 2.9 GB.
    write("dimacs-min-literal.sat", b"s SATISFIABLE\nv -9223372036854775808 0\n")
    write("dimacs-huge-literal.sat", b"s SATISFIABLE\nv 3000000000 0\n")
    # Excluded Diagonals boards whose reduction would not fit memory.
    write("excluded-n-1e6.txt", b"n = 1000000\nnumdiags = 0\ndiags = []\n")
    write("excluded-n-max.txt", b"n = 4294967295\nnumdiags = 0\ndiags = []\n")
    # NQB zstd with one row frame of 2^29 rows (above the spec's 2^28): allocated 2 GB.
    n = 1 << 29
    frame = zlib.compress(b"")  # placeholder payload: never decoded before the check
    frame = b"\x28\xb5\x2f\xfd\x00\x00\x01\x00\x00"  # an empty zstd frame
    head = zstd_header_frame(nqb_header(n, 0, 0))
    write("zstd-one-huge-frame.nqbz",
          head + frame + seek_table([(len(head), 64), (len(frame), 4 * n)]))
    # MAT v7.3: a scalar dataset indexed out of bounds.
    v73_file(os.path.join(OUT, "v73-scalar.mat"), lambda f: var(f, "Q", np.float64(3), "double"))
    # A column vector declaring 10^8 elements with one chunk stored: the chunk table was
    # sized from the dimension (2.4 GB).
    def sparse(f):
        d = f.create_dataset("Q", shape=(1, 100_000_000), maxshape=(1, None), chunks=(1, 1),
                             dtype=np.uint32)
        d[0, 0] = 1
        d.attrs["MATLAB_class"] = np.bytes_("uint32")
    v73_file(os.path.join(OUT, "v73-sparse-chunks.mat"), sparse)
    # Dimensions beyond their declared maximum: 5 elements with maximum 6, the 5 patched
    # to 2^31 (a 2^31-row board from a few KB).
    path = os.path.join(OUT, "v73-dims-over-max.mat")
    v73_file(path, lambda f: var(f, "Q", np.array([[2, 4, 1, 3, 0]], dtype=np.uint32), "uint32",
                                 chunks=(1, 5), maxshape=(1, 6)))
    data = bytearray(open(path, "rb").read())
    old = struct.pack("<QQQQ", 1, 5, 1, 6)
    at = data.find(old)
    assert at > 0, "dataspace message not found"
    data[at:at + 32] = struct.pack("<QQQQ", 1, 1 << 31, 1, 6)
    write("v73-dims-over-max.mat", bytes(data))
    # A column vector whose chunk data no longer matches its Fletcher-32 checksum: the
    # checksum was stripped unchecked.
    path = os.path.join(OUT, "v73-fletcher-mismatch.mat")
    v73_file(path, lambda f: var(f, "Q", np.array([[2, 4, 1, 3, 0, 0, 0, 0]], dtype=np.uint16),
                                 "uint16", chunks=(1, 4), fletcher32=True))
    with h5py.File(path, "r") as f:
        info = f["Q"].id.get_chunk_info(1)
    with open(path, "r+b") as fh:
        fh.seek(info.byte_offset)
        fh.write(b"\x07")
    # MAT v7: the zlib stream's Adler-32 trailer changed (the values themselves intact).
    # 100,001 uint32 values are padded by 4 bytes inside the stream, so reading stopped at
    # the values, before the padding and the trailer, and never checked it.
    import scipy.io
    path = os.path.join(OUT, "mat-v7-adler32-mismatch.mat")
    q = np.zeros((1, 100_001), dtype=np.uint32)  # more than the 64 KiB header pass inflates
    q[0, :4] = [2, 4, 1, 3]
    scipy.io.savemat(path, {"Q": q}, do_compression=True)
    data = bytearray(open(path, "rb").read())
    ty, length = struct.unpack("<II", data[128:136])
    assert ty == 15, "a compressed element at offset 128"
    data[136 + length - 1] ^= 0xFF
    write("mat-v7-adler32-mismatch.mat", bytes(data))
    # Shuffle over a chunk that inflates to fewer bytes than one element: chunks_exact(0).
    path = os.path.join(OUT, "v73-shuffle-short.mat")
    v73_file(path, lambda f: var(f, "Q", np.arange(1, 33, dtype=np.uint32).reshape(1, -1),
                                 "uint32", chunks=(1, 16), compression="gzip", shuffle=True))
    with h5py.File(path, "r") as f:
        info = f["Q"].id.get_chunk_info(1)
    short = zlib.compress(b"ab")
    assert len(short) <= info.size
    with open(path, "r+b") as fh:
        fh.seek(info.byte_offset)
        fh.write(short)

    logicals()
    oversized_chunk()


def octave_var(f, name, kind, value):
    """A variable as Octave's `save -hdf5` lays it out: a group with `type` and `value`."""
    g = f.create_group(name)
    g.attrs["OCTAVE_NEW_FORMAT"] = np.uint8(1)
    g["type"] = np.bytes_(kind)
    g["value"] = value


def logicals():
    """Logical arrays, never a board (issue 43): h5py's bool (an enum of FALSE and TRUE),
    and Octave's `bool matrix` beside the one numeric vector, which is the one read."""
    with h5py.File(os.path.join(OUT, "h5py-bool.h5"), "w") as f:
        f["Q"] = np.array([True, False, True])
    with h5py.File(os.path.join(OUT, "octave-logical-then-p.h5"), "w") as f:
        octave_var(f, "L", "bool matrix", np.array([[1], [0], [1], [1]], dtype=np.uint8))
        octave_var(f, "P", "matrix", np.array([[2.0], [4.0], [1.0], [3.0]]))


def oversized_chunk():
    """A chunk whose stored size (4 KiB, inside the file) is more than its 16 uint32
    elements can be stored in: it was read whole before its size was found wrong."""
    path = os.path.join(OUT, "v73-oversized-chunk.mat")
    v73_file(path, lambda f: var(f, "Q", np.arange(1, 17, dtype=np.uint32).reshape(1, -1),
                                 "uint32", chunks=(1, 16)))
    with h5py.File(path, "r") as f:
        info = f["Q"].id.get_chunk_info(0)
    data = bytearray(open(path, "rb").read())
    # The chunk's B-tree key: its size (4 bytes), its filter mask, its offsets (0, 0, 0).
    key = struct.pack("<II", info.size, 0) + struct.pack("<QQQ", 0, 0, 0)
    at = data.find(key)
    assert at > 0 and data.find(key, at + 1) < 0, "one chunk key"
    data[at:at + 4] = struct.pack("<I", 4096)
    data += bytes(4096)
    write("v73-oversized-chunk.mat", bytes(data))


if __name__ == "__main__":
    main()
