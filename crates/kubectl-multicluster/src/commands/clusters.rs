//! `list clusters`: the clusters mc-server knows and their health.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use mc_types::api::ClusterInfo;

use crate::cli::{ListArgs, OutputFormat};
use crate::client::Client;
use crate::print::{self, Ctx, table, time};

/// Runs `list clusters`.
pub async fn run(client: &Client, args: &ListArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let mut clusters = client.clusters().await?;
    let only = args.name().or(args.filters.cluster.as_deref());
    if let Some(name) = only {
        clusters.retain(|c| c.name == name);
    }
    if clusters.is_empty() {
        eprintln!("No clusters found.");
        return Ok(ExitCode::SUCCESS);
    }
    match args.output {
        Some(OutputFormat::Json) => print::write_json(out, &serde_json::to_value(&clusters)?)?,
        Some(OutputFormat::Yaml) => print::write_yaml(out, &serde_json::to_value(&clusters)?)?,
        Some(OutputFormat::Name) => {
            for c in &clusters {
                writeln!(out, "cluster/{}", c.name)?;
            }
        }
        None | Some(OutputFormat::Wide) => {
            let wide = args.output == Some(OutputFormat::Wide);
            write_table(out, &clusters, &Ctx::now(), wide, !args.no_headers)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `NAME VERSION HOST PLATFORM ISMASTER STATUS`; wide adds how fresh the cluster's objects are:
/// since when it has that status, types listed/total, objects, last event, lag and the reason.
pub fn write_table(
    out: &mut dyn Write,
    clusters: &[ClusterInfo],
    ctx: &Ctx,
    wide: bool,
    headers: bool,
) -> std::io::Result<()> {
    let mut header: Vec<String> =
        ["NAME", "VERSION", "HOST", "PLATFORM", "ISMASTER", "STATUS"].map(String::from).to_vec();
    if wide {
        header.extend(["SINCE", "TYPES", "OBJECTS", "LAST EVENT", "LAG", "MESSAGE"].map(String::from));
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
                row.push(c.message.clone().or_else(|| c.last_error.clone()).unwrap_or_default());
            }
            row
        })
        .collect();
    table::write(out, headers.then_some(header.as_slice()), &rows)
}

/// Sync lag: milliseconds under a second, else seconds.
fn lag(seconds: f64) -> String {
    if seconds < 1.0 { format!("{}ms", (seconds * 1000.0).round() as u64) } else { format!("{seconds:.1}s") }
}
