//! One type's list, then its watch from the version listed: the events of kube's `watcher`, with
//! the list read the way that costs the API server least.
//!
//! kube's watcher reads a list in pages. An API server answers a list without pages from its
//! watch cache, but pages after the first from etcd, unless it still holds a snapshot of the type
//! at the list's version (1.34 and later keep one until the next etcd compaction after the
//! type's last change, so not for most types of a cluster). From etcd, pages cost the API server
//! more CPU and time than one answer from its watch cache (see
//! docs/adr/0002-unpaged-first-lists.md). So a first page of at most [`PROBE`] objects tells how
//! large the list is: a list of at most [`ListSizes::unpaged_max`] objects is read again whole,
//! without pages, and parsed as it arrives ([`ListReader`]), so it holds one object at a time
//! whatever its length; a larger list is read in pages, as before, which bounds the time a slow
//! reader holds one answer; should such a list outlive etcd's compaction (its continue token
//! expires), it starts over in one answer. The store's pace is the reader's: an API server ends
//! a request after a minute (`--request-timeout`), so a list read in one answer that breaks off
//! is read again in pages, and so are the next lists of this list+watch (what it wrote stays, and
//! is skipped as unchanged).
//! Watching is kube's watcher's: bookmarks, the server's 290 s timeout, a relist on `410 Gone`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::{Duration, Instant};

use futures::io::AsyncBufRead;
use futures::stream::BoxStream;
use futures::{AsyncBufReadExt as _, Stream, StreamExt as _};
use kube::api::{Api, ApiResource, ListParams, WatchEvent, WatchParams};
use kube::core::Request;
use kube::runtime::watcher::{Error, Event, Result};
use kube::{Client, Resource as _, ResourceExt as _};
use tracing::{debug, info};

use super::list_reader::ListReader;
use super::watched_object::WatchedObject;

/// How lists are read (`sync.listPageSize`, `sync.unpagedListMax`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListSizes {
    /// Objects per request of a list read in pages.
    pub page: u32,
    /// Most objects of a list read in one answer; 0: every list in pages.
    pub unpaged_max: i64,
}

impl Default for ListSizes {
    /// Pages of 2,000: smaller pages cost the API servers more time. At most 500,000 objects in
    /// one answer: the writer must store that many within the API server's one-minute limit on a
    /// request, as SQLite and PostgreSQL do with room to spare (see
    /// docs/adr/0002-unpaged-first-lists.md); API servers since 1.33 write a list's answer
    /// an item at a time (earlier ones build it whole, about 1.3 KB per ConfigMap: lower it for
    /// those), and client-go's informers ask for whole lists from the watch cache too.
    fn default() -> Self {
        Self { page: 2000, unpaged_max: 500_000 }
    }
}

/// Objects asked for in the first page of a list that may be read again whole: enough to finish
/// most types' lists in one request, few enough that reading a large list's first page only to
/// learn its size costs little. A probe as large as a page would have the API server encode, and
/// mc-server parse, a page of objects for nothing whenever the list is read again whole (see
/// docs/adr/0002-unpaged-first-lists.md).
const PROBE: u32 = 100;

/// The API server closes a watch after 290 s (kube's default); one silent for 5 s more than that
/// is taken for dead.
const WATCH_IDLE: Duration = Duration::from_secs(295);

type Body = Pin<Box<dyn AsyncBufRead + Send>>;

