//! `list <gvr>`: objects of one type in every cluster, as a table, JSON, YAML or names.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use mc_types::api::ListWithClusterItem;

use super::printing::{Format, Printing};
use super::table_spec::table_spec;
use crate::cli::ListArgs;
use crate::client::{self, Client, ListQuery, RawListItem};
use crate::go_server::{Listing, Resolver};
use crate::print::sort::SortBy;
use crate::print::{self, Ctx, View, not_found, table};

/// Runs `list`. The type goes to the server as typed (explicit forms canonical); only a server
/// without `/v1/resources` — the Go project's — gets it resolved here.
pub async fn run(
    client: &Client,
    resolver: Resolver,
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
    let query = query(&args);
    if args.watch {
        return super::watch::run(client, &args, &printing, &query, out).await;
    }
    // A table is asked for as Table rows (types are resolved first); anything else, or a server
    // that cannot answer them, lists objects (asking for types at the same time).
    let (first, resources) = if let (Format::Table { wide }, None) = (&printing.format, &printing.sort_by) {
        let resources = client.resources().await?;
        if let Some(code) =
            super::list_table::run(client, &args, resources.as_deref(), &printing.labels, *wide, out).await?
        {
            return Ok(code);
        }
        (client.list_pages(&query).await, Ok(resources))
    } else {
        tokio::join!(client.list_pages(&query), client.resources())
    };
    let mut listing = Listing::settle(client, &query, first, resources, resolver).await?;
    listing.add_clusters(client, &query, args.filters.clusters.get(1..).unwrap_or_default()).await?;
    let mut raw = listing.items()?;
    if raw.is_empty() {
        // Like kubectl: a name that matches nothing is an error.
        if let Some(name) = args.name() {
            let resource = not_found::resource_name(&args.resource, listing.resources.as_deref());
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
    if let Some(sort_by) = &printing.sort_by {
        let mut keyed = raw
            .into_iter()
            .map(|item| Ok((sort_by.key(&print::into_annotated(parse(&item)?)), item)))
            .collect::<Result<Vec<_>>>()?;
        SortBy::sort(&mut keyed);
        raw = keyed.into_iter().map(|(_, item)| item).collect();
    }
    let parsed = || raw.iter().map(parse).collect::<Result<Vec<_>>>();
    // Like kubectl: a named object found once prints as that object, not as a List.
    let document = |items: &[ListWithClusterItem]| match items {
        [one] if args.name().is_some() => print::with_cluster(one),
        _ => print::list_document(items),
    };
    match &printing.format {
        Format::Json => print::write_json(out, &document(&parsed()?))?,
        Format::Yaml => print::write_yaml(out, &document(&parsed()?))?,
        Format::Name => print::write_names(out, &parsed()?, args.filters.clusters.len() == 1)?,
        // kubectl ends a template's output with nothing of its own.
        Format::Template(template) => out.write_all(template.render(&document(&parsed()?)).as_bytes())?,
        Format::Columns(columns) => {
            let rows = raw
                .iter()
                .map(|item| parse(item).map(|i| columns.row(&print::into_annotated(i))))
                .collect::<Result<Vec<_>>>()?;
            let headers = (!args.no_headers).then(|| columns.headers());
            table::write(out, headers.as_deref(), &rows)?;
        }
        Format::Table { wide } => {
            let wide = *wide;
            let sample = raw.first().map(parse).transpose()?;
            let spec = table_spec(
                client,
                &args.resource,
                listing.resources.clone(),
                sample.as_ref(),
                View::of(wide),
            )
            .await;
            let ctx = Ctx::now();
            // One object parsed at a time: memory stays near the size of the response.
            let rows = raw
                .iter()
                .map(|item| {
                    let i = parse(item)?;
                    let mut row = spec.row(&i.cluster_name, &i.object, &ctx, wide);
                    row.extend(printing.labels.cells(&i.object));
                    Ok(row)
                })
                .collect::<Result<Vec<_>>>()?;
            let headers = (!args.no_headers).then(|| {
                let mut headers = spec.headers(wide);
                headers.extend(printing.labels.headers());
                headers
            });
            table::write(out, headers.as_deref(), &rows)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// An item with its object parsed.
pub(crate) fn parse(item: &RawListItem<'_>) -> Result<ListWithClusterItem> {
    let object = serde_json::from_str(item.object.get())?;
    Ok(ListWithClusterItem { cluster_name: item.cluster_name.clone().into_owned(), object })
}

/// The server query for `list` arguments.
pub fn query(args: &ListArgs) -> ListQuery {
    ListQuery {
        gvr: client::canonical_gvr(&args.resource).into_owned(),
        // One cluster per request: the others are asked by `Listing::add_clusters`.
        cluster: args.filters.clusters.first().cloned(),
        namespace: args.filters.namespace.clone(),
        name: args.name().map(str::to_owned),
        label_selector: args.filters.selector.clone(),
        field_selector: args.filters.field_selector.clone(),
        limit: args.limit,
    }
}
