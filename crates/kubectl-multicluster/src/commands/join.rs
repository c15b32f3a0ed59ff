//! `join NAME --file KUBECONFIG` and `unjoin NAME`, through mc-server.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, anyhow};

use crate::cli::{JoinArgs, UnjoinArgs};
use crate::client::Client;

/// Uploads the kubeconfig; the server starts syncing the cluster.
pub async fn join(client: &Client, args: JoinArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let kubeconfig = std::fs::read(&args.file)
        .map_err(|e| anyhow!("cannot read kubeconfig {}: {e}", args.file.display()))?;
    let res = client.join(&args.name, kubeconfig, args.insecure, args.context.as_deref()).await?;
    writeln!(out, "cluster/{} joined ({})", args.name, res.res)?;
    Ok(ExitCode::SUCCESS)
}

/// Removes the cluster from the server.
pub async fn unjoin(client: &Client, args: UnjoinArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let res = client.unjoin(&args.name).await?;
    writeln!(out, "cluster/{} unjoined ({})", args.name, res.res)?;
    Ok(ExitCode::SUCCESS)
}
