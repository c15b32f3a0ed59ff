//! Prometheus metrics in the text exposition format, without a metrics framework.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use crate::clusters::registry::ClusterState;
use crate::clusters::{Cluster, Registry};

/// Request counters; cluster gauges are read from the registry when scraped.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    /// Requests by caller (user name), at most [`MAX_IDENTITIES`] of them; the rest as `other`.
    identities: Mutex<BTreeMap<String, u64>>,
    /// Revisions the history's retention removed.
    pruned: std::sync::atomic::AtomicU64,
    /// Failed moves of staged revisions into the history.
    settle_failures: std::sync::atomic::AtomicU64,
    /// Objects per cluster and type (and namespace), as the periodic counts task last made them.
    pub objects: crate::object_counts::ObjectCounts,
}

/// One of the history's gauges: its value for a cluster's totals, if it has one.
type HistoryGauge = fn(&crate::clusters::registry::HistoryTotals) -> Option<f64>;

/// Callers counted by name in `mc_http_requests_by_identity_total`; more count as `other`, so
/// a flood of identities cannot grow the metrics without bound.
pub const MAX_IDENTITIES: usize = 100;

impl Metrics {
    /// Counts one HTTP response.
    pub fn request(&self, route: &str, status: u16) {
        let mut m = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry((route.to_string(), status)).or_default() += 1;
    }

    /// Counts revisions the history's retention removed.
    pub fn pruned(&self, revisions: u64) {
        self.pruned.fetch_add(revisions, std::sync::atomic::Ordering::Relaxed);
    }

