//! The changes written, numbered: every change the writer publishes gets the next sequence
//! number, and once a client has asked for resource versions (a list or watch of the Kubernetes
//! API) the recent ones are kept, so a watch from a resourceVersion replays what came after it —
//! or says `Expired` when that is no longer known, and the client lists again.
//!
//! A resourceVersion is `mc.<epoch>.<seq>`: opaque to clients, never confused with a member
//! cluster's own versions (plain numbers), and never valid across a restart (the epoch changes).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use super::notice::{Notice, Notices};

/// Most changes kept.
const MAX_KEPT: usize = 10_000;
/// Most bytes of object text kept.
const MAX_KEPT_BYTES: usize = 64 << 20;

/// Numbered changes and the recent ones.
#[derive(Debug)]
pub struct History {
    epoch: u64,
    ring: Mutex<Ring>,
    /// How many changes of `rbac.authorization.k8s.io` objects each cluster has had: who keeps
    /// a cluster's authorizer compares it (see `crate::access`).
    rbac: Mutex<std::collections::HashMap<String, u64>>,
    /// How many changes of CRDs and APIServices each cluster has had: who keeps a cluster's
    /// OpenAPI documents compares it (see `crate::http::kube::openapi`).
    apis: Mutex<std::collections::HashMap<String, u64>>,
}

#[derive(Debug, Default)]
struct Ring {
    /// The last number given.
    seq: u64,
    /// Whether changes are kept (from the first client that asked on).
    recording: bool,
    /// Every change after this number is in `kept`.
    covered_after: u64,
    kept: VecDeque<Arc<Notice>>,
    bytes: usize,
}

/// A resourceVersion that cannot be served: too old, from before a restart, or not ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expired;

impl Default for History {
    fn default() -> Self {
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or_default();
        History { epoch, ring: Mutex::new(Ring::default()), rbac: Mutex::default(), apis: Mutex::default() }
    }
}

