//! `top pods|nodes`: the CPU and memory use of pods or nodes in every cluster, read through
//! mc-server's `metrics.k8s.io/v1beta1` (which asks each member that serves it), printed in
//! kubectl top's columns with a CLUSTER column first. A node's percentages are of its
//! allocatable, read from the nodes mc-server has synced. Clusters without metrics are named in
//! the server's `Warning` (said on stderr); no cluster with metrics at all is an error.

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use mc_types::api::paths::RESOURCE_METRICS;
use mc_types::crd::CLUSTER_ANNOTATION;
use serde_json::Value;

use crate::cli::{TopArgs, TopKind};
use crate::client::{Client, ListQuery};
use crate::print::quantity::{bytes, millicores};
use crate::print::{nothing_found, table};

/// One MiB: kubectl top prints memory in `Mi`.
const MIB: u64 = 1024 * 1024;

/// A row's figures: CPU in millicores and memory in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Usage {
    cpu: u64,
    memory: u64,
}

impl Usage {
    /// The `cpu` and `memory` of a `usage` (or `allocatable`) map; what is missing or unreadable
    /// counts 0.
    fn of(map: &Value) -> Usage {
        Usage {
            cpu: map["cpu"].as_str().and_then(millicores).unwrap_or(0),
            memory: map["memory"].as_str().and_then(bytes).unwrap_or(0),
        }
    }

    fn add(self, other: Usage) -> Usage {
        Usage { cpu: self.cpu + other.cpu, memory: self.memory + other.memory }
    }
}

/// Runs `top`.
pub async fn run(client: &Client, args: TopArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let items = metrics(client, &args).await?;
    let mut rows = match args.kind {
        TopKind::Pods => pod_rows(&items, args.all_namespaces),
        TopKind::Nodes => node_rows(&items, &allocatable(client, &args).await?),
    };
    if rows.is_empty() {
        let namespace =
            (args.kind == TopKind::Pods && !args.all_namespaces).then_some(args.namespace.as_str());
        eprintln!("{}", nothing_found(namespace));
        return Ok(ExitCode::SUCCESS);
    }
    rows.sort();
    let headers: Vec<String> =
        headers(args.kind, args.all_namespaces).iter().map(|h| h.to_string()).collect();
    table::write(out, Some(&headers), &rows)?;
    Ok(ExitCode::SUCCESS)
}

/// kubectl top's columns, CLUSTER first.
fn headers(kind: TopKind, all_namespaces: bool) -> Vec<&'static str> {
    match (kind, all_namespaces) {
        (TopKind::Pods, true) => vec!["CLUSTER", "NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"],
        (TopKind::Pods, false) => vec!["CLUSTER", "NAME", "CPU(cores)", "MEMORY(bytes)"],
        (TopKind::Nodes, _) => vec!["CLUSTER", "NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"],
    }
}

/// Every metrics item of the clusters asked for (all, or each `-c` under `/clusters/NAME`).
async fn metrics(client: &Client, args: &TopArgs) -> Result<Vec<Value>> {
    let path = match (args.kind, args.all_namespaces) {
        (TopKind::Nodes, _) => format!("{RESOURCE_METRICS}/nodes"),
        (TopKind::Pods, true) => format!("{RESOURCE_METRICS}/pods"),
        (TopKind::Pods, false) => format!("{RESOURCE_METRICS}/namespaces/{}/pods", args.namespace),
    };
    let query: Vec<(&str, String)> = args.selector.iter().map(|s| ("labelSelector", s.clone())).collect();
    let scopes: Vec<String> = match args.clusters.as_slice() {
        [] => vec![String::new()],
        some => some.iter().map(|c| format!("/clusters/{c}")).collect(),
    };
    let mut items = Vec::new();
    let mut without = Vec::new();
    for scope in &scopes {
        match client.kube_json(&format!("{scope}{path}"), &query).await {
            Ok(list) => items.extend(list["items"].as_array().cloned().unwrap_or_default()),
            // The group is unknown there: no cluster in that scope serves metrics.
            Err(e) if e.is_missing_endpoint() => {
                without.push(scope.trim_start_matches("/clusters/").to_string())
            }
            Err(e) => return Err(e.into()),
        }
    }
    if without.len() == scopes.len() {
        let which = if args.clusters.is_empty() {
            "no cluster".to_string()
        } else {
            format!("none of {}", args.clusters.join(", "))
        };
        bail!(
            "Metrics API not available: {which} serves metrics.k8s.io/v1beta1 (install metrics-server in the members)"
        );
    }
    if !without.is_empty() {
        eprintln!("Warning: cluster(s) {} serve no metrics API: they are left out", without.join(", "));
    }
    Ok(items)
}

