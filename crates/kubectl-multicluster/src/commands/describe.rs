//! `describe <gvr> --name X`: the object as YAML, one document per cluster.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::cli::DescribeArgs;
use crate::client::{Client, ListQuery};
use crate::print;

/// Runs `describe`.
pub async fn run(client: &Client, args: DescribeArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let query = ListQuery {
        gvr: args.resource.clone(),
        cluster: args.filters.cluster.clone(),
        namespace: args.filters.namespace.clone(),
        name: args.name().map(str::to_owned),
        label_selector: args.filters.selector.clone(),
        field_selector: args.filters.field_selector.clone(),
        limit: None,
    };
    let items = client.list(&query).await?;
    if items.is_empty() {
        let Some(name) = args.name() else {
            eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
            return Ok(ExitCode::SUCCESS);
        };
        let namespace =
            args.filters.namespace.as_deref().map(|n| format!(" in namespace {n}")).unwrap_or_default();
        let cluster = match &args.filters.cluster {
            Some(c) => format!(" in cluster {c}"),
            None => " in any cluster".into(),
        };
        bail!("{} \"{name}\" not found{namespace}{cluster}", args.resource);
    }
    print::write_described(out, &items)?;
    Ok(ExitCode::SUCCESS)
}
