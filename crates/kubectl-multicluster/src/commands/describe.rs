//! `describe <gvr> --name X`: the object as YAML, one document per cluster.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use reqwest::StatusCode;

use crate::cli::DescribeArgs;
use crate::client::{self, Client, ListQuery};
use crate::original::Listing;
use crate::print;
use crate::resolve::{self, Resolver};

/// Runs `describe`. Our server answers the first request; whether the server is the original
/// (no `/v1/resources`) is asked only when the answer depends on it: when it refused the type, or
/// when selectors were given, which the original would ignore.
pub async fn run(
    client: &Client,
    resolver: Resolver,
    args: DescribeArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let query = ListQuery {
        gvr: resolve::canonical(&args.resource).into_owned(),
        // One cluster per request: the others are asked by `Listing::add_clusters`.
        cluster: args.filters.clusters.first().cloned(),
        namespace: args.filters.namespace.clone(),
        name: args.name().map(str::to_owned),
        label_selector: args.filters.selector.clone(),
        field_selector: args.filters.field_selector.clone(),
        limit: None,
    };
    let selectors = query.label_selector.is_some() || query.field_selector.is_some();
    let (first, resources) = if selectors {
        let (first, resources) = tokio::join!(client.list_pages(&query), client.resources());
        (first, Some(resources))
    } else {
        (client.list_pages(&query).await, None)
    };
    let refused = first
        .as_ref()
        .err()
        .and_then(client::Error::status)
        .is_some_and(|s| s == StatusCode::BAD_REQUEST || s == StatusCode::NOT_FOUND);
    let resources = match resources {
        Some(resources) => resources,
        None if refused => client.resources().await,
        // Answered: whichever server it is, the answer stands.
        None => Ok(Some(Vec::new())),
    };
    let mut listing = Listing::settle(client, &query, first, resources, resolver).await?;
    listing.add_clusters(client, &query, args.filters.clusters.get(1..).unwrap_or_default()).await?;
    let items = listing.items()?.iter().map(super::list::parse).collect::<Result<Vec<_>>>()?;
    if items.is_empty() {
        let Some(name) = args.name() else {
            eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
            return Ok(ExitCode::SUCCESS);
        };
        let namespace =
            args.filters.namespace.as_deref().map(|n| format!(" in namespace {n}")).unwrap_or_default();
        let cluster = match args.filters.clusters.as_slice() {
            [] => " in any cluster".into(),
            [c] => format!(" in cluster {c}"),
            several => format!(" in clusters {}", several.join(", ")),
        };
        bail!("{} \"{name}\" not found{namespace}{cluster}", args.resource);
    }
    print::write_described(out, &items)?;
    Ok(ExitCode::SUCCESS)
}
