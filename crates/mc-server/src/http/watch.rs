//! Watch streams: the list endpoints with `watch=true` answer newline-delimited JSON events,
//! first the current objects as ADDED, then every change written to the store.

use std::collections::HashSet;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::{StreamExt, stream};
use mc_types::api::{WatchEvent, WatchEventType};
use tokio::sync::broadcast::error::RecvError;

use super::{ApiResult, AppState};
use crate::store::Query;
use crate::sync::writer::Notice;

/// Starts a watch: subscribes first (so nothing between snapshot and stream is lost), then
/// sends the snapshot, read a page at a time as it is sent, then the matching changes.
pub async fn stream(state: &AppState, mut query: Query) -> ApiResult<Response> {
    let rx = state.sync.notices.subscribe();
    query.limit = Some(super::streamed::PAGE);
    query.continue_after = None;
    let first = super::query(state, &query).await?;
    let warnings = super::streamed::warnings(state, &query, &first);
    query.limit = None;
    let pages = super::streamed::pages(state.clone(), query.clone(), first);
    let query = Arc::new(query);
    let phase = Phase::Snapshot(pages);
    // Keys the client knows, so a new object is ADDED and a known one MODIFIED.
    let known: HashSet<(String, String, String)> = HashSet::new();
    let events =
        stream::unfold((phase, Some(rx), query, known), |(phase, rx, query, mut known)| async move {
            let mut rx = rx?;
            let mut phase = phase;
            loop {
                if let Phase::Snapshot(pages) = &mut phase {
                    match futures::StreamExt::next(pages).await {
                        Some(Ok(items)) => {
                            let mut chunk = Vec::new();
                            for (cluster_name, object) in items {
                                let object = object.value();
                                let meta = &object["metadata"];
                                let key = |f: &str| meta[f].as_str().unwrap_or_default().to_string();
                                known.insert((cluster_name.clone(), key("namespace"), key("name")));
                                chunk.extend_from_slice(&line(WatchEvent {
                                    kind: WatchEventType::Added,
                                    cluster_name,
                                    object,
                                }));
                            }
                            return Some((Bytes::from(chunk), (phase, Some(rx), query, known)));
                        }
                        Some(Err(e)) => {
                            // The snapshot could not be read to its end: say so and end.
                            let ev = error_event(&format!(
                                "listing the current objects failed: {}; list and watch again",
                                e.message
                            ));
                            return Some((line(ev), (Phase::Changes, None, query, known)));
                        }
                        None => phase = Phase::Changes,
                    }
                    continue;
                }
                match rx.recv().await {
                    Ok(n) if matches(&query, &n) => {
                        let key = (n.cluster.clone(), n.namespace.clone(), n.name.clone());
                        let kind = if n.deleted {
                            known.remove(&key);
                            WatchEventType::Deleted
                        } else if known.insert(key) {
                            WatchEventType::Added
                        } else {
                            WatchEventType::Modified
                        };
                        let ev =
                            WatchEvent { kind, cluster_name: n.cluster.clone(), object: n.object.value() };
                        return Some((line(ev), (phase, Some(rx), query, known)));
                    }
                    Ok(_) => continue,
                    Err(RecvError::Lagged(missed)) => {
                        // The client fell behind; tell it and end so it can list and watch again.
                        let ev = error_event(&format!(
                            "watch fell behind by {missed} events; list and watch again"
                        ));
                        return Some((line(ev), (phase, None, query, known)));
                    }
                    Err(RecvError::Closed) => return None,
                }
            }
        });
    let body = Body::from_stream(events.map(Ok::<_, std::convert::Infallible>));
    let mut resp = ([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response();
    super::list::add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// Where a watch is: sending the current objects, or the changes after them.
enum Phase {
    Snapshot(super::streamed::Pages),
    Changes,
}

/// An `ERROR` event that ends the stream.
fn error_event(message: &str) -> WatchEvent {
    WatchEvent {
        kind: WatchEventType::Error,
        cluster_name: String::new(),
        object: serde_json::json!({"error": message}),
    }
}

fn line(ev: WatchEvent) -> Bytes {
    let mut v = serde_json::to_vec(&ev).unwrap_or_default();
    v.push(b'\n');
    Bytes::from(v)
}

/// Whether a change belongs to the watched query.
pub(crate) fn matches(q: &Query, n: &Notice) -> bool {
    if q.gvr.as_ref().is_some_and(|g| g != &n.gvr)
        || q.cluster.as_ref().is_some_and(|c| c != &n.cluster)
        || q.namespace.as_ref().is_some_and(|ns| ns != &n.namespace)
        || q.name.as_ref().is_some_and(|name| name != &n.name)
    {
        return false;
    }
    if n.deleted {
        return true; // labels and fields of a deleted object are unknown: tell the client anyway
    }
    q.labels.as_ref().is_none_or(|l| l.matches(&n.labels))
        && q.fields.as_ref().is_none_or(|f| f.matches(&n.object.value()))
}
