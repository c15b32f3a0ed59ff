//! Joining and unjoining clusters at runtime. A joined cluster is kept in the master cluster (its
//! kubeconfig as a Secret in the server's namespace) and restored on restart. Nothing is kept
//! until the cluster has answered `/version` and discovery with the given credentials.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::config::Kubeconfig;
use kube::{Client, ResourceExt};
use mc_types::ClusterName;
use tokio::sync::oneshot;
use tracing::{debug, info, warn};

use crate::clusters::transport::{Addresses, LinkLocal, Protocols, TooLarge};
use crate::clusters::uploaded::Allowed;
use crate::clusters::{Cluster, ClusterSpec, Registry, connect_with};
use crate::sync::{SyncContext, spawn_cluster, writer::Msg};

/// Label on the Secrets of joined clusters; its value is the cluster name.
pub const JOINED_LABEL: &str = "mulitcluster.practice.com/joined-cluster";
/// The `source` of a joined cluster's spec (configured ones name their file).
pub const UPLOADED: &str = "uploaded kubeconfig";
/// Largest kubeconfig accepted.
pub const MAX_KUBECONFIG: usize = 1024 * 1024;

/// Why a join or unjoin was refused. Each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The name is not a DNS label (400).
    #[error("invalid cluster name: {0}")]
    BadName(String),
    /// The name is taken (409).
    #[error("cluster \"{0}\" is already a member")]
    Taken(String),
    /// The uploaded kubeconfig is unusable (400).
    #[error("kubeconfig: {0}")]
    BadKubeconfig(String),
    /// The cluster did not answer as it should with those credentials (400).
    #[error("cannot reach cluster \"{name}\" with this kubeconfig: {reason}")]
    Unreachable {
        /// The cluster.
        name: String,
        /// TLS, authentication or connection problem, named.
        reason: String,
    },
    /// Unknown cluster (404).
    #[error("unknown cluster \"{name}\" (members: {members})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Known names.
        members: String,
    },
    /// The master cannot leave (400).
    #[error("cluster \"{0}\" is the master cluster and cannot be unjoined")]
    Master(String),
    /// The master cluster could not store or remove the registration (503, retryable).
    #[error("the master cluster is not available to record the change: {0}")]
    MasterUnavailable(String),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What an unjoin left behind.
#[derive(Debug, Clone, Copy)]
pub struct Unjoined {
    /// Store rows removed.
    pub rows_removed: u64,
    /// Dispatched copies still in the cluster (left in place on purpose).
    pub copies_left: u64,
    /// The cluster came from the config file and returns on restart.
    pub configured: bool,
}

/// Joins and unjoins, one at a time.
pub struct Membership {
    registry: Arc<Registry>,
    sync: SyncContext,
    namespace: String,
    /// Which addresses a joined cluster's API server may have (`server.allowLinkLocalJoins`).
    addresses: Addresses,
    lock: tokio::sync::Mutex<()>,
    restore_tried: std::sync::atomic::AtomicBool,
    restore_error: std::sync::Mutex<Option<String>>,
}

impl Membership {
    /// Joins happen through the master cluster's client, found in the registry. `addresses`:
    /// which addresses a joined cluster's API server may have.
    pub fn new(registry: Arc<Registry>, sync: SyncContext, namespace: String, addresses: Addresses) -> Self {
        Membership {
            registry,
            sync,
            namespace,
            addresses,
            lock: tokio::sync::Mutex::new(()),
            restore_tried: Default::default(),
            restore_error: Default::default(),
        }
    }

