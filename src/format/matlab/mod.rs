//! MATLAB's and Octave's workspace files, read and written (see `formats/mat.md` and
//! `formats/octave.md`):
//!
//! - `mat4`: MAT Level 4 (`save -v4`), read;
//! - `mat5`: MAT Level 5 (`-v6`, `-v7`), read window by window and written, with `zlib` the
//!   deflate of its compressed variables;
//! - `mat73`: MAT v7.3 and plain HDF5 (h5py, Octave's `-hdf5`), read and written, with
//!   `hdf5_v1` and `hdf5_latest` the parts of the HDF5 structures that `hdf5-pure` does not
//!   expose;
//! - `octave`, `octave_binary`: Octave's text and binary formats, read;
//! - `mat_layout`: an answer's variable name, class and orientation, taken from the input.

mod hdf5_latest;
mod hdf5_v1;
pub(crate) mod mat4;
pub(crate) mod mat5;
pub(crate) mod mat73;
mod mat_layout;
pub(crate) mod octave;
pub(crate) mod octave_binary;
mod zlib;

pub use mat_layout::{MatClass, MatLayout, MatSource, VarName};
