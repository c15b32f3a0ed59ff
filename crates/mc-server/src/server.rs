//! Wiring: store, writer, cluster syncs and the HTTP server, with graceful shutdown.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tracing::info;

use crate::clusters::{Cluster, ClusterSpec, Registry, connect};
use crate::config::{Settings, Tls};
use crate::dispatch::{self, DispatchConfig};
use crate::http::{AppState, router};
use crate::membership::Membership;
use crate::metrics::Metrics;
use crate::store::Store;
use crate::sync::{Prepare, SyncContext, spawn_cluster, writer};

/// Runs the server until SIGINT/SIGTERM.
pub async fn run(settings: Settings) -> anyhow::Result<()> {
    // What can stop the start is checked before anything runs in the background, so the error is
    // the last line the operator sees. A certificate that cannot be used stops the start: serving
    // plain HTTP instead would send tokens in clear text.
    let client_ca = settings.client_ca.as_deref();
    let tls = match &settings.tls {
        Tls::Plain => None,
        Tls::Files { cert, key } => Some(Arc::new(crate::tls::Certificates::load(cert, key, client_ca)?)),
        Tls::Generated(authority) => {
            shared_ca(&settings, authority).await;
            let outcome = authority.ensure(std::time::SystemTime::now())?;
            if outcome.new_ca {
                info!(ca = %authority.ca_file().display(), "made a CA for HTTPS; clients trust this file");
            }
            if let Some(reason) = &outcome.issued {
                let names: Vec<String> = authority.names().iter().map(ToString::to_string).collect();
                info!(cert = %authority.cert_file().display(), names = %names.join(","), %reason,
                    "issued a serving certificate");
            }
            let (cert, key) = (authority.cert_file(), authority.key_file());
            Some(Arc::new(crate::tls::Certificates::load(&cert, &key, client_ca)?))
        }
    };
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("listening on {}", settings.listen))?;
    if let Some(certs) = &tls {
        tokio::spawn(certs.clone().reload_on_change());
        if let Tls::Generated(authority) = &settings.tls {
            tokio::spawn(crate::tls::renew_while_running(authority.clone(), certs.clone()));
        }
    }
    let store = Store::connect(&settings.storage_url)
        .await
        .with_context(|| format!("opening storage {}", redact_url(&settings.storage_url)))?;
    info!(storage = %redact_url(&settings.storage_url), "store ready");
    // An empty store's first sync writes faster without some of its indexes (see
    // `store::deferred`); they are built once every cluster finished it.
    let deferred_indexes = match store.defer_indexes().await {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!(error = %e, "deferring indexes for the first sync failed; writing with every index");
            0
        }
    };
    // Rows stored before their type's field for counts was configured get it, once, in the
    // background: until then counts of the type read the objects (see `store::count_index`). A
    // failure is retried, and shown meanwhile (`/readyz`, `/metrics`, count answers' warnings).
    {
        let (store, fields) = (store.clone(), settings.indexed_fields.clone());
        tokio::spawn(async move {
            let what = "writing the field for counts of stored objects";
            let (n, ms) = retried(what, || store.fill_count_fields(&fields)).await;
            if n > 0 {
                info!(rows = n, ms, "stored objects got their field for counts");
            }
        });
    }
    // On SQLite every replica owns its store and syncs every cluster. Replicas that share a
    // database split the clusters through one Lease per cluster in the master.
    let master = settings.clusters.iter().find(|c| c.is_master).cloned();
    let sharded = store.backend() != crate::store::Backend::Sqlite && master.is_some();
    if store.backend() != crate::store::Backend::Sqlite && master.is_none() {
        tracing::warn!(
            "shared store without a master cluster: no Leases to split the clusters; this replica syncs all of them"
        );
    }
    // One identity per process: the holder of its Leases, the reporter of its Events and the
    // origin of its changes in the feed.
    let identity = crate::dispatch::leader::identity();
    // Replicas that watch only their own clusters tell each other their changes through the
    // store (see `sync::replica_feed`).
    let watch_all = settings.max_clusters_per_replica.is_none() || !sharded;
    let store = if watch_all { store } else { store.record_changes(&identity) };
    let store = match &settings.history {
        Some(history) => store.record_history(history.rules.clone()),
        None => store,
    };
    let store = if settings.search { store.keep_search_index() } else { store };
    // An empty store's first sync writes no search rows; the index is built after it (see
    // `store::search`). Otherwise it is made whole now (an upgraded store, or one that ran with
    // search off) while the clusters sync. Search answers say so until it is.
    let search_deferred = match store.defer_search_index().await {
        Ok(deferred) => deferred,
        Err(e) => {
            tracing::warn!(error = %e, "deferring the search index for the first sync failed; keeping it");
            false
        }
    };
    let health = Arc::new(crate::sync::resilient::StoreHealth::default());
    let (writer, notices, history, writer_task) = writer::spawn(store.clone(), health.clone());
    if !watch_all {
        tokio::spawn(crate::sync::replica_feed::run(store.clone(), history.clone(), notices.clone()));
    }
    let registry = Arc::new(Registry::new());
    let flush = writer.clone();
    let sync = SyncContext {
        store: store.clone(),
        writer,
        shards: sharded.then(crate::sync::shard::Shards::default),
        watch_all,
        notices,
        history,
        ready_tx: tokio::sync::broadcast::channel(64).0,
        prepare: Prepare {
            redact_secrets: settings.redact_secrets,
            compress: settings.history.as_ref().map(|h| crate::sync::prepare::ForHistory {
                rules: Arc::new(h.rules.clone()),
                contexts: Default::default(),
            }),
            indexed: Arc::new(settings.indexed_fields.clone()),
            search: settings.search,
        },
        exclude_groups: settings.exclude_groups.clone(),
        exclude_resources: settings.exclude_resources.clone(),
        health,
        lists: settings.lists,
    };
    for spec in &settings.clusters {
        let cluster = Arc::new(Cluster::new(spec.clone()));
        registry.insert(cluster.clone());
        spawn_cluster(sync.clone(), cluster);
    }
    let metrics = Arc::new(Metrics::default());
    tokio::spawn(refresh_counts(
        store.clone(),
        registry.clone(),
        sync.health.clone(),
        (metrics.clone(), settings.namespace_counts.clone()),
    ));
    if let Some(history) = &settings.history {
        tokio::spawn(crate::retention::run(
            store.clone(),
            registry.clone(),
            metrics.clone(),
            history.prune.clone(),
        ));
    }
    let (leading, mut leading_rx) = tokio::sync::watch::channel(false);
    let (shutdown_tx, shutdown_rx) = tokio::sync::watch::channel(false);
    let sharder = match (&sync.shards, &master) {
        (Some(shards), Some(master)) => Some(tokio::spawn(crate::sync::shard::run(
            master.clone(),
            registry.clone(),
            sync.clone(),
            shards.clone(),
            crate::sync::shard::ShardConfig {
                namespace: settings.namespace.clone(),
                identity: identity.clone(),
                max: settings.max_clusters_per_replica,
            },
            shutdown_rx.clone(),
        ))),
        _ => None,
    };
    if let Some(master) = master.clone() {
        let config = DispatchConfig {
            namespace: settings.namespace.clone(),
            admin_namespaces: settings.admin_namespaces.clone(),
            identity,
        };
        tokio::spawn(dispatch::run(
            master,
            registry.clone(),
            sync.clone(),
            config,
            leading.clone(),
            shutdown_rx,
        ));
    }

    let membership = Arc::new(Membership::new(
        registry.clone(),
        sync.clone(),
        settings.namespace.clone(),
        settings.join_addresses,
    ));
    match master {
        Some(master) => {
            drop(tokio::spawn(restore_joined(master, membership.clone(), store.clone(), registry.clone())))
        }
        None => membership.mark_restore_tried(),
    }
    tokio::spawn(complete_search_index(
        store.clone(),
        search_deferred.then(|| (registry.clone(), membership.clone())),
    ));
    if deferred_indexes > 0 {
        tokio::spawn(build_deferred_indexes(store.clone(), registry.clone(), membership.clone()));
    }
    if let Some(path) = settings.write_cli_config_if_missing() {
        info!(path = %path.display(), "CLI config written");
    }
    let tokens = shared_token(&settings).await;
    let auth = crate::auth::Auth::new(&tokens, settings.anonymous_read, settings.metrics_auth)
        .with_users(&settings.user_tokens);
    let access = Arc::new(
        crate::access::AccessControl::new(store.clone(), settings.authorization, sync.history.clone())
            .with_registry(registry.clone()),
    );
    let openapi = Arc::new(crate::http::kube::openapi::Documents::default().following(sync.history.clone()));
    let state = AppState {
        registry: registry.clone(),
        store,
        auth: Arc::new(auth),
        metrics,
        sync,
        membership,
        queries: Arc::new(tokio::sync::Semaphore::new(crate::http::MAX_CONCURRENT_QUERIES)),
        rows: Arc::default(),
        reviewer: Arc::default(),
        oidc: settings.oidc.clone(),
        access,
        openapi,
        relation_links: Arc::new(settings.relation_links.clone()),
    };
    let scheme = settings.tls.scheme();
    let ca = match &settings.tls {
        Tls::Generated(authority) => authority.ca_file().display().to_string(),
        _ => String::new(),
    };
    info!(addr = %settings.listen, scheme, ca, clusters = settings.clusters.len(), tokens = settings.tokens.len(),
        token_origin = ?settings.token_origin, anonymous_read = settings.anonymous_read, "serving");
    crate::listener::serve(
        listener,
        router(state),
        tls,
        crate::listener::Limits {
            caps: crate::listener::Caps {
                total: settings.max_connections,
                per_address: settings.max_connections_per_address,
            },
            ..Default::default()
        },
        shutdown_signal(),
    )
    .await;
    info!("shutting down");
    // Hand leadership over at once instead of after the lease expires.
    let _ = shutdown_tx.send(true);
    if *leading_rx.borrow_and_update() {
        let _ = tokio::time::timeout(Duration::from_secs(3), leading_rx.wait_for(|l| !*l)).await;
    }
    // The same for the clusters this replica syncs: their Leases are handed back.
    if let Some(sharder) = sharder {
        let _ = tokio::time::timeout(Duration::from_secs(3), sharder).await;
    }
    for c in registry.all() {
        c.stop();
    }
    drop(registry);
    // What is queued is written before the exit (bounded: a store that hangs does not hold the
    // shutdown). Other holders of the queue may live on until the process ends.
    let (written_tx, written_rx) = tokio::sync::oneshot::channel();
    if flush.send(writer::Msg::Barrier(written_tx)).await.is_ok() {
        let _ = tokio::time::timeout(Duration::from_secs(5), written_rx).await;
    }
    drop(flush);
    writer_task.abort();
    Ok(())
}

