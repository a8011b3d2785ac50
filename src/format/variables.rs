//! Which variable of a workspace file holds the board: one choice and one set of messages
//! for every container that holds named variables (MAT v4, v5/v7 and v7.3, Octave's text,
//! binary and HDF5 files, plain HDF5, NumPy's `.npz`). Each reader keeps its own rule for
//! which of its variables may be chosen without a name (a real numeric vector with
//! elements, never a logical array, ...); the choosing and what is said when there is no
//! choice are here.

use super::{clip, listing};

/// The variable a reader of a workspace file reads, by its index among the file's `count`
/// variables (in the file's order; `find` gives the index of a name): `var` when given,
/// else `Q` (a workspace saved whole: the composition is conventionally `Q`), else the
/// only variable `candidate` accepts, else the only variable (so that what is wrong with it
/// is said). Otherwise why none, as a message ending with the file's variables (`holds`
/// lists them, [`names`] for a list of names alone):
///
/// - `no variable named X; the file holds: A, B`;
/// - `2 variables could be the board, name one with --var; the file holds: A, B`;
/// - `no variable could be the board; the file holds: A, B`
///
/// (`the file holds no variables` when it holds none). Only the chosen variable is then
/// checked by the reader: a bad variable beside it does not refuse the file.
pub(crate) fn choose(
    count: usize,
    find: impl Fn(&str) -> Option<usize>,
    candidate: impl Fn(usize) -> bool,
    holds: impl Fn() -> String,
    var: Option<&str>,
) -> Result<usize, String> {
    let holds = || {
        if count == 0 {
            "the file holds no variables".to_string()
        } else {
            format!("the file holds: {}", holds())
        }
    };
    if let Some(v) = var {
        return find(v).ok_or_else(|| format!("no variable named {}; {}", clip(v), holds()));
    }
    if let Some(q) = find("Q") {
        return Ok(q);
    }
    let mut candidates = (0..count).filter(|&i| candidate(i));
    match (candidates.next(), candidates.next()) {
        (Some(one), None) => Ok(one),
        (None, _) if count == 1 => Ok(0),
        (None, _) => Err(format!("no variable could be the board; {}", holds())),
        (Some(_), Some(_)) => Err(format!(
            "{} variables could be the board, name one with --var; {}",
            2 + candidates.count(),
            holds()
        )),
    }
}

/// The variables' names alone, for [`choose`]'s messages: the first few, then how many
/// more.
pub(crate) fn names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    listing(names.into_iter().map(clip))
}

/// Why a file that holds two variables of one name is refused: MATLAB, Octave and SciPy
/// keep the last of them, other readers the first; a reader that guesses reads another
/// board. `shown`: the name as messages show it.
pub(crate) fn twice(shown: &str) -> String {
    format!("two variables named {shown}: which one is meant is ambiguous")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// [`choose`] over `names`, the candidates those in `vectors`.
    fn chosen(names: &[&str], vectors: &[&str], var: Option<&str>) -> Result<usize, String> {
        let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        choose(
            names.len(),
            |n| index.get(n).copied(),
            |i| vectors.contains(&names[i]),
            || super::names(names.iter().copied()),
            var,
        )
    }

    #[test]
    fn the_named_then_q_then_the_only_candidate_then_the_only_variable() {
        assert_eq!(chosen(&["a", "b"], &["a", "b"], Some("b")), Ok(1));
        assert_eq!(chosen(&["a", "Q"], &["a"], None), Ok(1));
        assert_eq!(chosen(&["m", "v"], &["v"], None), Ok(1));
        assert_eq!(chosen(&["m"], &[], None), Ok(0));
    }

    #[test]
    fn one_set_of_messages() {
        assert_eq!(
            chosen(&["a", "b"], &["a"], Some("c")),
            Err("no variable named c; the file holds: a, b".into())
        );
        assert_eq!(
            chosen(&["a", "b", "c"], &["a", "b", "c"], None),
            Err(
                "3 variables could be the board, name one with --var; the file holds: a, b, c"
                    .into()
            )
        );
        assert_eq!(
            chosen(&["l", "m"], &[], None),
            Err("no variable could be the board; the file holds: l, m".into())
        );
        assert_eq!(
            chosen(&[], &[], None),
            Err("no variable could be the board; the file holds no variables".into())
        );
        assert_eq!(
            chosen(&[], &[], Some("Q")),
            Err("no variable named Q; the file holds no variables".into())
        );
    }
}
