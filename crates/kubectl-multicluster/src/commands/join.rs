//! `join NAME --file KUBECONFIG` and `unjoin NAME`, through mc-server.

use std::io::Write;
use std::process::ExitCode;

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};

use crate::cli::{JoinArgs, UnjoinArgs};
use crate::client::Client;

/// Uploads the kubeconfig; the server starts syncing the cluster.
pub async fn join(client: &Client, args: JoinArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let kubeconfig = std::fs::read(&args.file)
        .map_err(|e| anyhow!("cannot read kubeconfig {}: {e}", args.file.display()))?;
    let res = client.join(&args.name, kubeconfig, args.insecure, args.context.as_deref()).await?;
    writeln!(out, "cluster/{} joined ({})", args.name, res.res)?;
    if args.wait {
        out.flush()?;
        return wait_synced(client, &args.name, args.timeout, out).await;
    }
    Ok(ExitCode::SUCCESS)
}

/// Polls `/v1/clusters` until the cluster is `Synced`; progress (types listed/total, objects)
/// goes to stderr on a terminal. Exit 1 when the time is up, with the cluster's state.
async fn wait_synced(
    client: &Client,
    name: &str,
    timeout: Duration,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    loop {
        let clusters = match client.clusters().await {
            Ok(clusters) => clusters,
            Err(e) if e.is_missing_endpoint() => bail!(
                "cannot wait for cluster {name}: mc-server at {} is an earlier version without /v1/clusters (the cluster is joined)",
                client.url()
            ),
            Err(e) => return Err(e.into()),
        };
        let info = clusters.into_iter().find(|c| c.name == name);
        let Some(info) = info else { bail!("cluster {name} is no longer a member") };
        if info.status.is_synced() {
            if terminal {
                eprint!("\r\x1b[K");
            }
            writeln!(
                out,
                "cluster/{name} synced: {} types, {} objects in {:.1}s",
                info.resource_types,
                info.objects,
                start.elapsed().as_secs_f64()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        if terminal {
            eprint!(
                "\r\x1b[K{name}: {} — types {}/{}, {} objects",
                info.status, info.types_listed, info.resource_types, info.objects
            );
        }
        if start.elapsed() > timeout {
            if terminal {
                eprintln!();
            }
            let why = info.message.or(info.last_error).map(|m| format!(": {m}")).unwrap_or_default();
            bail!("cluster {name} is still {} after {}s{why}", info.status, timeout.as_secs());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Removes the cluster from the server.
pub async fn unjoin(client: &Client, args: UnjoinArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let res = client.unjoin(&args.name).await?;
    writeln!(out, "cluster/{} unjoined ({})", args.name, res.res)?;
    Ok(ExitCode::SUCCESS)
}