/// Name of the Secret (in the server's namespace) that keeps a generated token in-cluster, so
/// every replica and every restart of a pod without a volume accepts the same token.
pub const TOKEN_SECRET: &str = "mc-server-token";

/// Name of the Secret (in the server's namespace, type `kubernetes.io/tls`) that keeps the
/// server's own CA in-cluster (`ca.crt`, `ca.key`) with the first serving certificate (`tls.crt`,
/// `tls.key`), so every replica and every restart signs with the CA clients trust.
pub const TLS_SECRET: &str = "mc-server-tls";

/// How long sharing through a Secret may hold the start before the pod goes on with its own.
const SHARE_TIMEOUT: Duration = Duration::from_secs(15);

/// The master reached through the pod's ServiceAccount, when the server runs in-cluster.
fn in_cluster_master(settings: &Settings) -> Option<&ClusterSpec> {
    settings.clusters.iter().find(|c| c.is_master && c.kubeconfig.is_none())
}

/// The data of the Secret `name` in the server's namespace: read when it exists, else created
/// from `own()` (another replica that created it first wins, and its data is read back).
async fn shared_secret(
    master: &ClusterSpec,
    namespace: &str,
    name: &str,
    type_: &str,
    own: impl Fn() -> Result<std::collections::BTreeMap<String, Vec<u8>>, String>,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>, String> {
    let client = connect(master).await.map_err(|e| e.to_string())?;
    let api: kube::Api<k8s_openapi::api::core::v1::Secret> = kube::Api::namespaced(client, namespace);
    for _ in 0..2 {
        if let Some(secret) = api.get_opt(name).await.map_err(|e| e.to_string())? {
            return Ok(secret.data.unwrap_or_default().into_iter().map(|(k, v)| (k, v.0)).collect());
        }
        let data = own()?;
        let mut secret = k8s_openapi::api::core::v1::Secret {
            data: Some(data.iter().map(|(k, v)| (k.clone(), k8s_openapi::ByteString(v.clone()))).collect()),
            type_: Some(type_.into()),
            ..Default::default()
        };
        secret.metadata.name = Some(name.into());
        match api.create(&Default::default(), &secret).await {
            Ok(_) => return Ok(data),
            // Another replica was first: read its Secret.
            Err(kube::Error::Api(s)) if s.code == 409 => continue,
            Err(e) => return Err(e.to_string()),
        }
    }
    Err(format!("Secret {name} could not be read or created"))
}

/// In-cluster, the server's own CA is shared through [`TLS_SECRET`] as the generated token is
/// through [`TOKEN_SECRET`]: the Secret's CA (and serving certificate) is taken when it exists,
/// else the Secret is created from this pod's. When the master cannot be reached the pod's own
/// CA is used (and the reason logged).
async fn shared_ca(settings: &Settings, authority: &crate::tls::authority::Authority) {
    let Some(master) = in_cluster_master(settings) else { return };
    let own = || {
        authority.ensure(std::time::SystemTime::now()).map_err(|e| e.to_string())?;
        authority.files().map_err(|e| format!("reading {}: {e}", authority.dir().display()))
    };
    let work = async {
        let data = shared_secret(master, &settings.namespace, TLS_SECRET, "kubernetes.io/tls", own).await?;
        authority.adopt(&data).map_err(|e| format!("Secret {TLS_SECRET}: {e}"))
    };
    match tokio::time::timeout(SHARE_TIMEOUT, work).await {
        Ok(Ok(())) => {
            info!(secret = TLS_SECRET, namespace = %settings.namespace, "CA shared through a Secret")
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "sharing the CA through a Secret failed; using this pod's CA")
        }
        Err(_) => tracing::warn!("sharing the CA through a Secret timed out; using this pod's CA"),
    }
}

