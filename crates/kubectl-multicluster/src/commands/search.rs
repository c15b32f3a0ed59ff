//! `search TEXT`: objects of every type found by free text (`/v1/search`), best first, printed
//! as CLUSTER, KIND, NAMESPACE, NAME, MATCHED; `-o wide` adds the type and every match, `-o
//! name` one `CLUSTER/KIND[.GROUP]/NAME` a line, `-o json|yaml` the server's items.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use mc_types::search::{MAX_TEXT, MIN_TEXT, PATH, SearchItem};

use crate::cli::SearchArgs;
use crate::client::Client;
use crate::print::{self, nothing_found, table};

/// Matches shown in MATCHED of the default table (wide shows all).
const SHOWN_MATCHES: usize = 2;

/// Runs `search`.
pub async fn run(client: &Client, args: SearchArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let n = args.text.chars().count();
    if !(MIN_TEXT..=MAX_TEXT).contains(&n) {
        bail!("search text must be {MIN_TEXT} to {MAX_TEXT} characters long, got {n}");
    }
    let mut query = vec![("q", args.text.clone()), ("limit", args.limit.to_string())];
    if let Some(ns) = &args.namespace {
        query.push(("namespace", ns.clone()));
    }
    if let Some(c) = &args.cluster {
        query.push(("cluster", c.clone()));
    }
    if !args.kinds.is_empty() {
        query.push(("kind", args.kinds.join(",")));
    }
    let items: Vec<SearchItem> = client.get_json(PATH, &query).await?;
    match args.output.as_deref() {
        Some("json") => print::write_json(out, &serde_json::to_value(&items)?)?,
        Some("yaml") => print::write_yaml(out, &serde_json::to_value(&items)?)?,
        Some("name") => {
            for i in &items {
                writeln!(out, "{}", reference(i))?;
            }
        }
        _ if items.is_empty() => eprintln!("{}", nothing_found(args.namespace.as_deref())),
        Some("wide") => write_table(out, &items, true, args.no_headers)?,
        Some(other) => bail!("search prints a table, wide, json, yaml or name, not -o {other}"),
        None => write_table(out, &items, false, args.no_headers)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `CLUSTER/KIND[.GROUP]/NAME`, as `list -o name` writes it.
fn reference(i: &SearchItem) -> String {
    let kind = i.kind.to_ascii_lowercase();
    if i.group.is_empty() {
        format!("{}/{kind}/{}", i.cluster, i.name)
    } else {
        format!("{}/{kind}.{}/{}", i.cluster, i.group, i.name)
    }
}

/// The table: CLUSTER KIND NAMESPACE NAME MATCHED (wide: RESOURCE too, and every match).
pub fn write_table(
    out: &mut dyn Write,
    items: &[SearchItem],
    wide: bool,
    no_headers: bool,
) -> std::io::Result<()> {
    let mut headers: Vec<String> =
        ["CLUSTER", "KIND", "NAMESPACE", "NAME", "MATCHED"].map(String::from).to_vec();
    if wide {
        headers.insert(2, "RESOURCE".into());
    }
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|i| {
            let matched = if wide || i.matched.len() <= SHOWN_MATCHES {
                i.matched.join(", ")
            } else {
                format!("{}, +{}", i.matched[..SHOWN_MATCHES].join(", "), i.matched.len() - SHOWN_MATCHES)
            };
            let namespace = if i.namespace.is_empty() { "<none>".to_string() } else { i.namespace.clone() };
            let mut row = vec![i.cluster.clone(), i.kind.clone(), namespace, i.name.clone(), matched];
            if wide {
                let resource = if i.group.is_empty() {
                    format!("{}/{}", i.version, i.resource)
                } else {
                    format!("{}/{}/{}", i.group, i.version, i.resource)
                };
                row.insert(2, resource);
            }
            row
        })
        .collect();
    table::write(out, (!no_headers).then_some(headers.as_slice()), &rows)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn items() -> Vec<SearchItem> {
        serde_json::from_value(json!([
            {"cluster": "c1", "group": "apps", "version": "v1", "resource": "deployments", "kind": "Deployment",
             "namespace": "shop", "name": "redis", "matched": ["name"]},
            {"cluster": "c2", "group": "", "version": "v1", "resource": "pods", "kind": "Pod", "namespace": "shop",
             "name": "cache-0", "matched": ["image=redis:6.2", "label app=redis", "owner redis-1"]},
            {"cluster": "c2", "group": "", "version": "v1", "resource": "nodes", "kind": "Node", "namespace": "",
             "name": "redis-node", "matched": ["name"]}]))
        .unwrap()
    }

    #[test]
    fn prints_the_table_wide_and_names() {
        let mut out = Vec::new();
        write_table(&mut out, &items(), false, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            concat!(
                "CLUSTER   KIND         NAMESPACE   NAME         MATCHED\n",
                "c1        Deployment   shop        redis        name\n",
                "c2        Pod          shop        cache-0      image=redis:6.2, label app=redis, +1\n",
                "c2        Node         <none>      redis-node   name\n",
            )
        );
        let mut out = Vec::new();
        write_table(&mut out, &items()[1..2], true, true).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "c2   Pod   v1/pods   shop   cache-0   image=redis:6.2, label app=redis, owner redis-1\n"
        );
        let names: Vec<String> = items().iter().map(reference).collect();
        assert_eq!(names, ["c1/deployment.apps/redis", "c2/pod/cache-0", "c2/node/redis-node"]);
    }
}
