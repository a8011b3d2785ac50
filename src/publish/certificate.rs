//! A certificate of infeasibility published as its JSON document, the input's residual as
//! DIMACS CNF beside it, and a DRAT or LRAT proof that the CNF is unsatisfiable.

use crate::complete::{Certificate, InputResidual};
use crate::dimacs::{
    DimacsError, Proof, ProofFormat, ProofOptions, ProofPaths, residual_of, write_residual_cnf,
    write_residual_proof,
};
use crate::format::{AtomicFile, ErrorKind, FormatError, Input};
use crate::json::{
    CertificateRecord, CnfRecord, ProofPart, ProofRecord, ProofShardRecord, Versions,
};
use std::io::Write;
use std::path::Path;

/// What the CNF beside a certificate is, as its document says.
const CNF_MEANING: &str = "the input's residual (free rows x free columns, one variable per free cell; formats/dimacs.md): satisfiable exactly when a completion exists, so a SAT solver's UNSATISFIABLE confirms this certificate";

/// What a shard's document is, after what its proof is.
const SHARD_MEANING: &str = "This document is one shard of the proof's pieces (--proof-shard, see shard): this run wrote only the files shard.written names, and lemmas and deletions count theirs. The pieces of every shard, written by runs with the same input and options, make the proof; it is checked when every shard's pieces are VERIFIED (tools/prove_in_shards.py writes, checks and removes them a shard at a time).";

/// How a split proof is checked, as its document says after what its pieces are.
const SPLIT_MEANING: &str = "It is split into parts (cube and conquer): each part proves that the CNF with its cube's variables added as unit clauses (after the CNF's, in order) is unsatisfiable, and the top (file) that the CNF with each part's clause \"not all of its cube\" added (after the CNF's, part by part) is: together, that the CNF is. Each piece is checked on its own, all at once if there are cores for them (tools/check_proof.sh).";

/// What the proof beside a certificate is, as its document says.
fn proof_meaning(format: ProofFormat) -> &'static str {
    match format {
        ProofFormat::Drat => {
            "a DRAT proof (text, RUP lemmas and deletions) that the CNF beside it is unsatisfiable, from a search whose every step is unit propagation: a checker's VERIFIED (rate, drat-trim; tools/check_proof.sh) confirms this certificate without a SAT solver"
        }
        ProofFormat::Lrat => {
            "an LRAT proof (text, RUP lemmas with their hints, and deletions) that the CNF beside it is unsatisfiable, from a search whose every step is unit propagation: a checker's VERIFIED (lrat-trim, lrat-check, cake_lpr; tools/check_proof.sh) confirms this certificate without a SAT solver"
        }
        ProofFormat::LratBinary => {
            "an LRAT proof in binary (RUP lemmas with their hints, and deletions; numbers as variable-length integers) that the CNF beside it is unsatisfiable, from a search whose every step is unit propagation: a checker's VERIFIED (lrat-trim; tools/check_proof.sh) confirms this certificate without a SAT solver"
        }
    }
}

