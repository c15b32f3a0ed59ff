//! `__complete WORDS… CURRENT`: completion candidates for kubectl's plugin completion (kubectl ≥
//! 1.26 runs `kubectl_complete-multicluster WORDS… CURRENT` and that script runs this).
//!
//! The output is cobra's: one candidate per line (`value<TAB>description`), then `:DIRECTIVE`.
//! Verbs, flags and their fixed values come from the clap definitions; resource types from the
//! server's `/v1/resources` (else the built-in table) and cluster names from `/v1/clusters`. The
//! server is asked with a short timeout, and nothing is ever printed on stderr: it would land in
//! the middle of the user's command line.

use std::future::Future;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::{Arg, Command, CommandFactory, ValueHint};

use crate::builtin_types::builtin_types;
use crate::cli::{Cli, CompleteArgs};
use crate::client::Client;
use crate::config::{Overrides, Settings};
use crate::kubeconfig_user::{self, Prompt};

/// cobra's `ShellCompDirectiveDefault`: the shell may complete file names.
pub const DIRECTIVE_FILES: u8 = 0;
/// cobra's `ShellCompDirectiveNoFileComp`: no file names.
pub const DIRECTIVE_NO_FILES: u8 = 4;

/// How long completion waits for the server before falling back (a TAB must not hang).
const SERVER_TIMEOUT: Duration = Duration::from_secs(2);

/// One completion candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// What the shell inserts.
    pub value: String,
    /// One line of help, shown by zsh and fish.
    pub help: Option<String>,
}

impl Candidate {
    fn bare(value: impl Into<String>) -> Self {
        Candidate { value: value.into(), help: None }
    }
}

/// What the word being completed is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// Candidates known from the command definition (verbs, flags, enum values).
    Fixed(Vec<Candidate>),
    /// Resource type names and short names; `clusters` too when `with_clusters`.
    ResourceTypes {
        /// `list` also takes `clusters`.
        with_clusters: bool,
    },
    /// The names of the clusters the server knows.
    Clusters,
    /// File names, completed by the shell.
    Files,
    /// Nothing to offer (a name, a number, a free-form value).
    Nothing,
}

/// The words worked out: what is wanted, the prefix typed so far, and the global flags among the
/// words (so `--server URL` points completion at that server).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// What the current word is.
    pub wanted: Wanted,
    /// The part of the current word typed so far (after `=` for `--flag=value`).
    pub prefix: String,
    /// `--server`, `--token`, `--certificate-authority`, `--insecure-skip-tls-verify`,
    /// `--kubeconfig-user` as typed.
    pub overrides: Overrides,
}

/// Prints the candidates for the words and the cobra directive.
pub async fn run(global: Overrides, args: CompleteArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let request = analyze(&args.words);
    let overrides = Overrides {
        server: request.overrides.server.clone().or(global.server),
        token: request.overrides.token.clone().or(global.token),
        certificate_authority: request
            .overrides
            .certificate_authority
            .clone()
            .or(global.certificate_authority),
        insecure_skip_tls_verify: request.overrides.insecure_skip_tls_verify
            || global.insecure_skip_tls_verify,
        kubeconfig_user: request.overrides.kubeconfig_user.or(global.kubeconfig_user),
    };
    let (candidates, directive) = match request.wanted {
        Wanted::Fixed(candidates) => (candidates, DIRECTIVE_NO_FILES),
        Wanted::ResourceTypes { with_clusters } => {
            (resource_types(&overrides, with_clusters).await, DIRECTIVE_NO_FILES)
        }
        Wanted::Clusters => (cluster_names(&overrides).await, DIRECTIVE_NO_FILES),
        Wanted::Files => (Vec::new(), DIRECTIVE_FILES),
        Wanted::Nothing => (Vec::new(), DIRECTIVE_NO_FILES),
    };
    for candidate in candidates.iter().filter(|c| c.value.starts_with(&request.prefix)) {
        match &candidate.help {
            Some(help) => writeln!(out, "{}\t{help}", candidate.value)?,
            None => writeln!(out, "{}", candidate.value)?,
        }
    }
    writeln!(out, ":{directive}")?;
    Ok(ExitCode::SUCCESS)
}