/// An item's cluster (the server's annotation).
fn cluster_of(item: &Value) -> String {
    item["metadata"]["annotations"][CLUSTER_ANNOTATION].as_str().unwrap_or_default().to_string()
}

fn name_of(item: &Value) -> String {
    item["metadata"]["name"].as_str().unwrap_or_default().to_string()
}

/// `CLUSTER [NAMESPACE] NAME CPU MEMORY`, each pod's containers summed.
fn pod_rows(items: &[Value], all_namespaces: bool) -> Vec<Vec<String>> {
    items
        .iter()
        .map(|item| {
            let usage = item["containers"]
                .as_array()
                .map(|cs| cs.iter().map(|c| Usage::of(&c["usage"])).fold(Usage::default(), Usage::add))
                .unwrap_or_default();
            let mut row = vec![cluster_of(item)];
            if all_namespaces {
                row.push(item["metadata"]["namespace"].as_str().unwrap_or_default().to_string());
            }
            row.extend([name_of(item), cpu(usage.cpu), memory(usage.memory)]);
            row
        })
        .collect()
}

/// `CLUSTER NAME CPU CPU% MEMORY MEMORY%`; the percentages `<unknown>` without the node's
/// allocatable.
fn node_rows(items: &[Value], allocatable: &HashMap<(String, String), Usage>) -> Vec<Vec<String>> {
    items
        .iter()
        .map(|item| {
            let (cluster, name) = (cluster_of(item), name_of(item));
            let usage = Usage::of(&item["usage"]);
            let of = allocatable.get(&(cluster.clone(), name.clone()));
            let percent = |used: u64, total: Option<u64>| match total.filter(|&t| t > 0) {
                Some(total) => format!("{}%", used * 100 / total),
                None => "<unknown>".to_string(),
            };
            vec![
                cluster,
                name,
                cpu(usage.cpu),
                percent(usage.cpu, of.map(|a| a.cpu)),
                memory(usage.memory),
                percent(usage.memory, of.map(|a| a.memory)),
            ]
        })
        .collect()
}

/// Each node's allocatable, by cluster and name, from the nodes mc-server has synced.
async fn allocatable(client: &Client, args: &TopArgs) -> Result<HashMap<(String, String), Usage>> {
    let cluster = match args.clusters.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    };
    let query = ListQuery {
        gvr: "v1/nodes".into(),
        cluster,
        label_selector: args.selector.clone(),
        ..Default::default()
    };
    let nodes = client.list(&query).await?;
    Ok(nodes
        .into_iter()
        .map(|n| {
            let key = (n.cluster_name, name_of(&n.object));
            (key, Usage::of(&n.object["status"]["allocatable"]))
        })
        .collect())
}

/// kubectl top's CPU: millicores.
fn cpu(millis: u64) -> String {
    format!("{millis}m")
}

/// kubectl top's memory: MiB, rounded down.
fn memory(bytes: u64) -> String {
    format!("{}Mi", bytes / MIB)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn annotated(cluster: &str, mut item: Value) -> Value {
        item["metadata"]["annotations"] = json!({CLUSTER_ANNOTATION: cluster});
        item
    }

    #[test]
    fn a_pods_containers_are_summed_and_printed_as_kubectl_top_prints_them() {
        let pod = annotated(
            "east",
            json!({"metadata": {"name": "web", "namespace": "shop"}, "containers": [
                {"name": "a", "usage": {"cpu": "1500000n", "memory": "10Mi"}},
                {"name": "b", "usage": {"cpu": "3m", "memory": "2097152"}}]}),
        );
        assert_eq!(pod_rows(std::slice::from_ref(&pod), true), [["east", "shop", "web", "5m", "12Mi"]]);
        assert_eq!(pod_rows(&[pod], false), [["east", "web", "5m", "12Mi"]]);
    }

    #[test]
    fn node_percentages_are_of_the_allocatable_or_unknown() {
        let node = |name: &str| {
            annotated("east", json!({"metadata": {"name": name}, "usage": {"cpu": "250m", "memory": "1Gi"}}))
        };
        let allocatable =
            HashMap::from([(("east".to_string(), "n1".to_string()), Usage { cpu: 2000, memory: 4 << 30 })]);
        assert_eq!(
            node_rows(&[node("n1"), node("n2")], &allocatable),
            [
                ["east", "n1", "250m", "12%", "1024Mi", "25%"],
                ["east", "n2", "250m", "<unknown>", "1024Mi", "<unknown>"],
            ]
        );
    }
}
