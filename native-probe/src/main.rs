//! `native-probe`: serves the rdma-lab site on this machine, streams its RDMA and network
//! counters to the page, and reads the engine's models from the command line.

mod cli;
mod collective;
mod craft;
mod dcqcn;
mod decode;
mod demo;
mod doctor;
mod fabric;
mod flags;
mod json_input;
mod lossless;
mod nccl_log;
mod netsim;
mod output;
mod qp_table;
mod sampler;
mod serve;
mod snapshot;
mod sysfs;

use std::{io::Write, process::ExitCode};

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
        Command::Netsim(args) => netsim::run(&args),
        Command::Fabric(args) => fabric::run(&args),
        Command::Collective(args) => collective::run(&args),
        Command::NcclLog(args) => nccl_log::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Qos(args) => lossless::qos(&args),
        Command::Headroom(args) => lossless::headroom(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // `| head` has what it wanted: no failure, and nothing to say (as `cat` and `rg`).
        Err(error)
            if error
                .downcast_ref::<output::OutputError>()
                .is_some_and(output::OutputError::reader_left) =>
        {
            ExitCode::SUCCESS
        }
        // The report said what failed; only the exit status is left to set.
        Err(error) if error.is::<doctor::ChecksFailed>() => ExitCode::FAILURE,
        Err(error) => {
            // Not `eprintln!`, which panics when stderr is gone too.
            let _ = writeln!(std::io::stderr(), "native-probe: error: {error}");
            ExitCode::FAILURE
        }
    }
}
