//! `kubectl-multicluster`: the kubectl plugin. Wiring only; see the library crate.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use kubectl_multicluster::cli::{Cli, normalize_args};
use kubectl_multicluster::{init_logging, is_broken_pipe, run};

// A list of 10,000 objects is hundreds of thousands of small allocations, made and freed once;
// mimalloc does that in a fraction of glibc's time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = normalize_args(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version land here too, on stdout with exit 0.
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    init_logging(cli.verbose);
    match run(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