enum State {
    /// Nothing listed: the next step announces a list.
    Empty,
    /// The next step reads the first page, which decides how the rest is read.
    FirstPage,
    /// Reading the list in pages: the items of the page read, and where the next one starts
    /// (`None` after the last).
    Paging { continue_token: Option<String>, objects: VecDeque<WatchedObject>, version: String },
    /// Reading the list without pages, as it arrives.
    Streaming { body: Body, reader: ListReader, objects: VecDeque<WatchedObject>, since: Instant },
    /// Listed at `version`: the next step starts the watch.
    Listed { version: String },
    /// Watching from `version`.
    Watching { version: String, stream: BoxStream<'static, kube::Result<WatchEvent<WatchedObject>>> },
}

/// The list+watch of the type `ar` of one cluster, as `kube::runtime::watcher` would give it.
/// Errors are yielded and the next step retries (with the caller's backoff); `410 Gone` lists
/// again.
pub fn list_watch(
    client: Client,
    ar: &ApiResource,
    sizes: ListSizes,
) -> impl Stream<Item = Result<Event<WatchedObject>>> + Send + use<> {
    let api: Api<WatchedObject> = Api::all_with(client.clone(), ar);
    let url = WatchedObject::url_path(ar, None);
    let walker = Walker { api, client, url, sizes, pages_only: false };
    futures::stream::unfold((walker, State::Empty), |(mut walker, mut state)| async move {
        loop {
            let (event, next) = walker.step(state).await;
            state = next;
            if let Some(event) = event {
                return Some((event, (walker, state)));
            }
        }
    })
}

struct Walker {
    api: Api<WatchedObject>,
    client: Client,
    url: String,
    sizes: ListSizes,
    /// A list of this type read in one answer broke off: it is read in pages from now on.
    pages_only: bool,
}

impl Walker {
    /// One step: an event to yield (or `None` to step again) and the next state.
    async fn step(&mut self, state: State) -> (Option<Result<Event<WatchedObject>>>, State) {
        match state {
            State::Empty => (Some(Ok(Event::Init)), State::FirstPage),
            State::FirstPage => self.first_page().await,
            State::Paging { continue_token, mut objects, version } => {
                if let Some(object) = objects.pop_front() {
                    return (
                        Some(Ok(Event::InitApply(object))),
                        State::Paging { continue_token, objects, version },
                    );
                }
                match continue_token {
                    None => (Some(Ok(Event::InitDone)), State::Listed { version }),
                    Some(token) => match self.page(token).await {
                        Ok(next) => (None, next),
                        // The list outlived etcd's compaction (a slow writer paces it): its
                        // snapshot is gone, and paging again from the start could outlive the
                        // next one too. As client-go's pager does, the list starts over in one
                        // answer, read as it arrives (one object at a time in memory).
                        Err(Error::InitialListFailed(kube::Error::Api(e))) if e.code == 410 => {
                            debug!(url = %self.url, "continue token expired; listing without pages");
                            match self.whole().await {
                                Ok(body) => (Some(Ok(Event::Init)), streaming(body)),
                                Err(e) => (Some(Err(Error::InitialListFailed(e))), State::Empty),
                            }
                        }
                        Err(e) => (Some(Err(e)), State::Empty),
                    },
                }
            }
            State::Streaming { mut body, mut reader, mut objects, since } => {
                if let Some(object) = objects.pop_front() {
                    return (
                        Some(Ok(Event::InitApply(object))),
                        State::Streaming { body, reader, objects, since },
                    );
                }
                let chunk = match body.fill_buf().await {
                    Ok(chunk) => chunk,
                    Err(e) => {
                        self.broke_off(since);
                        return (
                            Some(Err(Error::InitialListFailed(kube::Error::ReadEvents(e)))),
                            State::Empty,
                        );
                    }
                };
                if chunk.is_empty() {
                    return match reader.finish() {
                        Ok(meta) if !meta.resource_version.is_empty() => {
                            (Some(Ok(Event::InitDone)), State::Listed { version: meta.resource_version })
                        }
                        Ok(_) => (Some(Err(Error::NoResourceVersion)), State::Empty),
                        // Cut short: the body ended before the list did.
                        Err(e) => {
                            self.broke_off(since);
                            (Some(Err(list_failed(e))), State::Empty)
                        }
                    };
                }
                let mut items = Vec::new();
                let read = reader.feed(chunk, &mut items);
                let n = chunk.len();
                body.consume_unpin(n);
                match read {
                    Ok(()) => (None, State::Streaming { body, reader, objects: items.into(), since }),
                    Err(e) => (Some(Err(list_failed(e))), State::Empty),
                }
            }
            State::Listed { version } => match self.api.watch(&WatchParams::default(), &version).await {
                Ok(stream) => (None, State::Watching { version, stream: stream.boxed() }),
                Err(e) => (Some(Err(Error::WatchStartFailed(e))), State::Listed { version }),
            },
            State::Watching { version, mut stream } => {
                let next = tokio::time::timeout(WATCH_IDLE, stream.next()).await.ok().flatten();
                match next {
                    Some(Ok(WatchEvent::Added(mut o))) => {
                        o.added = true;
                        changed(o, Event::Apply, stream)
                    }
                    Some(Ok(WatchEvent::Modified(o))) => changed(o, Event::Apply, stream),
                    Some(Ok(WatchEvent::Deleted(o))) => changed(o, Event::Delete, stream),
                    Some(Ok(WatchEvent::Bookmark(b))) => {
                        (None, State::Watching { version: b.metadata.resource_version, stream })
                    }
                    // `410 Gone`: the version is too old to watch from; anything else keeps the
                    // stream, as kube's watcher does.
                    Some(Ok(WatchEvent::Error(e))) => {
                        let next =
                            if e.code == 410 { State::Empty } else { State::Watching { version, stream } };
                        (Some(Err(Error::WatchError(e))), next)
                    }
                    Some(Err(e)) => (Some(Err(Error::WatchFailed(e))), State::Watching { version, stream }),
                    // Ended (the server's timeout) or silent for too long: watch again from here.
                    None => (None, State::Listed { version }),
                }
            }
        }
    }

