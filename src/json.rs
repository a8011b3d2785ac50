//! The JSON contract: one typed record per kind of object the command line prints with
//! `--json` (or writes, for certificates), each starting with the schema and program
//! versions. The JSON Schemas in `formats/schemas/` are generated from these types and a
//! test keeps them current (see `formats/json.md`).
//!
//! Numbers that may pass 2^53 (seeds, counts) are decimal strings, so that readers that
//! hold numbers as doubles (jq, JavaScript) do not round them.

use crate::complete::{Certificate, Stats};
use crate::count::{Kind, Piece};
use crate::verify::Report;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version of the records' shapes: raised when a field is removed or changes meaning
/// (new fields may appear without it).
pub const SCHEMA_VERSION: u32 = 1;

/// The fields every record starts with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Versions {
    /// The schema version of the program that wrote the record (0 in records older than
    /// the field).
    #[serde(default)]
    pub schema_version: u32,
    /// The version of nqueens that wrote it (`unknown` in records older than the field).
    #[serde(default = "unknown")]
    pub nqueens_version: String,
}

impl Default for Versions {
    fn default() -> Versions {
        Versions::current()
    }
}

fn unknown() -> String {
    "unknown".into()
}

impl Versions {
    /// This program's versions.
    pub fn current() -> Versions {
        Versions {
            schema_version: SCHEMA_VERSION,
            nqueens_version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// `u64` as a decimal string, for serde's `with`.
pub mod decimal {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the number as a string.
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    /// Reads a string of decimal digits (or, from older records, a number).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Text(String),
            Number(u64),
        }
        match Either::deserialize(d)? {
            Either::Number(v) => Ok(v),
            Either::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// What `verify` found about one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerifyStatus {
    /// A full solution.
    Solution,
    /// A valid composition with empty rows.
    Composition,
    /// A valid composition where a solution was required.
    Incomplete,
    /// Conflicts, values off the board, or base queens not kept.
    Invalid,
    /// The file could not be read (see `error`).
    Error,
}

/// `verify --json`: one per file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VerifyRecord {
    /// Versions of the contract and the program.
    #[serde(flatten)]
    pub versions: Versions,
    /// The file as given.
    pub file: String,
    /// The outcome.
    pub status: VerifyStatus,
    /// The verifier's report (absent when the file could not be read).
    #[serde(flatten)]
    pub report: Option<Report>,
    /// Why the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `info --json`: one per file.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct InfoRecord {
    /// Versions of the contract and the program.
    #[serde(flatten)]
    pub versions: Versions,
    /// The file as given.
    pub file: String,
    /// Format and encoding, e.g. `NQB raw`, `MAT v7.3`, `text`.
    pub format: String,
    /// Board size.
    pub n: u64,
    /// Bytes on disk.
    pub file_size: u64,
    /// Bytes of the rows as 32-bit integers (4 n).
    pub payload_bytes: u64,
    /// NQB format version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// For a variable of a MATLAB or Octave file: name, dimensions and class, e.g.
    /// `Q, 1x8 double` (what a MAT answer copies by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// Queens: as counted when the payload could be read, else as the header says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<u64>,
    /// The NQB header's payload checksum, hexadecimal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// NQB payload encoding (`raw` or `zstd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// Rows per zstd frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_rows: Option<u64>,
    /// zstd frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<u64>,
    /// `ok` (checksum and queen count match the header), `none` (no checksum in this
    /// format) or `error: ...`.
    pub checksum_status: String,
    /// Whether the rows are a valid composition (absent when they could not be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
}

/// How a completion ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompleteAnswer {
    /// Every row has a queen; the solution was verified and written.
    Solved,
    /// No completion exists; `certificate` says why.
    Infeasible,
    /// The budget ran out first; `reason` says which.
    Unknown,
}

/// `complete --json`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompleteRecord {
    /// Versions of the contract and the program.
    #[serde(flatten)]
    pub versions: Versions,
    /// The input as given.
    pub input: String,
    /// The answer.
    pub answer: CompleteAnswer,
    /// The seed of every random choice (give it to `--seed` to repeat the run).
    #[serde(with = "decimal")]
    #[schemars(with = "DecimalString")]
    pub seed: u64,
    /// Wall seconds of the whole command.
    pub seconds: f64,
    /// Wall seconds spent checking and writing the output.
    pub seconds_output: f64,
    /// Peak resident memory of the process, when the system tells.
    pub peak_rss_bytes: Option<u64>,
    /// What the engine did.
    pub stats: Stats,
    /// With `infeasible`: the proof.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<Certificate>,
    /// With `infeasible`: the proof in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// With `unknown`: which budget ran out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With `solved`: the output file as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// With `solved` and a deflated MAT v7.3 input: the output is that file with this many
    /// chunks (those that held free rows) replaced, its other variables kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patched_chunks: Option<u64>,
}

/// The residual CNF written beside a certificate.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CnfRecord {
    /// The CNF file.
    pub file: String,
    /// Free rows of the input.
    pub free_rows: u64,
    /// Free cells (one variable each).
    pub cells: u64,
    /// Variables in all.
    pub variables: u64,
    /// Clauses.
    pub clauses: u64,
    /// What the CNF means.
    pub meaning: String,
}

