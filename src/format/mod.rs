//! Every file format behind one interface: [`Input::open`] recognises a file by its
//! content (then its extension) and reads it by segments; [`RowWriter`] writes any output
//! format atomically.

pub mod csplib;
mod error;
pub mod fault;
mod index_base;
mod input;
pub(crate) mod le;
pub(crate) mod matlab;
pub(crate) mod npy;
mod npz;
pub mod nqb;
mod open;
mod output;
mod shown;
mod source;
pub mod text;
mod variables;
mod writer;

pub use error::{ErrorKind, FormatError};
pub use index_base::IndexBase;
pub use input::{EXCLUDED, Input, OpenOptions, SegmentCache, SegmentSum};
pub use matlab::{MatClass, MatLayout, MatSource, VarName};
pub use npy::{NpyLayout, NpyShape};
pub use nqb::{Encoding, Header, NqbFile, NqbWriter};
pub use open::{WRITER_WAIT, open_stream, read_bounded};
pub use output::{
    AtomicFile, OutputPath, STDIO, check_outputs, check_stdout, closed_descriptor, is_stdio,
    own_descriptor, reads_stdin, redirected_into, writes_stdout,
};
pub(crate) use output::{Destination, Scratch, open_files, raise_open_files, reserve};
pub use shown::escaped;
pub(crate) use shown::{clip, dims_text, hex, listing, quote};
pub use source::MmapChoice;
pub use writer::{OutputFormat, RowWriter};

#[cfg(test)]
mod tests;
