//! In-memory registry of clusters and their sync state (small: no objects live here).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use k8s_openapi::jiff::Timestamp;
use mc_types::Gvr;
use mc_types::api::{ClusterInfo, ClusterStatus};
use mc_types::gvr::ResourceInfo;
use tokio::task::AbortHandle;

use super::ClusterSpec;

/// Live state of one cluster, as `/v1/clusters` shows it.
#[derive(Clone, Debug, Default)]
pub struct ClusterState {
    /// Reachable and synced (or syncing).
    pub ready: bool,
    /// At least one connection attempt has finished (either way).
    pub attempted: bool,
    /// Why the cluster is not ready, or the last sync problem.
    pub message: Option<String>,
    /// Kubernetes version (`gitVersion`).
    pub version: String,
    /// Platform, e.g. `linux/amd64`.
    pub platform: String,
    /// Resource types being synced.
    pub synced_types: BTreeSet<Gvr>,
    /// Types whose first list has not completed yet.
    pub pending_init: BTreeSet<Gvr>,
    /// Whether every type finished its first list since the cluster became ready.
    pub initial_sync_done: bool,
    /// Time of the last change written for this cluster.
    pub last_event: Option<Timestamp>,
    /// Seconds between an event's arrival and its write, for the last batch.
    pub lag_seconds: Option<f64>,
    /// Changes the store refused even in a sanitized form (each is reported, none is dropped
    /// silently).
    pub refused: u64,
    /// Changes stored only in a sanitized form.
    pub sanitized: u64,
    /// The last change the store refused: which object and why.
    pub last_sync_error: Option<String>,
    /// When `ready` last changed (connected or lost).
    pub since: Option<Timestamp>,
    /// When the initial sync finished.
    pub synced_at: Option<Timestamp>,
}

/// One cluster: its spec, its state and its running sync task.
pub struct Cluster {
    /// How to reach the cluster.
    pub spec: ClusterSpec,
    /// Live state.
    pub state: RwLock<ClusterState>,
    /// Discovery data of the last successful discovery.
    pub catalog: RwLock<Vec<ResourceInfo>>,
    /// Objects in the store for this cluster (refreshed by the writer).
    pub objects: std::sync::atomic::AtomicU64,
    task: Mutex<Option<AbortHandle>>,
    client: RwLock<Option<kube::Client>>,
    started: Instant,
    relist: Mutex<BTreeSet<Gvr>>,
    relist_wake: tokio::sync::Notify,
}

impl Cluster {
    /// A cluster that is not connected yet.
    pub fn new(spec: ClusterSpec) -> Self {
        Cluster {
            spec,
            state: RwLock::new(ClusterState::default()),
            catalog: RwLock::new(Vec::new()),
            objects: Default::default(),
            task: Mutex::new(None),
            client: RwLock::new(None),
            started: Instant::now(),
            relist: Mutex::new(BTreeSet::new()),
            relist_wake: tokio::sync::Notify::new(),
        }
    }

    /// When this cluster object was made: tells a cluster joined again apart from the one
    /// unjoined before it, whatever their names.
    pub fn created(&self) -> Instant {
        self.started
    }

