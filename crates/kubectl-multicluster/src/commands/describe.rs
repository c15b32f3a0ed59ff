//! `describe <gvr> --name X`: the object as YAML, one document per cluster, followed by its
//! Events from the store (as YAML comments, so the output stays YAML) and, with `--related`,
//! its neighbours one step away in its cluster (`/v1/tree?neighbours=true`), as comments too.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use reqwest::StatusCode;
use serde_json::Value;

use mc_types::tree::{ClusterTree, PATH, TreeNode};

use crate::cli::DescribeArgs;
use crate::client::{self, Client, ListQuery};
use crate::go_server::{Listing, Resolver};
use crate::print;

/// Runs `describe`. Our server answers the first request; whether the server is the Go project's
/// (no `/v1/resources`) is asked only when the answer depends on it: when it refused the type, or
/// when selectors were given, which the Go project's server would ignore.
pub async fn run(
    client: &Client,
    resolver: Resolver,
    args: DescribeArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let query = ListQuery {
        gvr: client::canonical_gvr(&args.resource).into_owned(),
        // One cluster per request: the others are asked by `Listing::add_clusters`.
        cluster: args.filters.clusters.first().cloned(),
        namespace: args.filters.namespace.clone(),
        name: args.name().map(str::to_owned),
        label_selector: args.filters.selector.clone(),
        field_selector: args.filters.field_selector.clone(),
        limit: None,
        owner: None,
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
    let items = listing.items()?.iter().map(super::list_kind::parse).collect::<Result<Vec<_>>>()?;
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
    // Each object's events, from the store: one request per cluster and namespace.
    let mut events: BTreeMap<(String, String), Result<Vec<Value>, String>> = BTreeMap::new();
    for item in &items {
        let key = events_key(item);
        if events.contains_key(&key) {
            continue;
        }
        let query = ListQuery {
            cluster: Some(key.0.clone()),
            namespace: Some(key.1.clone()),
            ..ListQuery::all("v1/events")
        };
        let found = client.list(&query).await.map(|l| l.into_iter().map(|i| i.object).collect());
        events.insert(key, found.map_err(|e| e.to_string()));
    }
    let ctx = print::Ctx::now();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            writeln!(out, "---")?;
        }
        print::write_described(out, std::slice::from_ref(item))?;
        match events.get(&events_key(item)) {
            Some(Ok(all)) => print::events::write(out, &print::events::about(&item.object, all), None, &ctx)?,
            Some(Err(e)) => print::events::write(out, &[], Some(e), &ctx)?,
            None => {}
        }
        if args.related {
            let related = neighbours(client, &args.resource, item).await;
            write_related(out, related.as_ref().map_err(ToString::to_string))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What is one step away from `item` in its cluster (`/v1/tree?neighbours=true`): the root's
/// children.
async fn neighbours(
    client: &Client,
    resource: &str,
    item: &mc_types::api::ListWithClusterItem,
) -> Result<Vec<TreeNode>, client::Error> {
    let metadata = &item.object["metadata"];
    let mut query = vec![
        ("gvr", client::canonical_gvr(resource).into_owned()),
        ("name", metadata["name"].as_str().unwrap_or_default().to_owned()),
        ("cluster", item.cluster_name.clone()),
        ("neighbours", "true".to_owned()),
    ];
    if let Some(ns) = metadata["namespace"].as_str() {
        query.push(("namespace", ns.to_owned()));
    }
    let trees: Vec<ClusterTree> = client.get_json(PATH, &query).await?;
    Ok(trees.into_iter().flat_map(|t| t.root.children).collect())
}

/// The `Related:` section, as YAML comments like the events: one line per neighbour, its
/// relation, kind/name (and cluster when not the object's), ready count and status.
fn write_related(out: &mut dyn Write, related: Result<&Vec<TreeNode>, String>) -> std::io::Result<()> {
    let nodes = match related {
        Err(e) => return writeln!(out, "# Related:  <unknown> ({e})"),
        Ok(nodes) if nodes.is_empty() => return writeln!(out, "# Related:  <none>"),
        Ok(nodes) => nodes,
    };
    writeln!(out, "# Related:")?;
    let mut rows = vec![["Relation", "Object", "Ready", "Status"].map(String::from)];
    for n in nodes {
        let relation = serde_json::to_value(n.relation).ok().and_then(|v| v.as_str().map(str::to_owned));
        let cluster = n.cluster.as_ref().map(|c| format!(" (cluster {c})")).unwrap_or_default();
        let status = if n.missing { "Missing".to_owned() } else { n.status.clone().unwrap_or_default() };
        rows.push([
            relation.unwrap_or_default(),
            format!("{}/{}{cluster}", n.kind, n.name),
            n.ready.clone().unwrap_or_default(),
            status,
        ]);
    }
    let widths: Vec<usize> =
        (0..4).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    for r in &rows {
        let mut line = String::from("#   ");
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            if c < 3 {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Where an object's events are: its cluster and namespace (`default` for cluster-scoped
/// objects, as Kubernetes records them).
fn events_key(item: &mc_types::api::ListWithClusterItem) -> (String, String) {
    let namespace = item.object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
    (item.cluster_name.clone(), namespace.to_owned())
}
