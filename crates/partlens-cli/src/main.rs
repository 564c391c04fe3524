//! partlens-cli: the command-line client. Argument parsing only; the commands live in
//! `partlens_cli`.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    partlens_cli::run(partlens_cli::Cli::parse())
}
