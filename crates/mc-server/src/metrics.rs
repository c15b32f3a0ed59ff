//! Prometheus metrics in the text exposition format, without a metrics framework.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

use crate::clusters::Registry;

/// Request counters; cluster gauges are read from the registry when scraped.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
}

impl Metrics {
    /// Counts one HTTP response.
    pub fn request(&self, route: &str, status: u16) {
        let mut m = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry((route.to_string(), status)).or_default() += 1;
    }

    /// The exposition text.
    pub fn render(&self, registry: &Registry) -> String {
        let mut out = String::new();
        let clusters = registry.all();
        let gauge = |out: &mut String, name: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
        };
        gauge(&mut out, "mc_cluster_ready", "1 when the cluster is reachable and syncing.");
        for c in &clusters {
            let _ =
                writeln!(out, "mc_cluster_ready{{cluster=\"{}\"}} {}", c.name(), u8::from(c.state().ready));
        }
        gauge(
            &mut out,
            "mc_cluster_synced_here",
            "1 when this replica watches the cluster (holds its sync Lease, or nothing is sharded).",
        );
        for c in &clusters {
            let _ =
                writeln!(out, "mc_cluster_synced_here{{cluster=\"{}\"}} {}", c.name(), u8::from(c.syncs()));
        }
        gauge(&mut out, "mc_cluster_initial_sync_done", "1 when every type finished its first list.");
        for c in &clusters {
            let _ = writeln!(
                out,
                "mc_cluster_initial_sync_done{{cluster=\"{}\"}} {}",
                c.name(),
                u8::from(c.state().initial_sync_done)
            );
        }
        gauge(&mut out, "mc_cluster_objects", "Objects stored for the cluster.");
        for c in &clusters {
            let _ = writeln!(
                out,
                "mc_cluster_objects{{cluster=\"{}\"}} {}",
                c.name(),
                c.objects.load(std::sync::atomic::Ordering::Relaxed)
            );
        }
        gauge(&mut out, "mc_cluster_resource_types", "Resource types synced for the cluster.");
        for c in &clusters {
            let _ = writeln!(
                out,
                "mc_cluster_resource_types{{cluster=\"{}\"}} {}",
                c.name(),
                c.state().synced_types.len()
            );
        }
        gauge(
            &mut out,
            "mc_cluster_unlisted_types",
            "Resource types of the cluster whose list keeps failing (their objects may be missing or stale).",
        );
        for c in &clusters {
            let n = c.state().unlisted.len();
            let _ = writeln!(out, "mc_cluster_unlisted_types{{cluster=\"{}\"}} {n}", c.name());
        }
        gauge(
            &mut out,
            "mc_cluster_unwatched_types",
            "Resource types of the cluster that are listed but whose watch keeps failing (their objects are as old as their last list).",
        );
        for c in &clusters {
            let n = c.state().unwatched.len();
            let _ = writeln!(out, "mc_cluster_unwatched_types{{cluster=\"{}\"}} {n}", c.name());
        }
        gauge(&mut out, "mc_cluster_sync_lag_seconds", "Delay between an event's arrival and its write.");
        for c in &clusters {
            let lag = c.state().lag_seconds.unwrap_or(0.0);
            let _ = writeln!(out, "mc_cluster_sync_lag_seconds{{cluster=\"{}\"}} {lag}", c.name());
        }
        let _ = writeln!(out, "# HELP mc_http_requests_total HTTP responses by route and status.");
        let _ = writeln!(out, "# TYPE mc_http_requests_total counter");
        for ((route, status), n) in self.requests.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(out, "mc_http_requests_total{{route=\"{route}\",code=\"{status}\"}} {n}");
        }
        out
    }
}
