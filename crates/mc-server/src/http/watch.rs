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

use super::rights::Rights;
use super::{ApiResult, AppState};
use crate::store::Query;
use crate::sync::notice::Notice;

/// Starts a watch: subscribes first (so nothing between snapshot and stream is lost), then
/// sends the snapshot, read a page at a time as it is sent, then the matching changes.
pub async fn stream(state: &AppState, mut query: Query, rights: Option<Rights>) -> ApiResult<Response> {
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
    let known = Known::new();
    let state = state.clone();
    let rights = Arc::new(rights);
    let events = stream::unfold((phase, Some(rx), query, known), move |(phase, rx, mut query, mut known)| {
        let state = state.clone();
        let rights = Arc::clone(&rights);
        async move {
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
                                let key = |f: &str| meta[f].as_str().unwrap_or_default();
                                known.insert(&cluster_name, key("namespace"), key("name"));
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
                    Ok(n) => {
                        if let Some(rights) = rights.as_ref()
                            && let Err(e) = rights.recheck(&state, &n, &mut query).await
                        {
                            let ev = error_event(&format!("{}; list and watch again", e.message));
                            return Some((line(ev), (phase, None, query, known)));
                        }
                        let Some(kind) = classify(&query, &n, &mut known) else { continue };
                        let ev =
                            WatchEvent { kind, cluster_name: n.cluster.clone(), object: n.object.value() };
                        return Some((line(ev), (phase, Some(rx), query, known)));
                    }
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
        }
    });
    let body = Body::from_stream(events.map(Ok::<_, std::convert::Infallible>));
    let mut resp = ([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response();
    super::warnings::add_warnings(&mut resp, warnings);
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

/// The objects a watch has shown its client, by key (cluster, namespace, name). A key is kept as
/// its 64-bit hash under a key random per watch: 9 bytes per table slot (~10–20 per object with
/// the table's spare room) instead of ~73 plus three string allocations, so a watch over a
/// million objects stays small (see docs/adr/0017-resource-versions-and-history.md). Two keys
/// of one watch share a hash with a probability of about n²/2⁶⁵ (3·10⁻⁸ at a million); the cost
/// would be one `MODIFIED` where `ADDED` was due, and a client cannot aim for it without the key.
///
/// A watch resumed from a `resourceVersion` does not know what its client holds: it counts every
/// object as possibly held until it has told the client otherwise, so an object that stops
/// matching the selectors is `DELETED` once (a client that never had it drops nothing).
#[derive(Default)]
pub(crate) struct Known {
    hashes: HashSet<u64>,
    hasher: std::collections::hash_map::RandomState,
    /// Resumed: the keys the client was told are gone (everything else may be held).
    resumed: Option<HashSet<u64>>,
}

impl Known {
    /// An empty set with its own hash key (the client starts from this watch's snapshot).
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// For a watch resumed from a version: the client may hold any object.
    pub(crate) fn resumed() -> Self {
        Self { resumed: Some(HashSet::new()), ..Self::default() }
    }

    fn hash(&self, cluster: &str, namespace: &str, name: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, (cluster, namespace, name))
    }

    /// Records a key; `true` if it was not known.
    pub(crate) fn insert(&mut self, cluster: &str, namespace: &str, name: &str) -> bool {
        let h = self.hash(cluster, namespace, name);
        if let Some(gone) = &mut self.resumed {
            gone.remove(&h);
        }
        self.hashes.insert(h)
    }

    /// Records a key of a change that matches the watch; `true` if the client holds no such
    /// object yet (`ADDED`). Resumed, the client holds every object that existed at its version
    /// and that it was not told gone: only a `created` change is new to it then.
    pub(crate) fn appeared(&mut self, cluster: &str, namespace: &str, name: &str, created: bool) -> bool {
        let h = self.hash(cluster, namespace, name);
        let first = self.hashes.insert(h);
        match &mut self.resumed {
            Some(gone) => {
                let told_gone = gone.remove(&h);
                first && (told_gone || created)
            }
            None => first,
        }
    }

    /// Forgets a key; `true` if the client may hold it (it was shown, or the watch resumed and
    /// has not told the client it is gone yet).
    pub(crate) fn remove(&mut self, cluster: &str, namespace: &str, name: &str) -> bool {
        let h = self.hash(cluster, namespace, name);
        let shown = self.hashes.remove(&h);
        match &mut self.resumed {
            Some(gone) => gone.insert(h) || shown,
            None => shown,
        }
    }

    /// A change of an object in the watch's scope that does not match its selectors: `true` if
    /// the client may hold the object, so it is told `DELETED`. Resumed, an object the change
    /// `created` (after the client's version) is held only if this watch showed it.
    pub(crate) fn left(&mut self, cluster: &str, namespace: &str, name: &str, created: bool) -> bool {
        let h = self.hash(cluster, namespace, name);
        let shown = self.hashes.remove(&h);
        match &mut self.resumed {
            Some(gone) => {
                let not_told = gone.insert(h);
                shown || (not_told && !created)
            }
            None => shown,
        }
    }

    /// Whether nothing is known.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}

/// What a written change is for a watch of `q`, whose client has seen `known` (kept up to date);
/// `None` when the watch does not show it. As the API server does, an object that stops matching
/// the selectors is `DELETED` for the watch, and `ADDED` again when it matches once more.
pub(crate) fn classify(q: &Query, n: &Notice, known: &mut Known) -> Option<WatchEventType> {
    let key = (n.cluster.as_str(), n.namespace.as_str(), n.name.as_str());
    if !matches(q, n) {
        return (!n.deleted && in_scope(q, n) && known.left(key.0, key.1, key.2, n.created))
            .then_some(WatchEventType::Deleted);
    }
    Some(if n.deleted {
        known.remove(key.0, key.1, key.2);
        WatchEventType::Deleted
    } else if known.appeared(key.0, key.1, key.2, n.created) {
        WatchEventType::Added
    } else {
        WatchEventType::Modified
    })
}

/// Whether a change is of the type, cluster, namespace and name the query watches (selectors
/// aside).
fn in_scope(q: &Query, n: &Notice) -> bool {
    q.gvr.as_ref().is_none_or(|g| g == &n.gvr)
        && q.cluster.as_ref().is_none_or(|c| c == &n.cluster)
        && q.namespace.as_ref().is_none_or(|ns| ns == &n.namespace)
        && q.name.as_ref().is_none_or(|name| name == &n.name)
        && q.allowed.as_ref().is_none_or(|a| a.admits(&n.cluster, &n.namespace))
}

/// Whether a change belongs to the watched query.
pub(crate) fn matches(q: &Query, n: &Notice) -> bool {
    if !in_scope(q, n) {
        return false;
    }
    if n.deleted {
        return true; // labels and fields of a deleted object are unknown: tell the client anyway
    }
    q.labels.as_ref().is_none_or(|l| l.matches(&n.labels))
        && q.fields.as_ref().is_none_or(|f| f.matches(&n.object.value()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mc_types::Gvr;
    use mc_types::selector::LabelSelector;

    fn notice(namespace: &str, tier: Option<&str>, deleted: bool) -> Notice {
        changed(namespace, tier, deleted, false)
    }

    fn changed(namespace: &str, tier: Option<&str>, deleted: bool, created: bool) -> Notice {
        Notice {
            seq: 1,
            cluster: "a".into(),
            gvr: Gvr::new("", "v1", "configmaps"),
            namespace: namespace.into(),
            name: "cm".into(),
            deleted,
            labels: tier.map(|t| [("tier".to_string(), t.to_string())].into()).unwrap_or_default(),
            object: crate::store::RawObject::from_value(&serde_json::json!({"metadata": {"name": "cm"}})),
            created,
        }
    }

    #[test]
    fn an_object_leaving_the_selector_is_deleted_for_the_watch_and_added_when_it_returns() {
        let q = Query {
            gvr: Some(Gvr::new("", "v1", "configmaps")),
            namespace: Some("ns".into()),
            labels: Some(LabelSelector::parse("tier=front").unwrap()),
            ..Query::default()
        };
        let mut known = Known::new();
        let mut seen = Vec::new();
        for n in [
            notice("ns", Some("front"), false),
            notice("ns", Some("front"), false),
            notice("ns", Some("back"), false),
            notice("ns", Some("back"), false),
            notice("other", Some("front"), false),
            notice("ns", Some("front"), false),
            notice("ns", None, true),
            notice("ns", None, true),
        ] {
            seen.push(classify(&q, &n, &mut known));
        }
        use WatchEventType::*;
        assert_eq!(
            seen,
            [
                Some(Added),
                Some(Modified),
                Some(Deleted),
                None,
                None,
                Some(Added),
                Some(Deleted),
                Some(Deleted)
            ]
        );
        assert!(known.is_empty());

        // Resumed from a version: the client may hold the object, so leaving the selector is
        // told once; coming back is ADDED; deletions are told as they come (as without resuming).
        let mut known = Known::resumed();
        let seen: Vec<_> = [
            notice("ns", Some("back"), false),
            notice("ns", Some("back"), false),
            notice("ns", Some("front"), false),
            notice("ns", Some("front"), false),
            notice("other", Some("back"), false),
            notice("ns", None, true),
            notice("ns", None, true),
        ]
        .iter()
        .map(|n| classify(&q, n, &mut known))
        .collect();
        assert_eq!(
            seen,
            [Some(Deleted), None, Some(Added), Some(Modified), None, Some(Deleted), Some(Deleted)]
        );
    }

    #[test]
    fn a_resumed_watch_tells_changes_of_listed_objects_as_modified_and_new_ones_as_added() {
        let q = Query { gvr: Some(Gvr::new("", "v1", "configmaps")), ..Query::default() };
        let mut known = Known::resumed();
        let seen: Vec<_> = [
            // An object the client listed, changed twice.
            changed("ns", None, false, false),
            changed("ns", None, false, false),
            // Deleted, then made again: the client was told it went.
            changed("ns", None, true, false),
            changed("ns", None, false, true),
            // An object made after the version the watch resumed from.
            changed("other", None, false, true),
            changed("other", None, false, false),
        ]
        .iter()
        .map(|n| classify(&q, n, &mut known))
        .collect();
        use WatchEventType::*;
        assert_eq!(
            seen,
            [Some(Modified), Some(Modified), Some(Deleted), Some(Added), Some(Added), Some(Modified)]
        );
    }
}
