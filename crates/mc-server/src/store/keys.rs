//! What a relist holds for every stored object of its type: the version the store has (to skip
//! unchanged objects) and whether the list returned it (to find what was deleted meanwhile). A
//! type of a million objects is relisted in every cluster at once after a restart, so an object
//! takes 24 bytes here: its uid is a UUID (the API server gives every object one) in 16, its
//! resource version a number (etcd's revision) in 8, whose top bit marks it listed. They are kept
//! sorted in one array, found through an index of their leading bits: a hash map of the same
//! entries takes 25 bytes a bucket and up to twice the buckets (see
//! docs/adr/0016-relist-keys-in-a-sorted-array.md). Any other text is kept as it is, so equality
//! stays exact.

// Seeded foldhash rather than SipHash: every stored object of the type is hashed twice.
use foldhash::{HashMap, HashSet};

/// Marks a version listed; versions are below it.
const LISTED: u64 = 1 << 63;
/// Stored UUIDs per slot of the index, about: the index costs a byte per object, and a lookup
/// searches that many entries, on one or two cache lines.
const PER_SLOT: usize = 4;
/// Most leading bits the index is built on (256 KiB of index at most).
const MAX_INDEX_BITS: u32 = 16;

/// The resource versions of the stored objects of a type in a cluster (see
/// [`super::Store::relist_keys`]), and the uids a list of the type returned (see
/// [`super::Store::delete_missing`]).
#[derive(Debug, Default)]
pub struct RelistKeys {
    /// UUIDs (their two halves) and their number versions, [`LISTED`] set once listed; sorted by
    /// UUID once every stored object is in (see [`RelistKeys::seal`]).
    compact: Vec<([u64; 2], u64)>,
    /// Whether `compact` is sorted and indexed.
    sealed: bool,
    /// How many leading bits of a UUID `index` is built on (0: no index).
    index_bits: u32,
    /// Where the UUIDs whose leading bits are `i` begin in `compact`, for every `i`, and the end.
    index: Vec<u32>,
    /// Any other uid or version, as text → (version, listed).
    text: HashMap<Box<str>, (Box<str>, bool)>,
    /// Listed uids that were not stored.
    new: HashSet<Box<str>>,
}

impl RelistKeys {
    /// Room for `n` stored objects.
    pub fn with_capacity(n: usize) -> Self {
        RelistKeys { compact: Vec::with_capacity(n), ..Default::default() }
    }

    /// Records the stored version of an object. Once every stored object is in, [`Self::seal`]
    /// makes the lookups fast (the first [`Self::listed`] does it otherwise).
    pub fn insert(&mut self, uid: &str, version: &str) {
        match (uuid(uid), number(version)) {
            (Some(key), Some(n)) => {
                self.compact.push((key, n));
                self.sealed = false;
            }
            _ => {
                self.text.insert(uid.into(), (version.into(), false));
            }
        }
    }

