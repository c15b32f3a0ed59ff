//! `mc-server` binary: wiring only.

use std::process::ExitCode;

use clap::Parser;
use mc_server::config::{Args, Settings};
use tracing_subscriber::EnvFilter;

// mimalloc hands freed memory back to the system far more readily than glibc's per-thread
// arenas, which keeps the server's RSS close to what it actually holds after a large sync. It is
// built without transparent huge pages (`no_thp`): with them, every 2 MiB region it touches
// counts whole in RSS and is zeroed whole by the kernel, which raises both the peak and the CPU
// of a first sync. See docs/adr/0013-mimalloc-without-huge-pages.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    // Bad configuration: one line, exit code 2.
    let settings = match Settings::load(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: starting the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(mc_server::server::run(settings)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
