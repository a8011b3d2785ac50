//! Publishing answers as files other programs read: the document of a certificate of
//! infeasibility with its CNF, and the whole of a count from its shards. The top layer of
//! the library: it joins the engines' results with the JSON records and the file formats.

mod certificate;
pub mod merge;

pub use certificate::{Published, certificate};
