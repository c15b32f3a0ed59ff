//! `tree TYPE/NAME`: an object and what is related to it, one tree per cluster, as `kubectl
//! tree` prints one: owners down to pods, then what each pod uses (its node, claims and volumes,
//! ConfigMaps, Secrets, ServiceAccount).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use k8s_openapi::jiff::Timestamp;
use mc_types::tree::{ClusterTree, PATH, TreeNode};

use crate::cli::TreeArgs;
use crate::client::Client;
use crate::print;

/// Runs `tree`.
pub async fn run(client: &Client, args: TreeArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let (resource, name) = args.target()?;
    let mut query = vec![("gvr", resource), ("name", name), ("namespace", args.namespace.clone())];
    if let Some(c) = &args.cluster {
        query.push(("cluster", c.clone()));
    }
    let trees: Vec<ClusterTree> = client.get_json(PATH, &query).await?;
    match args.output.as_deref() {
        Some("json") => print::write_json(out, &serde_json::to_value(&trees)?)?,
        Some("yaml") => print::write_yaml(out, &serde_json::to_value(&trees)?)?,
        Some(other) => bail!("tree prints a tree, json or yaml, not -o {other}"),
        None => write_trees(out, &trees, Timestamp::now())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One table per cluster, headed `CLUSTER: NAME`, its NAME column drawn as a tree.
pub fn write_trees(out: &mut dyn Write, trees: &[ClusterTree], now: Timestamp) -> std::io::Result<()> {
    for (i, t) in trees.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "CLUSTER: {}", t.cluster)?;
        let mut rows = vec![["NAMESPACE", "NAME", "READY", "STATUS", "AGE"].map(String::from)];
        rows_of(&t.root, String::new(), None, now, &mut rows);
        let widths: Vec<usize> =
            (0..5).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
        for r in &rows {
            let mut line = String::new();
            for (c, cell) in r.iter().enumerate() {
                line.push_str(cell);
                if c < 4 {
                    line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        if t.truncated {
            writeln!(out, "(cut: the tree has more objects than the server answers)")?;
        }
    }
    Ok(())
}

/// The rows of `n` and below: `prefix` continues the parent's branches, `last` says whether `n`
/// is its parent's last child (`None`: the root).
fn rows_of(n: &TreeNode, prefix: String, last: Option<bool>, now: Timestamp, rows: &mut Vec<[String; 5]>) {
    let branch = match last {
        None => "",
        Some(true) => "└─",
        Some(false) => "├─",
    };
    let cluster = n.cluster.as_ref().map(|c| format!(" (cluster {c})")).unwrap_or_default();
    let status = if n.missing { "Missing".to_string() } else { n.status.clone().unwrap_or_default() };
    let age =
        if n.created.is_some() { mc_types::age::since(n.created.as_deref(), now) } else { String::new() };
    rows.push([
        n.namespace.clone(),
        format!("{prefix}{branch}{}/{}{cluster}", n.kind, n.name),
        n.ready.clone().unwrap_or_default(),
        status,
        age,
    ]);
    let below = match last {
        None => prefix,
        Some(true) => format!("{prefix}  "),
        Some(false) => format!("{prefix}│ "),
    };
    for (i, c) in n.children.iter().enumerate() {
        rows_of(c, below.clone(), Some(i + 1 == n.children.len()), now, rows);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn prints_one_tree_per_cluster_with_unicode_branches() {
        let trees: Vec<ClusterTree> = serde_json::from_value(json!([{"cluster": "c1", "root": {
            "relation": "root", "apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web",
            "ready": "2/2", "status": "Ready", "created": "2025-12-31T23:00:00Z", "children": [
                {"relation": "owned", "apiVersion": "apps/v1", "kind": "ReplicaSet", "namespace": "shop", "name": "web-1",
                 "ready": "2/2", "children": [
                    {"relation": "owned", "apiVersion": "v1", "kind": "Pod", "namespace": "shop", "name": "web-1-a",
                     "ready": "1/1", "status": "Running", "children": [
                        {"relation": "runsOn", "apiVersion": "v1", "kind": "Node", "name": "n1", "status": "Ready"},
                        {"relation": "configMap", "apiVersion": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "gone", "missing": true}]},
                    {"relation": "owned", "apiVersion": "v1", "kind": "Pod", "namespace": "shop", "name": "web-1-b"}]}]}}]))
        .unwrap();
        let mut out = Vec::new();
        write_trees(&mut out, &trees, "2026-01-01T00:00:00Z".parse().unwrap()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            concat!(
                "CLUSTER: c1\n",
                "NAMESPACE  NAME                  READY  STATUS   AGE\n",
                "shop       Deployment/web        2/2    Ready    60m\n",
                "shop       └─ReplicaSet/web-1    2/2\n",
                "shop         ├─Pod/web-1-a       1/1    Running\n",
                "             │ ├─Node/n1                Ready\n",
                "shop         │ └─ConfigMap/gone         Missing\n",
                "shop         └─Pod/web-1-b\n",
            )
        );
    }
}
