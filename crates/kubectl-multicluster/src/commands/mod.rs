//! One module per verb. Each `run` writes its result to `out` and returns the exit code; errors
//! travel up to `main`, which prints them once.

pub mod apply;
pub mod clusters;
pub mod completion;
pub mod delete;
pub mod describe;
pub mod join;
pub mod list;
pub mod watch;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::client::Client;
use crate::config::{Overrides, Settings};
use crate::resolve::Resolver;

/// Runs the parsed command line.
pub async fn run(cli: Cli, out: &mut dyn Write) -> Result<ExitCode> {
    let settings = Settings::from_process(Overrides {
        server: cli.server.clone(),
        token: cli.token.clone(),
        certificate_authority: cli.certificate_authority.clone(),
        insecure_skip_tls_verify: cli.insecure_skip_tls_verify,
    });
    let client = || -> Result<Client> { Ok(Client::new(settings.server()?)?) };
    // The master cluster is asked only for a name that neither the server (the original cannot)
    // nor the built-in table resolves.
    let resolver = || Resolver::new(settings.master_kubeconfig(None));
    match cli.command {
        Command::List(args) => list::run(&client()?, resolver(), args, out).await,
        Command::Describe(args) => describe::run(&client()?, resolver(), args, out).await,
        Command::Apply(args) => apply::run(&settings, args, out).await,
        Command::Delete(args) => delete::run(&settings, args, out).await,
        Command::Join(args) => join::join(&client()?, args, out).await,
        Command::Unjoin(args) => join::unjoin(&client()?, args, out).await,
        Command::Completion(args) => completion::run(args, out),
    }
}
