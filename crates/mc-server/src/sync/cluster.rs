//! The life of one cluster: connect, discover, watch every type, notice new and removed types,
//! notice the cluster going away, and come back with backoff.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt as _;
use kube::Client;
use mc_types::Gvr;
use mc_types::gvr::ResourceInfo;
use tokio::task::{AbortHandle, JoinSet};
use tracing::{info, warn};

use super::discovery::{Filter, discover};
use super::type_sync::watch_type;
use super::writer::Msg;
use super::{SyncContext, panic_message};
use crate::clusters::transport::WATCHES_PER_CONNECTION;
use crate::clusters::{Cluster, Ownership, connect};

/// How often the cluster is probed and rediscovered (new CRDs show up within this).
const PROBE_EVERY: Duration = Duration::from_secs(10);
/// Longest wait between two connection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Starts syncing a cluster in the background; the task is stopped through the cluster.
///
/// When replicas share the store, a cluster is watched only by the replica that holds its
/// Lease; the others keep a connection (dispatch and `/version`) without watching.
pub fn spawn_cluster(ctx: SyncContext, cluster: Arc<Cluster>) {
    if let Some(shards) = &ctx.shards
        && cluster.ownership() == Ownership::Unsharded
    {
        cluster.set_ownership(Ownership::Pending(None));
        shards.wake();
    }
    let handle = tokio::spawn(run(ctx, cluster.clone()));
    cluster.set_task(handle.abort_handle());
}

