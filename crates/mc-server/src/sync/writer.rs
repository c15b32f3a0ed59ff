//! The single writer: batches changes of every cluster into store transactions.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt as _;
use k8s_openapi::jiff::Timestamp;
use mc_types::Gvr;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, mpsc, oneshot};
use tracing::{debug, warn};

use super::gaps::Gaps;
use super::history::History;
use super::notice::{Notice, Notices, identity};
use super::resilient::{self, StoreHealth};
use crate::clusters::Cluster;
use crate::store::{Backend, Batch, Change, Expect, Listed, RelistKeys, Store, StoredObject};

/// Most objects written in one batch (one transaction per cluster).
const MAX_BATCH: usize = 2000;
/// Most objects of list pages queued for the writer at once: a watcher whose page does not fit
/// waits. With the message queue (at most [`MAX_BATCH`] messages, pages and control messages
/// counted as one) this bounds what waits in memory to about `MAX_QUEUED + MAX_BATCH` objects,
/// however many types and clusters list at once (and a page being filled per listing type).
/// Twice the writer's batch keeps it busy; a longer queue holds more objects without shortening a
/// sync (see docs/adr/0001-single-writer.md).
pub const MAX_QUEUED: usize = 4000;

/// What the watchers tell the writer.
#[derive(Debug)]
pub enum Msg {
    /// An object was added or modified.
    Upsert(Arc<Cluster>, StoredObject, Instant),
    /// A page of a list: objects of one type of one cluster, written together.
    Page {
        /// The cluster.
        cluster: Arc<Cluster>,
        /// The objects (of one type).
        objects: Vec<StoredObject>,
        /// [`Expect::NewRows`] for the pages of a type's first list.
        expect: Expect,
        /// When it was queued.
        at: Instant,
        /// Holds the objects' room in the queue until they are written.
        permit: OwnedSemaphorePermit,
    },
    /// An object was deleted.
    Delete(Arc<Cluster>, Box<(Gvr, String, String, String)>, Instant),
    /// A (re)list completed: rows of this type whose uid `keep` did not list are gone.
    InitDone {
        /// The cluster.
        cluster: Arc<Cluster>,
        /// The type.
        gvr: Gvr,
        /// The stored keys, marked where the list returned them, and the uids it returned that
        /// were not stored; `None` when the store held no row of the type when the list started
        /// (a first sync: every row was written by this list, nothing is missing).
        keep: Option<RelistKeys>,
        /// The list found the type's API server back after it was away: the type's unwatched
        /// mark, which that absence made, goes once the list is written.
        back: bool,
    },
    /// The type is no longer served by the cluster.
    DropGvr(Arc<Cluster>, Gvr),
    /// Remove every row of a cluster, after everything queued before it; replies the count.
    DropCluster(String, oneshot::Sender<crate::store::Result<u64>>),
    /// Replies once everything queued before it is written (shutdown).
    Barrier(oneshot::Sender<()>),
}

/// Sending half used by the watchers: the message queue and the room left for list pages.
#[derive(Clone, Debug)]
pub struct Sender {
    tx: mpsc::Sender<Msg>,
    room: Arc<Semaphore>,
}

/// The writer is gone (shutting down).
#[derive(Debug)]
pub struct Closed;

impl Sender {
    /// Queues one message; waits while the queue is full.
    pub async fn send(&self, msg: Msg) -> Result<(), Closed> {
        self.tx.send(msg).await.map_err(|_| Closed)
    }

    /// Queues a page of listed objects; waits until there is room for them in the queue.
    /// `expect` is [`Expect::NewRows`] when the store held no row of the type as its list began.
    pub async fn send_page(
        &self,
        cluster: Arc<Cluster>,
        objects: Vec<StoredObject>,
        expect: Expect,
    ) -> Result<(), Closed> {
        if objects.is_empty() {
            return Ok(());
        }
        let at = Instant::now();
        // A page larger than the whole room takes all of it (never waits forever).
        let n = u32::try_from(objects.len().min(MAX_QUEUED)).unwrap_or(u32::MAX);
        let permit = Arc::clone(&self.room).acquire_many_owned(n).await.map_err(|_| Closed)?;
        self.send(Msg::Page { cluster, objects, expect, at, permit }).await
    }

    /// Objects of list pages queued now.
    #[cfg(test)]
    fn queued_objects(&self) -> usize {
        MAX_QUEUED - self.room.available_permits()
    }
}