/// Works out what the last word is, walking the others through the clap definitions as the
/// parser would: global flags and their values, the verb (a resource type without a verb means
/// `list`, as in [`crate::cli::normalize_args`]), flags of the verb and their values, and
/// positional arguments.
pub fn analyze(words: &[String]) -> Request {
    let mut root = Cli::command();
    // Building propagates the global flags into every subcommand.
    root.build();
    let (current, done) = match words.split_last() {
        Some((current, done)) => (current.as_str(), done),
        None => ("", words),
    };
    let mut overrides = Overrides::default();
    let mut cmd: &Command = &root;
    let mut positionals = 0usize;
    let mut pending: Option<&Arg> = None;
    for word in done {
        if let Some(arg) = pending.take() {
            record(&mut overrides, arg, word);
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            if let Some(arg) = find_long(cmd, name) {
                match value {
                    // `--kubeconfig-user` takes a value only as `--kubeconfig-user=BOOL`.
                    None if !takes_value(arg) || arg.is_require_equals_set() => {
                        record(&mut overrides, arg, "true")
                    }
                    _ if !takes_value(arg) => record(&mut overrides, arg, "true"),
                    Some(value) => record(&mut overrides, arg, value),
                    None => pending = Some(arg),
                }
            }
            continue;
        }
        if let Some(shorts) = word.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-n x` waits for its value; `-nx`, `-A`, `-vv` are complete.
            let mut chars = shorts.chars();
            let arg = chars.next().and_then(|c| cmd.get_arguments().find(|a| a.get_short() == Some(c)));
            if let Some(arg) = arg.filter(|a| takes_value(a) && chars.as_str().is_empty()) {
                pending = Some(arg);
            }
            continue;
        }
        if cmd.has_subcommands() {
            match cmd.find_subcommand(word) {
                Some(sub) => cmd = sub,
                // `kubectl multicluster pods`: a resource type without a verb means list.
                None if std::ptr::eq(cmd, &root) => {
                    cmd = root.find_subcommand("list").unwrap_or(cmd);
                    positionals = 1;
                }
                None => positionals += 1,
            }
            continue;
        }
        positionals += 1;
    }
    let (wanted, prefix) = if let Some(arg) = pending {
        (value_of(arg), current)
    } else if let Some((name, value)) = current.strip_prefix("--").and_then(|l| l.split_once('=')) {
        (find_long(cmd, name).map_or(Wanted::Nothing, value_of), value)
    } else if current.starts_with('-') {
        (Wanted::Fixed(flags(cmd)), current)
    } else if cmd.has_subcommands() {
        (Wanted::Fixed(subcommands(cmd)), current)
    } else {
        (positional(cmd, positionals), current)
    };
    Request { wanted, prefix: prefix.to_owned(), overrides }
}

/// The argument with this long name or alias.
fn find_long<'a>(cmd: &'a Command, name: &str) -> Option<&'a Arg> {
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|aliases| aliases.contains(&name))
    })
}

/// Whether the flag is followed by a value.
fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

/// Keeps a global flag that says how to reach the server.
fn record(overrides: &mut Overrides, arg: &Arg, value: &str) {
    match arg.get_id().as_str() {
        "server" => overrides.server = Some(value.to_owned()),
        "token" => overrides.token = Some(value.to_owned()),
        "certificate_authority" => overrides.certificate_authority = Some(value.into()),
        "insecure_skip_tls_verify" => overrides.insecure_skip_tls_verify = value != "false",
        "kubeconfig_user" => overrides.kubeconfig_user = Some(value != "false"),
        _ => {}
    }
}

/// What a flag's value can be.
fn value_of(arg: &Arg) -> Wanted {
    if arg.get_id() == "clusters" {
        return Wanted::Clusters;
    }
    let values = arg.get_possible_values();
    if !values.is_empty() {
        return Wanted::Fixed(
            values
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| Candidate {
                    value: v.get_name().to_owned(),
                    help: v.get_help().map(|h| h.to_string()),
                })
                .collect(),
        );
    }
    match arg.get_value_hint() {
        ValueHint::FilePath | ValueHint::AnyPath | ValueHint::DirPath => Wanted::Files,
        _ => Wanted::Nothing,
    }
}

/// The `n`th positional argument of a verb.
fn positional(cmd: &Command, n: usize) -> Wanted {
    match (cmd.get_name(), n) {
        ("list", 0) => Wanted::ResourceTypes { with_clusters: true },
        ("describe" | "delete" | "history" | "diff" | "count" | "tree", 0) => {
            Wanted::ResourceTypes { with_clusters: false }
        }
        ("unjoin", 0) => Wanted::Clusters,
        ("can-i", 0) => Wanted::Fixed(VERBS.iter().map(|v| Candidate::bare(*v)).collect()),
        ("can-i", 1) => Wanted::ResourceTypes { with_clusters: false },
        _ => cmd.get_positionals().nth(n).map_or(Wanted::Nothing, value_of),
    }
}

/// The visible subcommands (the verbs), with their one-line help.
fn subcommands(cmd: &Command) -> Vec<Candidate> {
    cmd.get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
        .map(|sub| Candidate { value: sub.get_name().to_owned(), help: sub.get_about().map(first_line) })
        .collect()
}

/// The visible long flags of a command (its own and the global ones).
fn flags(cmd: &Command) -> Vec<Candidate> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| {
            let long = a.get_long()?;
            Some(Candidate { value: format!("--{long}"), help: a.get_help().map(first_line) })
        })
        .collect()
}

/// The first line of a help text, without a final period.
fn first_line(text: &clap::builder::StyledStr) -> String {
    let text = text.to_string();
    text.lines().next().unwrap_or_default().trim_end_matches('.').to_owned()
}

/// Names and short names of the server's types, else of the built-in ones; sorted, no repeats.
async fn resource_types(overrides: &Overrides, with_clusters: bool) -> Vec<Candidate> {
    let from_server =
        ask_server(overrides, |client| async move { client.resources().await.ok().flatten() }).await;
    let types = from_server.flatten().unwrap_or_else(builtin_types);
    let mut names: Vec<String> = types
        .into_iter()
        .flat_map(|t| std::iter::once(t.resource).chain(t.short_names))
        .chain(with_clusters.then(|| "clusters".to_owned()))
        .collect();
    names.sort();
    names.dedup();
    names.into_iter().map(Candidate::bare).collect()
}

/// The clusters the server knows; none when it cannot be asked.
async fn cluster_names(overrides: &Overrides) -> Vec<Candidate> {
    let clusters = ask_server(overrides, |client| async move { client.clusters().await.ok() }).await;
    clusters.flatten().unwrap_or_default().into_iter().map(|c| Candidate::bare(c.name)).collect()
}

/// Runs `ask` against the configured server within [`SERVER_TIMEOUT`]; `None` when there is no
/// usable configuration or the server is too slow. Acting as the kubeconfig's user, its
/// credential plugin may not prompt: nothing may land on the command line being completed.
async fn ask_server<T, F, Fut>(overrides: &Overrides, ask: F) -> Option<T>
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = T>,
{
    let mut target = Settings::from_process(overrides.clone()).server().ok()?;
    let asked = async {
        kubeconfig_user::apply(&mut target, Prompt::Never).await.ok()?;
        Some(ask(Client::new(target).ok()?).await)
    };
    tokio::time::timeout(SERVER_TIMEOUT, asked).await.ok().flatten()
}

/// The verbs `auth can-i` is asked about most, as kubectl completes them.
const VERBS: &[&str] =
    &["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "*"];

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn analyze(words: &[&str]) -> Request {
        super::analyze(&words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>())
    }

    fn values(wanted: &Wanted) -> Vec<&str> {
        match wanted {
            Wanted::Fixed(candidates) => candidates.iter().map(|c| c.value.as_str()).collect(),
            other => panic!("not fixed: {other:?}"),
        }
    }

    #[test]
    fn the_first_word_is_a_verb() {
        let request = analyze(&[""]);
        assert_eq!(
            values(&request.wanted),
            [
                "list",
                "describe",
                "apply",
                "delete",
                "join",
                "unjoin",
                "auth",
                "logs",
                "top",
                "tree",
                "search",
                "history",
                "diff",
                "events",
                "count",
                "kubeconfig",
                "config",
                "completion"
            ]
        );
        assert_eq!(analyze(&["--server", "https://mc", "li"]).prefix, "li");
        assert_eq!(
            analyze(&["--server", "https://mc", "li"]).overrides.server.as_deref(),
            Some("https://mc")
        );
    }

    #[test]
    fn list_and_describe_take_a_resource_type_and_flag_values_are_skipped() {
        assert_eq!(analyze(&["list", "po"]).wanted, Wanted::ResourceTypes { with_clusters: true });
        assert_eq!(
            analyze(&["get", "-n", "default", ""]).wanted,
            Wanted::ResourceTypes { with_clusters: true }
        );
        assert_eq!(analyze(&["describe", ""]).wanted, Wanted::ResourceTypes { with_clusters: false });
        assert_eq!(analyze(&["list", "pods", ""]).wanted, Wanted::Nothing);
    }

    #[test]
    fn auth_can_i_takes_a_verb_a_type_and_cluster_names() {
        assert_eq!(values(&analyze(&["auth", ""]).wanted), ["can-i"]);
        assert!(values(&analyze(&["auth", "can-i", ""]).wanted).contains(&"list"));
        assert_eq!(
            analyze(&["auth", "can-i", "-n", "x", "get", "p"]).wanted,
            Wanted::ResourceTypes { with_clusters: false }
        );
        assert_eq!(analyze(&["auth", "can-i", "get", "pods", "-c", ""]).wanted, Wanted::Clusters);
        assert_eq!(analyze(&["auth", "can-i", "get", "pods", "--cluster=t"]).wanted, Wanted::Clusters);
        let flags = analyze(&["auth", "can-i", "get", "pods", "--"]).wanted;
        for flag in ["--as", "--as-group", "--subresource", "--quiet", "--kubeconfig-user"] {
            assert!(values(&flags).contains(&flag), "{flag}: {flags:?}");
        }
    }

    #[test]
    fn the_kubeconfig_user_switch_is_kept_for_asking_the_server() {
        let request = analyze(&["--kubeconfig-user", "list", ""]);
        assert_eq!(request.overrides.kubeconfig_user, Some(true));
        assert_eq!(request.wanted, Wanted::ResourceTypes { with_clusters: true });
        assert_eq!(analyze(&["list", "--kubeconfig-user=false", ""]).overrides.kubeconfig_user, Some(false));
    }

    #[test]
    fn cluster_flags_take_cluster_names_in_every_spelling() {
        assert_eq!(analyze(&["list", "pods", "--clusterName", ""]).wanted, Wanted::Clusters);
        assert_eq!(analyze(&["pods", "--cluster", "t"]).wanted, Wanted::Clusters);
        let request = analyze(&["list", "pods", "--cluster-name=ten"]);
        assert_eq!((request.wanted, request.prefix.as_str()), (Wanted::Clusters, "ten"));
        assert_eq!(analyze(&["unjoin", ""]).wanted, Wanted::Clusters);
    }

    #[test]
    fn fixed_values_flags_and_files_come_from_the_definitions() {
        assert_eq!(
            values(&analyze(&["list", "pods", "-o", ""]).wanted),
            ["wide", "yaml", "json", "name", "csv", "tsv", "jsonpath=", "custom-columns="]
        );
        assert!(values(&analyze(&["completion", ""]).wanted).contains(&"zsh"));
        assert_eq!(values(&analyze(&["config", ""]).wanted), ["set", "view"]);
        assert_eq!(analyze(&["apply", "-f", ""]).wanted, Wanted::Files);
        assert_eq!(analyze(&["config", "set", "--master-kubeconfig", "~/"]).wanted, Wanted::Files);
        let list_flags = analyze(&["list", "pods", "--"]).wanted;
        assert!(values(&list_flags).contains(&"--clusterName"), "{list_flags:?}");
        assert!(values(&list_flags).contains(&"--server"), "{list_flags:?}");
    }
}
