//! Dispatch: the MultiClusterResource controller, the cluster registry objects and
//! leader election, all against the master cluster.

pub mod backoff;
pub mod cluster_objects;
pub mod controller;
pub mod crds;
pub mod finalizer;
pub mod leader;
pub mod render;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt, stream};
use kube::Client;
use kube::api::Api;
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::{Controller, WatchStreamExt, predicates, reflector, watcher};
use mc_types::crd::{MultiCluster, MultiClusterResource, OWNER_ANNOTATION};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::clusters::{ClusterSpec, Registry, connect};
use crate::sync::SyncContext;
use controller::{Context, error_policy, reconcile};

/// Settings of the dispatch side.
#[derive(Clone, Debug)]
pub struct DispatchConfig {
    /// The server's namespace: its leader Lease and the `MultiCluster` objects.
    pub namespace: String,
    /// Namespaces whose MultiClusterResources may write outside their own namespace.
    pub admin_namespaces: Vec<String>,
    /// This replica's identity (Lease holder, Event reporter), see [`leader::identity`].
    pub identity: String,
}

/// Runs dispatch for the life of the server: connects to the master, installs the CRDs (in the
/// background), takes part in leader election and, while leading, runs the controller and the registry upkeep.
pub async fn run(
    master: ClusterSpec,
    registry: Arc<Registry>,
    sync: SyncContext,
    config: DispatchConfig,
    leading: watch::Sender<bool>,
    shutdown: watch::Receiver<bool>,
) {
    registry.set_master_problem(Some(crds::PENDING.into()));
    let client = connect_with_retry(&master).await;
    // A CRD that cannot be installed is reported and retried, but never holds up leader
    // election: MultiClusterResources already in the master still need a leader.
    let (installed_tx, installed) = watch::channel(false);
    tokio::spawn(crds::install_until_done(client.clone(), registry.clone(), installed_tx));
    let identity = config.identity.clone();
    let mut rx = leading.subscribe();
    tokio::spawn(leader::elect(client.clone(), config.namespace.clone(), identity, leading, shutdown));
    let mut tasks: Vec<JoinHandle<()>> = Vec::new();
    loop {
        if rx.changed().await.is_err() {
            return;
        }
        let now_leading = *rx.borrow();
        for t in tasks.drain(..) {
            t.abort();
        }
        if now_leading {
            info!("leading: dispatching");
            tasks.push(tokio::spawn(cluster_objects::maintain(
                client.clone(),
                config.namespace.clone(),
                registry.clone(),
                sync.ready_tx.subscribe(),
                installed.clone(),
            )));
            tasks.push(tokio::spawn(controller_loop(
                client.clone(),
                registry.clone(),
                sync.clone(),
                config.clone(),
            )));
        } else {
            info!("not leading: serving queries only");
        }
    }
}