    /// Counts a failed move of staged revisions into the history.
    pub fn settle_failed(&self) {
        self.settle_failures.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Counts one request of the caller `user`.
    pub fn identity_request(&self, user: &str) {
        let mut m = self.identities.lock().unwrap_or_else(|e| e.into_inner());
        let key = if m.contains_key(user) || m.len() < MAX_IDENTITIES { user } else { "other" };
        *m.entry(key.to_string()).or_default() += 1;
    }

    /// The exposition text.
    pub fn render(&self, registry: &Registry) -> String {
        let mut out = String::new();
        // Each cluster's state read once, for all its gauges.
        let clusters: Vec<(Arc<Cluster>, ClusterState)> = registry
            .all()
            .into_iter()
            .map(|c| {
                let s = c.state();
                (c, s)
            })
            .collect();
        let mut gauge = |name: &str, help: &str, value: &dyn Fn(&Cluster, &ClusterState) -> f64| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
            for (c, s) in &clusters {
                let _ = writeln!(out, "{name}{{cluster=\"{}\"}} {}", c.name(), value(c, s));
            }
        };
        let flag = |b: bool| f64::from(u8::from(b));
        gauge("mc_cluster_ready", "1 when the cluster is reachable and syncing.", &|_, s| flag(s.ready));
        gauge(
            "mc_cluster_synced_here",
            "1 when this replica watches the cluster (holds its sync Lease, or nothing is sharded).",
            &|c, _| flag(c.syncs()),
        );
        gauge("mc_cluster_initial_sync_done", "1 when every type finished its first list.", &|_, s| {
            flag(s.initial_sync_done)
        });
        gauge("mc_cluster_objects", "Objects stored for the cluster.", &|c, _| {
            c.objects.load(std::sync::atomic::Ordering::Relaxed) as f64
        });
        gauge("mc_cluster_resource_types", "Resource types synced for the cluster.", &|_, s| {
            s.synced_types.len() as f64
        });
        gauge(
            "mc_cluster_unlisted_types",
            "Resource types of the cluster whose list keeps failing (their objects may be missing or stale).",
            &|_, s| s.unlisted.len() as f64,
        );
        gauge(
            "mc_cluster_unwatched_types",
            "Resource types of the cluster that are listed but whose watch keeps failing (their objects are as old as their last list).",
            &|_, s| s.unwatched.len() as f64,
        );
        gauge("mc_cluster_sync_lag_seconds", "Delay between an event's arrival and its write.", &|_, s| {
            s.lag_seconds.unwrap_or(0.0)
        });
        // The history's gauges: only for clusters it keeps (none when it is off).
        let kept: Vec<(&str, crate::clusters::registry::HistoryTotals)> =
            clusters.iter().filter_map(|(c, s)| Some((c.name(), s.history?))).collect();
        if !kept.is_empty() {
            let history: [(&str, &str, HistoryGauge); 3] = [
                ("mc_history_revisions", "Revisions the history keeps of the cluster's objects.", |h| {
                    Some(h.revisions as f64)
                }),
                ("mc_history_bytes", "Stored bytes of the cluster's revisions.", |h| Some(h.bytes as f64)),
                (
                    "mc_history_oldest_seconds",
                    "When the cluster's oldest revision was written (unix time).",
                    |h| h.oldest_ms.map(|ms| ms as f64 / 1000.0),
                ),
            ];
            for (name, help, value) in history {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
                for (cluster, h) in &kept {
                    if let Some(v) = value(h) {
                        let _ = writeln!(out, "{name}{{cluster=\"{cluster}\"}} {v}");
                    }
                }
            }
            let _ =
                writeln!(out, "# HELP mc_history_pruned_total Revisions removed by the history's retention.");
            let _ = writeln!(out, "# TYPE mc_history_pruned_total counter");
            let _ = writeln!(
                out,
                "mc_history_pruned_total {}",
                self.pruned.load(std::sync::atomic::Ordering::Relaxed)
            );
            let _ = writeln!(
                out,
                "# HELP mc_history_settle_failures_total Failed moves of staged revisions into the history \
                 (SQLite); the history's reads fail meanwhile."
            );
            let _ = writeln!(out, "# TYPE mc_history_settle_failures_total counter");
            let _ = writeln!(
                out,
                "mc_history_settle_failures_total {}",
                self.settle_failures.load(std::sync::atomic::Ordering::Relaxed)
            );
        }
        let _ = writeln!(out, "# HELP mc_http_requests_total HTTP responses by route and status.");
        let _ = writeln!(out, "# TYPE mc_http_requests_total counter");
        for ((route, status), n) in self.requests.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(out, "mc_http_requests_total{{route=\"{route}\",code=\"{status}\"}} {n}");
        }
        let _ = writeln!(
            out,
            "# HELP mc_http_requests_by_identity_total Requests by caller (the first {MAX_IDENTITIES} user names; the rest as other)."
        );
        let _ = writeln!(out, "# TYPE mc_http_requests_by_identity_total counter");
        for (user, n) in self.identities.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let user = user.replace(['"', '\\', '\n'], "_");
            let _ = writeln!(out, "mc_http_requests_by_identity_total{{identity=\"{user}\"}} {n}");
        }
        self.objects.render(&mut out);
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {

    #[test]
    fn identities_are_bounded() {
        let m = super::Metrics::default();
        for i in 0..(super::MAX_IDENTITIES + 50) {
            m.identity_request(&format!("user-{i}"));
        }
        m.identity_request("user-0");
        let text = m.render(&crate::clusters::Registry::new());
        let lines = text.lines().filter(|l| l.starts_with("mc_http_requests_by_identity_total{")).count();
        assert_eq!(lines, super::MAX_IDENTITIES + 1);
        assert!(text.contains("mc_http_requests_by_identity_total{identity=\"other\"} 50"), "{text}");
        assert!(text.contains("mc_http_requests_by_identity_total{identity=\"user-0\"} 2"), "{text}");
    }

    use std::sync::Arc;

    use mc_types::Gvr;

    use super::Metrics;
    use crate::clusters::registry::Fault;
    use crate::clusters::{Cluster, ClusterSpec, Registry};

    #[test]
    fn cluster_gauges_have_one_line_per_cluster_with_its_value() {
        let registry = Registry::new();
        for name in ["c1", "c2"] {
            registry.insert(Arc::new(Cluster::new(ClusterSpec::for_test(name))));
        }
        let c1 = registry.get("c1").unwrap();
        let fault = || Fault { since: k8s_openapi::jiff::Timestamp::UNIX_EPOCH, reason: "HTTP 403".into() };
        c1.update(|s| {
            s.ready = true;
            s.lag_seconds = Some(0.25);
            s.unwatched.insert(Gvr::new("", "v1", "configmaps"), fault());
            s.unwatched.insert(Gvr::new("", "v1", "secrets"), fault());
            s.unlisted.insert(Gvr::new("example.com", "v2", "gadgets"), fault());
        });
        c1.objects.store(42, std::sync::atomic::Ordering::Relaxed);
        let metrics = Metrics::default();
        metrics.request("/v1/list", 200);
        let text = metrics.render(&registry);
        for line in [
            "# TYPE mc_cluster_ready gauge",
            "mc_cluster_ready{cluster=\"c1\"} 1",
            "mc_cluster_ready{cluster=\"c2\"} 0",
            "mc_cluster_objects{cluster=\"c1\"} 42",
            "mc_cluster_unwatched_types{cluster=\"c1\"} 2",
            "mc_cluster_unwatched_types{cluster=\"c2\"} 0",
            "mc_cluster_unlisted_types{cluster=\"c1\"} 1",
            "mc_cluster_sync_lag_seconds{cluster=\"c1\"} 0.25",
            "mc_http_requests_total{route=\"/v1/list\",code=\"200\"} 1",
        ] {
            assert_eq!(text.lines().filter(|l| *l == line).count(), 1, "{line} in:\n{text}");
        }
        assert_eq!(text.lines().filter(|l| l.starts_with("mc_cluster_")).count(), 8 * 2, "{text}");
        assert!(!text.contains("mc_history_"), "history off: no history metrics\n{text}");
    }

    #[test]
    fn history_gauges_follow_the_clusters_history() {
        let registry = Registry::new();
        for name in ["c1", "c2"] {
            registry.insert(Arc::new(Cluster::new(ClusterSpec::for_test(name))));
        }
        let totals = crate::clusters::registry::HistoryTotals {
            revisions: 12,
            bytes: 3400,
            oldest_ms: Some(1_700_000_000_500),
        };
        registry.get("c1").unwrap().update(|s| s.history = Some(totals));
        registry.get("c2").unwrap().update(|s| s.history = Some(Default::default()));
        let metrics = Metrics::default();
        metrics.pruned(7);
        metrics.pruned(3);
        metrics.settle_failed();
        let text = metrics.render(&registry);
        for line in [
            "# TYPE mc_history_revisions gauge",
            "mc_history_revisions{cluster=\"c1\"} 12",
            "mc_history_revisions{cluster=\"c2\"} 0",
            "mc_history_bytes{cluster=\"c1\"} 3400",
            "mc_history_oldest_seconds{cluster=\"c1\"} 1700000000.5",
            "# TYPE mc_history_pruned_total counter",
            "mc_history_pruned_total 10",
            "# TYPE mc_history_settle_failures_total counter",
            "mc_history_settle_failures_total 1",
        ] {
            assert_eq!(text.lines().filter(|l| *l == line).count(), 1, "{line} in:\n{text}");
        }
        // No oldest time for a cluster without revisions.
        assert!(!text.contains("mc_history_oldest_seconds{cluster=\"c2\"}"), "{text}");
    }
}