    /// Reads the first page: [`PROBE`] objects at most, unless every list of the type is read in
    /// pages. It also decides how the rest is read: a list of at most [`ListSizes::unpaged_max`]
    /// objects is read again whole, as it arrives; a larger one goes on in pages from there.
    async fn first_page(&self) -> (Option<Result<Event<WatchedObject>>>, State) {
        let probe = !self.pages_only && self.sizes.unpaged_max > 0;
        let limit = if probe { self.sizes.page.min(PROBE) } else { self.sizes.page };
        let list = match self.api.list(&ListParams::default().limit(limit)).await {
            Ok(list) => list,
            Err(e) => return (Some(Err(Error::InitialListFailed(e))), State::Empty),
        };
        let objects = list.metadata.remaining_item_count.map(|r| r.saturating_add(list.items.len() as i64));
        let more = list.metadata.continue_.as_ref().is_some_and(|c| !c.is_empty());
        if more && !self.pages_only && objects.is_some_and(|n| n <= self.sizes.unpaged_max) {
            debug!(url = %self.url, objects, "listing without pages");
            drop(list);
            return match self.whole().await {
                Ok(body) => (None, streaming(body)),
                Err(e) => (Some(Err(Error::InitialListFailed(e))), State::Empty),
            };
        }
        if more {
            debug!(url = %self.url, objects, "listing in pages");
        }
        match paged(list) {
            Ok(next) => (None, next),
            Err(e) => (Some(Err(e)), State::Empty),
        }
    }

    /// Reads the page that `continue_token` starts.
    async fn page(&self, continue_token: String) -> Result<State> {
        let mut params = ListParams::default().limit(self.sizes.page);
        params.continue_token = Some(continue_token);
        paged(self.api.list(&params).await.map_err(Error::InitialListFailed)?)
    }

    /// A list read in one answer broke off (the API server's limit on a request, a reader paced
    /// by a slow store, a connection lost): read the type in pages from now on.
    fn broke_off(&mut self, since: Instant) {
        if !self.pages_only {
            info!(url = %self.url, ms = since.elapsed().as_millis() as u64, "a list read in one answer broke off; reading this type in pages from now on");
            self.pages_only = true;
        }
    }

