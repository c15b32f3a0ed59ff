//! `list` as rows of the server's `meta.k8s.io/v1` Table: the server computes the cells (the
//! shared printer registry, CRD printer columns), so only text crosses the wire and 10,000 pods
//! print fast. Used for tables, csv and tsv without a JSONPath `--sort-by`; anything else, and a
//! server without the Kubernetes API (the Go project's), goes through the object path in
//! `super::list_kind`.

use anyhow::Result;
use mc_types::{ResourceCatalog, ResourceInfo};
use serde_json::Value;

use super::listed::Rows;
use crate::cli::ListArgs;
use crate::client::{Client, Error as ClientError};
use crate::created_since::Cutoff;
use crate::print::label_columns::LabelColumns;

/// What the Table rows of one type are asked with.
pub struct TableAsk<'a> {
    /// The arguments (filters, clusters).
    pub args: &'a ListArgs,
    /// The type, as typed.
    pub kind: &'a str,
    /// `-L`.
    pub labels: &'a LabelColumns,
    /// `-o wide`.
    pub wide: bool,
    /// `--created-since`, applied to each row's metadata.
    pub cutoff: Option<Cutoff>,
    /// At most this many rows from the server (all without).
    pub limit: Option<u64>,
}

/// The rows of one type from Table answers; `None` when this server or query needs the object
/// path (no Kubernetes API, an unknown type or cluster: the object path words those errors).
pub async fn rows(
    client: &Client,
    ask: &TableAsk<'_>,
    resources: Option<&[ResourceInfo]>,
) -> Result<Option<Rows>> {
    let Some(resources) = resources else { return Ok(None) };
    let catalog = ResourceCatalog::new(resources.to_vec());
    let Ok(info) = catalog.resolve_str(ask.kind) else { return Ok(None) };
    let args = ask.args;
    let params = params(ask);
    let prefixes: Vec<String> = match args.filters.clusters.as_slice() {
        [] => vec![String::new()],
        clusters => clusters.iter().map(|c| format!("/clusters/{c}")).collect(),
    };
    let mut headers: Option<Vec<String>> = None;
    let mut rows: Vec<Vec<String>> = Vec::new();
    for prefix in prefixes {
        let path = format!("{prefix}{}", collection(info, args.filters.namespace.as_deref()));
        let remaining = ask.limit.map(|n| n.saturating_sub(rows.len() as u64));
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
                headers =
                    Some(page.columns.iter().map(|c| c.name.clone()).chain(ask.labels.headers()).collect());
            }
            for row in page.rows {
                let object = row.object.unwrap_or(Value::Null);
                if ask.cutoff.is_some_and(|c| !c.admits(&object)) {
                    continue;
                }
                let mut cells: Vec<String> = row.cells.into_iter().map(cell_text).collect();
                cells.extend(ask.labels.cells(&object));
                rows.push(cells);
            }
        }
    }
    Ok(Some(Rows { headers: headers.unwrap_or_default(), rows }))
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

fn params(ask: &TableAsk<'_>) -> Vec<(&'static str, String)> {
    let args = ask.args;
    // Label columns and --created-since need each row's metadata; otherwise the cells are all
    // there is to send.
    let metadata = !ask.labels.is_empty() || ask.cutoff.is_some();
    let mut params = vec![
        ("view", if ask.wide { "plugin-wide" } else { "plugin" }.to_owned()),
        ("includeObject", if metadata { "Metadata" } else { "None" }.to_owned()),
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