/// Publishes the proof that `input` has no completion (`residual`: its free part, when the
/// engine kept it) as three files: the JSON document `json` ([`CertificateRecord`]: the
/// certificate, in words too, and summaries of the CNF and the proof), the input's
/// residual as DIMACS CNF at `cnf`, which any SAT solver can confirm unsatisfiable
/// independently, and a proof of that as `proof` says ([`ProofPaths`] beside `json`) when a
/// search of at most its nodes finds one (for a `hall` certificate too: its counting
/// argument is no unit propagation, but a small case is refuted at once). All are written
/// to temporary files and renamed into place only when all are complete; the pieces of a
/// proof an earlier run left beside the document, in either format, are removed unless
/// this one replaces them, so that no proof of another board lies beside it.
/// `stop` ends the proof search: a signal publishes nothing ([`Published::Interrupted`]);
/// its deadline publishes the rest, without the proof.
#[allow(clippy::too_many_arguments)]
pub fn certificate(
    cert: &Certificate,
    input: &Input,
    residual: Option<&InputResidual>,
    free_rows: u64,
    json: &Path,
    cnf: &Path,
    proof: ProofOptions,
    stop: &crate::stop::Stop,
) -> Result<Published, DimacsError> {
    // The engine's residual of the input when it kept one: no second pass over the input.
    let read;
    let res = match residual {
        Some(InputResidual(res)) => res,
        None => {
            read = residual_of(input)?;
            &read
        }
    };
    let (cnf_file, summary, cnf_sha256) = write_residual_cnf(res, input.n(), cnf)?;
    // Hall's condition is a counting argument, not unit propagation: its proof by search
    // grows exponentially with the rows it names, but small ones (two rows left with one
    // column) are proved at once, so the search is tried within its limit as for any other.
    let paths = ProofPaths::new(json, proof.format);
    let format = proof.format;
    let written = match write_residual_proof(res, input.n(), proof, &paths, stop)? {
        Proof::Missing(why) if matches!(cert, Certificate::Hall { .. }) => Proof::Missing(format!(
            "{why}: Hall's condition is a counting argument, not unit propagation, and its proofs \
             by search grow exponentially (a SAT solver confirms the CNF)"
        )),
        Proof::Missing(why) if matches!(cert, Certificate::WeightedCover { .. }) => {
            Proof::Missing(format!(
                "{why}: the weights are a counting argument, not unit propagation; they are \
                 checked on the board itself in integers (formats/certificate.md, \
                 tools/confirm_certificate.py)"
            ))
        }
        written => written,
    };
    let (proof_files, proof_record) = match written {
        Proof::Written {
            files,
            pieces,
            cubes,
            lemmas,
            deletions,
            ..
        } => {
            let piece_file = |k: usize| match k {
                0 if cubes.is_empty() => paths.whole(),
                0 => paths.top(),
                k => paths.part(k),
            };
            let shard = (proof.shard.of > 1).then(|| ProofShardRecord {
                index: proof.shard.index,
                of: proof.shard.of,
                pieces: cubes.len() + 1,
                written: pieces
                    .iter()
                    .map(|&k| piece_file(k).display().to_string())
                    .collect(),
            });
            let parts = (!cubes.is_empty()).then(|| {
                cubes
                    .into_iter()
                    .enumerate()
                    .map(|(k, cube)| ProofPart {
                        file: paths.part(k + 1).display().to_string(),
                        cube,
                    })
                    .collect()
            });
            let (file, mut meaning) = match parts {
                None => (paths.whole(), proof_meaning(format).to_string()),
                Some(_) => (
                    paths.top(),
                    format!("{}. {SPLIT_MEANING}", proof_meaning(format)),
                ),
            };
            if shard.is_some() {
                meaning = format!("{meaning} {SHARD_MEANING}");
            }
            (
                files,
                ProofRecord {
                    file: Some(file.display().to_string()),
                    format: format.name().into(),
                    lemmas: Some(lemmas),
                    deletions: Some(deletions),
                    parts,
                    shard,
                    missing: None,
                    meaning,
                },
            )
        }
        Proof::Stopped => return Ok(Published::Interrupted),
        Proof::Missing(why) => (
            Vec::new(),
            ProofRecord {
                file: None,
                format: format.name().into(),
                lemmas: None,
                deletions: None,
                parts: None,
                shard: None,
                missing: Some(why),
                meaning: "no proof was written (see missing): the CNF beside this document is the check, by any SAT solver".into(),
            },
        ),
    };
    let record = proof_record.clone();
    let doc = CertificateRecord {
        versions: Versions::current(),
        input: input.path().display().to_string(),
        n: input.n(),
        free_rows,
        certificate: cert.clone(),
        explanation: cert.to_string(),
        cnf: CnfRecord {
            file: cnf.display().to_string(),
            free_rows: summary.free_rows,
            cells: summary.cells,
            variables: summary.variables,
            clauses: summary.clauses,
            sha256: cnf_sha256,
            meaning: CNF_MEANING.into(),
        },
        proof: proof_record,
    };
    let doc = serde_json::to_value(&doc).expect("records serialize");
    let mut f = AtomicFile::create(json)?;
    writeln!(f, "{doc:#}").map_err(|e| FormatError::new(json, ErrorKind::Write(e)))?;
    // Every file on disk first: the set is then renamed into place in moments.
    let mut files: Vec<AtomicFile> = std::iter::once(cnf_file).chain(proof_files).collect();
    for file in &mut files {
        file.prepare()?;
    }
    f.prepare()?;
    // An earlier run's proof pieces beside the document, of either format, are of another
    // board or another run: those written now replace their own; the others go (the
    // command checked their names as its outputs, never inputs). A link is removed, not
    // its target. They, and every file this set replaces, are set aside under hidden
    // names before anything is renamed into place: one that cannot be (an immutable
    // file, another user's in a sticky directory) leaves the earlier set as it was, and
    // so does a rename into place that fails after.
    files.push(f);
    let written: Vec<std::path::PathBuf> = files.iter().map(|f| f.dest().into()).collect();
    let mut moving = stale_pieces(json, &written)?;
    moving.extend(
        files
            .iter()
            .filter_map(AtomicFile::target)
            .filter(|t| std::fs::symlink_metadata(t).is_ok())
            .map(Path::to_path_buf),
    );
    let _publishing = crate::cleanup::start_publishing();
    let aside = set_aside(&moving)?;
    let mut placed = Vec::with_capacity(files.len());
    for file in files {
        let target = file.target().map(Path::to_path_buf);
        if let Err(e) = file.commit() {
            for t in placed {
                let _ = std::fs::remove_file(t);
            }
            put_back(aside);
            return Err(e.into());
        }
        placed.extend(target);
    }
    for (_, hidden) in aside {
        // Renamed there a moment ago, so it can go (a failure leaves a hidden file only).
        let _ = std::fs::remove_file(hidden);
    }
    Ok(Published::Written(record))
}