async fn connect_with_retry(master: &ClusterSpec) -> Client {
    let mut backoff = Duration::from_secs(1);
    loop {
        match connect(master).await {
            Ok(c) => match c.apiserver_version().await {
                Ok(_) => return c,
                Err(e) => warn!(cluster = %master.name, error = %e, "master cluster unreachable; retrying"),
            },
            Err(e) => warn!(cluster = %master.name, error = %e, "master cluster client failed; retrying"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(30));
    }
}

async fn controller_loop(client: Client, registry: Arc<Registry>, sync: SyncContext, config: DispatchConfig) {
    let reporter =
        Reporter { controller: "kubectl-multicluster".into(), instance: Some(config.identity.clone()) };
    let ctx = Arc::new(Context {
        master: client.clone(),
        registry,
        recorder: Recorder::new(client.clone(), reporter),
        copies: Mutex::new(HashMap::new()),
        admin_namespaces: config.admin_namespaces,
        namespace: config.namespace.clone(),
        backoff: Default::default(),
    });
    let api: Api<MultiClusterResource> = Api::all(client.clone());
    let drift = drift_triggers(sync.notices.subscribe(), ctx.clone());
    let everything = stream::select(
        ready_triggers(sync.ready_tx.subscribe()),
        cluster_label_changes(client, &config.namespace),
    );
    // Only spec changes (and the deletion mark, which bumps the generation) wake the controller:
    // its own status and finalizer updates do not. Drift, joins and label changes have their
    // own triggers; the periodic resync covers the rest.
    let (reader, writer) = reflector::store();
    let resources = watcher(api, watcher::Config::default())
        .default_backoff()
        .reflect(writer)
        .applied_objects()
        .predicate_filter(predicates::generation, Default::default());
    Controller::for_stream(resources, reader)
        .reconcile_on(drift)
        .reconcile_all_on(everything)
        .run(reconcile, error_policy, ctx)
        .for_each(|_| async {})
        .await;
}

/// A copy changed or deleted in a member cluster → its MultiClusterResource, at once.
fn drift_triggers(
    rx: tokio::sync::broadcast::Receiver<Arc<crate::sync::notice::Notice>>,
    ctx: Arc<Context>,
) -> impl Stream<Item = ObjectRef<MultiClusterResource>> + Send + 'static {
    // Every object the sync writes passes here: a searcher built once, with SIMD, rather than
    // `str::contains` on each (see docs/adr/0005-objects-as-the-api-servers-text.md).
    let marked = memchr::memmem::Finder::new(OWNER_ANNOTATION).into_owned();
    stream::unfold((rx, ctx, marked), |(mut rx, ctx, marked)| async move {
        loop {
            match rx.recv().await {
                Ok(n) => {
                    // The copies map is only consulted for deletions and for objects that carry
                    // our owner annotation, not for every object a sync writes.
                    let ours = || {
                        let key = (n.cluster.clone(), n.gvr.clone(), n.namespace.clone(), n.name.clone());
                        ctx.copies.lock().unwrap_or_else(|e| e.into_inner()).get(&key).cloned()
                    };
                    let owner = if n.deleted {
                        ours().map(|c| c.owner)
                    } else if marked.find(n.object.text().as_bytes()).is_some() {
                        // Only objects whose text names our annotation are parsed.
                        let object = n.object.value();
                        let version = object["metadata"]["resourceVersion"].as_str();
                        let own_write = || {
                            version.is_some()
                                && ours().is_some_and(|c| c.resource_version.as_deref() == version)
                        };
                        let owner = object["metadata"]["annotations"][OWNER_ANNOTATION].as_str();
                        owner.filter(|_| !own_write()).map(String::from)
                    } else {
                        None
                    };
                    if let Some((ns, name)) = owner.as_deref().and_then(|o| o.split_once('/')) {
                        return Some((ObjectRef::new(name).within(ns), (rx, ctx, marked)));
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
}

/// A cluster became ready (or joined) → everything is reconciled.
fn ready_triggers(rx: tokio::sync::broadcast::Receiver<String>) -> impl Stream<Item = ()> + Send + 'static {
    stream::unfold(rx, |mut rx| async move {
        match rx.recv().await {
            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => Some(((), rx)),
            Err(tokio::sync::broadcast::error::RecvError::Closed) => None,
        }
    })
}

/// Labels of a MultiCluster changed (placement by selector) → everything is reconciled.
fn cluster_label_changes(client: Client, namespace: &str) -> impl Stream<Item = ()> + Send + 'static {
    let api: Api<MultiCluster> = Api::namespaced(client, namespace);
    let mut seen: HashMap<String, std::collections::BTreeMap<String, String>> = HashMap::new();
    watcher(api, watcher::Config::default()).default_backoff().applied_objects().filter_map(move |r| {
        let changed = match r {
            Ok(mc) => {
                let name = mc.metadata.name.clone().unwrap_or_default();
                let labels = mc.metadata.labels.clone().unwrap_or_default();
                seen.insert(name, labels.clone()).is_none_or(|old| old != labels)
            }
            Err(_) => false,
        };
        futures::future::ready(changed.then_some(()))
    })
}
