//! The OpenAPI documents read from each cluster, kept between requests: each cluster's v3 index
//! and v2 document (read again after [`Timing::ttl`], after its CRDs change, or sooner when its
//! discovery has group versions the document lacks), and the v3 documents asked for (kept by
//! their hash, which names their content). A cluster that cannot be read now answers with what
//! was read before, said in a `Warning`; with nothing read before, the answer is an error.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;

use super::index::{GroupVersion, Index};
use crate::clusters::Cluster;
use crate::http::kube::fetch::{self, Fetched, Limits};
use crate::sync::history::History;

/// When documents are read again.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// A document older than this is read again (conditionally, where the cluster allows).
    pub ttl: Duration,
    /// A document that lacks group versions of the cluster's discovery is read again after
    /// this long (a new CRD's schema is published shortly after the CRD is served).
    pub recheck: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing { ttl: Duration::from_secs(300), recheck: Duration::from_secs(5) }
    }
}

/// A cluster's documents could not be had, and none were read before.
#[derive(Debug, thiserror::Error)]
#[error("the OpenAPI documents of cluster \"{cluster}\" cannot be read now ({source}); try again")]
pub struct Unavailable {
    /// The cluster.
    pub cluster: String,
    /// Why (in mc-server's words: a member's own answer is never repeated).
    #[source]
    pub source: fetch::Error,
}

/// Result of this module.
pub type Result<T, E = Unavailable> = std::result::Result<T, E>;

/// What was had, with a warning when it is an old copy.
#[derive(Debug)]
pub struct Had<T> {
    /// The document.
    pub value: T,
    /// Why an old copy is served, if it is.
    pub warning: Option<String>,
}

/// A cluster's v2 document.
#[derive(Debug)]
pub struct V2 {
    /// As the cluster sent it.
    pub body: Bytes,
    /// Its hash (`ETag` without quotes).
    pub etag: String,
    /// The group versions it has kinds of.
    pub covers: BTreeSet<GroupVersion>,
}

/// Every cluster's documents (one per server, in [`crate::http::AppState`]).
#[derive(Default)]
pub struct Documents {
    limits: Limits,
    timing: Timing,
    clusters: Mutex<HashMap<String, Arc<Held>>>,
    /// Counts each cluster's CRD and APIService changes as the writer writes them.
    history: Arc<History>,
    /// Answers made of several documents (merged, or with hidden parts removed), by a key that
    /// names their parts; at most [`MAX_MADE`], all dropped when full.
    made: Mutex<HashMap<String, Bytes>>,
}

/// Most answers kept in [`Documents::made`].
const MAX_MADE: usize = 32;

struct Held {
    /// The cluster object read (a cluster joined again under the same name starts afresh).
    created: Instant,
    /// The cluster's CRD and APIService changes seen (see [`History::apis_version`]).
    apis_seen: AtomicU64,
    /// Its CRDs changed since its index was read (or a document's hash differs from the index's).
    index_changed: AtomicBool,
    /// Its CRDs changed since its v2 document was read.
    v2_changed: AtomicBool,
    docs: tokio::sync::Mutex<Docs>,
}

#[derive(Default)]
struct Docs {
    index: Option<Timed<Index>>,
    v2: Option<Timed<V2>>,
    /// v3 documents by path: hash and body.
    v3: HashMap<String, (String, Bytes)>,
}

struct Timed<T> {
    value: Arc<T>,
    read: Instant,
}

impl Documents {
    /// With these limits and timing.
    pub fn new(limits: Limits, timing: Timing) -> Self {
        Documents { limits, timing, ..Default::default() }
    }

    /// Reads a cluster's documents again once `history` counts a change of its CRDs or
    /// APIServices.
    pub fn following(mut self, history: Arc<History>) -> Self {
        self.history = history;
        self
    }

    /// The cluster's CRDs changed: its documents are read again when next asked for.
    pub fn invalidate(&self, cluster: &str) {
        if let Some(held) = self.lock().get(cluster) {
            held.index_changed.store(true, Ordering::Release);
            held.v2_changed.store(true, Ordering::Release);
        }
    }