/// Starts the writer task; it ends when every sender is gone. `health` tells whether the store
/// accepts writes: while it does not, the writer waits and retries (its queue is bounded, so the
/// watchers wait too and nothing is dropped).
pub fn spawn(
    store: Store,
    health: Arc<StoreHealth>,
) -> (Sender, Notices, Arc<History>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = mpsc::channel(MAX_BATCH);
    let tx = Sender { tx, room: Arc::new(Semaphore::new(MAX_QUEUED)) };
    let (notices, _) = broadcast::channel(4096);
    let history = Arc::new(History::default());
    let writer = Writer {
        store,
        notices: notices.clone(),
        history: history.clone(),
        health,
        refused: Default::default(),
        gaps: Default::default(),
    };
    (tx, notices, history, tokio::spawn(run(writer, rx)))
}

/// What every write needs.
struct Writer {
    store: Store,
    notices: Notices,
    history: Arc<History>,
    health: Arc<StoreHealth>,
    /// Object versions already refused once (cluster, type, uid, resourceVersion): a relist
    /// brings them again, and must not ask for another relist, forever.
    refused: std::sync::Mutex<HashSet<(String, Gvr, String, String)>>,
    /// When each type was last known current, for the revisions of what lists find (only
    /// kept when the store keeps history).
    gaps: tokio::sync::Mutex<Gaps>,
}

#[derive(Default)]
struct Pending {
    changes: Vec<Change>,
    oldest: Option<Instant>,
    /// [`Expect::NewRows`] once a page of a first list is among the changes.
    expect: Expect,
    /// The types of the list pages among the changes, with the lower bound of when what they
    /// found changed (for the history).
    listed: Listed,
}

async fn run(w: Writer, mut rx: mpsc::Receiver<Msg>) {
    let mut batch: Vec<Msg> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        // Group commit: whatever queued while the last batch was written goes in this one, and
        // nothing waits for company. Under load batches grow by themselves; a lone change is
        // written at once.
        let mut objects = weight(&first);
        batch.push(first);
        let mut yielded = false;
        while objects < MAX_BATCH {
            match rx.try_recv() {
                Ok(m) => {
                    objects += weight(&m);
                    batch.push(m);
                }
                // Once, let the tasks ready on this thread (watchers) queue what they hold.
                Err(mpsc::error::TryRecvError::Empty) if !yielded => {
                    yielded = true;
                    tokio::task::yield_now().await;
                }
                Err(_) => break,
            }
        }
        // A panic while writing (a bug) loses the batch, not the writer: its types are listed
        // again, which writes what was lost, and the clusters say so.
        let touched = touched(&batch);
        let written =
            std::panic::AssertUnwindSafe(write(&w, std::mem::take(&mut batch))).catch_unwind().await;
        if let Err(panic) = written {
            let why = super::panic_message(panic.as_ref());
            tracing::error!(panic = %why, types = touched.len(), "writing a batch failed; listing its types again");
            for (cluster, gvr) in touched {
                cluster.update(|s| {
                    s.last_sync_error = Some(format!("{gvr}: a write failed ({why}); listed again"))
                });
                cluster.request_relist(&gvr);
            }
        }
    }
}

/// The (cluster, type) pairs whose changes a batch carries.
fn touched(batch: &[Msg]) -> Vec<(Arc<Cluster>, Gvr)> {
    let mut seen: BTreeMap<(String, Gvr), Arc<Cluster>> = BTreeMap::new();
    for msg in batch {
        let (cluster, gvr) = match msg {
            Msg::Upsert(c, o, _) => (c, &o.gvr),
            Msg::Page { cluster, objects, .. } => match objects.first() {
                Some(o) => (cluster, &o.gvr),
                None => continue,
            },
            Msg::Delete(c, key, _) => (c, &key.0),
            Msg::InitDone { cluster, gvr, .. } | Msg::DropGvr(cluster, gvr) => (cluster, gvr),
            Msg::DropCluster(..) | Msg::Barrier(_) => continue,
        };
        seen.entry((cluster.name().to_string(), gvr.clone())).or_insert_with(|| cluster.clone());
    }
    seen.into_iter().map(|((_, gvr), c)| (c, gvr)).collect()
}

/// How many objects a message carries (control messages count as one).
fn weight(msg: &Msg) -> usize {
    match msg {
        Msg::Page { objects, .. } => objects.len().max(1),
        _ => 1,
    }
}

