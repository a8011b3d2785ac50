//! MATLAB v7.3 MAT files: HDF5 behind a 512-byte MAT header, read and written with the
//! pure-Rust `hdf5-pure` crate (no libhdf5). See `formats/mat.md`.
//!
//! MATLAB stores arrays column-major, so its 1xN row vector (the seed program's
//! `zeros(1,n,'uint32')`) is an HDF5 dataset of shape [N, 1] and its Nx1 column vector one
//! of shape [1, N]. The crate parses the file's structure and locates the data; the
//! elements themselves are read here from that storage (a contiguous run of bytes, or
//! chunks undone through their filters: deflate, shuffle, Fletcher-32), because the
//! crate's own reads decode each window into a fresh typed vector on one thread, and has
//! no windowed read along the second dimension. Here a window is inflated straight into
//! the caller's buffer, segments are decoded on every core by the verifier's pass, and
//! `double` values become rows in one vectorised loop: MATLAB's default `save -v7.3` of a
//! double vector verified 2.3x faster (BENCHMARKS.md, "The seed's route"). Either way any n
//! reads in bounded memory.

mod chunks;
mod patch;
mod read;
mod variables;
mod write;

pub(crate) use patch::Patched;
pub use read::Mat73File;
pub use write::Mat73Writer;
pub(crate) use write::write_mapped;

#[cfg(test)]
pub(super) mod tests;