/// Renames the files [`set_aside`] moved back to their names, last first.
fn put_back(aside: Vec<(std::path::PathBuf, std::path::PathBuf)>) {
    for (back, from) in aside.into_iter().rev() {
        let _ = std::fs::rename(from, back);
    }
}

/// Renames each of `stale` to a hidden name beside it (`.nqueens-stale-` and this
/// process), returning each with its new name; if one cannot be, those already renamed go
/// back and the error names it. A path listed twice is moved once.
fn set_aside(
    stale: &[std::path::PathBuf],
) -> Result<Vec<(std::path::PathBuf, std::path::PathBuf)>, FormatError> {
    let mut aside: Vec<(std::path::PathBuf, std::path::PathBuf)> = Vec::with_capacity(stale.len());
    for (k, path) in stale.iter().enumerate() {
        if aside.iter().any(|(p, _)| p == path) {
            continue;
        }
        let hidden = path.with_file_name(format!(
            "{}stale-{}~{k}",
            crate::cleanup::TEMP_PREFIX,
            crate::cleanup::owner()
        ));
        let moved = if std::fs::symlink_metadata(&hidden).is_ok() {
            Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists))
        } else {
            std::fs::rename(path, &hidden)
        };
        if let Err(e) = moved {
            put_back(aside);
            return Err(FormatError::new(
                path,
                ErrorKind::Write(std::io::Error::new(
                    e.kind(),
                    format!(
                        "a file of the certificate's set cannot be replaced or removed ({e}); nothing written"
                    ),
                )),
            ));
        }
        aside.push((path.clone(), hidden));
    }
    Ok(aside)
}

/// The files and links beside the certificate `json` with the name of a piece of its
/// proof ([`ProofPaths::is_piece_name`]), but those of `written`.
fn stale_pieces(
    json: &Path,
    written: &[std::path::PathBuf],
) -> Result<Vec<std::path::PathBuf>, FormatError> {
    let dir = match json.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let entries = std::fs::read_dir(dir).map_err(|e| FormatError::new(dir, ErrorKind::Read(e)))?;
    let mut stale = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| FormatError::new(dir, ErrorKind::Read(e)))?;
        let name = entry.file_name();
        if !ProofPaths::is_piece_name(json, &name) {
            continue;
        }
        let path = json.with_file_name(&name);
        if written.iter().any(|w| w.file_name() == Some(&name))
            || !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() || m.is_symlink())
        {
            continue;
        }
        stale.push(path);
    }
    Ok(stale)
}

/// What [`certificate`] published.
#[derive(Debug, Clone)]
pub enum Published {
    /// The document and the CNF, and the proof its record names, or none for the reason
    /// the record gives (as the document does).
    Written(ProofRecord),
    /// Nothing: a signal stopped the proof search.
    Interrupted,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stale pieces are set aside all or none: when one cannot be renamed, those already
    /// renamed go back, and nothing hidden is left.
    #[test]
    fn stale_pieces_are_set_aside_all_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let p = |name: &str| dir.path().join(name);
        std::fs::write(p("c.part0001.lrat"), "first").unwrap();
        std::fs::write(p("c.part0003.lrat"), "third").unwrap();
        let stale = [
            p("c.part0001.lrat"),
            p("c.part0002.lrat"),
            p("c.part0003.lrat"),
        ];
        let err = set_aside(&stale).unwrap_err().to_string();
        assert!(
            err.contains("c.part0002.lrat") && err.contains("nothing written"),
            "{err}"
        );
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["c.part0001.lrat", "c.part0003.lrat"]);
        assert_eq!(
            std::fs::read_to_string(p("c.part0001.lrat")).unwrap(),
            "first"
        );
        let aside = set_aside(&[p("c.part0001.lrat"), p("c.part0003.lrat")]).unwrap();
        assert_eq!(aside.len(), 2);
        assert!(aside.iter().all(|(_, hidden)| hidden.exists()));
        assert!(!p("c.part0001.lrat").exists() && !p("c.part0003.lrat").exists());
    }
}
