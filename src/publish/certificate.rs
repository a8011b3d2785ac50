//! A certificate of infeasibility published as its JSON document and the input's
//! residual as DIMACS CNF beside it.

use crate::complete::{Certificate, InputResidual};
use crate::dimacs::{DimacsError, write_cnf, write_residual_cnf};
use crate::format::{AtomicFile, ErrorKind, FormatError, Input};
use crate::json::{CertificateRecord, CnfRecord, Versions};
use std::io::Write;
use std::path::Path;

/// What the CNF beside a certificate is, as its document says.
const CNF_MEANING: &str = "the input's residual (free rows x free columns, one variable per free cell; formats/dimacs.md): satisfiable exactly when a completion exists, so a SAT solver's UNSATISFIABLE confirms this certificate";

/// Publishes the proof that `input` has no completion (`residual`: its free part, when the
/// engine kept it) as two files: the JSON document
/// `json` ([`CertificateRecord`]: the certificate, in words too, and a summary of the CNF)
/// and the input's residual as DIMACS CNF at `cnf`, which any SAT solver can confirm
/// unsatisfiable independently. Both are written to temporary files and renamed into place
/// only when both are complete.
pub fn certificate(
    cert: &Certificate,
    input: &Input,
    residual: Option<&InputResidual>,
    free_rows: u64,
    json: &Path,
    cnf: &Path,
) -> Result<(), DimacsError> {
    // The engine's residual of the input when it kept one: no second pass over the input.
    let (cnf_file, summary) = match residual {
        Some(InputResidual(res)) => write_residual_cnf(res, input.n(), cnf)?,
        None => write_cnf(input, cnf)?,
    };
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
    };
    let doc = serde_json::to_value(&doc).expect("records serialize");
    let mut f = AtomicFile::create(json)?;
    writeln!(f, "{doc:#}").map_err(|e| FormatError::new(json, ErrorKind::Write(e)))?;
    cnf_file.commit()?;
    f.commit()?;
    Ok(())
}