/// The tokens to accept. In-cluster without a configured token, the generated one is shared
/// through [`TOKEN_SECRET`]: read when it exists, created from this pod's token otherwise. When
/// the master cannot be reached the pod's own token is used (and the reason logged).
async fn shared_token(settings: &Settings) -> Vec<(String, mc_types::config::Role)> {
    let mut tokens = settings.tokens.clone();
    let (crate::config::TokenOrigin::Generated(_), Some(master)) =
        (&settings.token_origin, in_cluster_master(settings))
    else {
        return tokens;
    };
    let Some((own, _)) = tokens.first().cloned() else { return tokens };
    let work = async {
        let own = || Ok([("token".to_string(), own.clone().into_bytes())].into());
        let data = shared_secret(master, &settings.namespace, TOKEN_SECRET, "Opaque", own).await?;
        let token =
            data.get("token").map(|b| String::from_utf8_lossy(b).trim().to_string()).unwrap_or_default();
        if let Some(problem) = mc_types::config::token_problem(&token) {
            return Err(format!("Secret {TOKEN_SECRET}: key token {problem}"));
        }
        Ok(token)
    };
    match tokio::time::timeout(SHARE_TIMEOUT, work).await {
        Ok(Ok(token)) => {
            info!(secret = TOKEN_SECRET, namespace = %settings.namespace, "admin token shared through a Secret");
            tokens[0].0 = token;
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "sharing the generated token through a Secret failed; using this pod's token")
        }
        Err(_) => {
            tracing::warn!("sharing the generated token through a Secret timed out; using this pod's token")
        }
    }
    tokens
}

