//! Every file format behind one interface: [`Input::open`] recognises a file by its
//! content (then its extension) and reads it by segments; [`RowWriter`] writes any output
//! format atomically.

pub mod csplib;
mod error;
mod input;
pub(crate) mod le;
pub(crate) mod mat4;
pub(crate) mod mat5;
pub(crate) mod mat73;
pub(crate) mod npy;
pub mod nqb;
pub(crate) mod octave;
pub(crate) mod octave_binary;
mod output;
mod source;
pub mod text;
mod writer;
mod zlib;

pub use error::{ErrorKind, FormatError};
pub use input::{EXCLUDED, Input, OpenOptions, SegmentCache, SegmentSum, read_all};
pub use nqb::{Encoding, Header, NqbFile, NqbWriter};
pub use output::{AtomicFile, OutputPath, STDIO, check_outputs, is_stdio};
pub(crate) use output::{Destination, Scratch, reserve};
pub use source::MmapChoice;
pub use writer::{OutputFormat, RowWriter};

/// The variable a reader of a workspace file reads, among the numeric vectors it found
/// (`vectors`, name and rows) and every variable's name (`names`): `var` when given, else
/// `Q`, else the only vector; otherwise why none, as a message.
fn choose_vector(
    vectors: Vec<(String, Vec<u32>)>,
    names: &[String],
    var: Option<&str>,
) -> Result<Vec<u32>, String> {
    let holds = || names.join(", ");
    let wanted = var.unwrap_or("Q");
    if let Some((_, rows)) = vectors.iter().find(|(n, _)| n == wanted) {
        return Ok(rows.clone());
    }
    if let Some(v) = var {
        return Err(format!(
            "no variable named {v}; the file holds: {}",
            holds()
        ));
    }
    match vectors.as_slice() {
        [(_, rows)] => Ok(rows.clone()),
        [] => Err(format!("no numeric vector; the file holds: {}", holds())),
        more => Err(format!(
            "{} numeric vectors, choose one with --var; the file holds: {}",
            more.len(),
            holds()
        )),
    }
}

/// Bytes as space-separated hexadecimal pairs, for messages about a file's first bytes.
fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
