//! A certificate of infeasibility published as its JSON document, the input's residual as
//! DIMACS CNF beside it, and a DRAT or LRAT proof that the CNF is unsatisfiable.

use crate::complete::{Certificate, InputResidual};
use crate::dimacs::{
    DimacsError, Proof, ProofFormat, residual_of, write_residual_cnf, write_residual_proof,
};
use crate::format::{AtomicFile, ErrorKind, FormatError, Input};
use crate::json::{CertificateRecord, CnfRecord, ProofRecord, Versions};
use std::io::Write;
use std::path::Path;

/// What the CNF beside a certificate is, as its document says.
const CNF_MEANING: &str = "the input's residual (free rows x free columns, one variable per free cell; formats/dimacs.md): satisfiable exactly when a completion exists, so a SAT solver's UNSATISFIABLE confirms this certificate";

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
/// independently, and a proof of that in `format` at `proof` when a search of at most
/// `max_nodes` nodes finds one (for a `hall` certificate too: its counting argument is no
/// unit propagation, but a small case is refuted at once). All are written to temporary files and renamed into place only when
/// all are complete; a proof an earlier run left beside the document, in either format, is
/// removed unless this one replaces it, so that no proof of another board lies beside it.
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
    (proof, format, max_nodes): (&Path, ProofFormat, u64),
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
    let (cnf_file, summary) = write_residual_cnf(res, input.n(), cnf)?;
    // Hall's condition is a counting argument, not unit propagation: its proof by search
    // grows exponentially with the rows it names, but small ones (two rows left with one
    // column) are proved at once, so the search is tried within its limit as for any other.
    let written = match write_residual_proof(res, input.n(), (format, max_nodes), proof, stop)? {
        Proof::Missing(why) if matches!(cert, Certificate::Hall { .. }) => Proof::Missing(format!(
            "{why}: Hall's condition is a counting argument, not unit propagation, and its proofs \
             by search grow exponentially (a SAT solver confirms the CNF)"
        )),
        written => written,
    };
    let (proof_file, proof_record) = match written {
        Proof::Written {
            file,
            lemmas,
            deletions,
        } => (
            Some(file),
            ProofRecord {
                file: Some(proof.display().to_string()),
                format: format.name().into(),
                lemmas: Some(lemmas),
                deletions: Some(deletions),
                missing: None,
                meaning: proof_meaning(format).into(),
            },
        ),
        Proof::Stopped => return Ok(Published::Interrupted),
        Proof::Missing(why) => (
            None,
            ProofRecord {
                file: None,
                format: format.name().into(),
                lemmas: None,
                deletions: None,
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
            meaning: CNF_MEANING.into(),
        },
        proof: proof_record,
    };
    let doc = serde_json::to_value(&doc).expect("records serialize");
    let mut f = AtomicFile::create(json)?;
    writeln!(f, "{doc:#}").map_err(|e| FormatError::new(json, ErrorKind::Write(e)))?;
    cnf_file.commit()?;
    // An earlier run's proofs beside the document, of either format, are of another board
    // or another run: the one written now replaces its own; the others go (the command
    // checked both names as its outputs, never inputs). A link is removed, not its target.
    let written = proof_file.is_some().then_some(proof);
    if let Some(file) = proof_file {
        file.commit()?;
    }
    for extension in [ProofFormat::Drat, ProofFormat::Lrat].map(ProofFormat::extension) {
        let stale = proof.with_extension(extension);
        if Some(stale.as_path()) != written
            && std::fs::symlink_metadata(&stale).is_ok_and(|m| m.is_file() || m.is_symlink())
        {
            std::fs::remove_file(&stale)
                .map_err(|e| FormatError::new(&stale, ErrorKind::Write(e)))?;
        }
    }
    f.commit()?;
    Ok(Published::Written(record))
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