    /// Whether the joined clusters have been restored (readiness waits for it: without them the
    /// store would answer without their objects).
    pub fn restore_tried(&self) -> bool {
        self.restore_tried.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Records that the joined clusters are restored (or that there are none to restore).
    pub fn mark_restore_tried(&self) {
        *self.restore_error.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.restore_tried.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Records why the last restore attempt failed (it is retried).
    pub fn restore_failed(&self, reason: String) {
        *self.restore_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(reason);
    }

    /// Why restoring has not succeeded yet, if an attempt failed.
    pub fn restore_error(&self) -> Option<String> {
        self.restore_error.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn master_client(&self) -> Result<Client> {
        let master = self.registry.master();
        master
            .and_then(|m| m.client())
            .ok_or_else(|| Error::MasterUnavailable("the master cluster is not ready".into()))
    }

    /// Validates, persists and starts syncing a new cluster. The upload is checked and the
    /// cluster probed before the join lock is taken, so a slow or hostile cluster cannot hold up
    /// other joins and unjoins.
    pub async fn join(
        &self,
        name: &str,
        kubeconfig: &[u8],
        context: Option<String>,
        insecure: bool,
    ) -> Result<()> {
        let name = ClusterName::parse(name).map_err(|e| Error::BadName(e.to_string()))?.as_str().to_string();
        if self.registry.get(&name).is_some() {
            return Err(Error::Taken(name));
        }
        if kubeconfig.len() > MAX_KUBECONFIG {
            return Err(Error::BadKubeconfig(format!("larger than {MAX_KUBECONFIG} bytes")));
        }
        let text =
            std::str::from_utf8(kubeconfig).map_err(|_| Error::BadKubeconfig("not UTF-8 text".into()))?;
        let spec = uploaded_spec(&name, text, context.clone(), insecure, self.addresses)?;
        probe(&spec).await?;
        let _guard = self.lock.lock().await;
        if self.registry.get(&name).is_some() {
            return Err(Error::Taken(name));
        }
        let master = self.master_client()?;
        store_secret(&master, &self.namespace, &name, text, context.as_deref(), insecure)
            .await
            .map_err(|e| Error::MasterUnavailable(e.to_string()))?;
        self.start(spec);
        info!(cluster = %name, "cluster joined");
        Ok(())
    }

    /// Registers a cluster that is not synced, with the reason, so it shows in `/v1/clusters`
    /// and can be unjoined.
    fn refuse(&self, name: &str, reason: &str) {
        let spec = ClusterSpec {
            name: name.to_string(),
            is_master: false,
            insecure: false,
            kubeconfig: None,
            source: UPLOADED.into(),
            context: None,
            host: String::new(),
            labels: BTreeMap::new(),
            allow: Vec::new(),
            addresses: Addresses::NoLinkLocal,
        };
        let cluster = Arc::new(Cluster::new(spec));
        cluster.update(|s| {
            s.attempted = true;
            s.ready = false;
            s.since = Some(k8s_openapi::jiff::Timestamp::now());
            s.message =
                Some(format!("not synced: {reason}; unjoin it and join it again with inline credentials"));
        });
        self.registry.insert(cluster);
    }

    /// Registers and starts syncing a cluster.
    fn start(&self, spec: ClusterSpec) {
        let cluster = Arc::new(Cluster::new(spec));
        if self.registry.insert(cluster.clone()) {
            spawn_cluster(self.sync.clone(), cluster);
        }
    }

    /// Stops syncing a cluster and forgets it: rows, Secret, MultiCluster object.
    pub async fn unjoin(&self, name: &str) -> Result<Unjoined> {
        let _guard = self.lock.lock().await;
        let Some(cluster) = self.registry.get(name) else {
            return Err(Error::Unknown { name: name.into(), members: self.registry.names().join(", ") });
        };
        if cluster.spec.is_master {
            return Err(Error::Master(name.into()));
        }
        let configured = cluster.spec.source != UPLOADED;
        let master = self.master_client()?;
        // Count the copies we leave in place before the rows go.
        let copies_left = count_copies(&self.sync, name).await;
        self.registry.remove(name);
        drop(cluster);
        let (tx, rx) = oneshot::channel();
        let rows_removed = match self.sync.writer.send(Msg::DropCluster(name.into(), tx)).await {
            Ok(()) => rx.await.ok().and_then(|r| r.ok()).unwrap_or(0),
            Err(_) => 0,
        };
        let secrets: Api<Secret> = Api::namespaced(master.clone(), &self.namespace);
        match secrets.delete(&secret_name(name), &DeleteParams::default()).await {
            Ok(_) | Err(kube::Error::Api(_)) => {}
            Err(e) => warn!(cluster = name, error = %e, "deleting the kubeconfig Secret failed"),
        }
        if let Err(e) = crate::dispatch::cluster_objects::forget(master, &self.namespace, name).await {
            warn!(cluster = name, error = %e, "deleting the MultiCluster object failed");
        }
        info!(cluster = name, rows_removed, copies_left, "cluster unjoined");
        Ok(Unjoined { rows_removed, copies_left, configured })
    }

    /// Restores the clusters joined before a restart (those whose Secrets are in the master).
    pub async fn restore(&self, master: &Client) -> kube::Result<usize> {
        let _guard = self.lock.lock().await;
        self.add_joined(master, true).await.map(|(n, _)| n)
    }

    /// Follows joins and unjoins made through other replicas: a cluster whose Secret appeared is
    /// added, a joined cluster whose Secret is gone is removed with its rows (a store of this
    /// replica's own keeps them otherwise; in a shared one they are already gone, or go now
    /// with what this replica still had queued). Returns how many clusters were added and
    /// removed.
    pub async fn follow(&self, master: &Client) -> kube::Result<(usize, usize)> {
        let _guard = self.lock.lock().await;
        let (added, present) = self.add_joined(master, false).await?;
        let mut removed = 0;
        for cluster in self.registry.all() {
            if cluster.spec.source == UPLOADED && !present.contains(cluster.name()) {
                info!(cluster = cluster.name(), "unjoined through another replica");
                self.registry.remove(cluster.name());
                let (tx, rx) = oneshot::channel();
                if self.sync.writer.send(Msg::DropCluster(cluster.name().into(), tx)).await.is_ok() {
                    let _ = rx.await;
                }
                removed += 1;
            }
        }
        Ok((added, removed))
    }

    /// Starts every joined cluster (a Secret in the master) not registered yet; returns how many
    /// and the names of every joined cluster. `restoring`: warn about a name that is taken.
    async fn add_joined(
        &self,
        master: &Client,
        restoring: bool,
    ) -> kube::Result<(usize, std::collections::BTreeSet<String>)> {
        let secrets: Api<Secret> = Api::namespaced(master.clone(), &self.namespace);
        let mut n = 0;
        let mut present = std::collections::BTreeSet::new();
        for s in secrets.list(&ListParams::default().labels(JOINED_LABEL)).await? {
            let Some(name) = s.labels().get(JOINED_LABEL).cloned() else { continue };
            present.insert(name.clone());
            if self.registry.get(&name).is_some() {
                if restoring {
                    warn!(cluster = %name, "a joined cluster has the name of a configured one; keeping the configured one");
                }
                continue;
            }
            let data = s.data.clone().unwrap_or_default();
            let get = |k: &str| data.get(k).map(|b| String::from_utf8_lossy(&b.0).to_string());
            let Some(text) = get("kubeconfig") else { continue };
            let context = get("context").filter(|c| !c.is_empty());
            let insecure = get("insecure").as_deref() == Some("true");
            match uploaded_spec(&name, &text, context.clone(), insecure, self.addresses) {
                Ok(spec) => {
                    self.start(spec);
                    n += 1;
                }
                Err(e) => {
                    // Shown in /v1/clusters (NotReady with the reason), never synced: a Secret
                    // written before uploads were checked, or edited by hand, runs nothing.
                    warn!(cluster = %name, error = %e, "a joined cluster's stored kubeconfig is refused");
                    self.refuse(&name, &e.to_string());
                }
            }
        }
        Ok((n, present))
    }
}

/// Parses and checks an uploaded kubeconfig (data only: see [`crate::clusters::uploaded`]) into a spec
/// whose API server may have `addresses` only.
fn uploaded_spec(
    name: &str,
    text: &str,
    context: Option<String>,
    insecure: bool,
    addresses: Addresses,
) -> Result<ClusterSpec> {
    let mut parsed = Kubeconfig::from_yaml(text)
        .map_err(|e| Error::BadKubeconfig(format!("does not parse: {}", first_line(&e.to_string()))))?;
    if parsed.clusters.is_empty() || parsed.contexts.is_empty() {
        return Err(Error::BadKubeconfig("it names no cluster or no context".into()));
    }
    let allowed = Allowed { http: insecure, link_local: addresses == Addresses::Any };
    crate::clusters::uploaded::check(&parsed, allowed).map_err(|e| Error::BadKubeconfig(e.to_string()))?;
    crate::clusters::uploaded::strip_credentials_over_http(&mut parsed);
    let mut spec = ClusterSpec::from_kubeconfig(name, parsed, UPLOADED.into(), context, insecure)
        .map_err(|e| Error::BadKubeconfig(e.to_string()))?;
    spec.addresses = addresses;
    Ok(spec)
}

/// Time the whole probe (version and discovery) may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The cluster answers `/version` and discovery with these credentials, or the class of
/// failure. Nothing the remote server sent is shown: a join must not turn mc-server into a proxy
/// that reads other servers' answers for the caller.
async fn probe(spec: &ClusterSpec) -> Result<()> {
    let unreachable = |reason: String| Error::Unreachable { name: spec.name.clone(), reason };
    let host = shown_host(&spec.host);
    // HTTP/1.1: a wrong token's 401 must arrive whole (see [`Protocols::Http1Only`]).
    let client = connect_with(spec, Protocols::Http1Only)
        .await
        .map_err(|_| unreachable(format!("{host}: the connection settings are unusable")))?;
    let work = async {
        client.apiserver_version().await.map_err(|e| classify(&host, &e))?;
        let types = crate::sync::discovery::discover(&client)
            .await
            .map_err(|e| format!("discovery: {}", classify(&host, &e)))?;
        // Every API server serves core/v1; an empty answer is not one.
        if !types.iter().any(|t| t.group.is_empty() && t.resource == "namespaces") {
            return Err(format!(
                "{host} did not answer like a Kubernetes API server (no core/v1 in discovery)"
            ));
        }
        Ok::<_, String>(())
    };
    match tokio::time::timeout(PROBE_TIMEOUT, work).await {
        Err(_) => Err(unreachable(format!("{host}: no complete answer within {}s", PROBE_TIMEOUT.as_secs()))),
        Ok(Err(reason)) => Err(unreachable(reason)),
        Ok(Ok(())) => Ok(()),
    }
}

/// The class of a failure: unreachable, TLS, 401, 403 or another status code, never the remote
/// body.
fn classify(host: &str, e: &kube::Error) -> String {
    // The caller gets the class only; the error itself goes to the server's log (at debug: the
    // uploader chose the address), so a class that looks wrong can be traced.
    debug!(%host, error = %crate::clusters::connect::one_line(e), "join probe failed");
    if let kube::Error::Api(s) = e {
        return match s.code {
            401 => format!("authentication failed at {host} (401): the token or certificate is not accepted"),
            403 => format!(
                "authorization failed at {host} (403): the credentials may not read /version and discovery"
            ),
            c => format!("{host} answered HTTP {c}"),
        };
    }
    // Before the TLS words below: neither error's text is the remote server's.
    if let Some(too_large) = cause::<TooLarge>(e) {
        return format!("{host}: {too_large}");
    }
    if let Some(link_local) = cause::<LinkLocal>(e) {
        return format!(
            "{host}: {link_local} (cloud metadata services answer there); the server's config allows it with server.allowLinkLocalJoins: true"
        );
    }
    let lower = crate::clusters::connect::one_line(e).to_ascii_lowercase();
    if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("unknownissuer")
        || lower.contains("handshake")
    {
        format!("TLS verification of {host} failed; use insecure=true only if you trust the network")
    } else if connection_not_made(e) {
        format!("{host} is unreachable")
    } else if matches!(e, kube::Error::Service(_) | kube::Error::HyperError(_)) {
        // Connected and asked, then the connection ended (closed, reset) before an answer: the
        // server is reachable, so "unreachable" would send the reader the wrong way.
        format!("{host} closed the connection before a complete answer")
    } else if matches!(e, kube::Error::SerdeError(_)) {
        format!("{host} did not answer like a Kubernetes API server")
    } else {
        format!("{host}: the request failed")
    }
}

/// The first cause of type `T` in an error's chain.
fn cause<T: std::error::Error + 'static>(e: &kube::Error) -> Option<&T> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(found) = c.downcast_ref::<T>() {
            return Some(found);
        }
        cause = c.source();
    }
    None
}

