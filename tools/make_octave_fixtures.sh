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
