//! Checks of the command line as a whole.

use super::Cli;
use clap::CommandFactory;

/// Every example in every help parses as the command line it shows (up to the first
/// shell operator).
#[test]
fn every_example_in_the_help_parses() {
    fn walk(cmd: &mut clap::Command, seen: &mut usize) {
        let help = cmd.render_long_help().to_string();
        if let Some(at) = help.find("Examples:") {
            for line in help[at..].lines().skip(1) {
                let Some(example) = line.trim().strip_prefix("nqueens ") else {
                    break;
                };
                let words: Vec<&str> = std::iter::once("nqueens")
                    .chain(
                        example
                            .split_whitespace()
                            .take_while(|w| !["|", "&&", ">", "<"].contains(w)),
                    )
                    .collect();
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("example `{line}` does not parse: {e}");
                }
                *seen += 1;
            }
        }
        for sub in cmd.get_subcommands_mut() {
            walk(sub, seen);
        }
    }
    use clap::Parser as _;
    let mut seen = 0;
    walk(&mut Cli::command(), &mut seen);
    assert!(seen >= 20, "only {seen} examples found");
}