/// Whether the request never reached the server: the connection (name lookup, TCP connect, TLS
/// handshake) could not be made. Read from the client's error type, not from its text (a
/// "connection closed" after the request was sent is not that).
fn connection_not_made(e: &kube::Error) -> bool {
    let kube::Error::Service(boxed) = e else { return false };
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&**boxed);
    while let Some(c) = cause {
        if let Some(client) = c.downcast_ref::<hyper_util::client::legacy::Error>() {
            return client.is_connect();
        }
        cause = c.source();
    }
    false
}

/// The API server URL as shown back: scheme, host and port only (no path, query or userinfo).
fn shown_host(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let shown: String = authority.chars().filter(|c| !c.is_control()).take(255).collect();
    if scheme.is_empty() { shown } else { format!("{scheme}://{shown}") }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// The Secret that keeps a joined cluster's kubeconfig.
pub fn secret_name(cluster: &str) -> String {
    format!("mc-cluster-{cluster}")
}

async fn store_secret(
    master: &Client,
    namespace: &str,
    name: &str,
    kubeconfig: &str,
    context: Option<&str>,
    insecure: bool,
) -> kube::Result<()> {
    let api: Api<Secret> = Api::namespaced(master.clone(), namespace);
    let mut data = BTreeMap::new();
    data.insert("kubeconfig".to_string(), ByteString(kubeconfig.as_bytes().to_vec()));
    data.insert("context".to_string(), ByteString(context.unwrap_or_default().as_bytes().to_vec()));
    data.insert("insecure".to_string(), ByteString(insecure.to_string().into_bytes()));
    let mut secret = Secret { data: Some(data), type_: Some("Opaque".into()), ..Default::default() };
    secret.metadata.name = Some(secret_name(name));
    secret.metadata.labels = Some(BTreeMap::from([(JOINED_LABEL.to_string(), name.to_string())]));
    match api.create(&PostParams::default(), &secret).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 409 => {
            api.replace(&secret_name(name), &PostParams::default(), &secret).await.map(|_| ())
        }
        Err(e) => Err(e),
    }
}

