//! Revisions from the store as the history API answers them.

use mc_types::changed_fields;
use mc_types::history::{ChangeType, PastObject, RevisionItem};
use mc_types::moment::rfc3339;
use serde_json::Value;

use crate::store::{ChangeKind, Revision};

/// Most changed fields named per revision.
pub const MAX_FIELDS: usize = 20;

/// The wire name of a change.
pub fn change_type(kind: ChangeKind) -> ChangeType {
    match kind {
        ChangeKind::Added => ChangeType::Added,
        ChangeKind::Modified => ChangeType::Modified,
        ChangeKind::Deleted => ChangeType::Deleted,
    }
}

/// Revisions (of one or more objects, oldest first) as answered: each with the fields that
/// differ from the previous revision of the same object incarnation in `revisions`, and its
/// object only when `objects`.
pub fn revision_items(revisions: Vec<Revision>, objects: bool) -> Vec<RevisionItem> {
    // The previous state of each object (by cluster and uid) met so far.
    let mut previous: std::collections::HashMap<(String, String), Value> = Default::default();
    revisions
        .into_iter()
        .map(|r| {
            let object = r.object.as_ref().map(|o| o.value());
            let key = (r.cluster.clone(), r.uid.clone());
            let (fields, fields_changed) = match (r.change, previous.get(&key), &object) {
                (ChangeKind::Modified, Some(before), Some(after)) => {
                    changed_fields::changed(before, after, MAX_FIELDS)
                }
                _ => (Vec::new(), 0),
            };
            match (&object, r.change) {
                (Some(o), ChangeKind::Added | ChangeKind::Modified) => {
                    previous.insert(key, o.clone());
                }
                _ => {
                    previous.remove(&key);
                }
            }
            RevisionItem {
                revision: r.id,
                cluster_name: r.cluster,
                namespace: r.namespace,
                name: r.name,
                uid: r.uid,
                resource_version: r.resource_version,
                time: rfc3339(r.at_ms),
                change: change_type(r.change),
                after_gap: r.seen_by_list,
                unsynced: r.unsynced,
                gap_from: r.gap_from_ms.map(rfc3339),
                fields,
                fields_changed,
                object: if objects { object } else { None },
            }
        })
        .collect()
}

/// A revision as an object in the past (`None` when the store kept no object for it).
pub fn past_object(r: Revision) -> Option<PastObject> {
    let object = r.object?.value();
    Some(PastObject {
        cluster_name: r.cluster,
        object,
        revision: r.id,
        time: rfc3339(r.at_ms),
        after_gap: r.seen_by_list && r.change == ChangeKind::Deleted,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use mc_types::Gvr;
    use serde_json::json;

    use super::*;
    use crate::store::RawObject;

    fn rev(id: i64, change: ChangeKind, object: Option<Value>) -> Revision {
        Revision {
            id,
            cluster: "c1".into(),
            gvr: Gvr::new("apps", "v1", "deployments"),
            namespace: "web".into(),
            name: "web".into(),
            uid: "u1".into(),
            resource_version: id.to_string(),
            at_ms: 1_795_000_000_000 + id,
            change,
            seen_by_list: false,
            gap_from_ms: None,
            bytes: 10,
            object: object.map(|o| RawObject::from_value(&o)),
            unsynced: false,
        }
    }

    #[test]
    fn each_modification_names_what_it_changed() {
        let a = json!({"metadata": {"name": "web", "resourceVersion": "1"}, "spec": {"replicas": 1}});
        let b = json!({"metadata": {"name": "web", "resourceVersion": "2"}, "spec": {"replicas": 3}});
        let items = revision_items(
            vec![
                rev(1, ChangeKind::Added, Some(a)),
                rev(2, ChangeKind::Modified, Some(b.clone())),
                rev(3, ChangeKind::Deleted, Some(b)),
            ],
            false,
        );
        let seen: Vec<(i64, ChangeType, Vec<String>)> =
            items.iter().map(|i| (i.revision, i.change, i.fields.clone())).collect();
        assert_eq!(
            seen,
            [
                (1, ChangeType::Added, vec![]),
                (2, ChangeType::Modified, vec!["spec.replicas".to_string()]),
                (3, ChangeType::Deleted, vec![])
            ]
        );
        assert!(items.iter().all(|i| i.object.is_none()));
        assert_eq!(items[1].time, "2026-11-18T11:06:40.002Z");
    }
}
