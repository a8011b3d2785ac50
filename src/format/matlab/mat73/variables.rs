//! The variables of a v7.3 or plain HDF5 file (datasets at the root, Octave's `-hdf5`
//! groups), which of them may be the board, and the checks of the one chosen.

use super::chunks::product;
use crate::format::{clip, dims_text, quote, variables};
use hdf5_pure::DType;

/// The MATLAB class of a dataset, from its `MATLAB_class` attribute.
pub(super) fn class_of(ds: &hdf5_pure::Dataset) -> Option<String> {
    match ds.attrs().ok()?.remove("MATLAB_class")? {
        hdf5_pure::AttrValue::AsciiString(s) | hdf5_pure::AttrValue::String(s) => Some(s),
        _ => None,
    }
}

const NUMERIC: [&str; 10] = [
    "double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
];

/// Whether a dataset's elements are real numbers.
fn is_real(d: &DType) -> bool {
    matches!(
        d,
        DType::F32
            | DType::F64
            | DType::I8
            | DType::I16
            | DType::I32
            | DType::I64
            | DType::U8
            | DType::U16
            | DType::U32
            | DType::U64
    )
}

/// One line about a variable, for listings.
/// `octave`: Octave's type of the variable, for Octave's layout; plain HDF5 datasets are
/// named by their element type.
fn describe(name: &str, ds: &hdf5_pure::Dataset, octave: Option<&str>) -> String {
    let class = match (octave, class_of(ds)) {
        (Some(kind), _) => kind.to_string(),
        (None, Some(class)) => class,
        (None, None) => ds
            .dtype()
            .map_or_else(|_| "unknown type".into(), |t| t.to_string()),
    };
    let mut dims = ds.shape().unwrap_or_default();
    dims.reverse();
    format!("{} ({}, {})", clip(name), clip(&class), dims_text(&dims))
}

/// An HDF5 library error in the user's terms. HDF5 marks an object that is not in the
/// file (a soft or external link, read through a symbol table) with the undefined
/// address 2^64 - 1, which the library reports as offset arithmetic.
pub(super) fn hdf5_error(e: &dyn std::fmt::Display) -> String {
    let text = e.to_string();
    if text.contains(&u64::MAX.to_string()) {
        return "the file holds a link to another object (a soft or external link), which is not followed: save the array itself".into();
    }
    text
}

/// The variables of a v7.3 file: datasets at the root, and Octave's `save -hdf5` groups,
/// each a variable of its name with the values in its dataset `value`. The root group is
/// walked once and every variable kept with its dataset: hdf5-pure finds a name by
/// enumerating the group, so a lookup per variable made a file of 4,000 variables take
/// 20 s (and one of 20,000 more than 5 minutes).
pub(super) struct Variables {
    /// Every variable that holds values, in the file's order.
    pub(super) vars: Vec<Var>,
    /// Where each name is in `vars`.
    pub(super) index: std::collections::HashMap<String, usize>,
    /// Groups that are not Octave variables: MATLAB structs, cells, sparse or objects.
    pub(super) groups: Vec<String>,
}

/// A variable that holds values: a dataset, or an Octave group's `value`.
pub(super) struct Var {
    pub(super) name: String,
    pub(super) ds: hdf5_pure::Dataset,
    /// For an Octave group, Octave's name of its type (`matrix`, `bool matrix`, ...).
    pub(super) octave: Option<String>,
    /// For an Octave group, whether it is marked `OCTAVE_EMPTY_MATRIX` (its `value` then
    /// holds the dimensions, not elements).
    pub(super) empty: bool,
}

impl Var {
    /// Whether it may be chosen without a name: a real numeric vector (or an HDF5 scalar,
    /// refused once chosen) with elements. An empty array is never one: MATLAB's
    /// (`MATLAB_empty`) and Octave's (`OCTAVE_EMPTY_MATRIX`) datasets hold its dimensions.
    fn candidate(&self) -> bool {
        let numeric = match &self.octave {
            // Octave's type, not its storage: a `bool matrix` is stored as numbers.
            Some(kind) => !self.empty && crate::format::matlab::octave::is_numeric(kind),
            None => match self.ds.attrs() {
                Ok(attrs) if attrs.contains_key("MATLAB_empty") => false,
                Ok(attrs) => match attrs.get("MATLAB_class") {
                    Some(
                        hdf5_pure::AttrValue::AsciiString(c) | hdf5_pure::AttrValue::String(c),
                    ) => NUMERIC.contains(&c.as_str()),
                    Some(_) => false,
                    None => self.ds.dtype().is_ok_and(|t| is_real(&t)),
                },
                Err(_) => false,
            },
        };
        numeric
            && self.ds.shape().is_ok_and(|s| {
                s.len() <= 2 && s.iter().filter(|&&x| x != 1).count() <= 1 && !s.contains(&0)
            })
    }
}

