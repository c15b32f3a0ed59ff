//! `logs TYPE/NAME`: the logs of a pod, or of a workload's pods, in every cluster that has it,
//! read through mc-server's Kubernetes API (`/clusters/NAME/api/v1/namespaces/NS/pods/POD/log`)
//! and merged line by line as they come, each line prefixed `[CLUSTER/POD/CONTAINER]` as stern
//! does. One stream failing is said on stderr; the others go on.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use anyhow::{Result, bail};
use futures::StreamExt;
use serde_json::Value;

use crate::cli::LogsArgs;
use crate::client::{Client, ListQuery};

/// What `TYPE/NAME` names.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// A pod.
    Pod(String),
    /// A workload (its type, as the server takes it, and name): the pods its selector selects.
    Workload(&'static str, String),
}

impl Target {
    /// kubectl's spellings: `NAME`, `pod/NAME`, `deploy/NAME`, `deployment.apps/NAME`, …
    fn parse(text: &str) -> Result<Target> {
        let Some((kind, name)) = text.split_once('/') else { return Ok(Target::Pod(text.to_string())) };
        if name.is_empty() {
            bail!("{text}: no name after the type");
        }
        let kind = kind.split('.').next().unwrap_or(kind).to_ascii_lowercase();
        let gvr = match kind.as_str() {
            "po" | "pod" | "pods" => return Ok(Target::Pod(name.to_string())),
            "deploy" | "deployment" | "deployments" => "apps/v1/deployments",
            "sts" | "statefulset" | "statefulsets" => "apps/v1/statefulsets",
            "ds" | "daemonset" | "daemonsets" => "apps/v1/daemonsets",
            "rs" | "replicaset" | "replicasets" => "apps/v1/replicasets",
            "job" | "jobs" => "batch/v1/jobs",
            _ => bail!(
                "{text}: logs are read of pods and of deployments, statefulsets, daemonsets, replicasets \
                 and jobs"
            ),
        };
        Ok(Target::Workload(gvr, name.to_string()))
    }
}

/// One log to read: a container of a pod of a cluster.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Source {
    cluster: String,
    pod: String,
    container: String,
}

impl Source {
    fn prefix(&self) -> String {
        format!("[{}/{}/{}]", self.cluster, self.pod, self.container)
    }
}

/// What a stream sends to the printer.
enum Msg {
    Line(usize, Vec<u8>),
    Failed(usize, String),
}

/// Runs `logs`.
pub async fn run(client: &Client, args: LogsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let target = Target::parse(&args.target)?;
    let pods = pods(client, &args, &target).await?;
    let mut sources = Vec::new();
    for (cluster, pod) in &pods {
        let name = pod["metadata"]["name"].as_str().unwrap_or_default().to_string();
        let containers: Vec<String> = pod["spec"]["containers"]
            .as_array()
            .map(|cs| cs.iter().filter_map(|c| c["name"].as_str().map(String::from)).collect())
            .unwrap_or_default();
        match &args.container {
            Some(c) if containers.contains(c) => {
                sources.push(Source { cluster: cluster.clone(), pod: name, container: c.clone() })
            }
            Some(c) => eprintln!("error: [{cluster}/{name}] has no container {c}"),
            None => sources.extend(containers.into_iter().map(|container| Source {
                cluster: cluster.clone(),
                pod: name.clone(),
                container,
            })),
        }
    }
    if sources.is_empty() {
        bail!("no container to read the logs of");
    }
    sources.sort();
    let failed = stream(client, &args, &sources, out).await?;
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The pods `target` names, with their clusters, in the clusters asked for.
async fn pods(client: &Client, args: &LogsArgs, target: &Target) -> Result<Vec<(String, Value)>> {
    let wanted = |cluster: &str| args.clusters.is_empty() || args.clusters.iter().any(|c| c == cluster);
    let one_cluster = match args.clusters.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    };
    let list =
        |gvr: &str, name: Option<String>, selector: Option<String>, cluster: Option<String>| ListQuery {
            gvr: gvr.to_string(),
            cluster,
            namespace: Some(args.namespace.clone()),
            name,
            label_selector: selector,
            field_selector: None,
            limit: None,
            owner: None,
        };
    let where_ = match args.clusters.as_slice() {
        [] => "in any cluster".to_string(),
        some => format!("in cluster(s) {}", some.join(", ")),
    };
    match target {
        Target::Pod(name) => {
            let items = client.list(&list("v1/pods", Some(name.clone()), None, one_cluster)).await?;
            let pods: Vec<_> = items
                .into_iter()
                .filter(|i| wanted(&i.cluster_name))
                .map(|i| (i.cluster_name, i.object))
                .collect();
            if pods.is_empty() {
                bail!("pod \"{name}\" not found in namespace {} {where_}", args.namespace);
            }
            Ok(pods)
        }
        Target::Workload(gvr, name) => {
            let owners = client.list(&list(gvr, Some(name.clone()), None, one_cluster)).await?;
            let owners: Vec<_> = owners.into_iter().filter(|i| wanted(&i.cluster_name)).collect();
            if owners.is_empty() {
                bail!("{} \"{name}\" not found in namespace {} {where_}", args.target, args.namespace);
            }
            let mut pods = Vec::new();
            for owner in owners {
                let Some(selector) = selector(&owner.object["spec"]["selector"]) else {
                    eprintln!("error: [{}] {} has no selector", owner.cluster_name, args.target);
                    continue;
                };
                let found = client
                    .list(&list("v1/pods", None, Some(selector), Some(owner.cluster_name.clone())))
                    .await?;
                if found.is_empty() {
                    eprintln!("[{}] {} selects no pod", owner.cluster_name, args.target);
                }
                pods.extend(found.into_iter().map(|i| (i.cluster_name, i.object)));
            }
            Ok(pods)
        }
    }
}