/// The document `complete --certificate FILE` writes.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CertificateRecord {
    /// Versions of the contract and the program.
    #[serde(flatten)]
    pub versions: Versions,
    /// The input as given.
    pub input: String,
    /// Board size.
    pub n: u64,
    /// Free rows of the input.
    pub free_rows: u64,
    /// The proof.
    pub certificate: Certificate,
    /// The proof in words.
    pub explanation: String,
    /// The input's residual as DIMACS CNF, for a SAT solver to confirm.
    pub cnf: CnfRecord,
}

/// A square, 1-based [row, column].
pub type Square = [u32; 2];

/// `count --json`: one per board size; `count merge` reads and writes the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CountRecord {
    /// Versions of the contract and the program.
    #[serde(flatten)]
    pub versions: Versions,
    /// Board size and number of pieces.
    pub n: u32,
    /// The piece.
    pub piece: Piece,
    /// Its moves.
    pub kind: Kind,
    /// Preplaced pieces.
    pub placed: Vec<Square>,
    /// [I, S]: part I of S (`[0, 1]`: the whole count).
    pub shard: [u64; 2],
    /// Placements, each set of squares once (decimal; may exceed 2^64).
    pub placements: String,
    /// With `--distinct`: placements distinct up to the 8 symmetries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct: Option<String>,
    /// With `--orders`: placements times (n - preplaced)!.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orders: Option<String>,
    /// The engine that counted (shards of different engines do not add up).
    pub engine: String,
    /// Work items of the whole count (the shards split these).
    pub items: u64,
    /// Wall seconds of this part.
    pub seconds: f64,
    /// Two preplaced pieces that attack each other (all counts 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<[Square; 2]>,
    /// With `--checkpoint`: work items taken from the checkpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_items: Option<u64>,
    /// XXH3-64 (hex) of the record's other fields as nqueens prints them: `count merge`
    /// refuses a record whose content no longer matches (an edited count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl CountRecord {
    /// The digest of every other field, in the record's own serialization (so that the
    /// order or spacing of the fields in a file does not matter).
    fn content_digest(&self) -> String {
        let bare = CountRecord {
            digest: None,
            ..self.clone()
        };
        let text = serde_json::to_string(&bare).expect("records serialize");
        format!("{:016x}", twox_hash::XxHash3_64::oneshot(text.as_bytes()))
    }

    /// The record with its digest set, ready to print.
    pub fn sealed(self) -> CountRecord {
        let digest = Some(self.content_digest());
        CountRecord { digest, ..self }
    }

    /// Whether the record carries a digest that matches its content.
    pub fn digest_matches(&self) -> bool {
        self.digest.as_deref() == Some(self.content_digest().as_str())
    }
}

/// `count --first --json`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FirstRecord {
    /// Versions of the contract and the program.
    #[serde(flatten)]
    pub versions: Versions,
    /// Board size.
    pub n: u64,
    /// The piece.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub piece: Option<Piece>,
    /// Its moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    /// The placement found, or null.
    pub first: Option<Vec<Square>>,
    /// Why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A string of decimal digits (a number that may pass 2^53).
#[derive(JsonSchema)]
#[schemars(transparent)]
#[allow(dead_code)]
struct DecimalString(#[schemars(regex(pattern = r"^[0-9]+$"))] String);

/// The schema of every record, by the file name it is committed under in
/// `formats/schemas/`.
pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    // The shapes as written: a field with a default for reading older records is still
    // always present.
    fn written<T: JsonSchema>() -> schemars::Schema {
        schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
    }
    vec![
        ("verify.schema.json", written::<VerifyRecord>()),
        ("info.schema.json", written::<InfoRecord>()),
        ("complete.schema.json", written::<CompleteRecord>()),
        ("certificate.schema.json", written::<CertificateRecord>()),
        ("count.schema.json", written::<CountRecord>()),
        ("count-first.schema.json", written::<FirstRecord>()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed schemas are those the types give; `NQUEENS_BLESS=1 cargo test
    /// schemas_are_current` rewrites them after a deliberate change.
    #[test]
    fn schemas_are_current() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("formats/schemas");
        let bless = std::env::var_os("NQUEENS_BLESS").is_some();
        for (name, schema) in schemas() {
            let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
            let path = dir.join(name);
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &text).unwrap();
            }
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == text,
                "formats/schemas/{name} is stale: run NQUEENS_BLESS=1 cargo test schemas_are_current"
            );
        }
    }

    #[test]
    fn seeds_are_strings_and_read_back_from_either_form() {
        #[derive(Serialize, Deserialize)]
        struct S(#[serde(with = "decimal")] u64);
        let v = serde_json::to_string(&S(11065078150936984365)).unwrap();
        assert_eq!(v, "\"11065078150936984365\"");
        assert_eq!(
            serde_json::from_str::<S>(&v).unwrap().0,
            11065078150936984365
        );
        assert_eq!(serde_json::from_str::<S>("42").unwrap().0, 42);
        assert!(serde_json::from_str::<S>("\"4x\"").is_err());
    }
}