    /// Forgets the clusters not in `names` (unjoined).
    pub fn retain(&self, names: &[String]) {
        self.lock().retain(|name, _| names.contains(name));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Held>>> {
        self.clusters.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn held(&self, cluster: &Cluster) -> Arc<Held> {
        let mut clusters = self.lock();
        let fresh = || {
            Arc::new(Held {
                created: cluster.created(),
                apis_seen: AtomicU64::new(self.history.apis_version(cluster.name())),
                index_changed: AtomicBool::new(false),
                v2_changed: AtomicBool::new(false),
                docs: Default::default(),
            })
        };
        let held = clusters.entry(cluster.name().to_string()).or_insert_with(fresh);
        if held.created != cluster.created() {
            *held = fresh();
        }
        // A CRD or APIService written since: every document of the cluster is read again.
        let apis = self.history.apis_version(cluster.name());
        if held.apis_seen.swap(apis, Ordering::AcqRel) != apis {
            held.index_changed.store(true, Ordering::Release);
            held.v2_changed.store(true, Ordering::Release);
        }
        held.clone()
    }

    /// Whether a document read at `read`, covering `covers`, is read again now.
    fn due(&self, read: Instant, covers: &BTreeSet<GroupVersion>, cluster: &Cluster, changed: bool) -> bool {
        let age = read.elapsed();
        changed
            || age >= self.timing.ttl
            || (age >= self.timing.recheck && !discovered(cluster).is_subset(covers))
    }

    /// The cluster's v3 index.
    pub async fn index(&self, cluster: &Cluster) -> Result<Had<Arc<Index>>> {
        let held = self.held(cluster);
        let mut docs = held.docs.lock().await;
        let changed = held.index_changed.load(Ordering::Acquire);
        if let Some(had) = &docs.index
            && !self.due(had.read, &had.value.group_versions(), cluster, changed)
        {
            return Ok(Had { value: had.value.clone(), warning: None });
        }
        let fetched = match read(cluster, "/openapi/v3", None, self.limits).await {
            Ok(Fetched::Document { body, .. }) => Index::parse(&body).map_err(fetch::Error::Json),
            Ok(Fetched::NotModified) => Err(fetch::Error::Status(304)),
            Err(e) => Err(e),
        };
        match fetched {
            Ok(index) => {
                held.index_changed.store(false, Ordering::Release);
                let index = Arc::new(index);
                // Documents the new index no longer names are dropped.
                docs.v3.retain(|path, (hash, _)| index.paths.get(path) == Some(hash));
                docs.index = Some(Timed { value: index.clone(), read: Instant::now() });
                Ok(Had { value: index, warning: None })
            }
            Err(e) => old(cluster, docs.index.as_ref(), e),
        }
    }

    /// The cluster's v3 document of `path`, as its index names it at `hash`.
    pub async fn v3(&self, cluster: &Cluster, path: &str, hash: &str) -> Result<Had<Bytes>> {
        let held = self.held(cluster);
        let mut docs = held.docs.lock().await;
        if let Some((have, body)) = docs.v3.get(path)
            && have == hash
        {
            return Ok(Had { value: body.clone(), warning: None });
        }
        match read(cluster, &format!("/openapi/v3/{path}"), None, self.limits).await {
            Ok(Fetched::Document { body, etag }) => {
                let etag = etag.unwrap_or_else(|| hash.to_string());
                if etag != hash {
                    // Changed since the index was read: the index is read again next time.
                    held.index_changed.store(true, Ordering::Release);
                }
                docs.v3.insert(path.to_string(), (etag, body.clone()));
                Ok(Had { value: body, warning: None })
            }
            Ok(Fetched::NotModified) => Err(unavailable(cluster, fetch::Error::Status(304))),
            Err(e) => match docs.v3.get(path) {
                Some((_, body)) => {
                    Ok(Had { value: body.clone(), warning: Some(stale_warning(cluster, None, &e)) })
                }
                None => Err(unavailable(cluster, e)),
            },
        }
    }

    /// The cluster's v2 document.
    pub async fn v2(&self, cluster: &Cluster) -> Result<Had<Arc<V2>>> {
        let held = self.held(cluster);
        let mut docs = held.docs.lock().await;
        let changed = held.v2_changed.load(Ordering::Acquire);
        if let Some(had) = &docs.v2
            && !self.due(had.read, &had.value.covers, cluster, changed)
        {
            return Ok(Had { value: had.value.clone(), warning: None });
        }
        let etag = docs.v2.as_ref().map(|t| t.value.etag.clone());
        let fetched = read(cluster, "/openapi/v2", etag.as_deref(), self.limits).await;
        let value = match fetched {
            Ok(Fetched::NotModified) => docs.v2.as_ref().map(|t| t.value.clone()),
            Ok(Fetched::Document { body, etag }) => match serde_json::from_slice(&body) {
                Ok(doc) => {
                    let etag = etag.unwrap_or_else(|| super::hex(&String::from_utf8_lossy(&body)));
                    Some(Arc::new(V2 { covers: covers_v2(&doc), body, etag }))
                }
                Err(e) => return old(cluster, docs.v2.as_ref(), fetch::Error::Json(e)),
            },
            Err(e) => return old(cluster, docs.v2.as_ref(), e),
        };
        let Some(value) = value else {
            return Err(unavailable(cluster, fetch::Error::Status(304)));
        };
        held.v2_changed.store(false, Ordering::Release);
        docs.v2 = Some(Timed { value: value.clone(), read: Instant::now() });
        Ok(Had { value, warning: None })
    }

    /// The answer kept under `key`, else made by `make` and kept.
    pub fn made(&self, key: &str, make: impl FnOnce() -> Bytes) -> Bytes {
        if let Some(body) = self.made.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
            return body.clone();
        }
        let body = make();
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        if made.len() >= MAX_MADE {
            made.clear();
        }
        made.insert(key.to_string(), body.clone());
        body
    }
}

/// The group versions of a cluster's discovery (its synced types).
fn discovered(cluster: &Cluster) -> BTreeSet<GroupVersion> {
    cluster.catalog().iter().map(|r| GroupVersion::new(&r.group, &r.version)).collect()
}

/// The group versions a v2 document has kinds of.
fn covers_v2(doc: &serde_json::Value) -> BTreeSet<GroupVersion> {
    let definitions = doc.get("definitions").and_then(serde_json::Value::as_object);
    definitions
        .into_iter()
        .flat_map(|d| d.values())
        .filter_map(|schema| schema.get("x-kubernetes-group-version-kind")?.as_array())
        .flatten()
        .map(|k| {
            let field = |name: &str| k.get(name).and_then(serde_json::Value::as_str).unwrap_or_default();
            GroupVersion::new(field("group"), field("version"))
        })
        .collect()
}

async fn read(cluster: &Cluster, path: &str, etag: Option<&str>, limits: Limits) -> fetch::Result<Fetched> {
    let client = cluster.client().ok_or(fetch::Error::NotConnected)?;
    let fetched = fetch::get(&client, path, etag, limits).await;
    if let Err(e) = &fetched {
        tracing::warn!(cluster = %cluster.name(), path, error = %e, source = ?std::error::Error::source(e),
            "OpenAPI document not read");
    }
    fetched
}

/// The copy read before, with a warning, else the error.
fn old<T>(cluster: &Cluster, had: Option<&Timed<T>>, e: fetch::Error) -> Result<Had<Arc<T>>> {
    match had {
        Some(had) => {
            Ok(Had { value: had.value.clone(), warning: Some(stale_warning(cluster, Some(had.read), &e)) })
        }
        None => Err(unavailable(cluster, e)),
    }
}

fn unavailable(cluster: &Cluster, source: fetch::Error) -> Unavailable {
    Unavailable { cluster: cluster.name().to_string(), source }
}

fn stale_warning(cluster: &Cluster, read: Option<Instant>, e: &fetch::Error) -> String {
    let age = read.map(|r| format!(" read {}s ago", r.elapsed().as_secs())).unwrap_or_default();
    format!("the OpenAPI documents of cluster {} cannot be read now ({e}): served as{age}", cluster.name())
}