/// A `LabelSelector` object as a label selector string (`app=web,tier in (a,b),!canary`);
/// `None` when it selects nothing it can say.
fn selector(selector: &Value) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(labels) = selector["matchLabels"].as_object() {
        parts.extend(labels.iter().filter_map(|(k, v)| Some(format!("{k}={}", v.as_str()?))));
    }
    for e in selector["matchExpressions"].as_array().into_iter().flatten() {
        let key = e["key"].as_str()?;
        let values = || {
            let vs: Vec<&str> =
                e["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            vs.join(",")
        };
        parts.push(match e["operator"].as_str()? {
            "In" => format!("{key} in ({})", values()),
            "NotIn" => format!("{key} notin ({})", values()),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => return None,
        });
    }
    (!parts.is_empty()).then(|| parts.join(","))
}

/// Reads every source at once and prints their lines as they come; whether one failed.
async fn stream(client: &Client, args: &LogsArgs, sources: &[Source], out: &mut dyn Write) -> Result<bool> {
    let mut query: Vec<(&str, String)> = Vec::new();
    if args.follow {
        query.push(("follow", "true".into()));
    }
    if let Some(n) = args.tail.filter(|n| *n >= 0) {
        query.push(("tailLines", n.to_string()));
    }
    if let Some(since) = args.since {
        query.push(("sinceSeconds", since.as_secs().max(1).to_string()));
    }
    if args.timestamps {
        query.push(("timestamps", "true".into()));
    }
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Msg>(64);
    for (i, source) in sources.iter().enumerate() {
        let (client, tx) = (client.clone(), tx.clone());
        let mut query = query.clone();
        query.push(("container", source.container.clone()));
        let path = format!(
            "/clusters/{}/api/v1/namespaces/{}/pods/{}/log",
            source.cluster, args.namespace, source.pod
        );
        tokio::spawn(async move {
            let resp = match client.kube_stream(&path, &query).await {
                Ok(resp) => resp,
                Err(e) => return drop(tx.send(Msg::Failed(i, e.to_string())).await),
            };
            let mut body = resp.bytes_stream();
            let mut pending: Vec<u8> = Vec::new();
            while let Some(chunk) = body.next().await {
                let chunk = match chunk {
                    Ok(c) => c,
                    Err(e) => return drop(tx.send(Msg::Failed(i, format!("the stream broke: {e}"))).await),
                };
                pending.extend_from_slice(&chunk);
                while let Some(at) = pending.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = pending.drain(..=at).collect();
                    if tx.send(Msg::Line(i, line)).await.is_err() {
                        return;
                    }
                }
            }
            if !pending.is_empty() {
                pending.push(b'\n');
                let _ = tx.send(Msg::Line(i, pending)).await;
            }
        });
    }
    drop(tx);
    let colour = args.prefix && std::io::stdout().is_terminal();
    let prefixes: Vec<String> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| match (args.prefix, colour) {
            (false, _) => String::new(),
            (true, false) => format!("{} ", s.prefix()),
            // Six colours, one per stream in turn, as stern does.
            (true, true) => format!("\x1b[{}m{}\x1b[0m ", 31 + i % 6, s.prefix()),
        })
        .collect();
    let mut failed = false;
    while let Some(msg) = rx.recv().await {
        match msg {
            Msg::Line(i, line) => {
                out.write_all(prefixes[i].as_bytes())?;
                out.write_all(&line)?;
                if !args.follow || rx.is_empty() {
                    out.flush()?;
                }
            }
            Msg::Failed(i, message) => {
                failed = true;
                out.flush()?;
                eprintln!("error: {} {message}", sources[i].prefix());
            }
        }
    }
    out.flush()?;
    Ok(failed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn kubectls_spellings_name_a_pod_or_a_workload() {
        assert_eq!(Target::parse("web-1").unwrap(), Target::Pod("web-1".into()));
        assert_eq!(Target::parse("po/web-1").unwrap(), Target::Pod("web-1".into()));
        assert_eq!(
            Target::parse("deploy/web").unwrap(),
            Target::Workload("apps/v1/deployments", "web".into())
        );
        assert_eq!(
            Target::parse("deployment.apps/web").unwrap(),
            Target::Workload("apps/v1/deployments", "web".into())
        );
        assert_eq!(Target::parse("job/backup").unwrap(), Target::Workload("batch/v1/jobs", "backup".into()));
        assert!(Target::parse("svc/web").is_err());
        assert!(Target::parse("deploy/").is_err());
    }

    #[test]
    fn a_label_selector_object_becomes_its_string() {
        let s = json!({"matchLabels": {"app": "x"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["a", "b"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "zone", "operator": "NotIn", "values": ["z"]},
            {"key": "team", "operator": "Exists"},
        ]});
        assert_eq!(selector(&s).unwrap(), "app=x,tier in (a,b),!canary,zone notin (z),team");
        assert_eq!(selector(&json!({})), None);
    }
}