    /// The cluster's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Reads the state (a poisoned lock still yields the last state).
    pub fn state(&self) -> ClusterState {
        self.state.read().map(|s| s.clone()).unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Changes the state.
    pub fn update(&self, f: impl FnOnce(&mut ClusterState)) {
        let mut guard = self.state.write().unwrap_or_else(|e| e.into_inner());
        f(&mut guard);
    }

    /// Replaces the discovery data.
    pub fn set_catalog(&self, catalog: Vec<ResourceInfo>) {
        *self.catalog.write().unwrap_or_else(|e| e.into_inner()) = catalog;
    }

    /// A copy of the discovery data.
    pub fn catalog(&self) -> Vec<ResourceInfo> {
        self.catalog.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// The client of the current connection (`None` while the cluster is not ready).
    pub fn client(&self) -> Option<kube::Client> {
        self.client.read().ok().and_then(|c| c.clone())
    }

    /// Sets or clears the client of the current connection.
    pub fn set_client(&self, client: Option<kube::Client>) {
        *self.client.write().unwrap_or_else(|e| e.into_inner()) = client;
    }

    /// Remembers the sync task so that it can be stopped.
    pub fn set_task(&self, handle: AbortHandle) {
        let mut t = self.task.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = t.replace(handle) {
            old.abort();
        }
    }

    /// Stops the sync task (and with it every watcher of the cluster).
    pub fn stop(&self) {
        if let Some(t) = self.task.lock().unwrap_or_else(|e| e.into_inner()).take() {
            t.abort();
        }
    }

    /// Asks the watcher of `gvr` to list again (its last list was not written completely).
    pub fn request_relist(&self, gvr: &Gvr) {
        self.relist.lock().unwrap_or_else(|e| e.into_inner()).insert(gvr.clone());
        self.relist_wake.notify_waiters();
    }

    /// Whether a relist of `gvr` was asked for; the request is taken.
    pub fn take_relist(&self, gvr: &Gvr) -> bool {
        self.relist.lock().unwrap_or_else(|e| e.into_inner()).remove(gvr)
    }

    /// Resolves at the next relist request (of any type of this cluster).
    pub async fn relist_requested(&self) {
        self.relist_wake.notified().await
    }

    /// Seconds since the cluster was registered.
    pub fn age_seconds(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// The `/v1/clusters` view. `store_behind` is when the store started refusing writes, if it
    /// does: then a listed cluster is `Stale`, as it is when its changes lag by more than
    /// [`STALE_LAG_SECONDS`].
    pub fn info(&self, store_behind: Option<Timestamp>) -> ClusterInfo {
        let s = self.state();
        let lagging = s.lag_seconds.is_some_and(|l| l > STALE_LAG_SECONDS);
        let (status, since) = if !s.attempted {
            (
                ClusterStatus::Connecting,
                Some(Timestamp::now() - std::time::Duration::from_secs(self.age_seconds())),
            )
        } else if !s.ready {
            (ClusterStatus::NotReady, s.since)
        } else if !s.initial_sync_done {
            (ClusterStatus::Syncing, s.since)
        } else if let Some(t) = store_behind {
            (ClusterStatus::Stale, Some(t))
        } else if lagging {
            (ClusterStatus::Stale, s.last_event)
        } else {
            (ClusterStatus::Synced, s.synced_at.or(s.since))
        };
        let last_error = s.last_sync_error.map(|e| {
            format!(
                "{} change(s) could not be stored ({} stored sanitized); last: {e}",
                s.refused, s.sanitized
            )
        });
        ClusterInfo {
            name: self.spec.name.clone(),
            status,
            since: since.map(|t| t.round(k8s_openapi::jiff::Unit::Second).unwrap_or(t).to_string()),
            version: s.version,
            platform: s.platform,
            host: self.spec.host.clone(),
            is_master: self.spec.is_master,
            resource_types: s.synced_types.len(),
            types_listed: s.synced_types.len().saturating_sub(s.pending_init.len()),
            objects: self.objects.load(std::sync::atomic::Ordering::Relaxed),
            last_event: s.last_event.map(|t| t.to_string()),
            lag_seconds: s.lag_seconds,
            message: s.message,
            last_error,
        }
    }
}

/// Changes older than this when written make a cluster `Stale`.
pub const STALE_LAG_SECONDS: f64 = 30.0;

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("name", &self.spec.name).field("state", &self.state()).finish()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Every cluster the server knows, by name.
#[derive(Debug, Default)]
pub struct Registry {
    clusters: RwLock<BTreeMap<String, Arc<Cluster>>>,
    /// A problem of the master cluster beyond its sync (its CRDs could not be installed).
    master_problem: RwLock<Option<String>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a cluster; `false` if the name is taken.
    pub fn insert(&self, cluster: Arc<Cluster>) -> bool {
        let mut map = self.clusters.write().unwrap_or_else(|e| e.into_inner());
        if map.contains_key(cluster.name()) {
            return false;
        }
        map.insert(cluster.name().to_string(), cluster);
        true
    }

    /// Removes a cluster and stops its sync.
    pub fn remove(&self, name: &str) -> Option<Arc<Cluster>> {
        let removed = self.clusters.write().unwrap_or_else(|e| e.into_inner()).remove(name);
        if let Some(c) = &removed {
            c.stop();
        }
        removed
    }

    /// One cluster by name.
    pub fn get(&self, name: &str) -> Option<Arc<Cluster>> {
        self.clusters.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
    }

    /// Every cluster, ordered by name.
    pub fn all(&self) -> Vec<Arc<Cluster>> {
        self.clusters.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }

    /// Names of every cluster.
    pub fn names(&self) -> Vec<String> {
        self.clusters.read().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect()
    }

    /// Records (or clears) a problem of the master cluster that is not about its sync, such as
    /// CRDs that could not be installed; it shows in `/readyz` and on the master in `/v1/clusters`.
    pub fn set_master_problem(&self, problem: Option<String>) {
        *self.master_problem.write().unwrap_or_else(|e| e.into_inner()) = problem;
    }

    /// The master's problem, if any (see [`Registry::set_master_problem`]).
    pub fn master_problem(&self) -> Option<String> {
        self.master_problem.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Every cluster as `/v1/clusters` shows it; `behind` is when the store started refusing
    /// writes, if it does. The master carries its problem (see [`Registry::set_master_problem`]).
    pub fn infos(&self, behind: Option<Timestamp>) -> Vec<ClusterInfo> {
        let problem = self.master_problem();
        let mut infos: Vec<ClusterInfo> = self.all().iter().map(|c| c.info(behind)).collect();
        if let Some(problem) = problem {
            for info in infos.iter_mut().filter(|i| i.is_master) {
                info.message = Some(match info.message.take() {
                    Some(m) => format!("{m}; {problem}"),
                    None => problem.clone(),
                });
            }
        }
        infos
    }

    /// Ready when every cluster was tried once and every reachable one finished its initial
    /// sync; otherwise the reason.
    pub fn readiness(&self) -> Result<(), String> {
        for c in self.all() {
            let s = c.state();
            if !s.attempted {
                return Err(format!("cluster {} is connecting", c.name()));
            }
            if s.ready && !s.initial_sync_done {
                return Err(format!(
                    "cluster {} is syncing ({} types pending)",
                    c.name(),
                    s.pending_init.len()
                ));
            }
        }
        Ok(())
    }

    /// Union of every cluster's discovery data, one entry per GVR.
    pub fn catalog(&self) -> Vec<ResourceInfo> {
        let mut seen = BTreeMap::new();
        for c in self.all() {
            for r in c.catalog() {
                seen.entry((r.group.clone(), r.version.clone(), r.resource.clone())).or_insert(r);
            }
        }
        seen.into_values().collect()
    }
}
