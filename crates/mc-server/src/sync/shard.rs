//! Sharded sync. With a shared MySQL/PostgreSQL store, replicas split the clusters between them
//! through one `coordination.k8s.io/v1` Lease per cluster in the master (server namespace, named
//! `mc-sync-<cluster>`). A replica takes free or expired Leases up to
//! `sync.maxClustersPerReplica`, renews what it holds, watches only those clusters, and releases
//! them on shutdown. When a replica dies, its Leases expire after [`LEASE_DURATION`] and the
//! others take its clusters over; the new holder lists them again, which also removes what was
//! deleted while nobody watched. A Lease counts as expired when it has not changed for its
//! duration on this replica's own clock (as client-go's leader election does), so clocks of
//! different machines need not agree.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams};
use kube::{Client, ResourceExt};
use tokio::sync::{Notify, watch};
use tracing::{info, warn};

use super::{SyncContext, spawn_cluster};
use crate::clusters::{Cluster, ClusterSpec, Ownership, Registry, connect};

/// Prefix of the per-cluster Lease names.
pub const LEASE_PREFIX: &str = "mc-sync-";
/// Label on the per-cluster Leases; its value is the cluster name.
pub const SHARD_LABEL: &str = "mulitcluster.practice.com/sync-cluster";
/// How long a Lease stays valid without renewal: the takeover time when a replica dies.
pub const LEASE_DURATION: Duration = crate::lease::DURATION;
/// How often the Leases are looked at (and free ones taken).
const PASS: Duration = Duration::from_secs(2);
/// A held Lease is renewed when its last renewal is older than this.
const RENEW_AFTER: Duration = Duration::from_secs(5);

/// Wakes the sharder (a cluster joined and waits for its Lease).
#[derive(Clone, Debug, Default)]
pub struct Shards {
    wake: Arc<Notify>,
}

impl Shards {
    /// Makes the sharder look at the Leases now instead of at its next pass.
    pub fn wake(&self) {
        self.wake.notify_one();
    }
}

/// Who this replica is and how many clusters it may sync.
#[derive(Clone, Debug)]
pub struct ShardConfig {
    /// Namespace of the Leases (the server's namespace in the master).
    pub namespace: String,
    /// This replica's identity (the Leases' `holderIdentity`).
    pub identity: String,
    /// The most clusters this replica syncs; `None`: no limit.
    pub max: Option<usize>,
}

/// A Lease this replica holds.
struct Held {
    /// The Lease as last written (carries the resourceVersion for the next renewal).
    lease: Lease,
    /// When it was last written successfully.
    renewed: Instant,
}

/// The sharder's memory between passes.
struct Sharder {
    cfg: ShardConfig,
    registry: Arc<Registry>,
    sync: SyncContext,
    held: HashMap<String, Held>,
    /// Per Lease name: the resourceVersion last seen and when it was first seen.
    seen: HashMap<String, (String, Instant)>,
}

/// Takes, renews and releases the Leases of the clusters in `registry` until `shutdown` turns
/// true; then releases every held Lease so that other replicas take the clusters at once.
pub async fn run(
    master: ClusterSpec,
    registry: Arc<Registry>,
    sync: SyncContext,
    shards: Shards,
    cfg: ShardConfig,
    mut shutdown: watch::Receiver<bool>,
) {
    info!(identity = %cfg.identity, max = ?cfg.max, "sharded sync: one Lease per cluster");
    let mut sharder = Sharder { cfg, registry, sync, held: HashMap::new(), seen: HashMap::new() };
    let mut client: Option<Client> = None;
    loop {
        if *shutdown.borrow() {
            if let Some(client) = &client {
                sharder.release_all(&leases(client, &sharder.cfg.namespace)).await;
            }
            return;
        }
        if client.is_none() {
            match connect(&master).await {
                Ok(c) => client = Some(c),
                Err(e) => warn!(error = %e, "sharded sync: the master cannot be reached for the Leases"),
            }
        }
        match &client {
            Some(c) => {
                let api = leases(c, &sharder.cfg.namespace);
                // A panic (a bug) must not leave this replica writing clusters whose Leases it no
                // longer renews: it lets go of them, and the next pass starts afresh.
                if let Err(panic) = std::panic::AssertUnwindSafe(sharder.pass(&api)).catch_unwind().await {
                    let why = super::panic_message(panic.as_ref());
                    tracing::error!(panic = %why, "sharded sync: a pass failed; letting go of every cluster");
                    sharder.let_go(&format!("the sharded sync failed ({why})"));
                }
            }
            None => sharder.expire_unrenewed("the master cluster cannot be reached for the sync Leases"),
        }
        tokio::select! {
            _ = tokio::time::sleep(PASS) => {}
            _ = shards.wake.notified() => {}
            _ = shutdown.changed() => {}
        }
    }
}

