//! The upserts of a batch of changes, collected to be written after its deletions.

use std::collections::hash_map::Entry;

use mc_types::Gvr;

use super::StoredObject;

/// The upserts of a batch of changes (of one or more clusters), in order, to be written after
/// the batch's deletions: of upserts of one object (cluster, type, namespace, name) the last
/// wins, in the place of its first (new rows take ids in the batch's order), and a deletion
/// drops the pending upsert of the incarnation it deletes (of any, when it names no uid).
/// Written after every deletion, they leave what the changes in their order would: a deletion
/// removes only what was stored before the batch or dropped here, and an upsert of a new
/// incarnation ahead of the old one's deletion stays.
#[derive(Default)]
pub(super) struct Pending<'a> {
    upserts: Vec<Option<(&'a str, &'a StoredObject)>>,
    // Seeded foldhash, not SipHash: the single writer hashes every key of every batch.
    index: foldhash::HashMap<(&'a str, &'a Gvr, &'a str, &'a str), usize>,
}

impl<'a> Pending<'a> {
    pub(super) fn upsert(&mut self, cluster: &'a str, object: &'a StoredObject) {
        match self.index.entry((cluster, &object.gvr, object.namespace.as_str(), object.name.as_str())) {
            Entry::Occupied(at) => self.upserts[*at.get()] = Some((cluster, object)),
            Entry::Vacant(at) => {
                at.insert(self.upserts.len());
                self.upserts.push(Some((cluster, object)));
            }
        }
    }

    /// A deletion of `uid` (of any incarnation when empty) in `cluster`.
    pub(super) fn delete(
        &mut self,
        cluster: &'a str,
        gvr: &'a Gvr,
        namespace: &'a str,
        name: &'a str,
        uid: &str,
    ) {
        let key = (cluster, gvr, namespace, name);
        if let Some(&i) = self.index.get(&key)
            && (uid.is_empty() || self.upserts[i].is_some_and(|(_, o)| o.uid == uid))
        {
            self.upserts[i] = None;
            self.index.remove(&key);
        }
    }

    /// Upserts collected, counting those a deletion dropped.
    pub(super) fn len(&self) -> usize {
        self.upserts.len()
    }

    /// The upserts still pending, in order, with their clusters; forgotten here.
    pub(super) fn take(&mut self) -> impl Iterator<Item = (&'a str, &'a StoredObject)> + '_ {
        self.index.clear();
        self.upserts.drain(..).flatten()
    }
}