async fn run(ctx: SyncContext, cluster: Arc<Cluster>) {
    let mut backoff = Duration::from_secs(1);
    loop {
        // A panic (a bug) ends the session like a lost connection: reported on the cluster and
        // retried, instead of leaving it `Connecting` forever.
        let err = match std::panic::AssertUnwindSafe(session(&ctx, &cluster)).catch_unwind().await {
            Ok(Ok(never)) => match never {},
            Ok(Err(e)) => e,
            Err(panic) => {
                let why = panic_message(panic.as_ref());
                tracing::error!(cluster = cluster.name(), panic = %why, "the cluster's sync failed; restarting it");
                format!("the sync of this cluster failed ({why}); restarting it")
            }
        };
        let was_ready = cluster.state().ready;
        cluster.set_client(None);
        cluster.update(|s| {
            if s.ready || s.since.is_none() {
                s.since = Some(k8s_openapi::jiff::Timestamp::now());
            }
            s.ready = false;
            s.attempted = true;
            s.initial_sync_done = false;
            s.pending_init.clear();
            s.unlisted.clear();
            s.unwatched.clear();
            s.message = Some(err.clone());
        });
        if was_ready {
            warn!(cluster = cluster.name(), error = %err, "cluster not ready");
            backoff = Duration::from_secs(1);
        } else {
            info!(cluster = cluster.name(), error = %err, retry_in = ?backoff, "cluster unreachable");
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// One connected period: returns only with the reason it ended.
async fn session(ctx: &SyncContext, cluster: &Arc<Cluster>) -> Result<std::convert::Infallible, String> {
    let client = connect(&cluster.spec).await.map_err(|e| e.to_string())?;
    let version = probe(&client).await?;
    let filter = Filter::new(&ctx.exclude_groups, &ctx.exclude_resources, cluster.spec.allow.clone());
    let catalog = discover(&client).await.map_err(|e| format!("discovery: {e}"))?;
    // Another replica syncs this cluster (or nobody may yet): connected, and watched only for
    // this replica's watch streams, unless clusters are split to spread the load.
    let watching = cluster.syncs() || ctx.watch_all;
    let wanted = if watching { admitted(&filter, &catalog) } else { BTreeMap::new() };
    cluster.set_catalog(catalog);
    cluster.update(|s| {
        s.since = Some(k8s_openapi::jiff::Timestamp::now());
        s.synced_at = None;
        s.ready = true;
        s.attempted = true;
        s.message = None;
        s.version = version.git_version.clone();
        s.platform = version.platform.clone();
        s.server_version = Some(version.clone());
        s.synced_types = wanted.keys().cloned().collect();
        s.pending_init = wanted.keys().cloned().collect();
        s.unlisted.clear();
        s.unwatched.clear();
        s.initial_sync_done = wanted.is_empty();
    });
    cluster.set_client(Some(client.clone()));
    let _ = ctx.ready_tx.send(cluster.name().to_string());
    info!(cluster = cluster.name(), version = %version.git_version, types = wanted.len(), watching, "cluster connected");

    let mut tasks = JoinSet::new();
    let mut running: BTreeMap<Gvr, (AbortHandle, usize)> = BTreeMap::new();
    let mut connections = Connections { clients: vec![client.clone()], watches: vec![0] };
    for (gvr, info) in wanted {
        let (c, i) = connections.take(cluster).await?;
        running.insert(gvr, (tasks.spawn(watch_type(ctx.clone(), cluster.clone(), c, info)), i));
    }
    let mut failures = 0;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(PROBE_EVERY) => {}
            _ = cluster.rediscovery_requested() => {}
        }
        match probe(&client).await {
            Ok(version) if cluster.server_version().as_ref() != Some(&version) => {
                // An upgraded member: `/v1/clusters` and `/version` tell the new one.
                cluster.update(|s| {
                    s.version = version.git_version.clone();
                    s.platform = version.platform.clone();
                    s.server_version = Some(version);
                });
            }
            Ok(_) => {}
            Err(e) => {
                failures += 1;
                if failures >= 2 {
                    return Err(e);
                }
                continue;
            }
        }
        failures = 0;
        let catalog = match discover(&client).await {
            Ok(c) => c,
            Err(e) => {
                warn!(cluster = cluster.name(), error = %e, "rediscovery failed");
                continue;
            }
        };
        let wanted = if watching { admitted(&filter, &catalog) } else { BTreeMap::new() };
        cluster.set_catalog(catalog);
        let gone: Vec<Gvr> = running.keys().filter(|g| !wanted.contains_key(*g)).cloned().collect();
        for gvr in gone {
            if let Some((h, i)) = running.remove(&gvr) {
                h.abort();
                connections.watches[i] -= 1;
            }
            info!(cluster = cluster.name(), %gvr, "type removed");
            let _ = ctx.writer.send(Msg::DropGvr(cluster.clone(), gvr)).await;
        }
        for (gvr, info) in wanted {
            if running.contains_key(&gvr) {
                continue;
            }
            info!(cluster = cluster.name(), %gvr, "new type");
            cluster.update(|s| {
                s.pending_init.insert(gvr.clone());
            });
            let (c, i) = match connections.take(cluster).await {
                Ok(taken) => taken,
                Err(e) => {
                    warn!(cluster = cluster.name(), %gvr, error = %e, "no connection for a new type; trying again");
                    cluster.update(|s| {
                        s.pending_init.remove(&gvr);
                    });
                    continue;
                }
            };
            running.insert(gvr, (tasks.spawn(watch_type(ctx.clone(), cluster.clone(), c, info)), i));
        }
        let types: BTreeSet<Gvr> = running.keys().cloned().collect();
        cluster.update(|s| {
            s.unlisted.retain(|gvr, _| types.contains(gvr));
            s.unwatched.retain(|gvr, _| types.contains(gvr));
            s.synced_types = types;
        });
        // Reap finished tasks: they end only when aborted, or when they panic (a bug). A type
        // whose watcher panicked is reported and watched again at the next rediscovery.
        while let Some(done) = tasks.try_join_next_with_id() {
            let Err(e) = done else { continue };
            if !e.is_panic() {
                continue;
            }
            let id = e.id();
            let why = panic_message(e.into_panic().as_ref());
            let Some(gvr) = running.iter().find(|(_, (h, _))| h.id() == id).map(|(g, _)| g.clone()) else {
                continue;
            };
            if let Some((_, i)) = running.remove(&gvr) {
                connections.watches[i] -= 1;
            }
            tracing::error!(cluster = cluster.name(), %gvr, panic = %why, "a watcher failed; restarting it");
            let at = k8s_openapi::jiff::Timestamp::now();
            cluster.update(|s| {
                s.message = Some(format!("{gvr}: its watcher failed at {at} ({why}); restarted"))
            });
        }
    }
}

/// The connections of one cluster's watches: HTTP/2 carries many watches on one connection,
/// up to [`WATCHES_PER_CONNECTION`] each (API servers cap the streams of a connection).
struct Connections {
    clients: Vec<Client>,
    watches: Vec<usize>,
}

impl Connections {
    /// A client with room for one more watch (a new connection when all are full), and its index.
    async fn take(&mut self, cluster: &Cluster) -> Result<(Client, usize), String> {
        let i = match self.watches.iter().position(|&n| n < WATCHES_PER_CONNECTION) {
            Some(i) => i,
            None => {
                self.clients.push(connect(&cluster.spec).await.map_err(|e| e.to_string())?);
                self.watches.push(0);
                self.clients.len() - 1
            }
        };
        self.watches[i] += 1;
        Ok((self.clients[i].clone(), i))
    }
}

async fn probe(client: &Client) -> Result<k8s_openapi::apimachinery::pkg::version::Info, String> {
    match tokio::time::timeout(Duration::from_secs(5), client.apiserver_version()).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(format!("unreachable: {}", crate::clusters::connect::one_line(&e))),
        Err(_) => Err("unreachable: /version timed out after 5s".into()),
    }
}

fn admitted(filter: &Filter, catalog: &[ResourceInfo]) -> BTreeMap<Gvr, ResourceInfo> {
    catalog.iter().filter(|i| filter.admits(i)).map(|i| (i.gvr(), i.clone())).collect()
}
