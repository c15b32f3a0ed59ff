//! `count TYPE --by KEYS`: how many objects of a type have each combination of the keys'
//! values, counted by mc-server (`/v1/count`), printed as a table with a column per key
//! (`CLUSTER PHASE COUNT`) sorted by the keys, or as JSON. With several `-c` clusters, one
//! count per cluster, added up here.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use mc_types::api::{CountAnswer, CountItem};
use mc_types::count::CountKey;

use crate::cli::CountArgs;
use crate::client::{Client, canonical_gvr};
use crate::print::{nothing_found, table};

/// Runs `count`.
pub async fn run(client: &Client, args: CountArgs, out: &mut dyn Write) -> Result<ExitCode> {
    // A bad key is said before anything is asked.
    let keys = CountKey::parse_list(&args.by)?;
    let mut params: Vec<(&str, String)> =
        vec![("gvr", canonical_gvr(&args.resource).into_owned()), ("by", args.by.clone())];
    let filters = [
        ("namespace", &args.namespace),
        ("labelSelector", &args.selector),
        ("fieldSelector", &args.field_selector),
    ];
    params.extend(filters.into_iter().filter_map(|(k, v)| v.clone().map(|v| (k, v))));
    let mut answers = Vec::new();
    if args.clusters.is_empty() {
        answers.push(client.count(&params).await?);
    }
    for cluster in &args.clusters {
        let mut params = params.clone();
        params.push(("cluster", cluster.clone()));
        answers.push(client.count(&params).await?);
    }
    let answer = merge(answers);
    if args.output.as_deref() == Some("json") {
        serde_json::to_writer_pretty(&mut *out, &answer).context("writing JSON")?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if answer.items.is_empty() {
        eprintln!("{}", nothing_found(args.namespace.as_deref()));
        return Ok(ExitCode::SUCCESS);
    }
    let mut headers: Vec<String> = keys.iter().map(CountKey::header).collect();
    headers.push("COUNT".into());
    let rows: Vec<Vec<String>> = answer
        .items
        .into_iter()
        .map(|item| {
            let mut row = item.values;
            row.push(item.count.to_string());
            row
        })
        .collect();
    table::write(out, (!args.no_headers).then_some(headers.as_slice()), &rows)?;
    Ok(ExitCode::SUCCESS)
}

/// The answers of several clusters as one: equal values added up, sorted by the values.
fn merge(answers: Vec<CountAnswer>) -> CountAnswer {
    let mut by = Vec::new();
    let mut counts: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    for answer in answers {
        by = answer.by;
        for item in answer.items {
            *counts.entry(item.values).or_default() += item.count;
        }
    }
    CountAnswer {
        by,
        total: counts.values().sum(),
        items: counts.into_iter().map(|(values, count)| CountItem { values, count }).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(items: &[(&[&str], u64)]) -> CountAnswer {
        CountAnswer {
            by: vec!["status.phase".into()],
            total: items.iter().map(|(_, n)| n).sum(),
            items: items
                .iter()
                .map(|(v, n)| CountItem { values: v.iter().map(|s| s.to_string()).collect(), count: *n })
                .collect(),
        }
    }

    #[test]
    fn clusters_counted_apart_add_up_by_value() {
        let merged = merge(vec![
            answer(&[(&["Pending"], 1), (&["Running"], 3)]),
            answer(&[(&["<none>"], 2), (&["Running"], 4)]),
        ]);
        assert_eq!(merged, answer(&[(&["<none>"], 2), (&["Pending"], 1), (&["Running"], 7)]));
        assert_eq!(merged.total, 10);
    }
}