/// Writes one batch: data changes grouped per cluster, control messages in order. Changes of a
/// cluster another replica syncs only go to watch streams: that replica writes them.
async fn write(w: &Writer, batch: Vec<Msg>) {
    let mut pending: BTreeMap<String, (Arc<Cluster>, Pending)> = BTreeMap::new();
    let mut permits: Vec<OwnedSemaphorePermit> = Vec::new();
    let history = w.store.records_history();
    let mut gaps = w.gaps.lock().await;
    for msg in batch {
        match msg {
            Msg::Upsert(c, obj, t) => {
                if history {
                    gaps.watched(c.name(), &obj.gvr, t);
                }
                push(&mut pending, c, [Change::Upsert(obj)], t, Expect::Any)
            }
            // The permit is released once the batch is written (end of this call).
            Msg::Page { cluster, objects, expect, at, permit } => {
                let listed = match objects.first() {
                    Some(o) if history => {
                        Some((o.gvr.clone(), gaps.page(&w.store, cluster.name(), &o.gvr, at).await))
                    }
                    _ => None,
                };
                let name = cluster.name().to_string();
                push(&mut pending, cluster, objects.into_iter().map(Change::Upsert), at, expect);
                if let (Some((gvr, gap_from)), Some((_, p))) = (listed, pending.get_mut(&name))
                    && !p.listed.0.iter().any(|(g, _)| g == &gvr)
                {
                    p.listed.0.push((gvr, gap_from));
                }
                permits.push(permit);
            }
            Msg::Delete(c, key, t) => {
                let (gvr, namespace, name, uid) = *key;
                if history {
                    gaps.watched(c.name(), &gvr, t);
                }
                push(&mut pending, c, [Change::Delete { gvr, namespace, name, uid }], t, Expect::Any)
            }
            Msg::InitDone { cluster, gvr, keep, back } => {
                flush(w, &mut pending).await;
                // What the list no longer has was deleted while nobody watched (a watch gap, a
                // restart, a takeover): gone from the store, and told to the watch streams. A
                // replica that does not write the cluster only tells its streams.
                let name = cluster.name();
                let gap_from = match &keep {
                    Some(_) if history => gaps.bound(&w.store, name, &gvr).await,
                    _ => None,
                };
                let reconciled = match &keep {
                    None => Ok(Vec::new()),
                    Some(keep) if cluster.syncs() => {
                        resilient::retrying_op(&w.health, || {
                            w.store.delete_missing_since(name, &gvr, keep, gap_from)
                        })
                        .await
                    }
                    Some(keep) => {
                        resilient::retrying_op(&w.health, || w.store.missing(name, &gvr, keep)).await
                    }
                };
                match reconciled {
                    Ok(gone) => {
                        publish(w, name, gone);
                        if history {
                            gaps.listed(name, &gvr);
                        }
                        cluster.update(|s| {
                            s.pending_init.remove(&gvr);
                            // The failure that marked it is over, and so is its message.
                            s.listed_again(&gvr);
                            if back {
                                s.watched_again(&gvr);
                            }
                            if s.pending_init.is_empty() && !s.initial_sync_done {
                                s.initial_sync_done = true;
                                s.synced_at = Some(k8s_openapi::jiff::Timestamp::now());
                                debug!(cluster = cluster.name(), "initial sync done");
                            }
                        })
                    }
                    // The type is not synced until a list is written completely: list again.
                    Err(e) => {
                        warn!(cluster = cluster.name(), %gvr, error = %e, "reconcile after list failed; relisting");
                        cluster.update(|s| {
                            s.last_sync_error = Some(format!("{gvr}: reconcile after list: {e}"))
                        });
                        cluster.request_relist(&gvr);
                    }
                }
            }
            Msg::DropGvr(cluster, gvr) => {
                flush(w, &mut pending).await;
                if cluster.syncs() {
                    let name = cluster.name();
                    match resilient::retrying_op(&w.health, || w.store.delete_gvr(name, &gvr)).await {
                        Ok(gone) => publish(w, name, gone),
                        Err(e) => {
                            warn!(cluster = name, %gvr, error = %e, "dropping a removed type failed");
                            cluster.update(|s| {
                                s.last_sync_error = Some(format!("{gvr}: dropping the removed type: {e}"))
                            });
                        }
                    }
                }
            }
            Msg::Barrier(reply) => {
                flush(w, &mut pending).await;
                let _ = reply.send(());
            }
            Msg::DropCluster(name, reply) => {
                flush(w, &mut pending).await;
                gaps.forget(&name);
                let dropped = resilient::retrying_op(&w.health, || w.store.delete_cluster(&name)).await;
                let _ = reply.send(dropped.map(|gone| {
                    let n = gone.len() as u64;
                    publish(w, &name, gone);
                    n
                }));
            }
        }
    }
    drop(gaps);
    flush(w, &mut pending).await;
    drop(permits);
}