    /// The whole list in one answer, its body to read as it arrives.
    async fn whole(&self) -> kube::Result<Body> {
        let request =
            Request::new(&self.url).list(&ListParams::default()).map_err(kube::Error::BuildRequest)?;
        let body = self.client.request_stream(request).await?;
        Ok(Box::pin(body))
    }
}

/// A list read in one answer, from its first byte.
fn streaming(body: Body) -> State {
    State::Streaming { body, reader: ListReader::default(), objects: VecDeque::new(), since: Instant::now() }
}

/// A page read: its items, then the next page (if any).
fn paged(list: kube::core::ObjectList<WatchedObject>) -> Result<State> {
    let continue_token = list.metadata.continue_.filter(|c| !c.is_empty());
    let version = list.metadata.resource_version.unwrap_or_default();
    if version.is_empty() && continue_token.is_none() {
        return Err(Error::NoResourceVersion);
    }
    Ok(State::Paging { continue_token, objects: list.items.into(), version })
}

/// A watched change moves the version on; one without a version cannot be watched from.
fn changed(
    object: WatchedObject,
    event: fn(WatchedObject) -> Event<WatchedObject>,
    stream: BoxStream<'static, kube::Result<WatchEvent<WatchedObject>>>,
) -> (Option<Result<Event<WatchedObject>>>, State) {
    match object.resource_version().filter(|v| !v.is_empty()) {
        Some(version) => (Some(Ok(event(object))), State::Watching { version, stream }),
        None => (Some(Err(Error::NoResourceVersion)), State::Empty),
    }
}

fn list_failed(e: super::list_reader::ListError) -> Error {
    Error::InitialListFailed(kube::Error::ReadEvents(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::{Arc, Mutex};

    use hyper::{Request, Response};
    use kube::client::Body;
    use serde_json::{Value, json};

    use super::*;

    fn configmap(name: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": "ns", "uid": name, "resourceVersion": "3"}})
    }

    fn list(names: &[&str], continue_token: Option<&str>, remaining: Option<i64>) -> Value {
        json!({
            "kind": "ConfigMapList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "5", "continue": continue_token, "remainingItemCount": remaining},
            "items": names.iter().map(|n| configmap(n)).collect::<Vec<_>>(),
        })
    }

    /// An API server whose lists of ConfigMaps are paged, and whose continue token has expired
    /// (etcd compacted while the list was read): it answers `410 Expired`, as kube-apiserver
    /// does. Every query string asked is kept.
    fn expiring_api_server(asked: Arc<Mutex<Vec<String>>>) -> Client {
        let service = tower::service_fn(move |request: Request<Body>| {
            let query = request.uri().query().unwrap_or_default().to_string();
            asked.lock().unwrap().push(query.clone());
            let (status, body) = if query.contains("continue=") {
                let expired = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "The provided continue parameter is too old", "reason": "Expired", "code": 410});
                (410, expired)
            } else if query.contains("limit=") {
                (200, list(&["a"], Some("next"), Some(98)))
            } else {
                (200, list(&["a", "b", "c"], None, None))
            };
            let response = Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(Body::from(serde_json::to_vec(&body).unwrap()))
                .unwrap();
            async move { Ok::<_, std::convert::Infallible>(response) }
        });
        Client::new(service, "default")
    }

    /// An API server with 3 ConfigMaps whose first page holds one of them whatever the limit
    /// asked. When `breaks`, its one answer breaks off after the first object (as when its
    /// one-minute limit on a request ends a list read at a slow store's pace); its pages are
    /// whole.
    fn three_configmaps(asked: Arc<Mutex<Vec<String>>>, breaks: bool) -> Client {
        let service = tower::service_fn(move |request: Request<Body>| {
            let query = request.uri().query().unwrap_or_default().to_string();
            asked.lock().unwrap().push(query.clone());
            let body = if query.contains("continue=") {
                serde_json::to_vec(&list(&["b", "c"], None, None)).unwrap()
            } else if query.contains("limit=") {
                serde_json::to_vec(&list(&["a"], Some("next"), Some(2))).unwrap()
            } else if !breaks {
                serde_json::to_vec(&list(&["a", "b", "c"], None, None)).unwrap()
            } else {
                let whole = serde_json::to_string(&list(&["a", "b", "c"], None, None)).unwrap();
                let cut = whole.find(r#"{"metadata":{"name":"b""#).unwrap() + 10;
                whole.as_bytes()[..cut].to_vec()
            };
            let response = Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap();
            async move { Ok::<_, std::convert::Infallible>(response) }
        });
        Client::new(service, "default")
    }

    fn names(events: Vec<Result<Event<WatchedObject>>>) -> Vec<String> {
        events
            .into_iter()
            .map(|e| match e {
                Ok(Event::Init) => "init".to_string(),
                Ok(Event::InitApply(o)) => o.name_any(),
                Ok(Event::InitDone) => "done".to_string(),
                Err(Error::InitialListFailed(_)) => "failed".to_string(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn a_list_read_in_one_answer_that_breaks_off_is_read_in_pages_from_then_on() {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let client = three_configmaps(asked.clone(), true);
        let ar = ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&());
        let events =
            list_watch(client, &ar, ListSizes { page: 2000, unpaged_max: 10 }).take(8).collect::<Vec<_>>();
        assert_eq!(names(events.await), ["init", "a", "failed", "init", "a", "b", "c", "done"]);
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 4, "{asked:?}");
        assert!(asked[0].contains("limit=100") && !asked[0].contains("continue="), "a probe: {asked:?}");
        assert!(!asked[1].contains("limit="), "3 objects: read in one answer first: {asked:?}");
        assert!(asked[2].contains("limit=2000") && !asked[2].contains("continue="), "a page: {asked:?}");
        assert!(asked[3].contains("limit=2000&continue=next"), "then in pages: {asked:?}");
    }

    #[tokio::test]
    async fn a_small_first_page_tells_whether_the_rest_is_read_whole_or_in_pages() {
        let ar = ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&());
        // (sizes, second request): 3 objects are at most 10, and more than 2.
        let cases = [
            (ListSizes { page: 2000, unpaged_max: 10 }, "limit=100", None),
            (ListSizes { page: 2000, unpaged_max: 2 }, "limit=100", Some("limit=2000&continue=next")),
            // A page smaller than the probe is the probe; no list read whole: no probe.
            (ListSizes { page: 50, unpaged_max: 10 }, "limit=50", None),
            (ListSizes { page: 2000, unpaged_max: 0 }, "limit=2000", Some("limit=2000&continue=next")),
        ];
        for (sizes, first, second) in cases {
            let asked = Arc::new(Mutex::new(Vec::new()));
            let client = three_configmaps(asked.clone(), false);
            let events = list_watch(client, &ar, sizes).take(5).collect::<Vec<_>>();
            assert_eq!(names(events.await), ["init", "a", "b", "c", "done"], "{sizes:?}");
            let asked = asked.lock().unwrap().clone();
            assert_eq!(asked.len(), 2, "{sizes:?}: {asked:?}");
            assert!(asked[0].ends_with(first) && !asked[0].contains("continue="), "{sizes:?}: {asked:?}");
            match second {
                Some(page) => assert!(asked[1].contains(page), "{sizes:?}: in pages: {asked:?}"),
                None => assert!(!asked[1].contains("limit="), "{sizes:?}: read whole: {asked:?}"),
            }
        }
    }

    #[tokio::test]
    async fn a_paged_list_whose_continue_token_expired_starts_over_in_one_answer() {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let client = expiring_api_server(asked.clone());
        let ar = ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&());
        // 99 objects are more than 10: read in pages of one.
        let events =
            list_watch(client, &ar, ListSizes { page: 1, unpaged_max: 10 }).take(7).collect::<Vec<_>>();
        assert_eq!(names(events.await), ["init", "a", "init", "a", "b", "c", "done"]);
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 3, "{asked:?}");
        assert!(asked[0].contains("limit=1") && !asked[0].contains("continue="), "{asked:?}");
        assert!(asked[1].contains("continue=next"), "{asked:?}");
        assert!(!asked[2].contains("limit=") && !asked[2].contains("continue="), "{asked:?}");
    }
}
