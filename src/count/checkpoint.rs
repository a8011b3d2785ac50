//! The saved state of a long count (`count N --checkpoint FILE`): which work items are
//! counted and what they add up to, so that a stopped count resumes where it stopped.
//!
//! The file is one JSON object (format in `formats/count-checkpoint.md`), written
//! atomically, sealed with an XXH3-64 checksum of everything before it, and tied to the
//! question it answers (board, piece, kind, shard, engine and its version, number of
//! items): a checkpoint of any other count is refused, never silently restarted.

use super::{Method, Problem, Shard};
use std::path::Path;

/// The `format` field of every checkpoint.
pub const FORMAT: &str = "nqueens-count-checkpoint";
/// The layout version written and read.
pub const VERSION: u32 = 1;

/// The question a checkpoint answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// Board size.
    pub n: u32,
    /// Piece, as `count --piece` spells it.
    pub piece: String,
    /// Kind, as `count --kind` spells it.
    pub kind: String,
    /// The shard counted.
    pub shard: Shard,
    /// The engine whose work items are listed.
    pub engine: Method,
    /// The engine's version: its items and their order are fixed within one version.
    pub engine_version: u32,
    /// Work items of the whole count.
    pub items: usize,
    /// With a plan (`count --plan-file`): its digest, which names the shard's items.
    pub plan: Option<String>,
}

impl Key {
    /// The key of `problem` counted by `engine` (version `engine_version`) in `items` items.
    pub fn new(
        problem: &Problem,
        shard: Shard,
        engine: Method,
        engine_version: u32,
        items: usize,
    ) -> Key {
        let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_string();
        Key {
            n: problem.n,
            piece: name(serde_json::to_value(problem.rules.piece).unwrap_or_default()),
            kind: name(serde_json::to_value(problem.rules.kind).unwrap_or_default()),
            shard,
            engine,
            engine_version,
            items,
            plan: None,
        }
    }
}

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is not a checkpoint, or is damaged.
    #[error("not a valid checkpoint: {0}")]
    Corrupt(String),
    /// The file is a checkpoint of another count.
    #[error("a checkpoint of another count ({0}); remove it or name another file")]
    Mismatch(String),
}

/// Work items counted so far and their sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The count this belongs to.
    pub key: Key,
    /// One bit per work item: counted.
    done: Vec<u64>,
    /// Items counted.
    counted: usize,
    /// The sum of the counted items' values.
    pub sum: u128,
}

impl Checkpoint {
    /// Nothing counted yet.
    pub fn new(key: Key) -> Checkpoint {
        let words = key.items.div_ceil(64);
        Checkpoint {
            key,
            done: vec![0; words],
            counted: 0,
            sum: 0,
        }
    }

    /// Whether item `i` is counted.
    pub fn is_done(&self, i: usize) -> bool {
        self.done[i / 64] >> (i % 64) & 1 == 1
    }

    /// Records item `i` as counted, with its value.
    pub fn record(&mut self, i: usize, value: u64) {
        if !self.is_done(i) {
            self.done[i / 64] |= 1 << (i % 64);
            self.counted += 1;
            self.sum += value as u128;
        }
    }

    /// Items counted.
    pub fn counted(&self) -> usize {
        self.counted
    }

