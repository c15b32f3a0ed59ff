//! Table rows kept between requests: the cells of a built-in kind's row are a function of the
//! object's text, so a row computed once is kept under the object's row id and hash, with its
//! ages as markers ([`mc_types::printers::deferred`]) that print correctly at any later time.
//! A listing then reads only ids and hashes from the store and parses just the objects it has
//! not seen: 10,000 unchanged pods need no JSON parsed at all.
//!
//! Bounded: past [`CAPACITY`] rows the cache starts over (a listing larger than that reads its
//! objects as before).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::layout::Layout;

/// Rows kept at most (about 300 bytes each for pods).
pub const CAPACITY: usize = 100_000;

/// The cells of one row, without the cluster cell, ages as markers.
pub type Cells = Arc<[Box<str>]>;

/// A kept row: the hash of the object text it was made from, and its cells.
type Kept = (Box<str>, Cells);

/// Rows by (row id, layout).
#[derive(Default)]
pub struct RowCache {
    rows: Mutex<HashMap<(i64, Layout), Kept>>,
}

impl RowCache {
    /// The row made from the object `hash` names, if kept.
    pub fn get(&self, id: i64, layout: Layout, hash: &str) -> Option<Cells> {
        let rows = self.rows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        rows.get(&(id, layout)).filter(|(h, _)| h.as_ref() == hash).map(|(_, cells)| cells.clone())
    }

    /// Keeps rows; starts over when full.
    pub fn insert(&self, layout: Layout, made: impl IntoIterator<Item = (i64, String, Cells)>) {
        let mut rows = self.rows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for (id, hash, cells) in made {
            if rows.len() >= CAPACITY {
                rows.clear();
            }
            rows.insert((id, layout), (hash.into_boxed_str(), cells));
        }
    }

    /// Rows kept.
    pub fn len(&self) -> usize {
        self.rows.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// Whether none are kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cells(text: &str) -> Cells {
        vec![text.into()].into()
    }

    #[test]
    fn a_row_is_found_only_for_the_same_object_text_and_layout() {
        let cache = RowCache::default();
        cache.insert(Layout::Plugin, [(7, "h1".to_owned(), cells("a"))]);
        assert_eq!(cache.get(7, Layout::Plugin, "h1").unwrap()[0].as_ref(), "a");
        assert!(cache.get(7, Layout::Plugin, "h2").is_none(), "the object changed");
        assert!(cache.get(7, Layout::Kubectl, "h1").is_none(), "another layout");
        assert!(cache.get(8, Layout::Plugin, "h1").is_none(), "another row");
    }

    #[test]
    fn it_starts_over_when_full() {
        let cache = RowCache::default();
        cache.insert(Layout::Plugin, (0..CAPACITY as i64 + 1).map(|i| (i, "h".to_owned(), cells("x"))));
        assert_eq!(cache.len(), 1);
        assert!(cache.get(CAPACITY as i64, Layout::Plugin, "h").is_some());
    }
}