impl History {
    fn ring(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a written change of one of `cluster`'s RBAC objects, before its notice goes out:
    /// a watch that sees the notice and asks for its caller's rights gets the new ones.
    pub fn rbac_changed(&self, cluster: &str) {
        let mut rbac = self.rbac.lock().unwrap_or_else(|e| e.into_inner());
        *rbac.entry(cluster.to_string()).or_default() += 1;
    }

    /// How many RBAC changes `cluster` has had (see [`History::rbac_changed`]).
    pub fn rbac_version(&self, cluster: &str) -> u64 {
        self.rbac.lock().unwrap_or_else(|e| e.into_inner()).get(cluster).copied().unwrap_or_default()
    }

    /// Counts a written change of one of `cluster`'s CRDs or APIServices: the types it serves
    /// may have changed.
    pub fn apis_changed(&self, cluster: &str) {
        let mut apis = self.apis.lock().unwrap_or_else(|e| e.into_inner());
        *apis.entry(cluster.to_string()).or_default() += 1;
    }

    /// How many CRD and APIService changes `cluster` has had (see [`History::apis_changed`]).
    pub fn apis_version(&self, cluster: &str) -> u64 {
        self.apis.lock().unwrap_or_else(|e| e.into_inner()).get(cluster).copied().unwrap_or_default()
    }

    /// Numbers one written change and hands it to the watch streams (`notices`) and, when
    /// recording, to the kept ones. `build` runs only when someone will read the change.
    pub fn publish(&self, notices: &Notices, build: impl FnOnce(u64) -> Notice) {
        let mut ring = self.ring();
        ring.seq += 1;
        let seq = ring.seq;
        if !ring.recording && notices.receiver_count() == 0 {
            return;
        }
        let notice = Arc::new(build(seq));
        if ring.recording {
            ring.bytes += notice.object.text().len();
            ring.kept.push_back(notice.clone());
            while ring.kept.len() > MAX_KEPT || ring.bytes > MAX_KEPT_BYTES {
                let Some(old) = ring.kept.pop_front() else { break };
                ring.bytes -= old.object.text().len();
                ring.covered_after = old.seq;
            }
        }
        drop(ring);
        let _ = notices.send(notice);
    }

    /// Whether a change published now would be read by anyone: a watch stream, or the kept
    /// changes.
    pub fn wanted(&self, notices: &Notices) -> bool {
        self.ring().recording || notices.receiver_count() > 0
    }

    /// The resourceVersion of now, for a list: a watch from it misses nothing written after.
    /// Starts keeping changes if nobody asked before.
    pub fn resource_version(&self) -> String {
        let mut ring = self.ring();
        if !ring.recording {
            ring.recording = true;
            ring.covered_after = ring.seq;
        }
        self.format(ring.seq)
    }

    /// The resourceVersion of one change.
    pub fn format(&self, seq: u64) -> String {
        format!("mc.{}.{seq}", self.epoch)
    }

    /// The sequence number a resourceVersion of ours stands for.
    pub fn parse(&self, rv: &str) -> Result<u64, Expired> {
        let mut parts = rv.split('.');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some("mc"), Some(epoch), Some(seq), None) if epoch == self.epoch.to_string() => {
                seq.parse().map_err(|_| Expired)
            }
            _ => Err(Expired),
        }
    }

    /// The kept changes after `seq`, in order; [`Expired`] when some of them are no longer kept
    /// (or `seq` is in the future).
    pub fn after(&self, seq: u64) -> Result<Vec<Arc<Notice>>, Expired> {
        let ring = self.ring();
        if !ring.recording || seq < ring.covered_after || seq > ring.seq {
            return Err(Expired);
        }
        Ok(ring.kept.iter().filter(|n| n.seq > seq).cloned().collect())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::store::RawObject;
    use mc_types::Gvr;

    fn notice(seq: u64, name: &str) -> Notice {
        Notice {
            seq,
            cluster: "c".into(),
            gvr: Gvr::new("", "v1", "configmaps"),
            namespace: "ns".into(),
            name: name.into(),
            deleted: false,
            labels: Default::default(),
            object: RawObject::from_value(&serde_json::json!({"metadata": {"name": name}})),
            created: false,
        }
    }

    #[test]
    fn a_watch_from_a_list_version_gets_every_later_change_in_order() {
        let h = History::default();
        let (tx, _) = tokio::sync::broadcast::channel(16);
        h.publish(&tx, |s| notice(s, "before-anyone-asked"));
        let rv = h.resource_version();
        let seq = h.parse(&rv).unwrap();
        assert_eq!(h.after(seq).unwrap().len(), 0);
        h.publish(&tx, |s| notice(s, "a"));
        h.publish(&tx, |s| notice(s, "b"));
        let names: Vec<String> = h.after(seq).unwrap().iter().map(|n| n.name.clone()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(h.after(seq + 1).unwrap().len(), 1);
    }

    #[test]
    fn versions_not_kept_foreign_or_from_another_start_are_expired() {
        let h = History::default();
        let (tx, _) = tokio::sync::broadcast::channel(16);
        h.publish(&tx, |s| notice(s, "x"));
        let rv = h.resource_version();
        let seq = h.parse(&rv).unwrap();
        assert_eq!(h.after(seq - 1).err(), Some(Expired), "before recording started");
        assert_eq!(h.after(seq + 5).err(), Some(Expired), "in the future");
        assert_eq!(h.parse("12345"), Err(Expired), "a member cluster's version");
        assert_eq!(History::default().parse(&rv).map(|_| ()), Err(Expired), "another start");
        for i in 0..MAX_KEPT + 1 {
            h.publish(&tx, |s| notice(s, &format!("n{i}")));
        }
        assert_eq!(h.after(seq).map(|v| v.len()), Err(Expired), "the oldest fell out");
    }

    #[test]
    fn nothing_is_built_while_nobody_reads() {
        let h = History::default();
        let (tx, _) = tokio::sync::broadcast::channel::<Arc<Notice>>(16);
        h.publish(&tx, |_| panic!("built without a reader"));
        let _rx = tx.subscribe();
        let mut built = false;
        h.publish(&tx, |s| {
            built = true;
            notice(s, "read")
        });
        assert!(built);
    }
}
