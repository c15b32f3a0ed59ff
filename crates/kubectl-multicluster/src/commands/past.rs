//! `list TYPE --deleted [--since D]` and `list TYPE --at TIME`: a type's objects as they were
//! when deleted, or as they stood at a time, printed as `list` prints the present (with a
//! DELETED column for deletions).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use k8s_openapi::jiff::Timestamp;
use mc_types::age;
use mc_types::api::ListWithClusterItem;
use mc_types::history::{PastObject, paths};

use super::printing::{Format, Printing};
use super::table_spec::table_spec;
use crate::cli::ListArgs;
use crate::client::{self, Client};
use crate::print::{self, Ctx, View, table};

/// Runs `list --deleted` or `list --at`.
pub async fn run(client: &Client, args: ListArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let printing = Printing::new(&args)?;
    let (path, moment) = match &args.at {
        Some(at) => (paths::AT, Some(("at", at.clone()))),
        None => (paths::DELETED, args.since.clone().map(|s| ("since", s))),
    };
    let mut query: Vec<(&str, String)> = vec![("gvr", client::canonical_gvr(&args.resource).into_owned())];
    query.extend(moment);
    let optional = [
        ("namespace", &args.filters.namespace),
        ("name", &args.name().map(str::to_owned)),
        ("labelSelector", &args.filters.selector),
    ];
    for (key, value) in optional {
        if let Some(v) = value {
            query.push((key, v.clone()));
        }
    }
    if let Some(limit) = args.limit {
        query.push(("limit", limit.to_string()));
    }
    let (resources, found) =
        tokio::join!(client.resources(), fetch(client, path, &query, &args.filters.clusters));
    let found = found?;
    if found.is_empty() && !matches!(printing.format, Format::Json | Format::Yaml) {
        eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
        return Ok(ExitCode::SUCCESS);
    }
    let deleted = args.at.is_none();
    let times: Vec<String> = found.iter().map(|p| p.time.clone()).collect();
    let items: Vec<ListWithClusterItem> = found
        .into_iter()
        .map(|p| ListWithClusterItem { cluster_name: p.cluster_name, object: p.object })
        .collect();
    match &printing.format {
        Format::Json => print::write_json(out, &print::list_document(&items))?,
        Format::Yaml => print::write_yaml(out, &print::list_document(&items))?,
        Format::Name => print::write_names(out, &items, args.filters.clusters.len() == 1)?,
        Format::Template(template) => {
            out.write_all(template.render(&print::list_document(&items)).as_bytes())?
        }
        Format::Columns(columns) => {
            let rows: Vec<Vec<String>> = items.iter().map(|i| columns.row(&print::with_cluster(i))).collect();
            let headers = (!args.no_headers).then(|| columns.headers());
            table::write(out, headers.as_deref(), &rows)?;
        }
        Format::Table { wide, layout } => {
            let spec =
                table_spec(client, &args.resource, resources.ok().flatten(), items.first(), View::of(*wide))
                    .await;
            let ctx = Ctx::now();
            let now = Timestamp::now();
            let rows: Vec<Vec<String>> = items
                .iter()
                .zip(&times)
                .map(|(i, time)| {
                    let mut row = spec.row(&i.cluster_name, &i.object, &ctx, *wide);
                    if deleted {
                        row.push(age::since(Some(time), now));
                    }
                    row.extend(printing.labels.cells(&i.object));
                    row
                })
                .collect();
            let headers = (!args.no_headers).then(|| {
                let mut headers = spec.headers(*wide);
                if deleted {
                    headers.push("DELETED".into());
                }
                headers.extend(printing.labels.headers());
                headers
            });
            layout.write(out, headers.as_deref(), &rows)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The answer of every cluster asked (one request per cluster named, or one for all).
async fn fetch(
    client: &Client,
    path: &str,
    query: &[(&str, String)],
    clusters: &[String],
) -> Result<Vec<PastObject>> {
    if clusters.is_empty() {
        return Ok(client.get_json(path, query).await?);
    }
    let mut all = Vec::new();
    for cluster in clusters {
        let mut q = query.to_vec();
        q.push(("cluster", cluster.clone()));
        all.extend(client.get_json::<Vec<PastObject>>(path, &q).await?);
    }
    Ok(all)
}
