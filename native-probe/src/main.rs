//! `native-probe`: serves the rdma-lab site on this machine and, in later subcommands,
//! reads the engine's models from the command line.

mod cli;
mod serve;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Serve(args) => serve::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("native-probe: error: {error}");
            ExitCode::FAILURE
        }
    }
}
