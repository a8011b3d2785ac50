#!/usr/bin/env bash
# Makes the Octave and plain-HDF5 fixtures of tests/data/octave with the real programs:
# Octave's default text `save`, Octave's `save -hdf5`, and h5py for plain HDF5 files.
#   apt-get install octave; pip install h5py numpy
#   tools/make_octave_fixtures.sh
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/tests/data/octave"
mkdir -p "$out"
cd "$out"
octave --no-gui --quiet --eval '
Q = uint32([1 5 8 6 3 7 2 4]); save("-text", "octave-text-uint32.txt", "Q");
Q = [2 4 1 3]; n = 4; note = "four"; save("-text", "octave-text-workspace.txt", "n", "Q", "note");
Q = [2;4;1;3]; save("-text", "octave-text-column.txt", "Q");
Q = [2 4 1 3 0 0]; save("-text", "octave-text-composition.txt", "Q");
Q = uint32([1 5 8 6 3 7 2 4]); save("-hdf5", "octave-hdf5-uint32.h5", "Q");
Q = [2 4 1 3]; n = 4; save("-hdf5", "octave-hdf5-workspace.h5", "n", "Q");
Q = [2 4 1 3]; n = 4; P = [1 2]; save("-v7", "octave-v7-workspace.mat", "n", "P", "Q");
Q = [2 4 1 3]; n = 4; P = [1 2]; save("-v6", "octave-v6-workspace.mat", "n", "P", "Q");
Q = "abcd"; save("-text", "octave-text-string.txt", "Q");
% Compositions whose answers keep the class, orientation and name (issue: users hands 2).
S = [2 4 6 8 10 12 1 3 5 7 9 11]; Q = S; Q(3:6) = 0; x = 5;
save("-v7", "octave-answer-double-row.mat", "Q", "x");
P = uint8(Q(:)); save("-v6", "octave-answer-uint8-column.mat", "P");
% n = 300 in uint8 (columns up to 255): the rows of columns above 255 are cleared, so
% that the answer needs a wider class.
Z = [2:2:300, 1:2:299]; Z(Z > 255) = 0; Z = uint8(Z); save("-v7", "octave-answer-uint8-300.mat", "Z");
' 2>&1 | grep -v "ignoring const execution_exception" || true
python3 - <<'PY'
import h5py, numpy as np
with h5py.File("hdf5-plain-1d.h5", "w") as f:
    f["solution"] = np.array([2, 4, 1, 3], dtype=np.uint32)
with h5py.File("hdf5-plain-two.h5", "w") as f:
    f["a"] = np.array([2, 4, 1, 3], dtype=np.uint32)
    f["b"] = np.array([3, 1, 4, 2], dtype=np.uint32)
with h5py.File("hdf5-plain-scalar.h5", "w") as f:
    f["Q"] = np.uint32(7)
PY
ls -l "$out"