fn push(
    pending: &mut BTreeMap<String, (Arc<Cluster>, Pending)>,
    c: Arc<Cluster>,
    changes: impl IntoIterator<Item = Change>,
    t: Instant,
    expect: Expect,
) {
    let entry = pending.entry(c.name().to_string()).or_insert_with(|| (c, Pending::default()));
    entry.1.changes.extend(changes);
    entry.1.oldest = Some(entry.1.oldest.map_or(t, |o| o.min(t)));
    // A first list's page among watch events: its chunks of new rows are still inserted as such,
    // a chunk with stored objects falls back to an upsert (see `Store::apply_changes`).
    if expect == Expect::NewRows {
        entry.1.expect = Expect::NewRows;
    }
}

/// Writes what is pending, one transaction per cluster. On PostgreSQL the clusters'
/// transactions run concurrently (their rows are disjoint). On MySQL/MariaDB they do only when
/// each is a first list's pages, written as plain inserts: InnoDB's gap locks make concurrent
/// upserts deadlock, and the inserts of new rows met none (see the store scenario of concurrent
/// writers). SQLite would take them in turn anyway: it writes the clusters' changes in one
/// transaction ([`flush_together`]), when every one of them is written here.
async fn flush(w: &Writer, pending: &mut BTreeMap<String, (Arc<Cluster>, Pending)>) {
    let concurrent = concurrently(w.store.backend(), pending.values().map(|(_, p)| p));
    let batches: Vec<(String, Arc<Cluster>, Pending)> = std::mem::take(pending)
        .into_iter()
        .filter(|(_, (_, p))| !p.changes.is_empty())
        .map(|(name, (cluster, p))| (name, cluster, p))
        .collect();
    if w.store.backend() == Backend::Sqlite && batches.len() > 1 && batches.iter().all(|(_, c, _)| c.syncs())
    {
        return flush_together(w, batches).await;
    }
    let writes = batches.into_iter().map(|(name, cluster, p)| flush_cluster(w, name, cluster, p));
    if concurrent {
        futures::future::join_all(writes).await;
    } else {
        for write in writes {
            write.await;
        }
    }
}

/// Whether the clusters' transactions of one flush run at the same time (see [`flush`]).
fn concurrently<'a>(backend: Backend, mut pending: impl Iterator<Item = &'a Pending>) -> bool {
    match backend {
        Backend::Postgres => true,
        Backend::MySql => pending.all(|p| p.expect == Expect::NewRows || p.changes.is_empty()),
        Backend::Sqlite => false,
    }
}

/// SQLite: the clusters' changes in one transaction (see [`Store::apply`]): its
/// writes are serial anyway, and a watch batch of 3 clusters takes one `BEGIN` and `COMMIT`
/// instead of three. If the store refuses it (not a database away: that is retried), each
/// cluster's changes are written on their own, where a refused change is found and reported.
async fn flush_together(w: &Writer, batches: Vec<(String, Arc<Cluster>, Pending)>) {
    let all: Vec<Batch<'_>> = batches
        .iter()
        .map(|(name, _, p)| Batch::new(name, p.changes.as_slice(), p.expect).listed(&p.listed))
        .collect();
    let written = resilient::retrying_op(&w.health, || w.store.apply(&all)).await.is_ok();
    drop(all);
    for (name, cluster, p) in batches {
        if written {
            let n = p.changes.len();
            let outcome = resilient::Outcome { written: p.changes, ..Default::default() };
            settle(w, name, cluster, outcome, p.oldest, n);
        } else {
            flush_cluster(w, name, cluster, p).await;
        }
    }
}

