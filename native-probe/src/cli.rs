//! The command line, defined once with clap so `--help` and the parser always agree.

use std::{net::SocketAddr, path::PathBuf};

use clap::{Args, Parser, Subcommand};

/// The rdma-lab companion: serves the lab to your browser from this machine.
///
/// Start with `native-probe serve`, then open the URL it prints.
#[derive(Debug, Parser)]
#[command(name = "native-probe", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the built lab site over HTTP.
    ///
    /// The site is the `dist/` folder that `trunk build --release` writes; `./lab run`
    /// builds it and starts this command for you.
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on. The default serves only this machine; use
    /// 0.0.0.0:PORT to let other machines connect. Port 0 picks a free port.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7878")]
    pub listen: SocketAddr,

    /// Folder holding the built site (its index.html, wasm and css).
    #[arg(long, value_name = "DIR", default_value = "dist")]
    pub ui: PathBuf,
}
