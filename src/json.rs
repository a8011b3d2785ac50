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
    /// With `infeasible` and `--certificate`: the certificate's document as given (its CNF
    /// and proof beside it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate_file: Option<String>,
    /// With it: the proof beside the document, as the document records it (or why there
    /// is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofRecord>,
    /// With `solved` and at most 10,000 rows: the solution, the 1-based column of each row
    /// from row 1 (also when it went to a file with `-o`), so that a caller needs no
    /// second file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solution: Option<Vec<u32>>,
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
    /// The SHA-256 of the file's bytes (lowercase hex): a checker refuses a CNF of other
    /// bytes, such as one a later run over another board wrote in its place.
    pub sha256: String,
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
    /// A DRAT or LRAT proof that the CNF is unsatisfiable, for a proof checker to verify.
    pub proof: ProofRecord,
}

/// The proof beside a certificate (`formats/certificate.md`), or why there is none.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProofRecord {
    /// The proof file, when one was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its format: `drat`, `lrat` (text) or `lrat-binary`, as `complete --proof` chose.
    pub format: String,
    /// Clauses the proof adds, the last of them the empty clause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lemmas: Option<u64>,
    /// Clauses the proof deletes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    /// A proof split into parts (cube and conquer): `file` is then its top, checked
    /// against the CNF with one clause per part after the CNF's, "not all of the part's
    /// cube"; each part is checked against the CNF with its cube's variables as unit
    /// clauses after the CNF's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<ProofPart>>,
    /// One shard of the proof's pieces (`complete --proof-shard I/S`): only the files
    /// `shard.written` names were written by this run, and `lemmas` and `deletions` are
    /// theirs; the proof is checked when every shard's pieces are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ProofShardRecord>,
    /// Why no proof was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// What the proof means.
    pub meaning: String,
}

/// Which pieces of a proof one run wrote (`complete --proof-shard I/S`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProofShardRecord {
    /// This shard, from 0: it holds piece 0 (`file`) when `index` is 0, and part k when
    /// k % `of` is `index`.
    pub index: usize,
    /// Shards in all.
    pub of: usize,
    /// The pieces of the proof in all: 1 for a proof whole, 1 + the parts for one split.
    pub pieces: usize,
    /// The files this run wrote, `file` first if it is this shard's, then its parts in
    /// order.
    pub written: Vec<String>,
}

/// One part of a split proof.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProofPart {
    /// The part's proof file.
    pub file: String,
    /// Its cube: CNF variables (cells), each true in the part, in the order the search
    /// placed them.
    pub cube: Vec<u32>,
}

/// A square, 1-based [row, column].
pub type Square = [u32; 2];

/// The plan a shard was counted from (`count --plan-file`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanRef {
    /// The plan's digest (its `digest` field): shards of one plan share it.
    pub digest: String,
    /// The plan file as the command line named it, for the command that reruns a shard.
    pub file: String,
}

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
    /// With `--gpu`: work items the GPU counted (0: none, the GPU not found or not used;
    /// the others were counted on the CPU). Merged: the parts' added up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_items: Option<u64>,
    /// With `--plan-file`: the plan whose shard this is (shards of one plan add up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanRef>,
    /// XXH3-64 (hex) of the record's integers and strings (every field but `seconds` and
    /// this one): `count merge` refuses a record whose content no longer matches (an edited
    /// or damaged count). See formats/count-checkpoint.md for what it proves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl CountRecord {
    /// The digest of the record's canonical form: its fields as JSON with the keys sorted,
    /// less `digest` and `seconds`. Only integers and strings are covered, because they
    /// read back exactly as written; a float printed, parsed and printed again may come
    /// back other digits (`2.7050133880000002` did, refusing a real shard), and how a
    /// float is printed is the JSON library's choice, not the record's.
    fn content_digest(&self) -> String {
        let mut fields = serde_json::to_value(self).expect("records serialize");
        if let Some(map) = fields.as_object_mut() {
            map.remove("digest");
            map.remove("seconds");
        }
        digest_of(&fields.to_string())
    }

    /// The digest records carried before `seconds` was left out: the whole record as
    /// nqueens printed it. Still accepted, so that shards counted by an earlier nqueens
    /// merge; the float parse is exact (serde_json's `float_roundtrip`), so the printed
    /// form comes back as written.
    fn legacy_digest(&self) -> String {
        let bare = CountRecord {
            digest: None,
            ..self.clone()
        };
        digest_of(&serde_json::to_string(&bare).expect("records serialize"))
    }

    /// The record with its digest set, ready to print.
    pub fn sealed(self) -> CountRecord {
        let digest = Some(self.content_digest());
        CountRecord { digest, ..self }
    }

    /// Whether the record carries a digest that matches its content.
    pub fn digest_matches(&self) -> bool {
        self.digest
            .as_deref()
            .is_some_and(|d| d == self.content_digest() || d == self.legacy_digest())
    }
}

fn digest_of(text: &str) -> String {
    format!("{:016x}", twox_hash::XxHash3_64::oneshot(text.as_bytes()))
}