/// One cluster's changes, then their notices and its last-event time. Nothing is dropped
/// silently: a change the store refuses is reported on the cluster and its type is listed
/// again.
async fn flush_cluster(w: &Writer, name: String, cluster: Arc<Cluster>, p: Pending) {
    let n = p.changes.len();
    // A cluster another replica syncs is not written here; its changes still reach this
    // replica's watch streams.
    let outcome = if cluster.syncs() {
        resilient::apply(&w.store, &w.health, &name, p.changes, p.expect, &p.listed).await
    } else {
        resilient::Outcome { written: p.changes, ..Default::default() }
    };
    settle(w, name, cluster, outcome, p.oldest, n);
}

/// After a cluster's `n` changes went to the store: their notices, what was refused, and the
/// cluster's last-event time and lag (from `oldest`, when its oldest change was read).
fn settle(
    w: &Writer,
    name: String,
    cluster: Arc<Cluster>,
    mut outcome: resilient::Outcome,
    oldest: Option<Instant>,
    n: usize,
) {
    publish(w, &name, std::mem::take(&mut outcome.written));
    let lag = oldest.map(|o| o.elapsed().as_secs_f64());
    let mut relist: Vec<Gvr> = Vec::new();
    for (change, reason) in &outcome.refused {
        let (gvr, what) = describe(change);
        warn!(cluster = %name, %gvr, object = %what, error = %reason, "the store refused a change");
        let version = match change {
            Change::Upsert(o) => (o.uid.clone(), o.resource_version.clone()),
            Change::Delete { uid, .. } => (uid.clone(), String::new()),
        };
        let mut seen = w.refused.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() > 10_000 {
            seen.clear();
        }
        if seen.insert((name.clone(), gvr.clone(), version.0, version.1)) && !relist.contains(&gvr) {
            relist.push(gvr);
        }
    }
    cluster.update(|s| {
        s.last_event = Some(Timestamp::now());
        s.lag_seconds = lag;
        s.sanitized += outcome.sanitized as u64;
        s.refused += outcome.refused.len() as u64;
        if let Some((change, reason)) = outcome.refused.last() {
            let (gvr, what) = describe(change);
            s.last_sync_error = Some(format!("{gvr} {what}: {reason}"));
        }
    });
    for gvr in relist {
        cluster.request_relist(&gvr);
    }
    debug!(cluster = %name, changes = n, sanitized = outcome.sanitized, refused = outcome.refused.len(), "batch written");
}

/// Hands written changes of a cluster to the watch streams, numbered in write order. A change
/// becomes its notice (nothing is copied) when someone watches or versions are kept; otherwise
/// it is dropped.
fn publish(w: &Writer, cluster: &str, changes: Vec<Change>) {
    for c in changes {
        let gvr = match &c {
            Change::Upsert(o) => &o.gvr,
            Change::Delete { gvr, .. } => gvr,
        };
        if gvr.group == crate::authz::RBAC_GROUP {
            w.history.rbac_changed(cluster);
        }
        let api = (gvr.group.as_str(), gvr.resource.as_str());
        if matches!(
            api,
            ("apiextensions.k8s.io", "customresourcedefinitions") | ("apiregistration.k8s.io", "apiservices")
        ) {
            w.history.apis_changed(cluster);
        }
        w.history.publish(&w.notices, |seq| notice(seq, cluster, c));
    }
}

/// The type and `namespace/name` of a change, for reports.
fn describe(change: &Change) -> (Gvr, String) {
    let (gvr, namespace, name) = match change {
        Change::Upsert(o) => (&o.gvr, &o.namespace, &o.name),
        Change::Delete { gvr, namespace, name, .. } => (gvr, namespace, name),
    };
    let what = if namespace.is_empty() { name.clone() } else { format!("{namespace}/{name}") };
    (gvr.clone(), what)
}

