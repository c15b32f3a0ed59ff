//! `list <gvr>`: objects of one type (or several, or `all`) in every cluster, as a table, csv,
//! tsv, JSON, YAML or names.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use super::list_kind::{Kind, cutoff, query, write_objects, write_rows};
use super::listed::{Limit, Listed};
use super::printing::{Format, Printing};
use crate::cli::ListArgs;
use crate::client::Client;
use crate::go_server::Resolver;
use crate::print::{self, not_found};

/// Runs `list`. The type goes to the server as typed (explicit forms canonical); only a server
/// without `/v1/resources` — the Go project's — gets it resolved here.
pub async fn run(
    client: &Client,
    resolver: impl Fn() -> Resolver,
    args: ListArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    if args.resource == "clusters" {
        return super::clusters::run(client, &args, out).await;
    }
    if args.deleted || args.at.is_some() {
        return super::past::run(client, args, out).await;
    }
    let printing = Printing::new(&args)?;
    if args.owner.is_some() && super::list_kinds::several(&args.resource) {
        anyhow::bail!("--owner lists one type, not {}", args.resource);
    }
    if super::list_kinds::several(&args.resource) {
        return super::list_kinds::run(client, &resolver, &args, &printing, out).await;
    }
    let query = query(&args, &args.resource);
    if args.watch {
        return super::watch::run(client, &args, &printing, &query, out).await;
    }
    let ctx = Kind { client, args: &args, printing: &printing, cutoff: cutoff(&args) };
    let mut limit = Limit::new(args.limit);
    let (mut listed, resources) = ctx.fetch(resolver(), &args.resource, None, &limit).await?;
    if listed.is_empty() {
        // Like kubectl: a name that matches nothing is an error.
        if let Some(name) = args.name() {
            let resource = not_found::resource_name(&args.resource, resources.as_deref());
            eprintln!("{}", not_found::message(&resource, name));
            return Ok(ExitCode::FAILURE);
        }
        // An empty JSON/YAML list is still a list (and a template runs on it); tables and names
        // say so on stderr.
        if !matches!(printing.format, Format::Json | Format::Yaml | Format::Template(_)) {
            eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
            return Ok(ExitCode::SUCCESS);
        }
    }
    limit.apply(&mut listed);
    match listed {
        Listed::Rows(rows) => write_rows(out, &printing, &args, &rows)?,
        Listed::Objects(items) => write_objects(out, &printing, &args, &items, args.name().is_some())?,
    }
    if let Some(note) = limit.note() {
        eprintln!("{note}");
    }
    Ok(ExitCode::SUCCESS)
}
