//! The variable of a workspace file (MAT, Octave, HDF5, `.npz`) that holds the board.

use super::{clip, listing};

/// The variable a reader of a workspace file reads, by its index in `names` (every
/// variable's name, in the file's order, none twice; `index` maps each to its place):
/// `var` when given, else `Q`, else the only variable `candidate` says is a real numeric
/// vector with elements, else the only variable (so that what is wrong with it is said);
/// otherwise why none, as a message. Only the chosen variable is then checked: a bad
/// variable beside it does not refuse the file.
pub(crate) fn choose_variable(
    names: &[String],
    index: &std::collections::HashMap<String, usize>,
    var: Option<&str>,
    candidate: impl Fn(usize) -> bool,
) -> Result<usize, String> {
    let holds = || listing(names.iter().map(|n| clip(n)));
    if let Some(v) = var {
        return index
            .get(v)
            .copied()
            .ok_or_else(|| format!("no variable named {}; the file holds: {}", clip(v), holds()));
    }
    // A workspace saved whole: the composition is conventionally `Q`.
    if let Some(&q) = index.get("Q") {
        return Ok(q);
    }
    let mut vectors = (0..names.len()).filter(|&i| candidate(i));
    match (vectors.next(), vectors.next()) {
        (Some(one), None) => Ok(one),
        (None, _) if names.len() == 1 => Ok(0),
        (None, _) => Err(format!("no numeric vector; the file holds: {}", holds())),
        (Some(_), Some(_)) => Err(format!(
            "{} numeric vectors, choose one with --var; the file holds: {}",
            2 + vectors.count(),
            holds()
        )),
    }
}
