//! Watches on the Kubernetes paths, as client-go, kube-rs and `kubectl get -w` expect them:
//! without a resourceVersion (or `0`) the current objects as `ADDED`, then every change; from a
//! resourceVersion of ours (a list's, or an event's) exactly the changes after it; a version that
//! is no longer known (or not ours) ends at once with an `ERROR` event `410 Expired`, so the
//! client lists again. Every event's object carries its cluster and a resourceVersion of ours.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::{StreamExt, stream};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::table;
use crate::http::warnings::add_warnings;
use crate::http::{AppState, streamed};
use crate::store::{Query, RawObject};
use crate::sync::history::History;
use crate::sync::notice::Notice;
use mc_types::printers::Ctx;

/// Longest a watch stays open without `timeoutSeconds` (clients watch again).
const MAX_WATCH: Duration = Duration::from_secs(1800);

/// How often a watch that takes bookmarks is told the version it has reached, as
/// kube-apiserver tells it about once a minute: a client of a quiet type then watches again
/// from a recent version instead of one too old to resume from.
const BOOKMARK_EVERY: Duration = if cfg!(test) { Duration::from_secs(1) } else { Duration::from_secs(60) };

/// What a watch sends.
pub struct Watch {
    /// The objects it is about.
    pub query: Query,
    /// Where to start: `None` (or `0`) for the current objects first.
    pub resource_version: Option<String>,
    /// Events carry one-row Tables (with this type's columns) instead of objects.
    pub table: Option<table::Format>,
    /// When to end the stream.
    pub timeout: Option<Duration>,
    /// Whose rights it follows (`None`: a caller that reads everything).
    pub rights: Option<crate::http::rights::Rights>,
    /// `sendInitialEvents=true`: the current objects first, whatever `resource_version` says
    /// (they are not older than it: `resourceVersionMatch=NotOlderThan`).
    pub send_initial_events: bool,
    /// The object of the `BOOKMARK` that follows the current objects (annotated
    /// `k8s.io/initial-events-end`), when the client takes bookmarks; it gets the version here.
    pub initial_events_end: Option<Value>,
    /// The object of periodic `BOOKMARK`s (kind and apiVersion), when the client takes
    /// bookmarks (`allowWatchBookmarks=true`); each gets the version the watch has reached.
    pub bookmark: Option<Value>,
}