impl Variables {
    pub(super) fn of(file: &hdf5_pure::File) -> Result<Variables, String> {
        let root = file.root();
        let mut vars: Vec<Var> = root
            .iter_datasets()
            .map_err(|e| hdf5_error(&e))?
            .map(|(name, ds)| Var {
                name,
                ds,
                octave: None,
                empty: false,
            })
            .collect();
        let mut groups = Vec::new();
        // A group's own lookup enumerates that group alone: two members for Octave's.
        for (name, group) in root.iter_groups().into_iter().flatten() {
            match group.dataset("value") {
                Ok(ds) => {
                    let kind = octave_type(&group).unwrap_or_default();
                    let empty = group
                        .attrs()
                        .is_ok_and(|a| a.contains_key("OCTAVE_EMPTY_MATRIX"));
                    vars.push(Var {
                        name,
                        ds,
                        octave: Some(kind),
                        empty,
                    })
                }
                Err(_) => groups.push(name),
            }
        }
        let index = vars
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), i))
            .collect();
        Ok(Variables {
            vars,
            index,
            groups,
        })
    }

    /// The variable `name`.
    pub(super) fn get(&self, name: &str) -> Option<&Var> {
        self.index.get(name).map(|&i| &self.vars[i])
    }

    /// The path of the dataset holding `name`'s values.
    pub(super) fn dataset_of(&self, name: &str) -> String {
        match self.get(name) {
            Some(Var {
                octave: Some(_), ..
            }) => format!("{name}/value"),
            _ => name.to_string(),
        }
    }

    /// Every variable with its class and size, for messages.
    fn listing(&self) -> String {
        crate::format::listing(
            self.vars
                .iter()
                .map(|v| describe(&v.name, &v.ds, v.octave.as_deref())),
        )
    }

    /// The variable to read ([`variables::choose`]): a real numeric vector with elements
    /// may be chosen without a name (never a logical array, an empty one, or another type
    /// Octave stores as numbers). A group (a struct, cell, sparse array or object), named
    /// or the file's `Q`, is refused, never passed over: the file's `Q` is what the user
    /// holds.
    pub(super) fn choose(
        &self,
        file: &hdf5_pure::File,
        var: Option<&str>,
    ) -> Result<String, String> {
        // Groups and datasets share the root's names: a group is never also a variable.
        let wanted = var.unwrap_or("Q");
        if self.groups.iter().any(|g| g == wanted) {
            return Err(format!(
                "variable {} is {}, expected a numeric vector",
                clip(wanted),
                group_kind(file, wanted)
            ));
        }
        let chosen = variables::choose(
            self.vars.len(),
            |n| self.index.get(n).copied(),
            |i| self.vars[i].candidate(),
            || self.listing(),
            var,
        )?;
        Ok(self.vars[chosen].name.clone())
    }
}

/// What the root group `name` is, by its MATLAB attributes: `a struct array (an HDF5
/// group)`, `a sparse double array (...)`, ...; `an HDF5 group` when it has no MATLAB
/// class.
fn group_kind(file: &hdf5_pure::File, name: &str) -> String {
    let attrs = file.group(name).and_then(|g| g.attrs()).unwrap_or_default();
    let class = match attrs.get("MATLAB_class") {
        Some(hdf5_pure::AttrValue::AsciiString(c) | hdf5_pure::AttrValue::String(c)) => clip(c),
        _ => return "an HDF5 group".into(),
    };
    let sparse = if attrs.contains_key("MATLAB_sparse") {
        "sparse "
    } else {
        ""
    };
    format!("a {sparse}{class} array (an HDF5 group)")
}

/// Octave's name of the type of the variable saved as `group` (`save -hdf5`): its
/// dataset `type`.
fn octave_type(group: &hdf5_pure::Group) -> Result<String, String> {
    let kind = group
        .dataset("type")
        .and_then(|d| d.read_string())
        .map_err(|e| e.to_string())?;
    Ok(kind
        .first()
        .map(|k| k.trim_end_matches('\0').to_string())
        .unwrap_or_default())
}

