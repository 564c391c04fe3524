//! partlens-cli: the command-line client. Argument parsing only; the commands live in
//! `partlens::cli`.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    partlens::cli::run(partlens::cli::Cli::parse())
}
