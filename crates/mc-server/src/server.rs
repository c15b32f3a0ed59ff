//! Wiring: store, writer, cluster syncs and the HTTP server, with graceful shutdown.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tracing::info;

use crate::clusters::join::Membership;
use crate::clusters::{Cluster, ClusterSpec, Registry, connect};
use crate::config::Settings;
use crate::dispatch::{self, DispatchConfig};
use crate::http::{AppState, router};
use crate::metrics::Metrics;
use crate::store::Store;
use crate::sync::{Prepare, SyncContext, spawn_cluster, writer};

/// Runs the server until SIGINT/SIGTERM.
pub async fn run(settings: Settings) -> anyhow::Result<()> {
    let store = Store::connect(&settings.storage_url)
        .await
        .with_context(|| format!("opening storage {}", redact_url(&settings.storage_url)))?;
    info!(storage = %redact_url(&settings.storage_url), "store ready");
    // On SQLite every replica owns its store; a shared database is written by the leader only.
    let shared = store.backend() != crate::store::Backend::Sqlite;
    let gate: writer::WriteGate = Arc::new(std::sync::atomic::AtomicBool::new(!shared));
    let (writer, notices, writer_task) = writer::spawn(store.clone(), gate.clone());
    let registry = Arc::new(Registry::new());
    let sync = SyncContext {
        store: store.clone(),
        writer,
        gate: gate.clone(),
        notices,
        ready_tx: tokio::sync::broadcast::channel(64).0,
        prepare: Prepare { redact_secrets: settings.redact_secrets },
        exclude_groups: settings.exclude_groups.clone(),
        exclude_resources: settings.exclude_resources.clone(),
    };
    for spec in &settings.clusters {
        let cluster = Arc::new(Cluster::new(spec.clone()));
        registry.insert(cluster.clone());
        spawn_cluster(sync.clone(), cluster);
    }
    tokio::spawn(refresh_counts(store.clone(), registry.clone()));
    let (leading, mut leading_rx) = tokio::sync::watch::channel(false);
    if shared {
        tokio::spawn(follow_leadership(leading.subscribe(), gate, registry.clone(), sync.clone()));
    }
    let (shutdown_tx, shutdown_rx) = tokio::sync::watch::channel(false);
    if let Some(master) = settings.clusters.iter().find(|c| c.is_master).cloned() {
        let config = DispatchConfig { namespace: settings.namespace.clone() };
        tokio::spawn(dispatch::run(
            master,
            registry.clone(),
            sync.clone(),
            config,
            leading.clone(),
            shutdown_rx,
        ));
    }

    let membership = Arc::new(Membership::new(registry.clone(), sync.clone(), settings.namespace.clone()));
    match settings.clusters.iter().find(|c| c.is_master).cloned() {
        Some(master) => {
            drop(tokio::spawn(restore_joined(master, membership.clone(), store.clone(), registry.clone())))
        }
        None => membership.mark_restore_tried(),
    }
    if let Some(path) = settings.write_cli_config_if_missing() {
        info!(path = %path.display(), "CLI config written");
    }
    let state = AppState {
        registry: registry.clone(),
        store,
        token: settings.token.clone(),
        metrics: Arc::new(Metrics::default()),
        sync,
        membership,
    };
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("listening on {}", settings.listen))?;
    info!(addr = %settings.listen, clusters = settings.clusters.len(), "serving");
    axum::serve(listener, router(state)).with_graceful_shutdown(shutdown_signal()).await?;
    info!("shutting down");
    // Hand leadership over at once instead of after the lease expires.
    let _ = shutdown_tx.send(true);
    if *leading_rx.borrow_and_update() {
        let _ = tokio::time::timeout(Duration::from_secs(3), leading_rx.wait_for(|l| !*l)).await;
    }
    for c in registry.all() {
        c.stop();
    }
    drop(registry);
    let _ = tokio::time::timeout(Duration::from_secs(5), writer_task).await;
    Ok(())
}

/// On a shared database: the leader writes; a new leader relists every cluster so the store
/// catches up with whatever happened while nobody (or a dying leader) wrote.
async fn follow_leadership(
    mut leading: tokio::sync::watch::Receiver<bool>,
    gate: writer::WriteGate,
    registry: Arc<Registry>,
    sync: SyncContext,
) {
    while leading.changed().await.is_ok() {
        let now = *leading.borrow_and_update();
        gate.store(now, std::sync::atomic::Ordering::Release);
        if now {
            info!("leading: writing sync data; relisting every cluster");
            for c in registry.all() {
                spawn_cluster(sync.clone(), c);
            }
        }
    }
}

/// Brings back the clusters joined before the last restart (retried until the master answers).
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
        if !membership.restore_tried() {
            // Rows of clusters neither configured nor joined would be served forever.
            for stale in store.cluster_names().await.unwrap_or_default() {
                if registry.get(&stale).is_none() {
                    let n = store.delete_cluster(&stale).await.unwrap_or(0);
                    info!(cluster = %stale, rows = n, "removed rows of a cluster no longer configured or joined");
                }
            }
        }
        membership.mark_restore_tried();
        match result {
            Ok(n) => {
                if n > 0 {
                    info!(clusters = n, "joined clusters restored");
                }
                return;
            }
            Err(e) => tracing::warn!(error = %e, "restoring joined clusters failed; retrying"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(30));
    }
}

/// Keeps the per-cluster object counts current for `/v1/clusters` and `/metrics`, and the
/// store's `clusters` table in step with the registry (written when a cluster's state changes).
async fn refresh_counts(store: Store, registry: Arc<Registry>) {
    let mut written: std::collections::HashMap<String, (String, String, String)> = Default::default();
    let mut synced = false;
    let mut last_optimize = std::time::Instant::now();
    loop {
        // Planner statistics after the first full sync, then every ten minutes.
        let now_synced = registry.readiness().is_ok();
        if (now_synced && !synced) || last_optimize.elapsed() > Duration::from_secs(600) {
            if let Err(e) = store.optimize().await {
                tracing::warn!(error = %e, "refreshing planner statistics failed");
            }
            last_optimize = std::time::Instant::now();
        }
        synced = now_synced;
        for c in registry.all() {
            if let Ok(n) = store.count(c.name()).await {
                c.objects.store(n, std::sync::atomic::Ordering::Relaxed);
            }
            let info = c.info();
            let status =
                if info.status == mc_types::api::ClusterStatus::Ready { "Healthy" } else { "NotReady" };
            let key = (status.to_string(), info.version.clone(), info.platform.clone());
            if written.get(c.name()) == Some(&key) {
                continue;
            }
            let row = crate::store::ClusterRow {
                name: info.name.clone(),
                is_master: info.is_master,
                status: status.into(),
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