# Files the readers must refuse, or read without being misled by what surrounds Q
# (tests/data/bad, with their expected answers in expect.tsv).
bad="$(cd "$(dirname "$0")/.." && pwd)/tests/data/bad"
cd "$bad"
octave --no-gui --quiet --eval '
s.Q = [1 2 3 4]; Q = [2 4 1 3]; save("-text", "octave-struct-then-q.txt", "s", "Q");
clear s; s(2).Q = [1 2]; Q = [2 4 1 3]; save("-text", "octave-struct-array-then-q.txt", "s", "Q");
t = sprintf("# name: Q\n# type: matrix\n# rows: 1\n# columns: 4\n 1 2 3 4"); Q = [2 4 1 3]; save("-text", "octave-string-then-q.txt", "t", "Q");
clear s; s = struct(); s.inner.Q = [1 2 3]; s.c = {1, "a"}; Q = int32([2 4 1 3]); save("-text", "octave-nested-then-q.txt", "s", "Q");
Q = sprintf("# name: Q\n# type: matrix\n# rows: 1\n# columns: 4\n 2 4 1 3"); save("-text", "octave-string-with-header.txt", "Q");
Q = {[2 4 1 3]}; save("-text", "octave-cell-q.txt", "Q");
Q = logical([1 0 1 1]); save("-text", "octave-logical.txt", "Q"); save("-hdf5", "octave-logical.h5", "Q");
Q = zeros(1,0); save("-text", "octave-zeros-1x0.txt", "Q"); save("-hdf5", "octave-zeros-1x0.h5", "Q");
Q = []; save("-hdf5", "octave-empty.h5", "Q");
' 2>&1 | grep -v "ignoring const execution_exception" || true
python3 - <<'PY'
import numpy as np, scipy.io as sio, h5py, shutil, zlib
sio.savemat("mat-v5-1x0.mat", {"Q": np.zeros((1, 0))})
# Two variables named Q: saved as Q and R, then R renamed in place.
sio.savemat("mat-v5-two-q.mat", {"Q": np.array([[1., 2, 3, 4]]), "R": np.array([[2., 4, 1, 3]])})
b = bytearray(open("mat-v5-two-q.mat", "rb").read()); i = b.rfind(b"R\0\0\0"); b[i:i + 1] = b"Q"
open("mat-v5-two-q.mat", "wb").write(b)
def custom(name, base, data, shape, mem, ebias=None, offset=None, precision=None):
    t = base.copy()
    if ebias is not None: t.set_ebias(ebias)
    if offset is not None: t.set_offset(offset)
    if precision is not None: t.set_precision(precision)
    with h5py.File(name, "w") as f:
        ds = h5py.h5d.create(f.id, b"Q", t, h5py.h5s.create_simple(shape))
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(data, dtype=mem).reshape(shape))
custom("hdf5-float-ebias.h5", h5py.h5t.IEEE_F64LE, [1., 5, 8, 6, 3, 7, 2, 4], (8,), "<f8", ebias=1000)
custom("hdf5-uint-offset-col.h5", h5py.h5t.STD_U32LE, [1, 5, 8, 6, 3, 7, 2, 4], (8, 1), "<u4", offset=4, precision=16)
# A deflate+shuffle chunk that inflates to nothing (once a panic in the unshuffle).
src = "../mat/h5py-v73-double-col-chunked.mat"
shutil.copy(src, "v73-shuffle-empty-chunk.mat")
off = h5py.File(src)["Q"].id.get_chunk_info(0).byte_offset
b = bytearray(open("v73-shuffle-empty-chunk.mat", "rb").read()); e = zlib.compress(b"")
b[off:off + len(e)] = e; open("v73-shuffle-empty-chunk.mat", "wb").write(b)
PY

# Octave's other save formats and MAT v4, recognised by content whatever their name.
cd "$out"
octave --no-gui --quiet --eval '
Q = [2 4 1 3]; save("-binary", "octave-binary-double.mat", "Q");
Q = uint32([1 5 8 6 3 7 2 4]); n = 8; save("-binary", "octave-binary-uint32.mat", "n", "Q");
Q = int8([2;4;1;3]); save("-binary", "octave-binary-int8-column.mat", "Q");
Q = [2 4 1 3]; save("-zip", "octave-zip-text.mat", "Q");
Q = [2 4 1 3]; save("-zip", "-binary", "octave-zip-binary.mat", "Q");
Q = [2 4 1 3]; save("octave-default-text.mat", "Q");
Q = [2 4 1 3]; save("-v4", "octave-v4.mat", "Q");
s.a = 1; Q = [2 4 1 3]; save("-binary", "octave-binary-struct-first.mat", "s", "Q");
% A workspace whose board lies after a string, a cell and a struct (issue 44): a
% composition of n = 8 for complete.
Q = [1 5 8 0 0 7 2 0]; name = "hello"; c = {1, "x"; int8(3), {2, "y"}}; s.a = 1; s.b = "t";
save("-binary", "octave-binary-workspace.bin", "name", "c", "s", "Q");
' 2>&1 | grep -v "ignoring const execution_exception" || true
python3 - <<'PY'
import scipy.io as sio, numpy as np
sio.savemat("scipy-v4-double.mat", {"Q": np.array([[2., 4, 1, 3]])}, format="4")
sio.savemat("scipy-v4-column-int.mat", {"n": np.array([[4.]]), "Q": np.array([[2], [4], [1], [3]], dtype=np.int32)}, format="4")
PY
