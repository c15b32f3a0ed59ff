//! `events`: the Events of every cluster, kept by mc-server after their cluster expired them,
//! newest last, in kubectl events' columns with a CLUSTER column first.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use k8s_openapi::jiff::Timestamp;
use mc_types::age;
use mc_types::history::{PastObject, paths};
use serde_json::Value;

use crate::cli::EventsArgs;
use crate::client::Client;
use crate::print::{self, nothing_found, table};

/// Runs `events`.
pub async fn run(client: &Client, args: EventsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let mut query: Vec<(&str, String)> = Vec::new();
    let optional = [
        ("namespace", &args.namespace),
        ("since", &args.since),
        ("for", &args.for_object),
        ("reason", &args.reason),
        ("type", &args.event_type),
    ];
    for (key, value) in optional {
        if let Some(v) = value {
            query.push((key, v.clone()));
        }
    }
    if let Some(limit) = args.limit {
        query.push(("limit", limit.to_string()));
    }
    let mut events: Vec<PastObject> = Vec::new();
    if args.clusters.is_empty() {
        events = client.get_json(paths::EVENTS, &query).await?;
    } else {
        for cluster in &args.clusters {
            let mut q = query.clone();
            q.push(("cluster", cluster.clone()));
            events.extend(client.get_json::<Vec<PastObject>>(paths::EVENTS, &q).await?);
        }
        events.sort_by_key(|e| (last_seen(&e.object), e.revision));
    }
    match args.output.as_deref() {
        Some(format) => {
            let items: Vec<_> = events
                .into_iter()
                .map(|e| mc_types::api::ListWithClusterItem {
                    cluster_name: e.cluster_name,
                    object: e.object,
                })
                .collect();
            let document = print::list_document(&items);
            if format == "json" {
                print::write_json(out, &document)?
            } else {
                print::write_yaml(out, &document)?
            }
        }
        None if events.is_empty() => eprintln!("{}", nothing_found(args.namespace.as_deref())),
        None => {
            let now = Timestamp::now();
            let namespaced = args.namespace.is_none();
            let rows: Vec<Vec<String>> = events.iter().map(|e| row(e, namespaced, now)).collect();
            let mut headers = vec!["CLUSTER"];
            if namespaced {
                headers.push("NAMESPACE");
            }
            headers.extend(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
            let headers: Vec<String> = headers.into_iter().map(String::from).collect();
            table::write(out, (!args.no_headers).then_some(headers.as_slice()), &rows)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// When an Event last happened (as kubectl events reads it), in unix seconds.
fn last_seen(event: &Value) -> i64 {
    last_seen_text(event).and_then(age::parse).map_or(0, |t| t.as_second())
}

fn last_seen_text(event: &Value) -> Option<&str> {
    ["/lastTimestamp", "/series/lastObservedTime", "/eventTime", "/metadata/creationTimestamp"]
        .iter()
        .find_map(|p| event.pointer(p).and_then(Value::as_str).filter(|t| !t.is_empty()))
}

/// kubectl events' row, CLUSTER first.
fn row(e: &PastObject, namespaced: bool, now: Timestamp) -> Vec<String> {
    let o = &e.object;
    let text = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
    let involved = if o.get("involvedObject").is_some() { "/involvedObject" } else { "/regarding" };
    let object = format!(
        "{}/{}",
        text(&format!("{involved}/kind")).to_ascii_lowercase(),
        text(&format!("{involved}/name"))
    );
    let message = text("/message").trim_end().replace('\n', " ");
    let mut row = vec![e.cluster_name.clone()];
    if namespaced {
        row.push(text("/metadata/namespace"));
    }
    row.extend([age::since(last_seen_text(o), now), text("/type"), text("/reason"), object, message]);
    row
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_row_reads_as_kubectl_events() {
        let e = PastObject {
            cluster_name: "tencent1".into(),
            object: json!({"metadata": {"namespace": "shop", "creationTimestamp": "2026-11-28T09:00:00Z"},
                "involvedObject": {"kind": "Pod", "name": "web-1"}, "type": "Warning", "reason": "BackOff",
                "message": "Back-off restarting\n", "lastTimestamp": "2026-11-28T09:55:00Z"}),
            revision: 3,
            time: "2026-11-28T09:55:00.100Z".into(),
            after_gap: false,
        };
        let now: Timestamp = "2026-11-28T10:00:00Z".parse().unwrap();
        assert_eq!(
            row(&e, true, now),
            ["tencent1", "shop", "5m", "Warning", "BackOff", "pod/web-1", "Back-off restarting"]
        );
        assert_eq!(row(&e, false, now).len(), 6);
        assert_eq!(last_seen(&e.object), 1_795_859_700);
    }
}
