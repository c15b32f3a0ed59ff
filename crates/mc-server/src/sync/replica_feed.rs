//! Complete watch streams on replicas that sync only their share of the clusters
//! (`sync.maxClustersPerReplica`): a replica does not watch the clusters the others sync, so it
//! reads what the others wrote from the store's change feed (see `crate::store::FeedChange`)
//! and hands it to its own watch streams, as its writer does with its own changes.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tracing::{debug, warn};

use super::history::History;
use super::notice::{Notice, Notices, identity};
use crate::store::{FeedChange, Store};

/// How often the feed is read: a change of another replica's cluster reaches this replica's
/// watch streams within this much after it is committed.
const POLL: Duration = Duration::from_millis(200);
/// Changes read at once.
const BATCH: usize = 1000;
/// How long changes stay in the feed: a replica that could not read it for longer may have
/// missed some.
const KEEP: Duration = Duration::from_secs(600);
/// How often old changes are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// Reads the feed until the process ends: from its newest change at start, every [`POLL`].
pub async fn run(store: Store, history: Arc<History>, notices: Notices) {
    let mut last = loop {
        match store.last_change_id().await {
            Ok(id) => break id,
            Err(e) => {
                debug!(error = %e, "reading the change feed's position failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    };
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut pruned_at = tokio::time::Instant::now();
    let mut failing = false;
    loop {
        tick.tick().await;
        if pruned_at.elapsed() > PRUNE_EVERY {
            pruned_at = tokio::time::Instant::now();
            let before = std::time::SystemTime::now()
                .checked_sub(KEEP)
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as i64);
            if let Err(e) = store.prune_changes(before).await {
                debug!(error = %e, "pruning the change feed failed; next time");
            }
        }
        // Nobody to tell: skip to the newest change rather than read objects for nobody. The
        // position is read first: a stream that starts after the check lists the store after
        // every change up to it was committed.
        match store.last_change_id().await {
            Ok(newest) if !history.wanted(&notices) => {
                last = newest;
                continue;
            }
            _ => {}
        }
        match store.changes_after(last, BATCH).await {
            Ok(changes) => {
                failing = false;
                let full = changes.len() == BATCH;
                for change in changes {
                    last = change.id;
                    if let Some(notice) = notice(change) {
                        // Another replica wrote it: the RBAC it changes counts here too.
                        if notice.gvr.group == crate::authz::RBAC_GROUP {
                            history.rbac_changed(&notice.cluster);
                        }
                        history.publish(&notices, |seq| Notice { seq, ..notice });
                    }
                }
                if full {
                    tick.reset_immediately();
                }
            }
            // A store that cannot be read shows in `/readyz` through the periodic probe; what
            // was not read is read once it answers again (changes are kept for minutes).
            Err(e) => {
                if !failing {
                    warn!(error = %e, "reading the change feed failed; retrying");
                    failing = true;
                }
            }
        }
    }
}

/// The notice of a change (numbered when published); `None` for an upsert whose object has gone
/// since (its deletion follows).
fn notice(c: FeedChange) -> Option<Notice> {
    let object = match (c.deleted, c.object) {
        (false, Some(object)) => object,
        (false, None) => return None,
        (true, _) => identity(&c.gvr, &c.namespace, &c.name, &c.uid),
    };
    let labels: BTreeMap<String, String> = if c.deleted {
        BTreeMap::new()
    } else {
        serde_json::from_value(object.value()["metadata"]["labels"].clone()).unwrap_or_default()
    };
    Some(Notice {
        seq: 0,
        cluster: c.cluster,
        gvr: c.gvr,
        namespace: c.namespace,
        name: c.name,
        deleted: c.deleted,
        labels,
        object,
        // Another replica's change says not whether it made the object: a watch resumed on
        // this replica tells it as MODIFIED unless it was told gone.
        created: false,
    })
}
