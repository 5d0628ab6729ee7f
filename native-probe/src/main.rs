//! `native-probe`: serves the rdma-lab site on this machine, streams its RDMA and network
//! counters to the page, and reads the engine's models from the command line.

mod cli;
mod craft;
mod dcqcn;
mod decode;
mod demo;
mod json_input;
mod qp_table;
mod sampler;
mod serve;
mod snapshot;
mod sysfs;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome: Result<(), Box<dyn std::error::Error>> = match cli.command {
        Command::Serve(args) => serve::run(args).map_err(Into::into),
        Command::Snapshot(args) => snapshot::run(&args),
        Command::Decode(args) => decode::run(&args),
        Command::Craft(args) => craft::run(&args),
        Command::QpTable(args) => qp_table::run(&args),
        Command::Dcqcn(args) => dcqcn::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("native-probe: error: {error}");
            ExitCode::FAILURE
        }
    }
}
