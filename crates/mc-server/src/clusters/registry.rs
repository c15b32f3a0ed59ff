//! In-memory registry of clusters and their sync state (small: no objects live here).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use k8s_openapi::jiff::Timestamp;
use mc_types::Gvr;
use mc_types::api::{ClusterInfo, ClusterStatus, TypeFault};
use mc_types::gvr::{METRICS_GROUP, METRICS_VERSION, ResourceInfo};
use tokio::task::AbortHandle;

use super::ClusterSpec;

/// What the history keeps of one cluster (see `crate::retention`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HistoryTotals {
    /// Revisions.
    pub revisions: u64,
    /// Stored bytes of their objects.
    pub bytes: u64,
    /// When the oldest was written (unix ms).
    pub oldest_ms: Option<i64>,
}

/// Live state of one cluster, as `/v1/clusters` shows it.
#[derive(Clone, Debug, Default)]
pub struct ClusterState {
    /// What the history keeps of the cluster (refreshed periodically; `None` when history is
    /// off).
    pub history: Option<HistoryTotals>,
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
    /// The whole `/version` answer of the last probe (refreshed with every probe).
    pub server_version: Option<k8s_openapi::apimachinery::pkg::version::Info>,
    /// Resource types being synced.
    pub synced_types: BTreeSet<Gvr>,
    /// Types whose first list has not completed yet.
    pub pending_init: BTreeSet<Gvr>,
    /// Types whose list failed three times in a row and not been written completely since:
    /// they no longer hold the initial sync back, and answers about them carry a `Warning`.
    pub unlisted: BTreeMap<Gvr, Fault>,
    /// Types that are listed but whose watch failed three times in a row, and has not brought a
    /// change or run for 20 s since: their rows are as old as their last list (the type is
    /// listed again at growing intervals), and answers about them carry a `Warning`.
    pub unwatched: BTreeMap<Gvr, Fault>,
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

/// Why a type of a cluster is not listed, or not watched (see [`ClusterState::unlisted`] and
/// [`ClusterState::unwatched`]).
#[derive(Clone, Debug)]
pub struct Fault {
    /// When it was found failing.
    pub since: Timestamp,
    /// The last failure, in the server's words.
    pub reason: String,
}

/// Who syncs a cluster. With a shared database, replicas split the clusters through one Lease
/// per cluster (see `sync::shard`); a replica watches only the clusters it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// This replica syncs the cluster: its store is its own, or nothing is sharded.
    Unsharded,
    /// Sharded, and this replica neither holds the cluster's Lease nor knows who does: not
    /// looked at yet, or (with the reason) the Lease could not be read, taken or renewed.
    Pending(Option<String>),
    /// This replica (`me`) holds the Lease and syncs the cluster.
    Mine(String),
    /// Another replica holds the Lease.
    Other(String),
    /// Nobody holds the Lease and this replica has no room: it syncs its limit of clusters.
    NoRoom(usize),
}

/// One cluster: its spec, its state and its running sync task.
pub struct Cluster {
    /// How to reach the cluster.
    pub spec: ClusterSpec,
    /// Live state.
    pub state: RwLock<ClusterState>,
    /// Discovery data of the last successful discovery, without the groups read live (see
    /// [`Cluster::serves_metrics`]).
    pub catalog: RwLock<Vec<ResourceInfo>>,
    /// Whether the last discovery found `metrics.k8s.io/v1beta1`.
    metrics: std::sync::atomic::AtomicBool,
    /// Objects in the store for this cluster (refreshed by the writer).
    pub objects: std::sync::atomic::AtomicU64,
    task: Mutex<Option<AbortHandle>>,
    client: RwLock<Option<kube::Client>>,
    started: Instant,
    relist: Mutex<BTreeSet<Gvr>>,
    relist_wake: tokio::sync::Notify,
    rediscover_wake: tokio::sync::Notify,
    ownership: RwLock<Ownership>,
    syncs: std::sync::atomic::AtomicBool,
    /// The status the syncing replica wrote to the shared store (when that is another replica).
    remote: RwLock<Option<ClusterInfo>>,
}

