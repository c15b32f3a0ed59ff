//! `completion bash|zsh|fish`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionArgs};

/// Prints the completion script for the `kubectl-multicluster` binary.
pub fn run(args: CompletionArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "kubectl-multicluster", out);
    Ok(ExitCode::SUCCESS)
}