/// Checks that Octave's group `var` (`save -hdf5`) holds a numeric array with values: its
/// `type` dataset names the class (`bool matrix`, `string`, `cell` are refused by name),
/// and an empty matrix is marked by the attribute `OCTAVE_EMPTY_MATRIX`, its `value` then
/// holding the dimensions (`[]` is `[0 0]`), which must not be read as rows.
pub(super) fn octave_numeric(file: &hdf5_pure::File, name: &str) -> Result<(), String> {
    let var = clip(name);
    let group = file.group(name).map_err(|e| format!("{var}: {e}"))?;
    if group
        .attrs()
        .is_ok_and(|a| a.contains_key("OCTAVE_EMPTY_MATRIX"))
    {
        return Err(format!(
            "variable {var} is empty (Octave saved an empty matrix)"
        ));
    }
    let kind =
        octave_type(&group).map_err(|e| format!("{var}: Octave's type name is unreadable: {e}"))?;
    if !crate::format::matlab::octave::is_numeric(&kind) {
        return Err(format!(
            "variable {var} is of Octave type {}, expected a numeric vector (double, single or an integer class)",
            quote(&kind)
        ));
    }
    Ok(())
}

/// Refuses element types whose bits are not where the conversion reads them: HDF5 lets a
/// type declare a bit offset, a precision narrower than its size, or a float's own
/// exponent bias and field positions, which the readers of ordinary values ignore (a
/// float with another bias read as all zeros, an offset integer as other numbers).
fn standard_layout(t: &hdf5_pure::Datatype) -> Result<(), String> {
    use hdf5_pure::{Datatype, FloatingPointLayout};
    match t {
        Datatype::FixedPoint { size, layout, .. }
            if layout.bit_offset != 0 || u32::from(layout.bit_precision) != size * 8 =>
        {
            return Err(format!(
                "integers of {} bits at bit offset {} in {size} bytes",
                layout.bit_precision, layout.bit_offset
            ));
        }
        Datatype::FloatingPoint { size, layout, .. } => {
            let ieee = match size {
                4 => FloatingPointLayout::IEEE754_BINARY32,
                8 => FloatingPointLayout::IEEE754_BINARY64,
                _ => return Err(format!("floats of {size} bytes")),
            };
            if *layout != ieee {
                return Err(format!(
                    "floats of a non-IEEE layout (exponent bias {}, exponent {} bits at bit {}, mantissa {} bits at bit {}, bit offset {})",
                    layout.exponent_bias,
                    layout.exponent_size,
                    layout.exponent_location,
                    layout.mantissa_size,
                    layout.mantissa_location,
                    layout.bit_offset
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The element type, shape and length of `ds` when it is a non-empty real vector.
pub(super) fn numeric_vector(
    ds: &hdf5_pure::Dataset,
    var: &str,
) -> Result<(hdf5_pure::DType, Vec<u64>, u64), String> {
    // Plain HDF5 and Octave datasets carry no MATLAB class: their element type decides.
    let class = class_of(ds).unwrap_or_else(|| "double".into());
    if !NUMERIC.contains(&class.as_str()) {
        return Err(format!(
            "variable {var} is a {} array, expected a numeric vector",
            if class.is_empty() {
                "non-MATLAB".to_string()
            } else {
                clip(&class)
            }
        ));
    }
    if ds.attrs().is_ok_and(|a| a.contains_key("MATLAB_empty")) {
        // MATLAB's empty array: the dataset holds its dimensions, not elements.
        return Err(format!(
            "variable {var} is empty (MATLAB saved an empty array)"
        ));
    }
    let dtype = ds.dtype().map_err(|e| format!("{var}: {e}"))?;
    if let DType::Enum(names) = &dtype
        && names.len() == 2
        && names.iter().all(|n| n == "FALSE" || n == "TRUE")
    {
        return Err(format!(
            "variable {var} is a logical array (an enum of FALSE and TRUE, as h5py writes bool), expected a numeric vector"
        ));
    }
    if !is_real(&dtype) {
        return Err(format!(
            "variable {var} has element type {}, expected real numbers (integers or IEEE floats)",
            clip(&dtype.to_string())
        ));
    }
    standard_layout(&ds.datatype().map_err(|e| format!("{var}: {e}"))?).map_err(|why| {
        format!("variable {var} has {why}; only standard integers and IEEE floats are read")
    })?;
    let shape = ds.shape().map_err(|e| format!("{var}: {e}"))?;
    if shape.is_empty() {
        return Err(format!(
            "variable {var} is an HDF5 scalar, expected a 1xN or Nx1 vector"
        ));
    }
    // Checked: the dimensions of a hostile file may overflow a product.
    let n = product(&shape).unwrap_or(u64::MAX);
    if shape.iter().filter(|&&x| x != 1).count() > 1 || shape.len() > 2 {
        let dims: Vec<String> = shape.iter().rev().map(u64::to_string).collect();
        return Err(format!(
            "variable {var} is a {} matrix, expected a 1xN or Nx1 vector",
            dims.join("x")
        ));
    }
    if n == 0 {
        return Err(format!("variable {var} is empty"));
    }
    Ok((dtype, shape, n))
}
