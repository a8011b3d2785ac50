//! The integration tests, one binary (as ripgrep and xsv build theirs): each module runs
//! the `nqueens` binary on real files; `common` holds the shared helpers and the slow
//! obvious oracle. One binary links once instead of once per file.

mod common;

mod bad_files;
mod bad_input;
mod channels;
mod client_files;
mod complete_cli;
mod convert_cli;
mod count_cli;
mod count_kernels;
mod count_plan;
mod csplib_cli;
mod file_edges;
mod frontier_cli;
mod hpc_recipes;
mod json_contract;
mod mat_answers;
mod messages;
mod npy_cli;
mod progress_cli;
mod proof_cli;
mod reader_bounds;
mod readme;
mod signals;
mod verify_cli;
