//! `list -w`: the current objects, then a row for every change, from the server's
//! newline-delimited watch stream.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};
use futures::StreamExt;
use mc_types::api::{ListWithClusterItem, WatchEvent, WatchEventType};
use serde_json::{Value, json};

use crate::cli::{ListArgs, OutputFormat};
use crate::client::{Client, ListQuery};
use crate::print::table::Widths;
use crate::print::{self, Ctx, TableSpec, View};

use super::printing::Printing;

/// The server sends the current objects in one burst; this much silence ends it, so the first
/// screen can be aligned as a whole.
const SNAPSHOT_QUIET: Duration = Duration::from_millis(300);

/// Runs `list -w` until the stream ends or the user interrupts.
pub async fn run(
    client: &Client,
    args: &ListArgs,
    printing: &Printing,
    query: &ListQuery,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    if !printing.suits_watch() || args.created_since.is_some() {
        bail!(
            "list --watch prints tables, json, yaml or names: leave out --sort-by, --created-since, -o jsonpath, \
             -o custom-columns, -o csv and -o tsv"
        );
    }
    if args.filters.clusters.len() > 1 {
        bail!("list --watch takes one --clusterName (the server watches one cluster or all)");
    }
    let mut query = query.clone();
    query.limit = None;
    let (stream, resources) = tokio::join!(client.watch(&query), client.resources());
    // The Go project's server has no watch: it would answer with a plain list (or refuse the
    // type).
    if matches!(resources, Ok(None)) {
        bail!(
            "list --watch needs a newer mc-server: the server at {} is an earlier version without watch (it has no /v1/resources); list without --watch",
            client.url()
        );
    }
    let resources = resources.ok().flatten();
    let mut stream = stream?;

    let mut snapshot = Vec::new();
    let mut ended = false;
    loop {
        match tokio::time::timeout(SNAPSHOT_QUIET, stream.next()).await {
            Ok(Some(event)) => snapshot.push(checked(event?)?),
            Ok(None) => {
                ended = true;
                break;
            }
            Err(_) => break,
        }
    }
    if snapshot.is_empty() {
        eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
    }

    let sample = snapshot
        .first()
        .map(|e| ListWithClusterItem { cluster_name: e.cluster_name.clone(), object: e.object.clone() });
    let mut printer = Printer { spec: None, resources, sample, widths: None, args, printing };
    printer.events(client, out, &snapshot).await?;
    out.flush()?;
    while !ended {
        match stream.next().await {
            Some(event) => {
                let event = checked(event?)?;
                printer.events(client, out, std::slice::from_ref(&event)).await?;
                out.flush()?;
            }
            None => ended = true,
        }
    }
    bail!("the watch ended: mc-server at {} closed the stream", client.url())
}

/// An `ERROR` event ends the watch with the server's message.
fn checked(event: WatchEvent) -> Result<WatchEvent> {
    if event.kind == WatchEventType::Error {
        let message = event.object.get("error").and_then(Value::as_str).unwrap_or("unknown error");
        bail!("watch failed: {message}");
    }
    Ok(event)
}

struct Printer<'a> {
    spec: Option<TableSpec>,
    resources: Option<Vec<mc_types::ResourceInfo>>,
    sample: Option<ListWithClusterItem>,
    /// Column widths once the header is out.
    widths: Option<Widths>,
    args: &'a ListArgs,
    printing: &'a Printing,
}

impl Printer<'_> {
    async fn events(&mut self, client: &Client, out: &mut dyn Write, events: &[WatchEvent]) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let with_type = self.args.output_watch_events;
        match &self.args.output {
            Some(OutputFormat::Json) | Some(OutputFormat::Yaml) => {
                for e in events {
                    let item = ListWithClusterItem {
                        cluster_name: e.cluster_name.clone(),
                        object: e.object.clone(),
                    };
                    let obj = print::with_cluster(&item);
                    let doc =
                        if with_type { json!({"type": e.kind.to_string(), "object": obj}) } else { obj };
                    if self.args.output == Some(OutputFormat::Json) {
                        print::write_json(out, &doc)?;
                    } else {
                        writeln!(out, "---")?;
                        print::write_yaml(out, &doc)?;
                    }
                }
            }
            Some(OutputFormat::Name) => {
                for e in events {
                    let name = print::object_ref(&e.cluster_name, &e.object);
                    if with_type { writeln!(out, "{}   {name}", e.kind)? } else { writeln!(out, "{name}")? }
                }
            }
            // Refused by `Printing::suits_watch` before the watch began.
            Some(
                OutputFormat::JsonPath(_)
                | OutputFormat::CustomColumns(_)
                | OutputFormat::Csv
                | OutputFormat::Tsv,
            ) => {}
            None | Some(OutputFormat::Wide) => {
                if self.spec.is_none() {
                    let sample = self.sample.clone().or_else(|| {
                        events.first().map(|e| ListWithClusterItem {
                            cluster_name: e.cluster_name.clone(),
                            object: e.object.clone(),
                        })
                    });
                    let spec = super::table_spec::table_spec(
                        client,
                        &self.args.resource,
                        self.resources.take(),
                        sample.as_ref(),
                        View::of(self.args.output == Some(OutputFormat::Wide)),
                    )
                    .await;
                    self.spec = Some(spec);
                }
                let Some(spec) = &self.spec else { return Ok(()) };
                let wide = self.args.output == Some(OutputFormat::Wide);
                let ctx = Ctx::now();
                let rows: Vec<Vec<String>> = events
                    .iter()
                    .map(|e| {
                        let mut row = spec.row(&e.cluster_name, &e.object, &ctx, wide);
                        row.extend(self.printing.labels.cells(&e.object));
                        if with_type {
                            row.insert(0, e.kind.to_string());
                        }
                        row
                    })
                    .collect();
                match &mut self.widths {
                    Some(widths) => {
                        for row in &rows {
                            widths.grow(row);
                            widths.write_row(out, row)?;
                        }
                    }
                    None => {
                        let mut headers = spec.headers(wide);
                        headers.extend(self.printing.labels.headers());
                        if with_type {
                            headers.insert(0, "EVENT".into());
                        }
                        let mut widths = Widths::fit(std::iter::once(&headers).chain(&rows));
                        if with_type {
                            // Room for the longest event type, so later rows stay in line.
                            widths.grow(&["MODIFIED".to_owned()]);
                        }
                        if !self.args.no_headers {
                            widths.write_row(out, &headers)?;
                        }
                        for row in &rows {
                            widths.write_row(out, row)?;
                        }
                        self.widths = Some(widths);
                    }
                }
            }
        }
        Ok(())
    }
}
