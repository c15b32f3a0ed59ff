//! `list` as rows of the server's `meta.k8s.io/v1` Table: the server computes the cells (the
//! shared printer registry, CRD printer columns), so only text crosses the wire and 10,000 pods
//! print fast. Used for tables without `--sort-by`; anything else, and a server without the
//! Kubernetes API (the Go project's), goes through the object path in [`super::list`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use mc_types::{ResourceCatalog, ResourceInfo};
use serde_json::Value;

use crate::cli::ListArgs;
use crate::client::{Client, Error as ClientError};
use crate::print::label_columns::LabelColumns;
use crate::print::{self, not_found, table};

/// Prints `list` from Table rows; `None` when this server or query needs the object path (no
/// Kubernetes API, an unknown type or cluster: the object path words those errors).
pub async fn run(
    client: &Client,
    args: &ListArgs,
    resources: Option<&[ResourceInfo]>,
    labels: &LabelColumns,
    wide: bool,
    out: &mut dyn Write,
) -> Result<Option<ExitCode>> {
    let Some(resources) = resources else { return Ok(None) };
    let catalog = ResourceCatalog::new(resources.to_vec());
    let Ok(info) = catalog.resolve_str(&args.resource) else { return Ok(None) };
    let params = params(args, labels, wide);
    let prefixes: Vec<String> = match args.filters.clusters.as_slice() {
        [] => vec![String::new()],
        clusters => clusters.iter().map(|c| format!("/clusters/{c}")).collect(),
    };
    let mut headers: Option<Vec<String>> = None;
    let mut rows: Vec<Vec<String>> = Vec::new();
    for prefix in prefixes {
        let path = format!("{prefix}{}", collection(info, args.filters.namespace.as_deref()));
        let remaining = args.limit.filter(|&n| n > 0).map(|n| n.saturating_sub(rows.len() as u64));
        if remaining == Some(0) {
            break;
        }
        let pages = match client.table_pages(&path, &params, remaining).await {
            Ok(pages) => pages,
            Err(ClientError::Api { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        for page in pages {
            if headers.is_none() && !page.columns.is_empty() {
                headers = Some(page.columns.iter().map(|c| c.name.clone()).chain(labels.headers()).collect());
            }
            rows.extend(page.rows.into_iter().map(|row| {
                let mut cells: Vec<String> = row.cells.into_iter().map(cell_text).collect();
                if let Some(object) = &row.object {
                    cells.extend(labels.cells(object));
                }
                cells
            }));
        }
    }
    if rows.is_empty() {
        if let Some(name) = args.name() {
            eprintln!(
                "{}",
                not_found::message(&not_found::resource_name(&args.resource, Some(resources)), name)
            );
            return Ok(Some(ExitCode::FAILURE));
        }
        eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
        return Ok(Some(ExitCode::SUCCESS));
    }
    let headers = headers.filter(|_| !args.no_headers);
    table::write(out, headers.as_deref(), &rows)?;
    Ok(Some(ExitCode::SUCCESS))
}

/// `/api/v1/[namespaces/NS/]pods` or `/apis/GROUP/VERSION/…`.
fn collection(info: &ResourceInfo, namespace: Option<&str>) -> String {
    let base = if info.group.is_empty() {
        format!("/api/{}", info.version)
    } else {
        format!("/apis/{}/{}", info.group, info.version)
    };
    match namespace.filter(|_| info.namespaced) {
        Some(ns) => format!("{base}/namespaces/{ns}/{}", info.resource),
        None => format!("{base}/{}", info.resource),
    }
}

fn params(args: &ListArgs, labels: &LabelColumns, wide: bool) -> Vec<(&'static str, String)> {
    let mut params = vec![
        ("view", if wide { "plugin-wide" } else { "plugin" }.to_owned()),
        // Label columns need each row's labels; otherwise the cells are all there is to send.
        ("includeObject", if labels.is_empty() { "None" } else { "Metadata" }.to_owned()),
    ];
    if let Some(selector) = &args.filters.selector {
        params.push(("labelSelector", selector.clone()));
    }
    let mut fields: Vec<String> = args.filters.field_selector.iter().cloned().collect();
    if let Some(name) = args.name() {
        fields.push(format!("metadata.name={name}"));
    }
    if !fields.is_empty() {
        params.push(("fieldSelector", fields.join(",")));
    }
    params
}

fn cell_text(cell: Value) -> String {
    match cell {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
