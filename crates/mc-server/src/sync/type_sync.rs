//! One list+watch of one resource type of one cluster: a loop that takes the stream's next
//! event, moves the list being read ([`Phase`]) and the type's health ([`TypeHealth`]) on, and
//! carries out what they decide (pages and changes to the writer, marks on the cluster, a new
//! list).

use std::collections::btree_map::Entry;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::BoxStream;
use k8s_openapi::jiff::Timestamp;
use kube::api::ApiResource;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Client, ResourceExt};
use mc_types::Gvr;
use mc_types::gvr::ResourceInfo;
use tracing::{debug, warn};

use super::SyncContext;
use super::list_watch::{ListSizes, list_watch};
use super::type_health::{Effect, Mark, TypeHealth};
use super::watched_object::WatchedObject;
use super::writer::{Closed, Msg};
use crate::clusters::Cluster;
use crate::clusters::registry::Fault;
use crate::store::{Expect, RelistKeys, StoredObject};

/// Listed objects per page handed to the writer. A page is held in memory until it is written,
/// so its size bounds what each listing type holds (`writer::MAX_QUEUED` bounds the pages
/// queued); smaller pages cost the writer time. See docs/adr/0001-single-writer.md.
const LIST_PAGE: u32 = 1000;

/// The events of a type's list+watch.
type Events = BoxStream<'static, watcher::Result<Event<WatchedObject>>>;

/// Runs until aborted: lists, reconciles, then streams changes to the writer. Errors are retried
/// with the watcher's default backoff; every restart relists and reconciles.
pub async fn watch_type(ctx: SyncContext, cluster: Arc<Cluster>, client: Client, info: ResourceInfo) {
    let gvr = info.gvr();
    let ar = ApiResource {
        group: info.group.clone(),
        version: info.version.clone(),
        api_version: gvr.api_version(),
        kind: info.kind.clone(),
        plural: info.resource.clone(),
    };
    TypeSync { ctx, cluster, client, ar, gvr, kind: info.kind }.run().await;
}

/// Where the type's stream is.
enum Phase {
    /// Reading a list, from its `Init` to its `InitDone`.
    Listing(Listing),
    /// Not reading a list: watching after one, or before the first (every list starts with
    /// `Init`).
    Watching,
}

/// The list being read.
struct Listing {
    /// Rows as the store has them, loaded as the list began so unchanged objects are not
    /// rewritten, and marked as the list returns them, so that what it did not return is found
    /// deleted.
    known: RelistKeys,
    /// The store held no row of the type when the list began: nothing can be missing after it,
    /// so nothing is marked and no row is read back (a first sync of a large type saves that
    /// memory and the reading).
    fresh: bool,
    /// Listed objects not yet handed to the writer: they go as one page.
    page: Vec<StoredObject>,
    /// When the list began, and how long it waited for the writer to take its pages.
    began: Instant,
    waited: Duration,
}

impl Listing {
    /// A list beginning at `began`, the store holding `known` of the type (`fresh`: none).
    fn new(known: RelistKeys, fresh: bool, began: Instant) -> Self {
        Listing { known, fresh, page: Vec::new(), began, waited: Duration::ZERO }
    }

    /// The list returned an object: `None` when the store holds it at this version (it is not
    /// written again), else whether the store did not hold it (its row is `created`). A first
    /// sync marks nothing: every row is written by this list.
    fn returned(&mut self, uid: &str, version: &str) -> Option<bool> {
        if !self.fresh && self.known.listed(uid, version) {
            return None;
        }
        Some(self.fresh || self.known.is_new(uid))
    }

    /// Adds a row to the page; returns the page once it is full, for the writer.
    fn push(&mut self, row: StoredObject) -> Option<Vec<StoredObject>> {
        self.page.push(row);
        (self.page.len() >= LIST_PAGE as usize)
            .then(|| std::mem::replace(&mut self.page, Vec::with_capacity(LIST_PAGE as usize)))
    }