fn notice(seq: u64, cluster: &str, change: Change) -> Notice {
    match change {
        Change::Upsert(o) => Notice {
            seq,
            cluster: cluster.to_string(),
            gvr: o.gvr,
            namespace: o.namespace,
            name: o.name,
            deleted: false,
            labels: o.labels,
            object: o.object,
            created: o.created,
        },
        Change::Delete { gvr, namespace, name, uid } => {
            let object = identity(&gvr, &namespace, &name, &uid);
            Notice {
                seq,
                cluster: cluster.to_string(),
                gvr,
                namespace,
                name,
                deleted: true,
                labels: BTreeMap::new(),
                object,
                created: false,
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::clusters::ClusterSpec;

    fn cluster(name: &str) -> Arc<Cluster> {
        Arc::new(Cluster::new(ClusterSpec::for_test(name)))
    }

    fn objects(from: usize, to: usize) -> Vec<StoredObject> {
        let gvr = Gvr::new("", "v1", "configmaps");
        (from..to)
            .map(|i| {
                let json = serde_json::json!({"metadata": {
                    "name": format!("cm-{i}"), "namespace": "ns", "uid": format!("uid-{i}"),
                    "resourceVersion": "1", "labels": {"n": format!("{}", i % 7)}}});
                StoredObject::from_json(gvr.clone(), "ConfigMap", json).unwrap()
            })
            .collect()
    }

    #[tokio::test]
    async fn list_pages_wait_for_room_in_the_queue() {
        let (tx, mut rx) = mpsc::channel(MAX_BATCH);
        let sender = Sender { tx, room: Arc::new(Semaphore::new(MAX_QUEUED)) };
        let c = cluster("a");
        sender.send_page(c.clone(), objects(0, MAX_QUEUED - 10), Expect::NewRows).await.unwrap();
        assert_eq!(sender.queued_objects(), MAX_QUEUED - 10);
        // 20 more objects do not fit until the first page is written (its permit dropped).
        let blocked = sender.send_page(c.clone(), objects(0, 20), Expect::NewRows);
        tokio::pin!(blocked);
        assert!(tokio::time::timeout(std::time::Duration::from_millis(100), &mut blocked).await.is_err());
        let first = rx.recv().await.unwrap();
        assert!(matches!(&first, Msg::Page { objects: o, .. } if o.len() == MAX_QUEUED - 10));
        drop(first);
        blocked.await.unwrap();
        assert_eq!(sender.queued_objects(), 20);
        // A page larger than the whole queue takes all of it instead of waiting forever.
        drop(rx.recv().await);
        sender.send_page(c, objects(0, MAX_QUEUED + 5), Expect::NewRows).await.unwrap();
        assert_eq!(sender.queued_objects(), MAX_QUEUED);
    }

    #[tokio::test]
    async fn pages_and_single_changes_reach_the_store_in_order() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let (sender, _notices, _history, task) = spawn(store.clone(), Default::default());
        let (a, b) = (cluster("a"), cluster("b"));
        sender.send_page(a.clone(), objects(0, 2500), Expect::NewRows).await.unwrap();
        sender.send_page(b.clone(), objects(0, 1200), Expect::NewRows).await.unwrap();
        let gvr = Gvr::new("", "v1", "configmaps");
        let key = Box::new((gvr, "ns".to_string(), "cm-7".to_string(), "uid-7".to_string()));
        sender.send(Msg::Delete(a.clone(), key, Instant::now())).await.unwrap();
        sender.send_page(a, objects(2500, 2600), Expect::NewRows).await.unwrap();
        // The barrier answers once everything before it is written, the sender still open.
        let (tx, rx) = oneshot::channel();
        sender.send(Msg::Barrier(tx)).await.unwrap();
        rx.await.unwrap();
        assert_eq!(store.count("a").await.unwrap(), 2599);
        drop(sender);
        task.await.unwrap();
        assert_eq!(store.count("b").await.unwrap(), 1200);
    }

    /// On SQLite the clusters of a batch share one transaction; a change the store refuses
    /// fails it, and each cluster is then written on its own, where the change is found.
    #[tokio::test]
    async fn clusters_share_a_transaction_and_a_refused_change_is_still_found() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let (notices, _) = broadcast::channel(4096);
        let mut seen = notices.subscribe();
        let w = Writer {
            store: store.clone(),
            notices,
            history: Arc::new(History::default()),
            health: Default::default(),
            refused: Default::default(),
            gaps: Default::default(),
        };
        let (a, b, c) = (cluster("a"), cluster("b"), cluster("c"));
        let upserts = |cluster: &Arc<Cluster>, objects: Vec<StoredObject>| -> Vec<Msg> {
            objects.into_iter().map(|o| Msg::Upsert(cluster.clone(), o, Instant::now())).collect()
        };
        // All three accepted: one transaction, every change written and told.
        let mut batch = upserts(&a, objects(0, 5));
        batch.extend(upserts(&b, objects(0, 3)));
        batch.extend(upserts(&c, objects(0, 4)));
        write(&w, batch).await;
        for (name, n) in [("a", 5), ("b", 3), ("c", 4)] {
            assert_eq!(store.count(name).await.unwrap(), n, "{name}");
        }
        let mut told = 0;
        while seen.try_recv().is_ok() {
            told += 1;
        }
        assert_eq!(told, 12);
        // One of b's changes has no uid: the store refuses it, and only it.
        let mut bad = objects(10, 11).remove(0);
        bad.uid.clear();
        let mut batch = upserts(&a, objects(5, 8));
        batch.extend(upserts(&b, vec![objects(3, 4).remove(0), bad, objects(4, 5).remove(0)]));
        batch.extend(upserts(&c, objects(4, 6)));
        write(&w, batch).await;
        for (name, n) in [("a", 8), ("b", 5), ("c", 6)] {
            assert_eq!(store.count(name).await.unwrap(), n, "{name}");
        }
        assert_eq!(b.state().refused, 1);
        assert_eq!((a.state().refused, c.state().refused), (0, 0));
        let mut told = 0;
        while seen.try_recv().is_ok() {
            told += 1;
        }
        assert_eq!(told, 7);
    }

    #[tokio::test]
    async fn changes_of_a_cluster_another_replica_syncs_are_not_written() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let (sender, _notices, _history, task) = spawn(store.clone(), Default::default());
        let (mine, theirs) = (cluster("mine"), cluster("theirs"));
        mine.set_ownership(crate::clusters::Ownership::Mine("me".into()));
        theirs.set_ownership(crate::clusters::Ownership::Other("replica-2".into()));
        sender.send_page(mine, objects(0, 30), Expect::NewRows).await.unwrap();
        sender.send_page(theirs.clone(), objects(0, 40), Expect::NewRows).await.unwrap();
        let keep = objects(0, 5).into_iter().map(|o| o.uid).collect();
        let gvr = Gvr::new("", "v1", "configmaps");
        sender.send(Msg::InitDone { cluster: theirs, gvr, keep: Some(keep), back: false }).await.unwrap();
        drop(sender);
        task.await.unwrap();
        assert_eq!(store.count("mine").await.unwrap(), 30);
        assert_eq!(store.count("theirs").await.unwrap(), 0);
    }

    #[tokio::test]
    async fn a_batch_names_each_cluster_and_type_it_carries_once() {
        let (tx, _rx) = mpsc::channel(MAX_BATCH);
        let sender = Sender { tx, room: Arc::new(Semaphore::new(MAX_QUEUED)) };
        let (a, b) = (cluster("a"), cluster("b"));
        let gvr = Gvr::new("", "v1", "configmaps");
        let secrets = Gvr::new("", "v1", "secrets");
        let permit = Arc::clone(&sender.room).acquire_many_owned(3).await.unwrap();
        let batch = vec![
            Msg::Page {
                cluster: a.clone(),
                objects: objects(0, 3),
                expect: Expect::Any,
                at: Instant::now(),
                permit,
            },
            Msg::Upsert(a.clone(), objects(3, 4).remove(0), Instant::now()),
            Msg::Delete(
                b.clone(),
                Box::new((gvr.clone(), "ns".into(), "x".into(), "u".into())),
                Instant::now(),
            ),
            Msg::DropGvr(b.clone(), secrets.clone()),
            Msg::Barrier(oneshot::channel().0),
        ];
        let touched: Vec<(String, Gvr)> =
            touched(&batch).into_iter().map(|(c, g)| (c.name().to_string(), g)).collect();
        assert_eq!(touched, [("a".into(), gvr.clone()), ("b".into(), gvr), ("b".into(), secrets)]);
    }

    /// A cluster's changes are written as new rows when a first list's page is among them, and
    /// upserted when they are only watch events or a relist's pages.
    #[test]
    fn a_first_lists_page_makes_its_clusters_changes_new_rows() {
        let (a, b, c) = (cluster("a"), cluster("b"), cluster("c"));
        let mut pending = BTreeMap::new();
        let now = Instant::now();
        let events = || objects(0, 2).into_iter().map(Change::Upsert);
        push(&mut pending, a.clone(), events(), now, Expect::Any);
        push(&mut pending, a, objects(2, 5).into_iter().map(Change::Upsert), now, Expect::NewRows);
        push(&mut pending, b.clone(), objects(0, 3).into_iter().map(Change::Upsert), now, Expect::NewRows);
        push(&mut pending, b, events(), now, Expect::Any);
        push(&mut pending, c.clone(), objects(0, 3).into_iter().map(Change::Upsert), now, Expect::Any);
        push(&mut pending, c, events(), now, Expect::Any);
        let seen: Vec<(&str, usize, Expect)> =
            pending.iter().map(|(name, (_, p))| (name.as_str(), p.changes.len(), p.expect)).collect();
        assert_eq!(seen, [("a", 5, Expect::NewRows), ("b", 5, Expect::NewRows), ("c", 5, Expect::Any)]);

        // MySQL/MariaDB write clusters at the same time only when each writes a first list.
        let flush =
            |p: &BTreeMap<String, (Arc<Cluster>, Pending)>, b| concurrently(b, p.values().map(|(_, p)| p));
        assert!(!flush(&pending, Backend::MySql));
        assert!(flush(&pending, Backend::Postgres));
        assert!(!flush(&pending, Backend::Sqlite));
        pending.remove("c");
        assert!(flush(&pending, Backend::MySql));
        push(&mut pending, cluster("d"), [], now, Expect::Any);
        assert!(flush(&pending, Backend::MySql), "a cluster with nothing to write");
        push(&mut pending, cluster("d"), events(), now, Expect::Any);
        assert!(!flush(&pending, Backend::MySql));
    }

    #[tokio::test]
    async fn what_lists_find_is_recorded_as_found_by_them_after_the_last_known_time() {
        use crate::store::{ChangeKind, HistoryRules, Query};
        let store = Store::connect("sqlite::memory:").await.unwrap().record_history(HistoryRules::default());
        let (sender, _notices, _history, task) = spawn(store.clone(), Default::default());
        let a = cluster("a");
        let gvr = Gvr::new("", "v1", "configmaps");
        let barrier = || async {
            let (tx, rx) = oneshot::channel();
            sender.send(Msg::Barrier(tx)).await.unwrap();
            rx.await.unwrap();
        };
        // A first list ever, then a watch event.
        let mut first = objects(0, 3);
        first.iter_mut().for_each(|o| o.created = true);
        sender.send_page(a.clone(), first, Expect::NewRows).await.unwrap();
        sender
            .send(Msg::InitDone { cluster: a.clone(), gvr: gvr.clone(), keep: None, back: false })
            .await
            .unwrap();
        let mut event = objects(3, 4);
        event[0].created = true;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        sender.send(Msg::Upsert(a.clone(), event.remove(0), Instant::now())).await.unwrap();
        barrier().await;
        // A relist after a gap: cm-1 changed, cm-2 and cm-3 are gone.
        let mut keep = store.relist_keys("a", &gvr).await.unwrap();
        assert!(keep.listed("uid-0", "1"));
        let mut changed = objects(1, 2);
        changed[0].resource_version = "2".into();
        assert!(!keep.listed("uid-1", "2"));
        sender.send_page(a.clone(), changed, Expect::Any).await.unwrap();
        sender
            .send(Msg::InitDone { cluster: a.clone(), gvr: gvr.clone(), keep: Some(keep), back: false })
            .await
            .unwrap();
        barrier().await;
        let q = Query { gvr: Some(gvr.clone()), ..Query::default() };
        let h = store.history(&q, false, 100).await.unwrap();
        let seen: Vec<(&str, ChangeKind, bool, bool)> =
            h.iter().map(|r| (r.name.as_str(), r.change, r.seen_by_list, r.gap_from_ms.is_some())).collect();
        assert_eq!(
            seen,
            [
                ("cm-0", ChangeKind::Added, true, false),
                ("cm-1", ChangeKind::Added, true, false),
                ("cm-2", ChangeKind::Added, true, false),
                ("cm-3", ChangeKind::Added, false, false),
                ("cm-1", ChangeKind::Modified, true, true),
                ("cm-2", ChangeKind::Deleted, true, true),
                ("cm-3", ChangeKind::Deleted, true, true),
            ]
        );
        // The bound is the watch event's time: after the first list, before the relist.
        let bound = h[4].gap_from_ms.unwrap();
        // (Within the millisecond an instant read as unix ms is rounded to.)
        assert!(h[0].at_ms < bound && bound <= h[3].at_ms + 1 && bound <= h[4].at_ms, "{bound} {:?}", &h);
        assert_eq!(h[5].gap_from_ms, Some(bound));
        drop(sender);
        task.await.unwrap();
    }
}
