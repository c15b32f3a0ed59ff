//! The history's periodic work (see `store::history`): staged revisions moved into the
//! history (SQLite) every [`SETTLE_EVERY`], failures counted in
//! `mc_history_settle_failures_total`; each cluster's totals for `/v1/clusters` and `/metrics`,
//! read from the store's totals table (no scan); and retention: a prune every few minutes, in
//! the store's small steps, counted in `mc_history_pruned_total`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::{debug, info, warn};

use crate::clusters::Registry;
use crate::clusters::registry::HistoryTotals;
use crate::metrics::Metrics;
use crate::store::{PruneRules, Store};

/// How often staged revisions are moved (see `Store::settle_history`): what a move holds the
/// writer back by stays a few milliseconds under a steady churn.
pub const SETTLE_EVERY: Duration = Duration::from_millis(250);
/// How often the totals are read.
pub const STATS_EVERY: Duration = Duration::from_secs(30);
/// How often the history is pruned.
pub const PRUNE_EVERY: Duration = Duration::from_secs(300);

/// Runs for as long as the server does.
pub async fn run(store: Store, registry: Arc<Registry>, metrics: Arc<Metrics>, rules: PruneRules) {
    let mut pruned_at: Option<Instant> = None;
    let mut refreshed_at: Option<Instant> = None;
    loop {
        settle(&store, &metrics).await;
        if pruned_at.is_none_or(|t| t.elapsed() >= PRUNE_EVERY) {
            refresh(&store, &registry).await;
            prune(&store, &registry, &metrics, &rules).await;
            pruned_at = Some(Instant::now());
            refresh(&store, &registry).await;
            refreshed_at = Some(Instant::now());
        } else if refreshed_at.is_none_or(|t| t.elapsed() >= STATS_EVERY) {
            refresh(&store, &registry).await;
            refreshed_at = Some(Instant::now());
        }
        tokio::time::sleep(SETTLE_EVERY).await;
    }
}

/// Staged revisions into the history. A failure leaves them staged (every read of the history
/// tries again first, and fails as this did); it is counted and the next tick tries again.
async fn settle(store: &Store, metrics: &Metrics) {
    if let Err(e) = store.settle_history().await {
        metrics.settle_failed();
        warn!(error = %e, "moving staged revisions into the history failed; trying again");
    }
}

/// Each cluster's totals into its state.
async fn refresh(store: &Store, registry: &Registry) {
    match store.history_stats().await {
        Ok(stats) => {
            for c in registry.all() {
                let totals =
                    stats.iter().find(|s| s.cluster == c.name()).map_or_else(HistoryTotals::default, |s| {
                        HistoryTotals { revisions: s.revisions, bytes: s.bytes, oldest_ms: s.oldest_ms }
                    });
                c.update(|s| s.history = Some(totals));
            }
        }
        Err(e) => debug!(error = %e, "reading the history's totals failed"),
    }
}

/// One prune: of every cluster when this replica syncs them all (those unjoined too), else of
/// the clusters it syncs (each cluster's history is pruned by its writer's replica only).
async fn prune(store: &Store, registry: &Registry, metrics: &Metrics, rules: &PruneRules) {
    let clusters = registry.all();
    let scope: Option<Vec<String>> = if clusters.iter().all(|c| c.syncs()) {
        None
    } else {
        Some(clusters.iter().filter(|c| c.syncs()).map(|c| c.name().to_string()).collect())
    };
    let started = Instant::now();
    match store.prune_history(rules, scope.as_deref()).await {
        Ok(p) => {
            metrics.pruned(p.revisions);
            if p.revisions > 0 {
                info!(
                    revisions = p.revisions,
                    bytes = p.bytes,
                    steps = p.steps,
                    seconds = started.elapsed().as_secs_f64(),
                    "history pruned"
                );
            }
        }
        Err(e) => warn!(error = %e, "pruning the history failed; trying again later"),
    }
}