    /// Writes the checkpoint to `path` atomically (a temporary file beside it, renamed).
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        // The caller names the file: keep only what is wrong with it.
        let bare = |e: crate::format::FormatError| std::io::Error::other(e.problem.to_string());
        let mut file = crate::format::AtomicFile::create(path).map_err(bare)?;
        std::io::Write::write_all(&mut file, self.to_text().as_bytes())?;
        file.commit().map_err(bare)?;
        Ok(())
    }

    /// Reads the checkpoint at `path` for the count `key`: `None` when there is no file.
    /// The file must be a regular file (a checkpoint is replaced by renaming a new one
    /// over it) and is read only up to the size a checkpoint of `key` can have.
    pub fn load(path: &Path, key: &Key) -> Result<Option<Checkpoint>, CheckpointError> {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
            Ok(m) if !m.is_file() => {
                return Err(CheckpointError::Corrupt(
                    "not a regular file: a checkpoint is a file that each save replaces".into(),
                ));
            }
            Ok(_) => {}
        }
        let text =
            crate::format::read_bounded(path, Self::max_bytes(key), "a checkpoint of this count")
                .map_err(|e| CheckpointError::Corrupt(e.problem.to_string()))?;
        let text = String::from_utf8(text).map_err(|e| {
            CheckpointError::Corrupt(format!(
                "not UTF-8 at byte {}",
                e.utf8_error().valid_up_to()
            ))
        })?;
        Checkpoint::from_text(&text, key).map(Some)
    }

    /// The most bytes a checkpoint of `key`'s board takes: its fields, and 16 hexadecimal
    /// digits per 64 items, of this count or of the other engine's count of the board
    /// (well under 2^24 items at n <= 31), so that a checkpoint of the other engine is read
    /// and named as such rather than refused as too long.
    fn max_bytes(key: &Key) -> u64 {
        4096 + 16 * key.items.max(1 << 24).div_ceil(64) as u64
    }

    /// Refuses a sum that the items marked done cannot add up to: more than the whole
    /// count, where the whole count is known, or, with every item of the whole count done,
    /// anything but it. The digest catches damage, not an edit sealed with a new digest;
    /// this catches such an edit where a known total allows.
    pub fn check_plausible(&self) -> Result<(), CheckpointError> {
        let Some(whole) = super::known_total(self.key.n) else {
            return Ok(());
        };
        let all_done = self.key.shard.of == 1 && self.counted == self.key.items;
        if self.sum > whole || (all_done && self.sum != whole) {
            return Err(CheckpointError::Corrupt(format!(
                "its sum {} over {} of {} items cannot be: the whole count of n = {} is {whole}; the file was edited",
                self.sum, self.counted, self.key.items, self.key.n
            )));
        }
        Ok(())
    }

    fn body(&self) -> String {
        let k = &self.key;
        let done: String = self.done.iter().map(|w| format!("{w:016x}")).collect();
        let fields = serde_json::json!({
            "format": FORMAT,
            "version": VERSION,
            "n": k.n,
            "piece": k.piece,
            "kind": k.kind,
            "shard": [k.shard.index, k.shard.of],
            "engine": k.engine,
            "engine_version": k.engine_version,
            "items": k.items,
            "plan": k.plan,
            "counted": self.counted,
            "sum": self.sum.to_string(),
            "done": done,
        });
        // serde_json keeps keys sorted, so the text (and its checksum) is canonical.
        let text = fields.to_string();
        text[..text.len() - 1].to_string()
    }

    fn to_text(&self) -> String {
        let body = self.body();
        let sum = twox_hash::XxHash3_64::oneshot(body.as_bytes());
        format!("{body},\"xxh3\":\"{sum:016x}\"}}\n")
    }

    fn from_text(text: &str, key: &Key) -> Result<Checkpoint, CheckpointError> {
        let bad = |why: &str| CheckpointError::Corrupt(why.to_string());
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| CheckpointError::Corrupt(format!("{e}")))?;
        let o = v.as_object().ok_or_else(|| bad("not a JSON object"))?;
        let field = |name: &str| {
            o.get(name)
                .ok_or_else(|| bad(&format!("no field {name:?}")))
        };
        let uint = |name: &str| {
            field(name)?
                .as_u64()
                .ok_or_else(|| bad(&format!("{name:?} is not a whole number")))
        };
        let string = |name: &str| {
            field(name)?
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("{name:?} is not a string")))
        };
        if string("format")? != FORMAT {
            return Err(bad("its format field is not nqueens-count-checkpoint"));
        }
        let version = uint("version")?;
        if version != VERSION as u64 {
            return Err(CheckpointError::Mismatch(format!(
                "layout version {version}, this program reads {VERSION}"
            )));
        }
        let shard = field("shard")?
            .as_array()
            .filter(|a| a.len() == 2)
            .and_then(|a| Some((a[0].as_u64()?, a[1].as_u64()?)))
            .and_then(|(i, s)| Shard::new(u32::try_from(i).ok()?, u32::try_from(s).ok()?).ok())
            .ok_or_else(|| bad("\"shard\" is not a valid [I, S]"))?;
        let engine: Method =
            serde_json::from_value(field("engine")?.clone()).map_err(|_| bad("unknown engine"))?;
        let found = Key {
            n: u32::try_from(uint("n")?).map_err(|_| bad("n out of range"))?,
            piece: string("piece")?,
            kind: string("kind")?,
            shard,
            engine,
            engine_version: u32::try_from(uint("engine_version")?)
                .map_err(|_| bad("engine_version out of range"))?,
            items: usize::try_from(uint("items")?).map_err(|_| bad("items out of range"))?,
            plan: match o.get("plan") {
                None | Some(serde_json::Value::Null) => None,
                Some(serde_json::Value::String(d)) => Some(d.clone()),
                Some(_) => return Err(bad("\"plan\" is not a digest")),
            },
        };
        let expected = string("xxh3")?;
        let body_end = text
            .rfind(",\"xxh3\":")
            .ok_or_else(|| bad("no checksum at the end"))?;
        let actual = format!(
            "{:016x}",
            twox_hash::XxHash3_64::oneshot(&text.as_bytes()[..body_end])
        );
        if actual != expected {
            return Err(CheckpointError::Corrupt(format!(
                "checksum {expected} recorded, {actual} computed: the file was changed or damaged"
            )));
        }
        if found != *key {
            return Err(CheckpointError::Mismatch(describe_difference(&found, key)));
        }
        let done_hex = string("done")?;
        let words = key.items.div_ceil(64);
        if done_hex.len() != words * 16 || !done_hex.is_ascii() {
            return Err(bad("\"done\" does not have one bit per item"));
        }
        let done: Vec<u64> = (0..words)
            .map(|w| u64::from_str_radix(&done_hex[16 * w..16 * w + 16], 16))
            .collect::<Result<_, _>>()
            .map_err(|_| bad("\"done\" is not hexadecimal"))?;
        if !key.items.is_multiple_of(64) && done.last().is_some_and(|&w| w >> (key.items % 64) != 0)
        {
            return Err(bad("\"done\" marks items past the last"));
        }
        let counted: usize = done.iter().map(|w| w.count_ones() as usize).sum();
        if uint("counted")? != counted as u64 {
            return Err(bad("\"counted\" disagrees with \"done\""));
        }
        let sum: u128 = string("sum")?
            .parse()
            .map_err(|_| bad("\"sum\" is not a whole number"))?;
        let checkpoint = Checkpoint {
            key: found,
            done,
            counted,
            sum,
        };
        checkpoint.check_plausible()?;
        Ok(checkpoint)
    }
}