    /// What the list's pages are to the store: new rows when it held none of the type's as the
    /// list began (a first sync).
    fn expect(&self) -> Expect {
        if self.fresh { Expect::NewRows } else { Expect::Any }
    }
}

/// One type's sync task: what its loop reads from and writes to.
struct TypeSync {
    ctx: SyncContext,
    cluster: Arc<Cluster>,
    client: Client,
    ar: ApiResource,
    gvr: Gvr,
    kind: String,
}

impl TypeSync {
    /// Next event → the phase's and the health's transitions → their effects, until the stream
    /// ends or the writer is gone.
    async fn run(&self) {
        // A new stream starts with a full list: that is how a relist asked for by the writer (a
        // list that was not written completely) happens.
        let mut stream = self.listed(Duration::ZERO);
        let mut phase = Phase::Watching;
        let mut health = TypeHealth::new(Instant::now());
        loop {
            if self.cluster.take_relist(&self.gvr) {
                debug!(cluster = self.cluster.name(), gvr = %self.gvr, "relisting");
                stream = self.listed(Duration::ZERO);
            }
            let quiet = health.quiet_deadline();
            let event = tokio::select! {
                event = stream.next() => match event {
                    Some(e) => e,
                    None => return,
                },
                _ = self.cluster.relist_requested() => continue,
                at = until(quiet) => {
                    if health.quiet_until(at) {
                        debug!(cluster = self.cluster.name(), gvr = %self.gvr, "watch runs again");
                        self.watched_again();
                    }
                    continue;
                }
            };
            let now = Instant::now();
            let event = match event {
                Ok(event) => event,
                Err(watcher::Error::WatchError(s)) if s.code == 410 => {
                    health.expired();
                    debug!(cluster = self.cluster.name(), gvr = %self.gvr, "watch expired; listing again");
                    continue;
                }
                Err(e) => {
                    for effect in health.failed(now, unreachable(&e)) {
                        self.carry_out(effect, health.failures(), &e, &mut stream);
                    }
                    continue;
                }
            };
            phase = match self.step(phase, event, &mut health, now).await {
                Ok(next) => next,
                Err(Closed) => return, // the writer is gone: shutting down
            };
        }
    }

    /// One event of the stream: the next phase, and what goes to the writer.
    async fn step(
        &self,
        phase: Phase,
        event: Event<WatchedObject>,
        health: &mut TypeHealth,
        now: Instant,
    ) -> Result<Phase, Closed> {
        let (cluster, gvr) = (&self.cluster, &self.gvr);
        match (phase, event) {
            (_, Event::Init) => {
                health.list_started();
                let (known, fresh) = match self.ctx.store.relist_keys(cluster.name(), gvr).await {
                    Ok(keys) => {
                        let empty = keys.is_empty();
                        (keys, empty)
                    }
                    Err(e) => {
                        warn!(cluster = cluster.name(), %gvr, error = %e, "reading stored keys failed");
                        (RelistKeys::default(), false)
                    }
                };
                debug!(cluster = cluster.name(), %gvr, stored = known.len(), "list started");
                Ok(Phase::Listing(Listing::new(known, fresh, Instant::now())))
            }
            (Phase::Listing(mut list), Event::InitApply(obj)) => {
                let uid = obj.uid().unwrap_or_default();
                let Some(created) = list.returned(&uid, &obj.resource_version().unwrap_or_default()) else {
                    return Ok(Phase::Listing(list));
                };
                let row = self.ctx.prepare.stored(gvr, &self.kind, obj);
                if let Some(full) = row.and_then(|row| list.push(StoredObject { created, ..row })) {
                    let sent = Instant::now();
                    self.ctx.writer.send_page(cluster.clone(), full, list.expect()).await?;
                    list.waited += sent.elapsed();
                }
                Ok(Phase::Listing(list))
            }
            (Phase::Listing(list), Event::InitDone) => {
                let back = health.list_done(now);
                let expect = list.expect();
                let Listing { known, fresh, page, began, waited } = list;
                debug!(
                    cluster = cluster.name(),
                    %gvr,
                    ms = began.elapsed().as_millis() as u64,
                    waited_for_writer_ms = waited.as_millis() as u64,
                    "list read"
                );
                self.ctx.writer.send_page(cluster.clone(), page, expect).await?;
                let keep = (!fresh).then_some(known);
                self.ctx
                    .writer
                    .send(Msg::InitDone { cluster: cluster.clone(), gvr: gvr.clone(), keep, back })
                    .await?;
                Ok(Phase::Watching)
            }
            // Every list starts with `Init`: a list's objects or end come only while it is read.
            (Phase::Watching, Event::InitApply(_) | Event::InitDone) => Ok(Phase::Watching),
            (phase, Event::Apply(obj)) => {
                if health.changed() {
                    self.watched_again();
                }
                if let Some(row) = self.ctx.prepare.stored(gvr, &self.kind, obj) {
                    self.ctx.writer.send(Msg::Upsert(cluster.clone(), row, now)).await?;
                }
                Ok(phase)
            }
            (phase, Event::Delete(obj)) => {
                if health.changed() {
                    self.watched_again();
                }
                let key = (
                    gvr.clone(),
                    obj.namespace().unwrap_or_default(),
                    obj.name_any(),
                    obj.uid().unwrap_or_default(),
                );
                self.ctx.writer.send(Msg::Delete(cluster.clone(), Box::new(key), now)).await?;
                Ok(phase)
            }
        }
    }