impl Cluster {
    /// A cluster that is not connected yet.
    pub fn new(spec: ClusterSpec) -> Self {
        Cluster {
            spec,
            state: RwLock::new(ClusterState::default()),
            catalog: RwLock::new(Vec::new()),
            metrics: Default::default(),
            objects: Default::default(),
            task: Mutex::new(None),
            client: RwLock::new(None),
            started: Instant::now(),
            relist: Mutex::new(BTreeSet::new()),
            relist_wake: tokio::sync::Notify::new(),
            rediscover_wake: tokio::sync::Notify::new(),
            ownership: RwLock::new(Ownership::Unsharded),
            syncs: std::sync::atomic::AtomicBool::new(true),
            remote: RwLock::new(None),
        }
    }

    /// Who syncs this cluster.
    pub fn ownership(&self) -> Ownership {
        self.ownership.read().map(|o| o.clone()).unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Changes who syncs this cluster; `true` when whether this replica syncs it changed.
    pub fn set_ownership(&self, ownership: Ownership) -> bool {
        let syncs = matches!(ownership, Ownership::Unsharded | Ownership::Mine(_));
        *self.ownership.write().unwrap_or_else(|e| e.into_inner()) = ownership;
        self.syncs.swap(syncs, std::sync::atomic::Ordering::AcqRel) != syncs
    }

    /// Whether this replica watches the cluster and writes its changes.
    pub fn syncs(&self) -> bool {
        self.syncs.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Keeps the status another replica wrote for this cluster.
    pub fn set_remote(&self, info: Option<ClusterInfo>) {
        *self.remote.write().unwrap_or_else(|e| e.into_inner()) = info;
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

    /// Its `/version` answer, once it was probed (the last one, while it is unreachable).
    pub fn server_version(&self) -> Option<k8s_openapi::apimachinery::pkg::version::Info> {
        self.state.read().unwrap_or_else(|e| e.into_inner()).server_version.clone()
    }

    /// Changes the state.
    pub fn update(&self, f: impl FnOnce(&mut ClusterState)) {
        let mut guard = self.state.write().unwrap_or_else(|e| e.into_inner());
        f(&mut guard);
    }

    /// Replaces the discovery data. The resource metrics API is kept as one fact (whether the
    /// cluster serves it, see [`Cluster::serves_metrics`]) and not as types: its objects are
    /// not stored but read live, so the store's list and get never serve them.
    pub fn set_catalog(&self, mut catalog: Vec<ResourceInfo>) {
        let metrics = catalog.iter().any(|r| r.group == METRICS_GROUP && r.version == METRICS_VERSION);
        catalog.retain(|r| r.group != METRICS_GROUP);
        self.metrics.store(metrics, std::sync::atomic::Ordering::Release);
        *self.catalog.write().unwrap_or_else(|e| e.into_inner()) = catalog;
    }

    /// Whether the cluster's last discovery found `metrics.k8s.io/v1beta1` (a metrics-server
    /// or another resource metrics API): noticed again at each discovery.
    pub fn serves_metrics(&self) -> bool {
        self.metrics.load(std::sync::atomic::Ordering::Acquire)
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

    /// Asks for discovery now rather than at the next probe (kept until the sync task looks).
    pub fn request_rediscovery(&self) {
        self.rediscover_wake.notify_one();
    }

    /// Resolves when discovery is asked for (see [`Cluster::request_rediscovery`]).
    pub async fn rediscovery_requested(&self) {
        self.rediscover_wake.notified().await
    }

    /// Seconds since the cluster was registered.
    pub fn age_seconds(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// The `/v1/clusters` view. `store_behind` is when the store started refusing writes, if it
    /// does: then a listed cluster is `Stale`, as it is when its changes lag by more than
    /// [`STALE_LAG_SECONDS`].
    pub fn info(&self, store_behind: Option<Timestamp>) -> ClusterInfo {
        match self.ownership() {
            Ownership::Unsharded => self.own_info(store_behind, None),
            Ownership::Mine(me) => self.own_info(store_behind, Some(me)),
            other => self.shared_info(other),
        }
    }

    /// The view of a cluster another replica syncs (or nobody does).
    fn shared_info(&self, ownership: Ownership) -> ClusterInfo {
        let mut info = self.own_info(None, None);
        info.resource_types = 0;
        info.types_listed = 0;
        info.last_event = None;
        info.lag_seconds = None;
        info.last_error = None;
        let now = || {
            Some(
                Timestamp::now()
                    .round(k8s_openapi::jiff::Unit::Second)
                    .unwrap_or(Timestamp::now())
                    .to_string(),
            )
        };
        match ownership {
            Ownership::Other(holder) => {
                let remote = self.remote.read().map(|r| r.clone()).unwrap_or_default();
                match remote {
                    Some(r) => {
                        info = ClusterInfo {
                            objects: info.objects,
                            history_revisions: info.history_revisions,
                            history_bytes: info.history_bytes,
                            history_oldest: info.history_oldest.clone(),
                            host: info.host,
                            is_master: info.is_master,
                            name: info.name,
                            ..r
                        };
                    }
                    None => {
                        info.status = ClusterStatus::Connecting;
                        info.since = now();
                        info.message =
                            Some(format!("synced by replica {holder}, which has not reported yet"));
                    }
                }
                info.synced_by = Some(holder);
            }
            Ownership::NoRoom(limit) => {
                info.status = ClusterStatus::NotReady;
                info.message = Some(format!(
                    "no replica syncs this cluster: nobody holds its Lease and this replica already syncs \
                     its limit of {limit} clusters (sync.maxClustersPerReplica)"
                ));
            }
            Ownership::Pending(reason) => {
                info.status = ClusterStatus::Connecting;
                info.since = now();
                info.message = Some(match reason {
                    Some(r) => format!("waiting for the cluster's sync Lease: {r}"),
                    None => "waiting for the cluster's sync Lease".into(),
                });
            }
            Ownership::Unsharded | Ownership::Mine(_) => {}
        }
        info
    }

    fn own_info(&self, store_behind: Option<Timestamp>, me: Option<String>) -> ClusterInfo {
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
            types_listed: s.synced_types.len().saturating_sub(s.pending_init.len() + s.unlisted.len()),
            objects: self.objects.load(std::sync::atomic::Ordering::Relaxed),
            last_event: s.last_event.map(|t| t.to_string()),
            lag_seconds: s.lag_seconds,
            message: s.message,
            last_error,
            synced_by: me,
            unlisted_types: s.unlisted.iter().map(|(gvr, u)| u.shown(gvr)).collect(),
            unwatched_types: s.unwatched.iter().map(|(gvr, u)| u.shown(gvr)).collect(),
            history_revisions: s.history.map(|h| h.revisions),
            history_bytes: s.history.map(|h| h.bytes),
            history_oldest: s
                .history
                .and_then(|h| h.oldest_ms)
                .and_then(|ms| Timestamp::from_millisecond(ms).ok())
                .map(|t| t.to_string()),
        }
    }

    /// The `Warning` an answer about `gvr` carries when this cluster cannot list it, or cannot
    /// watch it. Cheaper than [`Cluster::info`] (asked for every cluster an answer covers): only
    /// the one type is read.
    pub fn type_warning(&self, gvr: &Gvr) -> Option<String> {
        match self.ownership() {
            Ownership::Unsharded | Ownership::Mine(_) => {
                let s = self.state.read().unwrap_or_else(|e| e.into_inner());
                if let Some(unlisted) = s.unlisted.get(gvr) {
                    return Some(unlisted.shown(gvr).unlisted_warning(self.name()));
                }
                Some(s.unwatched.get(gvr)?.shown(gvr).unwatched_warning(self.name()))
            }
            Ownership::Other(_) => self.info(None).type_warning(&gvr.to_string()),
            Ownership::Pending(_) | Ownership::NoRoom(_) => None,
        }
    }
}

impl ClusterState {
    /// Lifts a type's unlisted mark, and the message its failure left on the cluster.
    pub fn listed_again(&mut self, gvr: &Gvr) {
        if self.unlisted.remove(gvr).is_some() {
            self.forget_message_of(gvr);
        }
    }

    /// Lifts a type's unwatched mark, and the message its failure left on the cluster.
    pub fn watched_again(&mut self, gvr: &Gvr) {
        if self.unwatched.remove(gvr).is_some() {
            self.forget_message_of(gvr);
        }
    }

    /// Clears the cluster's message if a failure of `gvr` left it (`"{gvr}: …"`).
    fn forget_message_of(&mut self, gvr: &Gvr) {
        if self.message.as_deref().is_some_and(|m| m.starts_with(&format!("{gvr}: "))) {
            self.message = None;
        }
    }
}

impl Fault {
    /// As `/v1/clusters` shows it.
    fn shown(&self, gvr: &Gvr) -> TypeFault {
        TypeFault {
            gvr: gvr.to_string(),
            since: self.since.round(k8s_openapi::jiff::Unit::Second).unwrap_or(self.since).to_string(),
            reason: self.reason.clone(),
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

    /// The master cluster (the one flagged `isMaster`), if one is registered.
    pub fn master(&self) -> Option<Arc<Cluster>> {
        self.clusters.read().unwrap_or_else(|e| e.into_inner()).values().find(|c| c.spec.is_master).cloned()
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
            match c.ownership() {
                Ownership::Unsharded | Ownership::Mine(_) => {}
                Ownership::Pending(reason) => {
                    return Err(match reason {
                        Some(r) => format!("cluster {} is waiting for its sync Lease: {r}", c.name()),
                        None => format!("cluster {} is waiting for its sync Lease", c.name()),
                    });
                }
                Ownership::NoRoom(_) => continue,
                Ownership::Other(by) => {
                    let status = c.info(None).status;
                    if matches!(status, ClusterStatus::Connecting | ClusterStatus::Syncing) {
                        return Err(format!("cluster {} is {status} (synced by replica {by})", c.name()));
                    }
                    continue;
                }
            }
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cluster(name: &str) -> Arc<Cluster> {
        Arc::new(Cluster::new(ClusterSpec::for_test(name)))
    }

    #[test]
    fn a_cluster_another_replica_syncs_shows_that_replicas_status_and_name() {
        let registry = Registry::new();
        let c = cluster("c1");
        registry.insert(c.clone());
        assert!(c.syncs(), "unsharded: every cluster is synced here");
        assert!(c.set_ownership(Ownership::Pending(Some("the master does not answer".into()))));
        assert!(!c.syncs());
        assert_eq!(c.info(None).status, ClusterStatus::Connecting);
        let why = registry.readiness().unwrap_err();
        assert!(why.contains("waiting for its sync Lease: the master does not answer"), "{why}");

        c.set_ownership(Ownership::Other("replica-b".into()));
        assert_eq!(c.info(None).synced_by.as_deref(), Some("replica-b"));
        assert!(registry.readiness().is_err(), "nothing reported yet by replica-b");
        let mut remote = c.info(None);
        remote.status = ClusterStatus::Synced;
        remote.version = "v1.35.0".into();
        remote.host = "https://elsewhere".into();
        c.set_remote(Some(remote));
        c.objects.store(42, std::sync::atomic::Ordering::Relaxed);
        let info = c.info(None);
        assert_eq!(
            (info.status, info.version.as_str(), info.objects),
            (ClusterStatus::Synced, "v1.35.0", 42)
        );
        assert_eq!(info.host, "https://127.0.0.1:1", "the host is this replica's own spec");
        assert!(registry.readiness().is_ok());

        assert!(!c.set_ownership(Ownership::NoRoom(3)));
        let info = c.info(None);
        assert_eq!(info.status, ClusterStatus::NotReady);
        assert!(info.message.unwrap().contains("limit of 3 clusters"));
        assert!(registry.readiness().is_ok(), "shown NotReady, as an unreachable cluster is");

        assert!(c.set_ownership(Ownership::Mine("me".into())));
        assert!(c.syncs());
        assert_eq!(c.info(None).synced_by.as_deref(), Some("me"));
    }

    #[test]
    fn discovery_with_metrics_keeps_the_fact_and_not_the_types() {
        let info = |group: &str, resource: &str| ResourceInfo {
            group: group.into(),
            version: if group.is_empty() { "v1".into() } else { METRICS_VERSION.into() },
            resource: resource.into(),
            kind: String::new(),
            singular: String::new(),
            short_names: Vec::new(),
            namespaced: true,
            verbs: vec!["get".into(), "list".into()],
            categories: Vec::new(),
        };
        let c = cluster("alpha");
        c.set_catalog(vec![info("", "pods"), info(METRICS_GROUP, "pods"), info(METRICS_GROUP, "nodes")]);
        assert!(c.serves_metrics());
        assert_eq!(c.catalog().len(), 1, "only the stored types");
        // A metrics-server removed: noticed at the next discovery.
        c.set_catalog(vec![info("", "pods")]);
        assert!(!c.serves_metrics());
    }
}