/// An engine as the records and the command line name it (`half-boards`).
fn engine_name(engine: Method) -> String {
    serde_json::to_value(engine)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The first field in which two keys differ, for the error message.
fn describe_difference(found: &Key, wanted: &Key) -> String {
    let s = |s: Shard| format!("{}/{}", s.index, s.of);
    let pairs = [
        ("n", found.n.to_string(), wanted.n.to_string()),
        ("piece", found.piece.clone(), wanted.piece.clone()),
        ("kind", found.kind.clone(), wanted.kind.clone()),
        ("shard", s(found.shard), s(wanted.shard)),
        (
            "engine",
            engine_name(found.engine),
            engine_name(wanted.engine),
        ),
        (
            "engine version",
            found.engine_version.to_string(),
            wanted.engine_version.to_string(),
        ),
        (
            "work items",
            found.items.to_string(),
            wanted.items.to_string(),
        ),
        (
            "plan",
            found.plan.clone().unwrap_or_else(|| "none".into()),
            wanted.plan.clone().unwrap_or_else(|| "none".into()),
        ),
    ];
    let hint = if found.engine != wanted.engine && found.engine == Method::Constellations {
        ": it was counted with --gpu or NQUEENS_COUNT_ENGINE=constellations, which resume it"
    } else {
        ""
    };
    pairs
        .iter()
        .find(|(_, a, b)| a != b)
        .map(|(what, a, b)| format!("{what} {a}, this count has {b}{hint}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::{Kind, Piece, Rules};

    fn key(n: u32) -> Key {
        let p = Problem::new(n, Rules::new(Piece::Queen, Kind::Regular), vec![]).unwrap();
        Key::new(&p, Shard::WHOLE, Method::HalfBoards, 1, 130)
    }

    #[test]
    fn a_checkpoint_reads_back_as_written() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("c.json");
        let mut c = Checkpoint::new(key(12));
        c.record(0, 5);
        c.record(129, 7);
        c.record(129, 7);
        c.save(&path).unwrap();
        let back = Checkpoint::load(&path, &key(12)).unwrap().unwrap();
        assert_eq!(back, c);
        assert_eq!((back.counted(), back.sum), (2, 12));
        assert!(back.is_done(129) && !back.is_done(1));
        assert!(
            Checkpoint::load(&d.path().join("none"), &key(12))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn another_count_or_a_changed_byte_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("c.json");
        Checkpoint::new(key(12)).save(&path).unwrap();
        let err = Checkpoint::load(&path, &key(13)).unwrap_err();
        assert!(matches!(err, CheckpointError::Mismatch(_)), "{err}");
        assert!(err.to_string().contains("n 12, this count has 13"), "{err}");
        let text = std::fs::read_to_string(&path).unwrap();
        for (from, to) in [
            ("\"sum\":\"0\"", "\"sum\":\"1\""),
            ("\"counted\":0", "\"counted\":1"),
        ] {
            std::fs::write(&path, text.replace(from, to)).unwrap();
            let err = Checkpoint::load(&path, &key(12)).unwrap_err();
            assert!(matches!(err, CheckpointError::Corrupt(_)), "{err}");
        }
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert!(Checkpoint::load(&path, &key(12)).is_err());
    }

    /// An edit sealed with a new checksum passes the checksum; the sum is still checked
    /// against what the items can hold.
    #[test]
    fn an_edited_and_resealed_sum_is_refused_where_the_total_is_known() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("c.json");
        let reseal = |c: &Checkpoint| {
            let body = c.body();
            let sum = twox_hash::XxHash3_64::oneshot(body.as_bytes());
            std::fs::write(&path, format!("{body},\"xxh3\":\"{sum:016x}\"}}\n")).unwrap();
        };
        let mut c = Checkpoint::new(key(12));
        c.record(3, 14201);
        reseal(&c);
        let err = Checkpoint::load(&path, &key(12)).unwrap_err();
        assert!(
            err.to_string()
                .contains("the whole count of n = 12 is 14200"),
            "{err}"
        );
        let mut c = Checkpoint::new(key(12));
        for i in 0..130 {
            c.record(i, if i == 0 { 14199 } else { 0 });
        }
        reseal(&c);
        assert!(Checkpoint::load(&path, &key(12)).is_err());
        c.sum = 14200;
        reseal(&c);
        assert!(Checkpoint::load(&path, &key(12)).is_ok());
        for dev in ["/dev/full", "/dev/zero", "/dev/null"] {
            let err = Checkpoint::load(Path::new(dev), &key(12)).unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
    }
}