/// Starts a watch. Subscribes before reading anything, so no change falls between what was read
/// and what is streamed.
pub async fn stream(state: &AppState, mut w: Watch) -> Result<Response, crate::http::ApiError> {
    let rx = state.sync.notices.subscribe();
    let history = state.sync.history.clone();
    let mut first: Vec<Bytes> = Vec::new();
    let mut known = crate::http::watch::Known::new();
    let mut warnings = Vec::new();
    // The current objects, read a page at a time as they are sent, all at the version of now.
    let mut snapshot = None;
    let from =
        w.resource_version.as_deref().filter(|rv| !rv.is_empty() && *rv != "0" && !w.send_initial_events);
    let start = match from {
        None => {
            // The version of now, read before the objects: later changes come by the stream.
            let rv = history.resource_version();
            let seq = history.parse(&rv).unwrap_or_default();
            w.query.limit = Some(streamed::PAGE);
            w.query.continue_after = None;
            let page = crate::http::query(state, &w.query).await?;
            warnings = streamed::warnings(state, &w.query, &page);
            w.query.limit = None;
            let end = w.initial_events_end.take().map(|o| initial_events_end(o, &rv));
            snapshot = Some((streamed::pages(state.clone(), w.query.clone(), page), rv, end));
            Some(seq)
        }
        Some(rv) => match history.parse(rv).and_then(|seq| history.after(seq).map(|kept| (seq, kept))) {
            Ok((seq, kept)) => {
                known = crate::http::watch::Known::resumed();
                let mut last = seq;
                for n in kept.iter() {
                    if let Some(line) = change(&w.query, n, &mut known, &history, w.table.as_ref()) {
                        first.push(line);
                        last = n.seq;
                    }
                }
                Some(last.max(seq))
            }
            Err(_) => None,
        },
    };
    let Some(last) = start else {
        let body = Body::from(expired(rv_shown(w.resource_version.as_deref())));
        return Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response());
    };
    let query = Arc::new(w.query);
    let table = Arc::new(w.table);
    let rights = Arc::new(w.rights);
    let bookmark = Arc::new(w.bookmark);
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + BOOKMARK_EVERY, BOOKMARK_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let ticks = Arc::new(tokio::sync::Mutex::new(ticks));
    let state = state.clone();
    let changes = stream::unfold(
        (snapshot, Some(rx), last, known, query, table, history),
        move |(mut snapshot, rx, mut last, mut known, mut query, table, history)| {
            let rights = Arc::clone(&rights);
            let bookmark = Arc::clone(&bookmark);
            let ticks = Arc::clone(&ticks);
            let state = state.clone();
            async move {
                let mut rx = rx?;
                loop {
                    if let Some((pages, rv, _)) = &mut snapshot {
                        match pages.next().await {
                            Some(Ok(items)) => {
                                let mut chunk = Vec::new();
                                for (cluster, object) in items {
                                    let value = object.value();
                                    let key = |f: &str| value["metadata"][f].as_str().unwrap_or_default();
                                    known.insert(&cluster, key("namespace"), key("name"));
                                    chunk.extend_from_slice(&event(
                                        "ADDED",
                                        &cluster,
                                        value,
                                        rv,
                                        table.as_ref().as_ref(),
                                    ));
                                }
                                let line = Bytes::from(chunk);
                                return Some((
                                    line,
                                    (snapshot, Some(rx), last, known, query, table, history),
                                ));
                            }
                            Some(Err(e)) => {
                                // The current objects could not be read to the end: the client lists again.
                                let line = failed(&e.message);
                                return Some((line, (None, None, last, known, query, table, history)));
                            }
                            None => {
                                // Every current object is sent: the bookmark that says so, if asked for.
                                if let Some(end) = snapshot.take().and_then(|(_, _, end)| end) {
                                    return Some((end, (None, Some(rx), last, known, query, table, history)));
                                }
                            }
                        }
                        continue;
                    }
                    let received = match bookmark.as_ref() {
                        Some(object) => {
                            let mut ticks = ticks.lock().await;
                            tokio::select! {
                                received = rx.recv() => received,
                                _ = ticks.tick() => {
                                    let line = periodic_bookmark(object.clone(), &history.format(last));
                                    return Some((line, (None, Some(rx), last, known, query, table, history)));
                                }
                            }
                        }
                        None => rx.recv().await,
                    };
                    match received {
                        Ok(n) if n.seq > last => {
                            if let Some(rights) = rights.as_ref()
                                && let Err(e) = rights.recheck(&state, &n, &mut query).await
                            {
                                return Some((
                                    failed(&e.message),
                                    (None, None, last, known, query, table, history),
                                ));
                            }
                            let Some(line) =
                                change(&query, &n, &mut known, &history, table.as_ref().as_ref())
                            else {
                                // Not for this watch, but reached: a bookmark may say so.
                                last = n.seq;
                                continue;
                            };
                            return Some((line, (None, Some(rx), n.seq, known, query, table, history)));
                        }
                        Ok(_) => continue,
                        // Fell behind: the client lists again.
                        Err(RecvError::Lagged(_)) => {
                            return Some((
                                expired("the watch fell behind".into()),
                                (None, None, last, known, query, table, history),
                            ));
                        }
                        Err(RecvError::Closed) => return None,
                    }
                }
            }
        },
    );
    let timeout = w.timeout.unwrap_or(MAX_WATCH).min(MAX_WATCH);
    let events = stream::iter(first).chain(changes).map(Ok::<_, std::convert::Infallible>);
    let events = events.take_until(tokio::time::sleep(timeout));
    let mut resp = ([(header::CONTENT_TYPE, "application/json")], Body::from_stream(events)).into_response();
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// The event of one written change for a watch of `q` (see [`crate::http::watch::classify`]);
/// `None` when the watch does not show it.
fn change(
    q: &Query,
    n: &Notice,
    known: &mut crate::http::watch::Known,
    history: &History,
    table: Option<&table::Format>,
) -> Option<Bytes> {
    let kind = crate::http::watch::classify(q, n, known)?.to_string();
    Some(event(&kind, &n.cluster, n.object.value(), &history.format(n.seq), table))
}

/// One newline-terminated event; the object gets its cluster and our resourceVersion.
fn event(kind: &str, cluster: &str, mut object: Value, rv: &str, table: Option<&table::Format>) -> Bytes {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), rv.into());
    }
    let object = match table {
        Some(format) => json!({
            "kind": "Table",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": rv},
            "columnDefinitions": format.columns(),
            "rows": [format.row(cluster, object, &Ctx::now())],
        }),
        None => super::annotate::annotated(cluster, &RawObject::from_value(&object)),
    };
    line(&json!({"type": kind, "object": object}))
}

/// The `BOOKMARK` at `rv` that ends a watch's initial events (client-go's WatchList waits for it).
fn initial_events_end(mut object: Value, rv: &str) -> Bytes {
    object["metadata"]["resourceVersion"] = rv.into();
    line(&json!({"type": "BOOKMARK", "object": object}))
}

/// A periodic `BOOKMARK` at `rv`: `object` is the type's kind and apiVersion.
fn periodic_bookmark(mut object: Value, rv: &str) -> Bytes {
    object["metadata"] = json!({"resourceVersion": rv});
    line(&json!({"type": "BOOKMARK", "object": object}))
}

/// The `ERROR` event that ends a watch whose current objects could not be read.
fn failed(why: &str) -> Bytes {
    line(&json!({"type": "ERROR", "object": {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("reading the current objects failed: {why}; list again"), "reason": "InternalError", "code": 500
    }}))
}

/// The `ERROR` event that ends a watch whose start is unknown: clients list again.
fn expired(what: String) -> Bytes {
    line(&json!({"type": "ERROR", "object": {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("{what}: too old resource version; list again"), "reason": "Expired", "code": 410
    }}))
}

fn rv_shown(rv: Option<&str>) -> String {
    let rv: String = rv.unwrap_or_default().chars().take(64).filter(|c| !c.is_control()).collect();
    format!("resourceVersion {rv:?} is not known")
}

fn line(v: &Value) -> Bytes {
    let mut bytes = serde_json::to_vec(v).unwrap_or_default();
    bytes.push(b'\n');
    Bytes::from(bytes)
}
