//! `history TYPE/NAME`: an object's revisions in every cluster that has it, oldest first: when,
//! what change, and which fields it touched.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, anyhow};
use mc_types::history::{RevisionItem, paths};

use crate::cli::{HistoryArgs, ObjectArgs};
use crate::client::{self, Client};
use crate::print::{self, not_found, table};

/// Runs `history`.
pub async fn run(client: &Client, args: HistoryArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let objects = args.output.is_some();
    let mut items = revisions(client, &args.object, args.limit, objects, None).await?;
    let (typed, name) = args.object.type_and_name().map_err(|e| anyhow!(e))?;
    if items.is_empty() {
        eprintln!("{}", not_found::message(&not_found::resource_name(typed, None), name));
        return Ok(ExitCode::FAILURE);
    }
    // Every cluster's answer is oldest first; together, in the order they were stored.
    items.sort_by(|a, b| (&a.time, a.revision).cmp(&(&b.time, b.revision)));
    match args.output.as_deref() {
        Some("json") => print::write_json(out, &serde_json::to_value(&items)?)?,
        Some(_) => print::write_yaml(out, &serde_json::to_value(&items)?)?,
        None => {
            let namespaced = items.iter().any(|i| !i.namespace.is_empty()) && args.object.namespace.is_none();
            let rows: Vec<Vec<String>> = items.iter().map(|i| row(i, namespaced)).collect();
            let mut headers = vec!["CLUSTER"];
            if namespaced {
                headers.push("NAMESPACE");
            }
            headers.extend(["REVISION", "TIME", "CHANGE", "FIELDS"]);
            let headers: Vec<String> = headers.into_iter().map(String::from).collect();
            table::write(out, (!args.no_headers).then_some(headers.as_slice()), &rows)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The revisions of the object `args` names, in every cluster asked (one request per cluster
/// named, or one for all), with objects when asked, only `only` when given.
pub async fn revisions(
    client: &Client,
    args: &ObjectArgs,
    limit: Option<u32>,
    objects: bool,
    only: Option<&[i64]>,
) -> Result<Vec<RevisionItem>> {
    let (typed, name) = args.type_and_name().map_err(|e| anyhow!(e))?;
    let mut query: Vec<(&str, String)> =
        vec![("gvr", client::canonical_gvr(typed).into_owned()), ("name", name.to_string())];
    if let Some(ns) = &args.namespace {
        query.push(("namespace", ns.clone()));
    }
    if let Some(limit) = limit {
        query.push(("limit", limit.to_string()));
    }
    if objects {
        query.push(("objects", "true".into()));
    }
    if let Some(ids) = only {
        query.push(("revisions", ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")));
    }
    if args.clusters.is_empty() {
        return Ok(client.get_json(paths::HISTORY, &query).await?);
    }
    let mut all = Vec::new();
    for cluster in &args.clusters {
        let mut q = query.clone();
        q.push(("cluster", cluster.clone()));
        all.extend(client.get_json::<Vec<RevisionItem>>(paths::HISTORY, &q).await?);
    }
    Ok(all)
}

/// A revision's row: what changed, and the fields.
fn row(i: &RevisionItem, namespaced: bool) -> Vec<String> {
    let mut fields = i.fields.join(", ");
    if i.fields_changed > i.fields.len() {
        fields.push_str(&format!(" and {} more", i.fields_changed - i.fields.len()));
    }
    if i.unsynced {
        fields =
            "(no longer synced: its type left the cluster's discovery, or the cluster was unjoined)".into();
    } else if i.after_gap {
        let since = i
            .gap_from
            .as_deref()
            .map_or("before mc-server first listed it".to_string(), |t| format!("since {t}"));
        let note = format!("(found by a list; not watched {since})");
        fields = if fields.is_empty() { note } else { format!("{fields} {note}") };
    }
    let mut row = vec![i.cluster_name.clone()];
    if namespaced {
        row.push(i.namespace.clone());
    }
    row.extend([i.revision.to_string(), i.time.clone(), i.change.as_str().to_string(), fields]);
    row
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use mc_types::history::ChangeType;

    use super::*;

    fn item(change: ChangeType, fields: &[&str], total: usize) -> RevisionItem {
        RevisionItem {
            revision: 7,
            cluster_name: "tencent1".into(),
            namespace: "shop".into(),
            name: "web".into(),
            uid: "u".into(),
            resource_version: "12".into(),
            time: "2026-11-28T10:00:00.000Z".into(),
            change,
            after_gap: false,
            unsynced: false,
            gap_from: None,
            fields: fields.iter().map(|f| f.to_string()).collect(),
            fields_changed: total,
            object: None,
        }
    }

    #[test]
    fn a_row_names_the_fields_and_how_many_more() {
        let i = item(ChangeType::Modified, &["spec.replicas", "metadata.labels.app"], 5);
        assert_eq!(
            row(&i, true),
            [
                "tencent1",
                "shop",
                "7",
                "2026-11-28T10:00:00.000Z",
                "MODIFIED",
                "spec.replicas, metadata.labels.app and 3 more"
            ]
        );
        let mut gap = item(ChangeType::Deleted, &[], 0);
        gap.after_gap = true;
        gap.gap_from = Some("2026-11-28T09:00:00.000Z".into());
        assert_eq!(row(&gap, false)[4], "(found by a list; not watched since 2026-11-28T09:00:00.000Z)");
    }
}
