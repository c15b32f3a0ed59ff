//! `mc-server` binary: wiring only.

fn main() -> std::process::ExitCode {
    eprintln!("error: mc-server is not built yet (see the sync issue)");
    std::process::ExitCode::from(2)
}