/// Brings back the clusters joined before the last restart (retried until the master answers).
/// Rows of clusters that are neither configured nor joined are removed only once the master has
/// said which clusters are joined: a master that is down must not cost the joined clusters their
/// rows, and `/readyz` stays 503 (with the reason) until the restore succeeds.
async fn restore_joined(
    master: ClusterSpec,
    membership: Arc<Membership>,
    store: Store,
    registry: Arc<Registry>,
) {
    let mut backoff = Duration::from_secs(1);
    loop {
        let result = match connect(&master).await {
            Ok(client) => membership.restore(&client).await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match result {
            Ok(n) => {
                for stale in store.cluster_names().await.unwrap_or_default() {
                    if registry.get(&stale).is_none() {
                        let n = store.delete_cluster(&stale).await.map_or(0, |gone| gone.len());
                        info!(cluster = %stale, rows = n, "removed rows of a cluster no longer configured or joined");
                    }
                }
                membership.mark_restore_tried();
                if n > 0 {
                    info!(clusters = n, "joined clusters restored");
                }
                follow_joins(master, membership).await;
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "restoring joined clusters failed; retrying");
                membership.restore_failed(e);
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(30));
    }
}

/// How often the joined clusters' Secrets are read again, so that every replica knows the
/// clusters joined or unjoined through another one.
const FOLLOW_JOINS_EVERY: Duration = Duration::from_secs(10);

/// Follows joins and unjoins made through other replicas (see [`Membership::follow`]).
async fn follow_joins(master: ClusterSpec, membership: Arc<Membership>) {
    let mut client = None;
    loop {
        tokio::time::sleep(FOLLOW_JOINS_EVERY).await;
        if client.is_none() {
            client = connect(&master).await.ok();
        }
        let Some(c) = &client else { continue };
        match membership.follow(c).await {
            Ok((0, 0)) => {}
            Ok((added, removed)) => info!(added, removed, "followed joins made through other replicas"),
            Err(e) => tracing::debug!(error = %e, "reading the joined clusters failed; retrying"),
        }
    }
}

/// The longest a first sync goes on without the deferred indexes: a cluster that never finishes
/// its sync does not leave queries without them for ever.
const DEFER_INDEXES_AT_MOST: Duration = Duration::from_secs(300);

/// Waits until the joined clusters are restored and every cluster finished its first sync, or
/// [`DEFER_INDEXES_AT_MOST`] passed.
async fn first_sync_over(registry: &Registry, membership: &Membership) {
    let start = std::time::Instant::now();
    while !(membership.restore_tried() && registry.readiness().is_ok())
        && start.elapsed() < DEFER_INDEXES_AT_MOST
    {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Builds the indexes deferred for an empty store's first sync (see `store::deferred`) once the
/// joined clusters are restored and every cluster finished its sync, retrying a failure (shown
/// in `/readyz` meanwhile).
async fn build_deferred_indexes(store: Store, registry: Arc<Registry>, membership: Arc<Membership>) {
    first_sync_over(&registry, &membership).await;
    let (n, ms) = retried("building the deferred indexes", || store.build_deferred_indexes()).await;
    info!(indexes = n, ms, "deferred indexes built");
}

/// Completes the search index (see `store::search`): after the first sync when it was deferred
/// for it (`after_sync`), at once otherwise; a failure is retried.
async fn complete_search_index(store: Store, after_sync: Option<(Arc<Registry>, Arc<Membership>)>) {
    if let Some((registry, membership)) = after_sync {
        first_sync_over(&registry, &membership).await;
    }
    let (n, ms) = retried("completing the search index", || store.complete_search_index()).await;
    if n > 0 {
        info!(rows = n, ms, "search index completed");
    }
}

/// Runs a store step until it succeeds, backing off from 1 s to 30 s between failures (each
/// logged as `what` failed); its answer and how long the successful run took, in ms.
async fn retried<T, E, F, Fut>(what: &str, mut step: F) -> (T, u64)
where
    E: std::fmt::Display,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut backoff = Duration::from_secs(1);
    loop {
        let began = std::time::Instant::now();
        match step().await {
            Ok(answer) => return (answer, began.elapsed().as_millis() as u64),
            Err(e) => tracing::warn!(error = %e, "{what} failed; retrying"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(30));
    }
}

/// How long the periodic count may take before the store counts as not answering.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long the object counts of `/metrics` may take.
const OBJECT_COUNTS_TIMEOUT: Duration = Duration::from_secs(60);

/// Keeps the per-cluster object counts current for `/v1/clusters` and `/metrics`, the counts per
/// type (and namespace) of `/metrics` every [`crate::object_counts::REFRESH_EVERY`], and the
/// store's `clusters` table in step with the registry (written when a cluster's state changes).
async fn refresh_counts(
    store: Store,
    registry: Arc<Registry>,
    health: Arc<crate::sync::resilient::StoreHealth>,
    (metrics, namespace_counts): (Arc<Metrics>, crate::object_counts::NamespaceCounts),
) {
    let mut objects_counted: Option<std::time::Instant> = None;
    // Keyed by the cluster object too: a cluster unjoined and joined again between two passes is
    // a new `Cluster`, whose row (removed by the unjoin) is written again.
    let mut written: std::collections::HashMap<String, (std::time::Instant, String, String, String)> =
        Default::default();
    let mut synced = false;
    let mut last_optimize = std::time::Instant::now();
    loop {
        // Planner statistics after the first full sync, then every ten minutes.
        let now_synced = registry.readiness().is_ok() && store.pending_indexes().is_none();
        if (now_synced && !synced) || last_optimize.elapsed() > Duration::from_secs(600) {
            if let Err(e) = store.optimize().await {
                tracing::warn!(error = %e, "refreshing planner statistics failed");
            }
            last_optimize = std::time::Instant::now();
        }
        synced = now_synced;
        if objects_counted.is_none_or(|at| at.elapsed() >= crate::object_counts::REFRESH_EVERY) {
            objects_counted = Some(std::time::Instant::now());
            let refresh = metrics.objects.refresh(&store, registry.catalog(), &namespace_counts);
            match tokio::time::timeout(OBJECT_COUNTS_TIMEOUT, refresh).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "counting objects for /metrics failed"),
                Err(_) => tracing::warn!(
                    seconds = OBJECT_COUNTS_TIMEOUT.as_secs(),
                    "counting objects for /metrics did not finish in time"
                ),
            }
        }
        // The counts double as the store's health probe: a database that went away shows in
        // `/readyz` even when no change waits to be written.
        let mut probe_failure: Option<String> = None;
        // What the replicas that sync the other clusters wrote about them.
        let others: Vec<_> = registry.all().into_iter().filter(|c| !c.syncs()).collect();
        if !others.is_empty()
            && let Ok(Ok(rows)) = tokio::time::timeout(PROBE_TIMEOUT, store.list_clusters()).await
        {
            let mut rows: std::collections::HashMap<String, crate::store::ClusterRow> =
                rows.into_iter().map(|r| (r.name.clone(), r)).collect();
            for c in &others {
                let info = rows.remove(c.name()).and_then(|r| serde_json::from_value(r.info).ok());
                c.set_remote(info);
            }
        }
        for c in registry.all() {
            match tokio::time::timeout(PROBE_TIMEOUT, store.count(c.name())).await {
                Ok(Ok(n)) => c.objects.store(n, std::sync::atomic::Ordering::Relaxed),
                Ok(Err(e)) if e.is_retryable() => {
                    probe_failure = Some(e.to_string());
                    break;
                }
                Ok(Err(_)) => {}
                Err(_) => {
                    probe_failure = Some(format!("no answer within {} s", PROBE_TIMEOUT.as_secs()));
                    break;
                }
            }
            if !c.syncs() {
                // Its row is the syncing replica's to write.
                written.remove(c.name());
                continue;
            }
            let info = c.info(health.failing_since());
            let status = info.status.to_string();
            let key = (c.created(), status.to_string(), info.version.clone(), info.platform.clone());
            if written.get(c.name()) == Some(&key) {
                continue;
            }
            let row = crate::store::ClusterRow {
                name: info.name.clone(),
                is_master: info.is_master,
                status: status.clone(),
                version: info.version.clone(),
                platform: info.platform.clone(),
                host: info.host.clone(),
                updated_at: k8s_openapi::jiff::Timestamp::now().as_second(),
                info: serde_json::to_value(&info).unwrap_or_default(),
            };
            if store.upsert_cluster(&row).await.is_ok() {
                written.insert(info.name, key);
            }
        }
        written.retain(|name, _| registry.get(name).is_some());
        health.probed(probe_failure.as_deref());
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

/// A storage URL without its password, for logs.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            let user = creds.split(':').next().unwrap_or("");
            format!("{}://{}:***@{}", &url[..s], user, &url[at + 1..])
        }
        _ => url.to_string(),
    }
}