    /// Sorts and indexes the stored UUIDs.
    pub fn seal(&mut self) {
        if self.sealed {
            return;
        }
        self.compact.sort_unstable_by_key(|&(key, _)| key);
        // The store holds a uid once per type and cluster; a second would be the same object.
        self.compact.dedup_by_key(|&mut (key, _)| key);
        self.compact.shrink_to_fit();
        let n = self.compact.len();
        // Positions are kept in 32 bits: a type of more objects than that is searched whole.
        self.index_bits = match (n / PER_SLOT, u32::try_from(n)) {
            (0 | 1, _) | (_, Err(_)) => 0,
            (slots, Ok(_)) => slots.ilog2().min(MAX_INDEX_BITS),
        };
        self.index.clear();
        let mut at = 0;
        for slot in (0..=1usize << self.index_bits).filter(|_| self.index_bits > 0) {
            while self.compact.get(at).and_then(|(key, _)| self.slot(key)).is_some_and(|s| s < slot) {
                at += 1;
            }
            self.index.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        self.sealed = true;
    }

    /// The slot of the index a UUID falls in (`None` without an index).
    fn slot(&self, key: &[u64; 2]) -> Option<usize> {
        let bits = self.index_bits;
        (bits > 0).then(|| usize::try_from(key[0] >> (64 - bits)).unwrap_or(usize::MAX))
    }

    /// Where a UUID is in `compact`.
    fn find(&self, key: &[u64; 2]) -> Option<usize> {
        if !self.sealed {
            return self.compact.iter().position(|(k, _)| k == key);
        }
        let at = |i: usize| self.index.get(i).map_or(self.compact.len(), |&at| at as usize);
        let (from, to) = self.slot(key).map_or((0, self.compact.len()), |slot| (at(slot), at(slot + 1)));
        let entries = self.compact.get(from..to)?;
        entries.binary_search_by(|(k, _)| k.cmp(key)).ok().map(|i| from + i)
    }

    /// The list returned this object: marks it listed, and tells whether it is stored at this
    /// version (unchanged).
    pub fn listed(&mut self, uid: &str, version: &str) -> bool {
        self.seal();
        if let Some(i) = uuid(uid).and_then(|key| self.find(&key)) {
            let stored = &mut self.compact[i].1;
            *stored |= LISTED;
            return number(version) == Some(*stored & !LISTED);
        }
        if let Some((stored, listed)) = self.text.get_mut(uid) {
            *listed = true;
            return **stored == *version;
        }
        self.new.insert(uid.into());
        false
    }

    /// Whether the list returned this uid and the store did not hold it.
    pub fn is_new(&self, uid: &str) -> bool {
        self.new.contains(uid)
    }

    /// Whether the list returned the object with this uid.
    pub fn was_listed(&self, uid: &str) -> bool {
        if let Some(i) = uuid(uid).and_then(|key| self.find(&key)) {
            return self.compact[i].1 & LISTED != 0;
        }
        self.text.get(uid).map_or_else(|| self.new.contains(uid), |(_, listed)| *listed)
    }

    /// How many objects are stored.
    pub fn len(&self) -> usize {
        self.compact.len() + self.text.len()
    }

    /// Whether no object is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Listed uids, none stored.
impl<S: AsRef<str>> FromIterator<S> for RelistKeys {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut keys = RelistKeys::default();
        for uid in iter {
            keys.listed(uid.as_ref(), "");
        }
        keys
    }
}

/// The two halves of a UUID in canonical text (lowercase hex, hyphens at 8, 13, 18 and 23);
/// `None` for any other text (uppercase hex included, so that two texts never share a key).
fn uuid(s: &str) -> Option<[u64; 2]> {
    let b = s.as_bytes();
    if b.len() != 36 {
        return None;
    }
    let mut value: u128 = 0;
    for (i, &c) in b.iter().enumerate() {
        let digit = match (i, c) {
            (8 | 13 | 18 | 23, b'-') => continue,
            (8 | 13 | 18 | 23, _) => return None,
            (_, b'0'..=b'9') => c - b'0',
            (_, b'a'..=b'f') => c - b'a' + 10,
            _ => return None,
        };
        value = (value << 4) | u128::from(digit);
    }
    Some([(value >> 64) as u64, value as u64])
}

/// A version that is a decimal number without leading zeros below [`LISTED`]; `None` for any
/// other text, so that the number gives the text back exactly.
fn number(version: &str) -> Option<u64> {
    let canonical = !version.is_empty()
        && version.bytes().all(|c| c.is_ascii_digit())
        && (version == "0" || !version.starts_with('0'));
    version.parse().ok().filter(|&n| canonical && n < LISTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_kept_in_16_bytes_and_any_other_text_as_it_is() {
        let canonical = "0b5f8d3e-91c2-4a7b-8e6f-1d2c3b4a5968";
        assert_eq!(uuid(canonical), Some([0x0b5f_8d3e_91c2_4a7b, 0x8e6f_1d2c_3b4a_5968]));
        for other in [
            "0B5F8D3E-91C2-4A7B-8E6F-1D2C3B4A5968",
            "0b5f8d3e91c24a7b8e6f1d2c3b4a5968",
            "0b5f8d3e-91c2-4a7b-8e6f-1d2c3b4a596",
            "0b5f8d3e-91c2-4a7b-8e6f_1d2c3b4a5968",
            "0b5f8d3e-91c2-4a7b-8e6f-1d2c3b4a596g",
            "",
            "u1",
        ] {
            assert_eq!(uuid(other), None, "{other}");
        }
    }

    #[test]
    fn versions_are_numbers_only_where_the_text_comes_back_the_same() {
        assert_eq!(number("0"), Some(0));
        assert_eq!(number("1234567"), Some(1_234_567));
        assert_eq!(number("9223372036854775807"), Some(LISTED - 1));
        for other in ["", "007", "+1", "-1", "1.5", "9223372036854775808", "18446744073709551616", "12a"] {
            assert_eq!(number(other), None, "{other}");
        }
    }

    #[test]
    fn a_relist_finds_unchanged_and_unlisted_objects_by_whole_texts() {
        let a = "0b5f8d3e-91c2-4a7b-8e6f-1d2c3b4a5968";
        let b = "0b5f8d3e-91c2-4a7b-8e6f-1d2c3b4a5969";
        let mut keys = RelistKeys::default();
        keys.insert(a, "41");
        keys.insert(b, "42");
        keys.insert("u1", "x7");
        keys.insert("u2", "7");
        assert_eq!(keys.len(), 4);
        // Stored at that version: unchanged; any other text of it is a change.
        assert!(keys.listed(a, "41"));
        assert!(!keys.listed("u1", "x8"));
        assert!(!keys.listed("u2", "07"));
        assert!(!keys.listed(&b.to_uppercase(), "42"), "another text is another uid");
        assert!(!keys.listed("c", "1"), "not stored");
        // Listed twice, the mark does not change the version compared.
        assert!(keys.listed(a, "41") && !keys.listed(a, "42"));
        for listed in [a, "u1", "u2", "c", &b.to_uppercase()] {
            assert!(keys.was_listed(listed), "{listed}");
        }
        assert!(!keys.was_listed(b) && !keys.was_listed("u3"));
        assert_eq!(keys.len(), 4, "listed objects that were not stored are not counted as stored");
        let listed: RelistKeys = [a, "u1"].into_iter().collect();
        assert!(
            listed.is_empty() && listed.was_listed(a) && listed.was_listed("u1") && !listed.was_listed(b)
        );
        assert!(RelistKeys::default().is_empty());
    }

    /// A UUID's canonical text from a number.
    fn text(n: u128) -> String {
        let h = format!("{n:032x}");
        format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
    }

    #[test]
    fn many_stored_uuids_are_found_through_the_index_and_others_are_not() {
        // Spread like random UUIDs, with both ends of the range and neighbours of each other.
        let mut stored: Vec<u128> =
            (1..=5_000u128).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)).collect();
        stored.extend([0, 1, u128::MAX, u128::MAX - 1, 1 << 127, (1 << 127) - 1]);
        let mut keys = RelistKeys::with_capacity(stored.len());
        for (i, &n) in stored.iter().enumerate() {
            keys.insert(&text(n), &i.to_string());
        }
        keys.seal();
        assert_eq!(keys.len(), stored.len());
        assert!(keys.index_bits >= 10, "indexed: {} bits", keys.index_bits);
        // Every other one listed, at its version or another.
        for (i, &n) in stored.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
            let version = if i % 4 == 0 { i.to_string() } else { (i + 1).to_string() };
            assert_eq!(keys.listed(&text(n), &version), i % 4 == 0, "{i}");
        }
        for (i, &n) in stored.iter().enumerate() {
            assert_eq!(keys.was_listed(&text(n)), i % 2 == 0, "{i}");
        }
        // Not stored: neighbours of stored ones (none of them stored by construction here).
        let absent = [2u128, u128::MAX - 2, (1 << 127) + 1, stored[7] ^ 1 << 64];
        for n in absent.into_iter().filter(|n| !stored.contains(n)) {
            assert!(!keys.was_listed(&text(n)), "{n:x}");
            assert!(!keys.listed(&text(n), "1"), "{n:x}");
            assert!(keys.was_listed(&text(n)), "listed, not stored: {n:x}");
        }
        assert_eq!(keys.len(), stored.len());
    }

    proptest::proptest! {
        #[test]
        fn lookups_agree_with_a_map_sealed_or_not(
            stored in proptest::collection::btree_map(proptest::prelude::any::<u128>(), 0u64..1000, 0..300),
            probes in proptest::collection::vec((proptest::prelude::any::<u128>(), 0u64..1000, proptest::prelude::any::<bool>()), 0..50),
            seal in proptest::prelude::any::<bool>(),
        ) {
            let mut keys = RelistKeys::default();
            for (&n, v) in &stored {
                keys.insert(&text(n), &v.to_string());
            }
            if seal {
                keys.seal();
            }
            let entries: Vec<(&u128, &u64)> = stored.iter().collect();
            let mut listed = std::collections::HashSet::new();
            for (i, (n, v, pick_stored)) in probes.into_iter().enumerate() {
                // Half the probes hit a stored uid, at its version or not.
                let (n, v) = match entries.get(i % entries.len().max(1)) {
                    Some(&(&s, &sv)) if pick_stored => (s, if v % 2 == 0 { sv } else { v }),
                    _ => (n, v),
                };
                let unchanged = stored.get(&n) == Some(&v);
                proptest::prop_assert_eq!(keys.listed(&text(n), &v.to_string()), unchanged);
                listed.insert(n);
            }
            for &n in stored.keys() {
                proptest::prop_assert_eq!(keys.was_listed(&text(n)), listed.contains(&n));
            }
            proptest::prop_assert_eq!(keys.len(), stored.len());
        }
    }
}
