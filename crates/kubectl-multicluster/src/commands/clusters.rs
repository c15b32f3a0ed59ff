//! `list clusters`: the clusters mc-server knows and their health; from the Go project's server,
//! which has no `/v1/clusters`, its MultiCluster objects.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use mc_types::api::{ClusterInfo, TypeFault};
use mc_types::crd::MultiCluster;
use serde_json::{Value, json};

use crate::cli::{ListArgs, OutputFormat};
use crate::client::Client;
use crate::go_server;
use crate::print::{self, Ctx, table, time};

/// The columns of the cluster table (the Go project's CLI's, which printed them from MultiClusters).
const COLUMNS: [&str; 6] = ["NAME", "VERSION", "HOST", "PLATFORM", "ISMASTER", "STATUS"];

/// Runs `list clusters`.
pub async fn run(client: &Client, args: &ListArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if matches!(
        args.output,
        Some(
            OutputFormat::JsonPath(_)
                | OutputFormat::CustomColumns(_)
                | OutputFormat::Csv
                | OutputFormat::Tsv
        )
    ) || args.sort_by.is_some()
        || !args.label_columns.is_empty()
        || args.created_since.is_some()
    {
        bail!(
            "list clusters prints a table, json, yaml or names: leave out -o jsonpath, -o custom-columns, -o csv, \
             -o tsv, --sort-by, --created-since and -L"
        );
    }
    let mut clusters = match client.clusters().await {
        Ok(clusters) => clusters,
        Err(e) if e.is_missing_endpoint() => return from_multiclusters(client, args, out).await,
        Err(e) => return Err(e.into()),
    };
    clusters.retain(|c| is_wanted(args, &c.name));
    if clusters.is_empty() {
        eprintln!("No clusters found.");
        return Ok(ExitCode::SUCCESS);
    }
    match &args.output {
        Some(OutputFormat::Json) => print::write_json(out, &serde_json::to_value(&clusters)?)?,
        Some(OutputFormat::Yaml) => print::write_yaml(out, &serde_json::to_value(&clusters)?)?,
        Some(OutputFormat::Name) => {
            for c in &clusters {
                writeln!(out, "cluster/{}", c.name)?;
            }
        }
        Some(
            OutputFormat::JsonPath(_)
            | OutputFormat::CustomColumns(_)
            | OutputFormat::Csv
            | OutputFormat::Tsv,
        )
        | None
        | Some(OutputFormat::Wide) => {
            let wide = OutputFormat::is_wide(args.output.as_ref());
            write_table(out, &clusters, &Ctx::now(), wide, !args.no_headers)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `NAME VERSION HOST PLATFORM ISMASTER STATUS`; wide adds how fresh the cluster's objects are:
/// since when it has that status, types listed/total, objects, last event, lag, the replica that
/// syncs it (when replicas split the clusters) and the reason.
pub fn write_table(
    out: &mut dyn Write,
    clusters: &[ClusterInfo],
    ctx: &Ctx,
    wide: bool,
    headers: bool,
) -> std::io::Result<()> {
    let mut header: Vec<String> = COLUMNS.map(String::from).to_vec();
    let sharded = clusters.iter().any(|c| c.synced_by.is_some());
    if wide {
        header.extend(["SINCE", "TYPES", "OBJECTS", "LAST EVENT", "LAG"].map(String::from));
        if sharded {
            header.push("SYNCED BY".into());
        }
        header.push("MESSAGE".into());
    }
    let dash = |s: &str| if s.is_empty() { "-".to_owned() } else { s.to_owned() };
    let rows: Vec<Vec<String>> = clusters
        .iter()
        .map(|c| {
            let mut row = vec![
                c.name.clone(),
                dash(&c.version),
                dash(&c.host),
                dash(&c.platform),
                c.is_master.to_string(),
                c.status.to_string(),
            ];
            if wide {
                row.push(c.since.as_deref().map_or("-".into(), |t| time::since(Some(t), ctx.now)));
                // Listed of total; a server that does not say counts every type as listed.
                let listed = if c.types_listed == 0 && c.status.is_synced() {
                    c.resource_types
                } else {
                    c.types_listed
                };
                row.push(format!("{listed}/{}", c.resource_types));
                row.push(c.objects.to_string());
                row.push(
                    c.last_event
                        .as_deref()
                        .map_or("-".into(), |t| format!("{} ago", time::since(Some(t), ctx.now))),
                );
                row.push(c.lag_seconds.map_or("-".into(), lag));
                if sharded {
                    row.push(dash(c.synced_by.as_deref().unwrap_or("")));
                }
                let message = c.message.clone().or_else(|| c.last_error.clone());
                row.push(faults(c).into_iter().chain(message).collect::<Vec<_>>().join("; "));
            }
            row
        })
        .collect();
    table::write(out, headers.then_some(header.as_slice()), &rows)
}

/// The types a cluster cannot list or watch, named (the first three of each), for `MESSAGE`: the
/// cluster's message holds only its latest failure.
fn faults(c: &ClusterInfo) -> Option<String> {
    let named = |what: &str, faults: &[TypeFault]| {
        let mut names: Vec<String> = faults.iter().take(3).map(|f| f.gvr.clone()).collect();
        if faults.len() > 3 {
            names.push(format!("{} more", faults.len() - 3));
        }
        (!faults.is_empty()).then(|| format!("cannot {what} {}", names.join(", ")))
    };
    let parts: Vec<String> = [named("list", &c.unlisted_types), named("watch", &c.unwatched_types)]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// `list clusters` against the Go project's server: its MultiCluster objects, asked for exactly
/// as the Go project's CLI asks. They say less than `/v1/clusters` (no freshness: `-o wide` adds
/// nothing), and `-o json|yaml` prints the objects themselves, as a `List`.
async fn from_multiclusters(client: &Client, args: &ListArgs, out: &mut dyn Write) -> Result<ExitCode> {
    // One line, like kubectl's warnings: the table means something else than ours (the Go
    // project's STATUS is its own word, `Healthy`).
    eprintln!(
        "Warning: mc-server at {} is an earlier version without /v1/clusters; listing its MultiCluster objects instead",
        client.url()
    );
    let mut items = Vec::new();
    for item in client.list(&go_server::multiclusters_query()).await? {
        let cluster: MultiCluster = serde_json::from_value(item.object.clone())
            .with_context(|| format!("unexpected MultiCluster object from mc-server at {}", client.url()))?;
        items.push((cluster, item.object));
    }
    items.retain(|(c, _)| is_wanted(args, cluster_name(c)));
    if items.is_empty() {
        eprintln!("No clusters found.");
        return Ok(ExitCode::SUCCESS);
    }
    let list = || json!({"apiVersion": "v1", "kind": "List", "items": items.iter().map(|(_, o)| o).collect::<Vec<&Value>>(), "metadata": {"resourceVersion": ""}});
    match &args.output {
        Some(OutputFormat::Json) => print::write_json(out, &list())?,
        Some(OutputFormat::Yaml) => print::write_yaml(out, &list())?,
        Some(OutputFormat::Name) => {
            for (c, _) in &items {
                writeln!(out, "cluster/{}", cluster_name(c))?;
            }
        }
        Some(
            OutputFormat::JsonPath(_)
            | OutputFormat::CustomColumns(_)
            | OutputFormat::Csv
            | OutputFormat::Tsv,
        )
        | None
        | Some(OutputFormat::Wide) => {
            let clusters: Vec<MultiCluster> = items.into_iter().map(|(c, _)| c).collect();
            write_multicluster_table(out, &clusters, !args.no_headers)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether the NAME argument (or else `--clusterName`) asks for this cluster.
fn is_wanted(args: &ListArgs, cluster: &str) -> bool {
    match args.name() {
        Some(name) => name == cluster,
        None => args.filters.clusters.is_empty() || args.filters.clusters.iter().any(|c| c == cluster),
    }
}

/// The cluster a MultiCluster describes: `spec.name`, else the object's name.
fn cluster_name(cluster: &MultiCluster) -> &str {
    match cluster.spec.name.as_str() {
        "" => cluster.metadata.name.as_deref().unwrap_or_default(),
        name => name,
    }
}

/// The cluster table from MultiCluster objects: `spec.{name,version,host,platform,isMaster}` and
/// `status.status`, as the Go project wrote them (`isMaster: "true"`, `Healthy`).
pub fn write_multicluster_table(
    out: &mut dyn Write,
    clusters: &[MultiCluster],
    headers: bool,
) -> std::io::Result<()> {
    let header = COLUMNS.map(String::from);
    let dash = |s: &str| if s.trim().is_empty() { "-".to_owned() } else { s.to_owned() };
    let rows: Vec<Vec<String>> = clusters
        .iter()
        .map(|c| {
            let status = c.status.as_ref().map(|s| s.status.as_str()).unwrap_or_default();
            vec![
                cluster_name(c).to_owned(),
                dash(&c.spec.version),
                dash(&c.spec.host),
                dash(&c.spec.platform),
                c.spec.is_master().to_string(),
                dash(status),
            ]
        })
        .collect();
    table::write(out, headers.then_some(header.as_slice()), &rows)
}

/// Sync lag: milliseconds under a second, else seconds.
fn lag(seconds: f64) -> String {
    if seconds < 1.0 { format!("{}ms", (seconds * 1000.0).round() as u64) } else { format!("{seconds:.1}s") }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use mc_types::api::ClusterInfo;
    use serde_json::json;

    use super::write_table;
    use crate::print::Ctx;

    fn fault(gvr: &str) -> serde_json::Value {
        json!({"type": gvr, "since": "2025-12-31T23:00:00Z", "reason": "the API server answered HTTP 403"})
    }

    /// The wide row's `MESSAGE`: the types that cannot be listed or watched (three of each at
    /// most), then the cluster's latest message; nothing for a cluster without either.
    #[test]
    fn wide_message_names_the_types_that_cannot_be_listed_or_watched() {
        let clusters: Vec<ClusterInfo> = serde_json::from_value(json!([
            {"name": "tencent1", "status": "Synced", "resourceTypes": 57, "typesListed": 57},
            {"name": "tencent5", "status": "Synced", "resourceTypes": 58, "typesListed": 57,
             "message": "v1/secrets: the watch failed",
             "unlistedTypes": [fault("example.com/v2/gadgets")],
             "unwatchedTypes": [fault("v1/configmaps"), fault("v1/secrets"), fault("v1/services"), fault("apps/v1/deployments")]},
            {"name": "tencent6", "status": "Synced", "resourceTypes": 57, "typesListed": 57,
             "unwatchedTypes": [fault("v1/configmaps")]}
        ]))
        .unwrap();
        let mut out = Vec::new();
        write_table(&mut out, &clusters, &Ctx::at("2026-01-01T00:00:00Z".parse().unwrap()), true, true)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[1].trim_end().ends_with("57/57   0         -            -"), "{text}");
        assert!(
            lines[2].ends_with(
                "cannot list example.com/v2/gadgets; cannot watch v1/configmaps, v1/secrets, v1/services, 1 more; \
                 v1/secrets: the watch failed"
            ),
            "{text}"
        );
        assert!(lines[3].ends_with("   cannot watch v1/configmaps"), "{text}");
    }
}