fn leases(client: &Client, namespace: &str) -> Api<Lease> {
    Api::namespaced(client.clone(), namespace)
}

/// The Lease name of a cluster (cluster names are DNS labels, so this is a valid name).
pub fn lease_name(cluster: &str) -> String {
    format!("{LEASE_PREFIX}{cluster}")
}

impl Sharder {
    /// One look at every Lease: renew what is held, take what is free, note who holds the rest.
    async fn pass(&mut self, api: &Api<Lease>) {
        let listed = match api.list(&ListParams::default().labels(SHARD_LABEL)).await {
            Ok(l) => l.items,
            Err(e) => {
                let e = crate::clusters::connect::one_line(&e);
                warn!(error = %e, "sharded sync: listing the Leases failed");
                self.expire_unrenewed(&format!("the sync Leases cannot be listed: {e}"));
                return;
            }
        };
        let now = Instant::now();
        let mut by_cluster: HashMap<String, Lease> = HashMap::new();
        let names: std::collections::HashSet<String> = listed.iter().map(|l| l.name_any()).collect();
        self.seen.retain(|name, _| names.contains(name));
        for lease in listed {
            let name = lease.name_any();
            let rv = lease.resource_version().unwrap_or_default();
            let entry = self.seen.entry(name).or_insert_with(|| (rv.clone(), now));
            if entry.0 != rv {
                *entry = (rv, now);
            }
            if let Some(cluster) = lease.labels().get(SHARD_LABEL) {
                by_cluster.insert(cluster.clone(), lease);
            }
        }

        let mut clusters = self.registry.all();
        // Each replica walks the clusters in its own order, so replicas that start together
        // mostly go for different Leases instead of racing for the same ones.
        clusters.sort_by_key(|c| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&self.cfg.identity, c.name()).hash(&mut h);
            h.finish()
        });
        // Held first: renewals never wait behind takeovers.
        clusters.sort_by_key(|c| !self.held.contains_key(c.name()));
        for cluster in clusters {
            let lease = by_cluster.remove(cluster.name());
            let ownership = self.decide(api, &cluster, lease).await;
            if cluster.set_ownership(ownership) {
                // Watch now, or stop watching: the session starts again in the other mode.
                spawn_cluster(self.sync.clone(), cluster);
            }
        }
        // Leases of clusters that left (unjoined) are removed if this replica held them.
        let gone: Vec<String> =
            self.held.keys().filter(|c| self.registry.get(c).is_none()).cloned().collect();
        for cluster in gone {
            self.held.remove(&cluster);
            let _ = api.delete(&lease_name(&cluster), &DeleteParams::default()).await;
        }
    }

    /// Who syncs `cluster` after this pass, taking or renewing its Lease where this replica may.
    async fn decide(&mut self, api: &Api<Lease>, cluster: &Cluster, lease: Option<Lease>) -> Ownership {
        let me = self.cfg.identity.clone();
        let name = cluster.name().to_string();
        let holder = lease
            .as_ref()
            .and_then(|l| l.spec.as_ref())
            .and_then(|s| s.holder_identity.clone())
            .filter(|h| !h.is_empty());
        let expired = match (&lease, &holder) {
            (Some(l), Some(_)) => {
                let secs = l.spec.as_ref().and_then(|s| s.lease_duration_seconds).unwrap_or(15).max(1);
                let unchanged = self
                    .seen
                    .get(&l.name_any())
                    .is_none_or(|(_, since)| since.elapsed() > Duration::from_secs(secs as u64));
                // A Lease left long ago (its holder crashed before this replica started) is free
                // at once: not renewed for twice its duration even by a clock that is off.
                let abandoned = l.spec.as_ref().and_then(|s| s.renew_time.as_ref()).is_none_or(|t| {
                    let limit = k8s_openapi::jiff::SignedDuration::from_secs(2 * i64::from(secs));
                    t.0.checked_add(limit).is_ok_and(|end| end < Timestamp::now())
                });
                unchanged || abandoned
            }
            _ => true,
        };
        match (lease, holder) {
            (Some(lease), Some(h)) if h == me => {
                let due = self.held.get(&name).is_none_or(|held| held.renewed.elapsed() >= RENEW_AFTER);
                if !due {
                    return Ownership::Mine(me);
                }
                match crate::lease::hold(api, lease, &me).await {
                    Ok(lease) => {
                        self.held.insert(name, Held { lease, renewed: Instant::now() });
                        Ownership::Mine(me)
                    }
                    // Someone else wrote the Lease since: the next pass reads who.
                    Err(kube::Error::Api(s)) if s.code == 409 => {
                        self.held.remove(&name);
                        Ownership::Pending(None)
                    }
                    Err(e) => self.keep_until_expiry(&name, &e),
                }
            }
            (Some(_), Some(h)) if !expired => {
                if self.held.remove(&name).is_some() {
                    warn!(cluster = %name, holder = %h, "sharded sync: another replica took the cluster's Lease");
                }
                Ownership::Other(h)
            }
            (lease, _) => {
                // Held by this replica, but the Lease is gone or handed back: take it again.
                self.held.remove(&name);
                if let Some(max) = self.cfg.max
                    && self.held.len() >= max
                {
                    return Ownership::NoRoom(max);
                }
                let taken = match lease {
                    Some(lease) => crate::lease::hold(api, lease, &me).await,
                    None => {
                        let labels = [(SHARD_LABEL.to_string(), name.clone())].into();
                        crate::lease::create(api, &lease_name(&name), labels, &me).await
                    }
                };
                match taken {
                    Ok(lease) => {
                        info!(cluster = %name, "sharded sync: took the cluster's Lease; listing it");
                        self.held.insert(name, Held { lease, renewed: Instant::now() });
                        Ownership::Mine(me)
                    }
                    // Another replica was faster.
                    Err(kube::Error::Api(s)) if s.code == 409 => Ownership::Pending(None),
                    Err(e) => {
                        let e = crate::clusters::connect::one_line(&e);
                        warn!(cluster = %name, error = %e, "sharded sync: taking the Lease failed");
                        Ownership::Pending(Some(format!("taking it failed: {e}")))
                    }
                }
            }
        }
    }

    /// A renewal failed for another reason than a conflict (the master does not answer): the
    /// cluster stays this replica's until the Lease could have expired for the others.
    fn keep_until_expiry(&mut self, name: &str, e: &kube::Error) -> Ownership {
        let e = crate::clusters::connect::one_line(e);
        warn!(cluster = %name, error = %e, "sharded sync: renewing the Lease failed");
        match self.held.get(name) {
            Some(held) if held.renewed.elapsed() + PASS < LEASE_DURATION => {
                Ownership::Mine(self.cfg.identity.clone())
            }
            _ => {
                self.held.remove(name);
                Ownership::Pending(Some(format!("renewing it failed: {e}")))
            }
        }
    }

    /// Without an answer from the master: clusters whose Lease could have expired for the others
    /// are no longer synced here (two replicas must not write one cluster).
    fn expire_unrenewed(&mut self, reason: &str) {
        let expired: Vec<String> = self
            .held
            .iter()
            .filter(|(_, h)| h.renewed.elapsed() + PASS >= LEASE_DURATION)
            .map(|(c, _)| c.clone())
            .collect();
        for name in expired {
            self.held.remove(&name);
            warn!(cluster = %name, "sharded sync: the Lease could not be renewed in time; no longer syncing the cluster");
            if let Some(cluster) = self.registry.get(&name)
                && cluster.set_ownership(Ownership::Pending(Some(reason.to_string())))
            {
                spawn_cluster(self.sync.clone(), cluster);
            }
        }
        // The clusters nobody here holds say why they wait.
        for cluster in self.registry.all() {
            if matches!(cluster.ownership(), Ownership::Pending(_)) {
                cluster.set_ownership(Ownership::Pending(Some(reason.to_string())));
            }
        }
    }

    /// Stops syncing every held cluster without touching the Leases (they expire).
    fn let_go(&mut self, reason: &str) {
        for name in std::mem::take(&mut self.held).into_keys() {
            if let Some(cluster) = self.registry.get(&name)
                && cluster.set_ownership(Ownership::Pending(Some(reason.to_string())))
            {
                spawn_cluster(self.sync.clone(), cluster);
            }
        }
    }

    /// Hands every held Lease back (shutdown): other replicas take the clusters at their next
    /// pass instead of after the Lease duration.
    async fn release_all(&mut self, api: &Api<Lease>) {
        for (name, held) in std::mem::take(&mut self.held) {
            if let Some(cluster) = self.registry.get(&name) {
                cluster.set_ownership(Ownership::Pending(Some("this replica is stopping".into())));
                cluster.stop();
            }
            match crate::lease::release(api, held.lease).await {
                Ok(_) => info!(cluster = %name, "sharded sync: Lease released"),
                Err(e) => {
                    warn!(cluster = %name, error = %crate::clusters::connect::one_line(&e), "sharded sync: releasing the Lease failed")
                }
            }
        }
    }
}
