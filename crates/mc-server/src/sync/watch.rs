//! One list+watch of one resource type of one cluster.

use std::collections::btree_map::Entry;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::BoxStream;
use kube::api::ApiResource;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use mc_types::gvr::ResourceInfo;
use tracing::{debug, warn};

use super::SyncContext;
use super::list_watch::{ListSizes, list_watch};
use super::watched::WatchedObject;
use super::writer::Msg;
use crate::clusters::Cluster;
use crate::clusters::registry::Fault;
use crate::store::{Expect, RelistKeys, StoredObject};

/// Listed objects per page handed to the writer. A page is held in memory until written, so this
/// also bounds what one type's list holds (see `writer::MAX_QUEUED` for all of them). 1,000 rather
/// than 2,000: with three clusters listing at once, a first sync of 3 × 30k ConfigMaps peaked at
/// 102–112 MiB instead of 121–136 MiB, in the same time.
const LIST_PAGE: u32 = 1000;

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
    // A new stream starts with a full list: that is how a relist asked for by the writer (a
    // list that was not written completely) happens.
    let mut stream = listed(&client, &ar, ctx.lists, Duration::ZERO);
    // Rows as the store has them, loaded at each (re)list so unchanged objects are not rewritten,
    // and marked as the list returns them, so that what it did not return is found deleted.
    let mut known = RelistKeys::default();
    // The store held no row of the type when the list started: nothing can be missing after it,
    // so nothing is marked and no row is read back (a first sync of a large type saves that
    // memory and the reading).
    let mut fresh = false;
    // Listed objects not yet handed to the writer: they go as one page.
    let mut page: Vec<StoredObject> = Vec::new();
    // When the running list began, and how long it waited for the writer to take its pages.
    let (mut list_began, mut waited) = (Instant::now(), Duration::ZERO);
    // Failures in a row (a list, a watch or its start), and whether the stream's list is being
    // read: a failure then means the store may miss the type's objects or hold stale ones.
    let mut failures = 0u32;
    let mut listing = true;
    // Lists started because the watch kept failing, and when the last one was: the first at
    // once (an API server that was away for a moment), each next one in a row after twice the
    // wait before, from `RELIST_FIRST` up to `RELIST_MAX`; after `RELIST_QUIET`, at once again.
    let mut relists = 0u32;
    let mut last_relist: Option<Instant> = None;
    // Whether the type is marked unwatched (its watch failed three times after a list), and the
    // last list or failure: a change the watch brings, or `WATCH_PROVEN` after its list without
    // a failure (the watcher retries a failed watch itself, without a new list), lifts the mark.
    let mut unwatched = false;
    let mut quiet_since = Instant::now();
    // Whether the last failures that marked it were its API server being away (unreachable, or
    // its connection cut): the list that finds the server back lifts that mark at once, rather
    // than a quiet watch 20 s later; a watch that still fails marks it again.
    let mut away = false;
    loop {
        if cluster.take_relist(&gvr) {
            debug!(cluster = cluster.name(), %gvr, "relisting");
            stream = listed(&client, &ar, ctx.lists, Duration::ZERO);
        }
        let event = tokio::select! {
            event = stream.next() => match event {
                Some(e) => e,
                None => return,
            },
            _ = cluster.relist_requested() => continue,
            _ = tokio::time::sleep_until(tokio::time::Instant::from_std(quiet_since) + WATCH_PROVEN),
                if unwatched && !listing => {
                unwatched = false;
                debug!(cluster = cluster.name(), %gvr, "watch runs again");
                cluster.update(|s| s.watched_again(&gvr));
                continue;
            }
        };
        let event = match event {
            Ok(e) => {
                // Only a finished list or a change counts as success: a list that fails after
                // its first page starts over with `Init` (and one failing at its first page too).
                match &e {
                    watcher::Event::Init => listing = true,
                    watcher::Event::InitDone => {
                        (failures, listing) = (0, false);
                        quiet_since = Instant::now();
                    }
                    watcher::Event::Apply(_) | watcher::Event::Delete(_) => {
                        (failures, relists) = (0, 0);
                        if unwatched {
                            unwatched = false;
                            cluster.update(|s| s.watched_again(&gvr));
                        }
                    }
                    watcher::Event::InitApply(_) => {}
                }
                e
            }
            // The version the watch resumed from is gone (an API server restarted, or a long
            // gap): the watcher lists again by itself, as a watch is meant to. Not a failure: it
            // marked every type of a restarted API server as not watched for 20 s.
            Err(watcher::Error::WatchError(s)) if s.code == 410 => {
                debug!(cluster = cluster.name(), %gvr, "watch expired; listing again");
                continue;
            }
            Err(e) => {
                failures += 1;
                quiet_since = Instant::now();
                if failures == 1 || failures.is_power_of_two() {
                    warn!(cluster = cluster.name(), %gvr, error = %e, "watch failed; retrying");
                }
                // A type that cannot be listed must not hold readiness back forever; it is
                // marked instead, so `/v1/clusters`, metrics and answers about it say so, until
                // a list of it is written (see `writer`).
                if failures >= 3 {
                    cluster.update(|s| {
                        if s.pending_init.remove(&gvr) && s.pending_init.is_empty() {
                            s.initial_sync_done = true;
                            s.synced_at = Some(k8s_openapi::jiff::Timestamp::now());
                        }
                        if listing {
                            match s.unlisted.entry(gvr.clone()) {
                                Entry::Occupied(mut marked) => marked.get_mut().reason = failure(&e),
                                Entry::Vacant(unmarked) => {
                                    warn!(cluster = cluster.name(), %gvr, failures, error = %e, "type cannot be listed; no longer waited for");
                                    let since = k8s_openapi::jiff::Timestamp::now();
                                    unmarked.insert(Fault { since, reason: failure(&e) });
                                }
                            }
                        } else {
                            // Listed, but its changes do not come: answers about it say so until
                            // its watch works again.
                            let unmarked = || Fault { since: k8s_openapi::jiff::Timestamp::now(), reason: String::new() };
                            s.unwatched.entry(gvr.clone()).or_insert_with(unmarked).reason = failure(&e);
                        }
                        s.message = Some(format!("{gvr}: {e}"));
                    });
                    // A watch that keeps failing after its list (a watch forbidden, changes that
                    // fail to convert) leaves the rows as they were listed: list again, as
                    // client-go's reflector does, at growing intervals, so they follow the
                    // cluster at each list.
                    if !listing {
                        if last_relist.is_some_and(|t: Instant| t.elapsed() > RELIST_QUIET) {
                            relists = 0;
                        }
                        let wait = match relists {
                            0 => Duration::ZERO,
                            n => RELIST_FIRST.saturating_mul(1 << (n - 1).min(8)).min(RELIST_MAX),
                        };
                        relists += 1;
                        last_relist = Some(Instant::now());
                        debug!(cluster = cluster.name(), %gvr, failures, ?wait, "watch keeps failing; listing again");
                        stream = listed(&client, &ar, ctx.lists, wait);
                        listing = true;
                        unwatched = true;
                        away = unreachable(&e);
                    }
                }
                continue;
            }
        };
        let now = Instant::now();
        let msg = match event {
            watcher::Event::Init => {
                page.clear();
                (known, fresh) = match ctx.store.relist_keys(cluster.name(), &gvr).await {
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
                (list_began, waited) = (Instant::now(), Duration::ZERO);
                continue;
            }
            watcher::Event::InitApply(obj) => {
                // A first sync marks nothing: every row is written by this list.
                let unchanged = !fresh
                    && known
                        .listed(&obj.uid().unwrap_or_default(), &obj.resource_version().unwrap_or_default());
                if unchanged {
                    continue;
                }
                page.extend(ctx.prepare.stored(&gvr, &info.kind, obj));
                if page.len() < LIST_PAGE as usize {
                    continue;
                }
                let full = std::mem::replace(&mut page, Vec::with_capacity(LIST_PAGE as usize));
                let sent = Instant::now();
                if ctx.writer.send_page(cluster.clone(), full, expect(fresh)).await.is_err() {
                    return;
                }
                waited += sent.elapsed();
                continue;
            }
            watcher::Event::InitDone => {
                debug!(
                    cluster = cluster.name(),
                    %gvr,
                    ms = list_began.elapsed().as_millis() as u64,
                    waited_for_writer_ms = waited.as_millis() as u64,
                    "list read"
                );
                if ctx
                    .writer
                    .send_page(cluster.clone(), std::mem::take(&mut page), expect(fresh))
                    .await
                    .is_err()
                {
                    return;
                }
                let keep = (!fresh).then_some(std::mem::take(&mut known));
                let back = unwatched && away;
                if back {
                    (unwatched, away) = (false, false);
                }
                Msg::InitDone { cluster: cluster.clone(), gvr: gvr.clone(), keep, back }
            }
            watcher::Event::Apply(obj) => match ctx.prepare.stored(&gvr, &info.kind, obj) {
                Some(row) => Msg::Upsert(cluster.clone(), row, now),
                None => continue,
            },
            watcher::Event::Delete(obj) => {
                let key = (
                    gvr.clone(),
                    obj.namespace().unwrap_or_default(),
                    obj.name_any(),
                    obj.uid().unwrap_or_default(),
                );
                Msg::Delete(cluster.clone(), Box::new(key), now)
            }
        };
        if ctx.writer.send(msg).await.is_err() {
            return; // the writer is gone: shutting down
        }
    }
}

