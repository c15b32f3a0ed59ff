//! `auth can-i VERB TYPE [NAME]`: may I (or, with an admin token, `--as` someone) do this in
//! each cluster? mc-server answers from each member's RBAC (`/v1/auth/can-i`); the exit code
//! answers too, as kubectl's: 0 when allowed in every cluster asked, 1 otherwise.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use mc_types::api::CanIAnswer;
use reqwest::StatusCode;

use crate::cli::{AuthArgs, AuthCommand, CanIArgs};
use crate::client::{CanIQuery, Client, Error, canonical_gvr};
use crate::print::table;

/// The columns, as kubectl would name them.
const COLUMNS: [&str; 3] = ["CLUSTER", "ALLOWED", "REASON"];

/// Runs an `auth` verb.
pub async fn run(client: &Client, args: AuthArgs, out: &mut dyn Write) -> Result<ExitCode> {
    match args.command {
        AuthCommand::CanI(args) => can_i(client, args, out).await,
    }
}

/// Asks each cluster (those of `-c`, else every one) and prints its answer.
async fn can_i(client: &Client, args: CanIArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let query = CanIQuery {
        verb: args.verb,
        gvr: canonical_gvr(&args.resource).into_owned(),
        namespace: args.namespace,
        name: args.name,
        subresource: args.subresource,
        cluster: None,
        user: args.as_user,
        groups: args.as_groups,
    };
    let mut clusters: Vec<String> = Vec::new();
    for c in args.clusters {
        if !clusters.contains(&c) {
            clusters.push(c);
        }
    }
    let mut answers = Vec::new();
    if clusters.is_empty() {
        answers = ask(client, &query).await?;
    }
    for cluster in clusters {
        answers.extend(ask(client, &CanIQuery { cluster: Some(cluster), ..query.clone() }).await?);
    }
    if !args.quiet {
        if answers.is_empty() {
            eprintln!("No clusters found.");
        } else {
            write_table(out, &answers)?;
        }
    }
    let allowed = !answers.is_empty() && answers.iter().all(|a| a.allowed);
    Ok(if allowed { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// One question; a server without the endpoint is said to be one.
async fn ask(client: &Client, query: &CanIQuery) -> Result<Vec<CanIAnswer>> {
    match client.can_i(query).await {
        Ok(answers) => Ok(answers),
        Err(Error::Api { status: StatusCode::NOT_FOUND, message, .. })
            if message.starts_with("no such endpoint") || message.contains("page not found") =>
        {
            bail!(
                "mc-server at {} cannot answer auth can-i (no /v1/auth/can-i): it is an earlier version, or the Go project's server",
                client.url()
            )
        }
        Err(e) => Err(e.into()),
    }
}

/// `CLUSTER ALLOWED REASON`, one row per answer.
pub fn write_table(out: &mut dyn Write, answers: &[CanIAnswer]) -> std::io::Result<()> {
    let headers = COLUMNS.map(String::from);
    let rows: Vec<Vec<String>> = answers
        .iter()
        .map(|a| {
            let allowed = if a.allowed { "yes" } else { "no" };
            vec![a.cluster.clone(), allowed.to_owned(), a.reason.clone()]
        })
        .collect();
    table::write(out, Some(&headers), &rows)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn answers_print_as_kubectl_columns() {
        let answer = |cluster: &str, allowed: bool, reason: &str| CanIAnswer {
            cluster: cluster.into(),
            allowed,
            reason: reason.into(),
        };
        let mut out = Vec::new();
        write_table(
            &mut out,
            &[answer("tencent1", true, "RoleBinding/team-a/alice-view"), answer("tencent22", false, "")],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "CLUSTER     ALLOWED   REASON\ntencent1    yes       RoleBinding/team-a/alice-view\ntencent22   no\n"
        );
    }
}
