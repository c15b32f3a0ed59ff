//! What a relist holds for every stored object of its type: the version the store has (to skip
//! unchanged objects) and whether the list returned it (to find what was deleted meanwhile). A
//! type of a million objects is relisted in every cluster at once after a restart, so an object
//! takes 24 bytes here: its uid is a UUID (the API server gives every object one) in 16, its
//! resource version a number (etcd's revision) in 8, whose top bit marks it listed. Any other
//! text is kept as it is, so equality stays exact.

// Seeded foldhash rather than SipHash: every stored object of the type is hashed twice.
use foldhash::{HashMap, HashMapExt, HashSet};

/// Marks a version listed; versions are below it.
const LISTED: u64 = 1 << 63;

/// The resource versions of the stored objects of a type in a cluster (see
/// [`super::Store::relist_keys`]), and the uids a list of the type returned (see
/// [`super::Store::delete_missing`]).
#[derive(Debug, Default)]
pub struct RelistKeys {
    /// A UUID's two halves → its number version, [`LISTED`] set once listed.
    compact: HashMap<[u64; 2], u64>,
    /// Any other uid or version, as text → (version, listed).
    text: HashMap<Box<str>, (Box<str>, bool)>,
    /// Listed uids that were not stored.
    new: HashSet<Box<str>>,
}

impl RelistKeys {
    /// Room for `n` stored objects.
    pub fn with_capacity(n: usize) -> Self {
        RelistKeys { compact: HashMap::with_capacity(n), ..Default::default() }
    }

    /// Records the stored version of an object.
    pub fn insert(&mut self, uid: &str, version: &str) {
        match (uuid(uid), number(version)) {
            (Some(key), Some(n)) => {
                self.compact.insert(key, n);
            }
            _ => {
                self.text.insert(uid.into(), (version.into(), false));
            }
        }
    }

    /// The list returned this object: marks it listed, and tells whether it is stored at this
    /// version (unchanged).
    pub fn listed(&mut self, uid: &str, version: &str) -> bool {
        if let Some(stored) = uuid(uid).and_then(|key| self.compact.get_mut(&key)) {
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

    /// Whether the list returned the object with this uid.
    pub fn was_listed(&self, uid: &str) -> bool {
        if let Some(stored) = uuid(uid).and_then(|key| self.compact.get(&key)) {
            return stored & LISTED != 0;
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
}