    /// Carries out what the type's `failures`th failure in a row, `e`, decided.
    fn carry_out(&self, effect: Effect, failures: u32, e: &watcher::Error, stream: &mut Events) {
        let (cluster, gvr) = (&self.cluster, &self.gvr);
        match effect {
            Effect::Warn => warn!(cluster = cluster.name(), %gvr, error = %e, "watch failed; retrying"),
            // Answers about the type say so until it is listed or watched again (see `writer`).
            Effect::Mark(mark) => cluster.update(|s| {
                if s.pending_init.remove(gvr) && s.pending_init.is_empty() {
                    s.initial_sync_done = true;
                    s.synced_at = Some(Timestamp::now());
                }
                match mark {
                    Mark::Unlisted => match s.unlisted.entry(gvr.clone()) {
                        Entry::Occupied(mut marked) => marked.get_mut().reason = failure(e),
                        Entry::Vacant(unmarked) => {
                            warn!(cluster = cluster.name(), %gvr, failures, error = %e, "type cannot be listed; no longer waited for");
                            unmarked.insert(Fault { since: Timestamp::now(), reason: failure(e) });
                        }
                    },
                    Mark::Unwatched => {
                        let unmarked = || Fault { since: Timestamp::now(), reason: String::new() };
                        s.unwatched.entry(gvr.clone()).or_insert_with(unmarked).reason = failure(e);
                    }
                }
                s.message = Some(format!("{gvr}: {e}"));
            }),
            Effect::Relist { wait } => {
                debug!(cluster = cluster.name(), %gvr, failures, ?wait, "watch keeps failing; listing again");
                *stream = self.listed(wait);
            }
        }
    }

    /// Lifts the type's unwatched mark: its watch works.
    fn watched_again(&self) {
        self.cluster.update(|s| s.watched_again(&self.gvr));
    }

    /// A list+watch of the type with the watcher's default backoff, started after `wait`.
    fn listed(&self, wait: Duration) -> Events {
        listed(&self.client, &self.ar, self.ctx.lists, wait)
    }
}

/// Resolves at `at` (never without one), to `at`.
async fn until(at: Option<Instant>) -> Instant {
    match at {
        Some(at) => {
            tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
            at
        }
        None => std::future::pending().await,
    }
}