/// Copies dispatched into a cluster, as the store knows them.
async fn count_copies(sync: &SyncContext, cluster: &str) -> u64 {
    let Ok(selector) = mc_types::selector::LabelSelector::parse(&format!(
        "{}={}",
        mc_types::crd::MANAGED_LABEL,
        mc_types::crd::FIELD_MANAGER
    )) else {
        return 0;
    };
    let query =
        crate::store::Query { cluster: Some(cluster.into()), labels: Some(selector), ..Default::default() };
    sync.store.query(&query).await.map(|p| p.items.len() as u64).unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_too_large_is_named_with_its_host_and_nothing_it_said() {
        let e = kube::Error::Service(Box::new(TooLarge { limit: 64 * 1024, what: "/version" }));
        let reason = classify("http://127.0.0.1:9", &e);
        assert_eq!(reason, "http://127.0.0.1:9: answer too large: /version is limited to 64 KiB");
    }

    #[test]
    fn a_link_local_address_is_named_with_the_key_that_allows_it() {
        let address = "169.254.169.254".parse().unwrap();
        let e = kube::Error::Service(Box::new(LinkLocal { host: "metadata.internal".into(), address }));
        let reason = classify("https://metadata.internal", &e);
        assert!(reason.starts_with("https://metadata.internal: metadata.internal resolves to 169.254.169.254, a link-local address"), "{reason}");
        assert!(reason.contains("server.allowLinkLocalJoins: true"), "{reason}");
    }

    #[test]
    fn uploads_keep_the_servers_address_policy() {
        let text = "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: \"https://169.254.169.254\"}\nusers:\n- name: u\n  user: {token: abc}\n";
        let refused = uploaded_spec("c", text, None, false, Addresses::NoLinkLocal).unwrap_err();
        assert!(matches!(&refused, Error::BadKubeconfig(m) if m.contains("link-local")), "{refused}");
        let allowed = uploaded_spec("c", text, None, false, Addresses::Any).unwrap();
        assert_eq!(allowed.addresses, Addresses::Any);
        let named = text.replace("169.254.169.254", "kubernetes.example");
        let spec = uploaded_spec("c", &named, None, false, Addresses::NoLinkLocal).unwrap();
        assert_eq!(spec.addresses, Addresses::NoLinkLocal, "a name is checked when it is resolved");
    }
}
