//! `kubectl-multicluster`: the kubectl plugin.

fn main() -> std::process::ExitCode {
    eprintln!("error: kubectl-multicluster is not built yet (see the plugin issue)");
    std::process::ExitCode::from(2)
}