/// `count N --estimate --json`: the cost of a count, projected from a sample of its work
/// items before it runs.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EstimateRecord {
    /// Versions of the contract and the program.
    #[serde(flatten)]
    pub versions: Versions,
    /// Board size.
    pub n: u32,
    /// [I, S]: the shard estimated.
    pub shard: [u64; 2],
    /// The engine whose work items were sampled.
    pub engine: String,
    /// Seed of the sample (decimal).
    #[serde(with = "decimal")]
    #[schemars(with = "DecimalString")]
    pub seed: u64,
    /// The projection.
    #[serde(flatten)]
    pub estimate: crate::count::estimate::Estimate,
    /// Threads of this machine the wall time is given for.
    pub threads: u64,
    /// Projected wall seconds on `threads` threads.
    pub wall_seconds: f64,
    /// Peak resident memory of this process while sampling (bytes): what each process of
    /// the count needs, about.
    pub peak_memory_bytes: Option<u64>,
    /// With `--shard-hours H`: H, and the shards that make each take at most H hours on
    /// `threads` threads (by the upper end of the range).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard_hours: Option<f64>,
    /// The suggested `--shard I/S`'s S.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<u64>,
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
        ("count-estimate.schema.json", written::<EstimateRecord>()),
        (
            "count-plan.schema.json",
            written::<crate::count::plan::Plan>(),
        ),
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

    fn count_record(seconds: f64) -> CountRecord {
        CountRecord {
            versions: Versions::current(),
            n: 19,
            piece: Piece::Queen,
            kind: Kind::Regular,
            placed: vec![],
            shard: [5, 6],
            placements: "826320268".into(),
            distinct: None,
            orders: None,
            engine: "half-boards".into(),
            items: 15042,
            seconds,
            conflict: None,
            resumed_items: None,
            gpu_items: None,
            plan: None,
            digest: None,
        }
        .sealed()
    }

    /// The shard a user's cluster count was refused on: its seconds printed as 17 digits
    /// that an inexact parse gave back otherwise.
    #[test]
    fn a_record_with_a_seventeen_digit_float_reads_back_sealed() {
        let text = serde_json::to_string(&count_record(2.7050133880000002)).unwrap();
        assert!(text.contains("\"seconds\":2.7050133880000002"), "{text}");
        let back: CountRecord = serde_json::from_str(&text).unwrap();
        assert!(back.digest_matches(), "{text}");
        // The seconds are not what the digest vouches for: a reader that prints them
        // with fewer digits (or another float printer) keeps the record whole.
        let rounded = text.replace("2.7050133880000002", "2.705013388");
        let back: CountRecord = serde_json::from_str(&rounded).unwrap();
        assert!(back.digest_matches(), "{rounded}");
        // The counts are.
        let edited = text.replace("826320268", "826320269");
        let back: CountRecord = serde_json::from_str(&edited).unwrap();
        assert!(!back.digest_matches(), "{edited}");
    }

    /// A record sealed the earlier way (a digest of the whole printed record, seconds
    /// included), as shards on disk from before hold.
    #[test]
    fn a_record_sealed_with_the_legacy_digest_is_accepted() {
        let mut r = count_record(2.7050133880000002);
        r.digest = Some(r.legacy_digest());
        let text = serde_json::to_string(&r).unwrap();
        let back: CountRecord = serde_json::from_str(&text).unwrap();
        assert!(back.digest_matches(), "{text}");
        let edited = text.replace("\"items\":15042", "\"items\":15043");
        assert!(
            !serde_json::from_str::<CountRecord>(&edited)
                .unwrap()
                .digest_matches()
        );
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Whatever a record holds, what nqueens prints is accepted as printed.
        #[test]
        fn every_printed_count_record_reads_back_sealed(
            bits in any::<u64>(),
            n in 1u32..64,
            shard in (1u64..1 << 40).prop_flat_map(|s| (0..s, Just(s))),
            placements in "[1-9][0-9]{0,40}",
            engine in "\\PC{0,12}",
            items in any::<u64>(),
            placed in proptest::collection::vec((1u32..64, 1u32..64), 0..4),
            distinct in proptest::option::of("[0-9]{1,30}"),
            resumed in proptest::option::of(any::<u64>()),
            gpu in proptest::option::of(any::<u64>()),
        ) {
            let seconds = f64::from_bits(bits);
            prop_assume!(seconds.is_finite());
            let mut r = count_record(seconds.abs());
            r.n = n;
            r.shard = [shard.0, shard.1];
            r.placements = placements;
            r.engine = engine;
            r.items = items;
            r.placed = placed.into_iter().map(|(a, b)| [a, b]).collect();
            r.distinct = distinct;
            r.resumed_items = resumed;
            r.gpu_items = gpu;
            let r = r.sealed();
            let text = serde_json::to_string(&r).unwrap();
            let back: CountRecord = serde_json::from_str(&text).unwrap();
            prop_assert!(back.digest_matches(), "{}", text);
            prop_assert_eq!(back, r);
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