/// The waits before listing again a type whose watch keeps failing (the first is at once): the
/// second, and the longest; and how long without such a list makes the next one the first again
/// (longer than the longest wait, so a watch that never works keeps its interval).
const RELIST_FIRST: Duration = Duration::from_secs(10);
const RELIST_MAX: Duration = Duration::from_secs(300);
const RELIST_QUIET: Duration = Duration::from_secs(600);

/// How long a watch runs after its list (or its last failure) without failing before a type
/// marked unwatched is unmarked (a type that changes is unmarked at its first change). A refused
/// watch fails within a second of its list, and its retries follow within the watcher's backoff:
/// the three that make a new list take about 2.4 s (0.8 s, then twice that, jittered).
const WATCH_PROVEN: Duration = Duration::from_secs(20);

/// What a list's pages are to the store: new rows when it held none of the type's as the list
/// began (a first sync).
fn expect(fresh: bool) -> Expect {
    if fresh { Expect::NewRows } else { Expect::Any }
}

/// A list+watch of the type `ar` with the watcher's default backoff, started after `wait`.
fn listed(
    client: &Client,
    ar: &ApiResource,
    sizes: ListSizes,
    wait: Duration,
) -> BoxStream<'static, watcher::Result<watcher::Event<WatchedObject>>> {
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