/// A list+watch of the type `ar` with the watcher's default backoff, started after `wait`.
fn listed(client: &Client, ar: &ApiResource, sizes: ListSizes, wait: Duration) -> Events {
    let stream = list_watch(client.clone(), ar, sizes);
    if wait.is_zero() {
        return stream.default_backoff().boxed();
    }
    let later = futures::stream::once(tokio::time::sleep(wait)).filter_map(|()| std::future::ready(None));
    later.chain(stream).default_backoff().boxed()
}

/// Whether a failure is the API server not answering: not reached, or its connection cut (a
/// restart, an outage), not an answer about the type.
fn unreachable(e: &watcher::Error) -> bool {
    use watcher::Error as E;
    matches!(
        e,
        E::InitialListFailed(k) | E::WatchStartFailed(k) | E::WatchFailed(k)
            if matches!(k, kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_))
    )
}

/// A list or watch failure in the server's own words: an API server's refusal by its status
/// code, never its text (what a remote server says is not echoed into answers).
fn failure(e: &watcher::Error) -> String {
    use watcher::Error as E;
    match e {
        E::InitialListFailed(kube::Error::Api(s))
        | E::WatchStartFailed(kube::Error::Api(s))
        | E::WatchFailed(kube::Error::Api(s)) => format!("the API server answered HTTP {}", s.code),
        E::WatchError(s) => format!("the API server answered HTTP {}", s.code),
        E::InitialListFailed(kube::Error::ReadEvents(_)) => "its answer could not be read".into(),
        E::NoResourceVersion => "the list carried no resourceVersion".into(),
        _ => "the request failed".into(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(uid: &str, version: &str) -> StoredObject {
        let object =
            json!({"metadata": {"name": uid, "namespace": "ns", "uid": uid, "resourceVersion": version}});
        StoredObject::from_json(Gvr::new("", "v1", "configmaps"), "ConfigMap", object).unwrap()
    }

    /// Reads `objects` (uid, version) into `list`: the pages handed over, and the rows left.
    fn read(list: &mut Listing, objects: &[(&str, &str)]) -> Vec<Vec<StoredObject>> {
        let mut pages = Vec::new();
        for &(uid, version) in objects {
            if let Some(created) = list.returned(uid, version) {
                pages.extend(list.push(StoredObject { created, ..row(uid, version) }));
            }
        }
        pages
    }

    #[test]
    fn a_first_list_hands_every_object_over_as_created_a_page_at_a_time() {
        let mut list = Listing::new(RelistKeys::default(), true, Instant::now());
        let uids: Vec<String> = (0..2500).map(|i| format!("uid-{i}")).collect();
        let objects: Vec<(&str, &str)> = uids.iter().map(|uid| (uid.as_str(), "1")).collect();
        let pages = read(&mut list, &objects);
        assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [1000, 1000]);
        assert_eq!(list.page.len(), 500, "the last page goes with the list's end");
        assert!(pages.iter().flatten().chain(&list.page).all(|row| row.created));
        assert_eq!(list.expect(), Expect::NewRows);
        assert!(list.known.is_empty(), "a first list marks nothing");
    }

    #[test]
    fn a_relist_skips_unchanged_objects_and_creates_only_the_new_ones() {
        let mut known = RelistKeys::default();
        known.insert("same", "5");
        known.insert("changed", "5");
        known.insert("deleted", "5");
        let mut list = Listing::new(known, false, Instant::now());
        let pages = read(&mut list, &[("same", "5"), ("changed", "6"), ("new", "1")]);
        assert!(pages.is_empty());
        let rows: Vec<(&str, bool)> = list.page.iter().map(|row| (row.uid.as_str(), row.created)).collect();
        assert_eq!(rows, [("changed", false), ("new", true)]);
        assert_eq!(list.expect(), Expect::Any);
        assert!(!list.known.was_listed("deleted"), "found deleted when the list is written");
    }
}
