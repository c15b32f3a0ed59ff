//! `kubectl-multicluster`: the kubectl plugin. It asks mc-server for objects of every
//! cluster and prints kubectl-like tables with a CLUSTER column; `apply`/`delete` act on the master
//! cluster directly; `join`/`unjoin` go through the server.
//!
//! `main.rs` only wires [`run`]; each verb lives in [`commands`], tables in [`print`].

pub mod builtin_types;
pub mod cli;
pub mod client;
pub mod client_identity;
pub mod commands;
pub mod config;
pub mod created_since;
pub mod go_server;
pub mod kubeconfig_user;
pub mod master;
pub mod print;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;

/// Runs a parsed command line on a single-threaded runtime (a CLI needs no more, and starts
/// faster), writing to stdout.
pub fn run(cli: cli::Cli) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let code = runtime.block_on(commands::run(cli, &mut out))?;
    out.flush()?;
    Ok(code)
}

/// Whether an error is a closed stdout (`… | head`), which ends the program quietly.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}

/// Debug logs on stderr: `-v` for this crate, `-vv` for everything; `RUST_LOG` wins.
pub fn init_logging(verbosity: u8) {
    use tracing_subscriber::EnvFilter;
    let default = match verbosity {
        0 => "warn,kube=off",
        1 => "kubectl_multicluster=debug,warn",
        _ => "debug",
    };
    let filter = match std::env::var("RUST_LOG") {
        Ok(value) if !value.is_empty() => EnvFilter::new(value),
        _ => EnvFilter::new(default),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_target(false)
        .try_init();
}
