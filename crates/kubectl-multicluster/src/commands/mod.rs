//! One module per verb. Each `run` writes its result to `out` and returns the exit code; errors
//! travel up to `main`, which prints them once.

pub mod apply;
pub mod auth;
pub mod clusters;
pub mod complete;
pub mod completion;
pub mod config;
pub mod count;
pub mod delete;
pub mod describe;
pub mod diff;
pub mod events;
pub mod history;
pub mod join;
pub mod kubeconfig;
pub mod list;
pub mod list_kind;
pub mod list_kinds;
pub mod list_table;
pub mod listed;
pub mod logs;
pub mod past;
pub mod printing;
pub mod search;
pub mod table_spec;
pub mod top;
pub mod tree;
pub mod watch;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::client::Client;
use crate::config::{Overrides, Settings};
use crate::go_server::Resolver;
use crate::kubeconfig_user::{self, Prompt};

/// Runs the parsed command line.
pub async fn run(cli: Cli, out: &mut dyn Write) -> Result<ExitCode> {
    let overrides = Overrides {
        server: cli.server.clone(),
        token: cli.token.clone(),
        certificate_authority: cli.certificate_authority.clone(),
        insecure_skip_tls_verify: cli.insecure_skip_tls_verify,
        kubeconfig_user: cli.kubeconfig_user,
    };
    let settings = Settings::from_process(overrides.clone());
    // The kubeconfig user's token (which may run its credential plugin) only for a verb that
    // talks to mc-server.
    let client = async || -> Result<Client> {
        let mut target = settings.server()?;
        kubeconfig_user::apply(&mut target, Prompt::AsConfigured).await?;
        Ok(Client::new(target)?)
    };
    // The master cluster is asked only for a name that neither the server (the Go project's
    // cannot) nor the built-in table resolves.
    let resolver = || Resolver::new(settings.master_kubeconfig(None));
    match cli.command {
        Command::List(args) => list::run(&client().await?, resolver, args, out).await,
        Command::Describe(args) => describe::run(&client().await?, resolver(), args, out).await,
        Command::Apply(args) => apply::run(&settings, args, out).await,
        Command::Delete(args) => delete::run(&settings, args, out).await,
        Command::Join(args) => join::join(&client().await?, args, out).await,
        Command::Unjoin(args) => join::unjoin(&client().await?, args, out).await,
        Command::Auth(args) => auth::run(&client().await?, args, out).await,
        Command::Logs(args) => logs::run(&client().await?, args, out).await,
        Command::Top(args) => top::run(&client().await?, args, out).await,
        Command::Tree(args) => tree::run(&client().await?, args, out).await,
        Command::Search(args) => search::run(&client().await?, args, out).await,
        Command::History(args) => history::run(&client().await?, args, out).await,
        Command::Diff(args) => diff::run(&client().await?, args, out).await,
        Command::Events(args) => events::run(&client().await?, args, out).await,
        Command::Count(args) => count::run(&client().await?, args, out).await,
        Command::Kubeconfig => kubeconfig::run(&settings, out).await,
        // `config set` writes what the flags say, never what the environment says.
        Command::Config(args) => config::run(&settings, &overrides, args, out),
        Command::Completion(args) => completion::run(args, out),
        Command::Complete(args) => complete::run(overrides, args, out).await,
    }
}
