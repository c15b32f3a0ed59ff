//! What a relist holds for every stored object of its type: the versions the store has (to skip
//! unchanged objects) and the uids the list returned (to find what was deleted meanwhile). A
//! type of a million objects is relisted in every cluster at once after a restart, so these keep
//! an object in about 50 bytes instead of the 150 of two strings: a uid is a UUID (the API
//! server gives every object one) in 16 bytes and a resource version is a number (etcd's
//! revision) in 8; any other text is kept as it is, so equality stays exact.

use std::collections::{HashMap, HashSet};

/// An object's uid as a key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Uid {
    /// A UUID in its canonical text (lowercase hex, hyphens at 8, 13, 18 and 23).
    Uuid([u64; 2]),
    Text(Box<str>),
}

impl Uid {
    fn new(uid: &str) -> Uid {
        uuid(uid).map_or_else(|| Uid::Text(uid.into()), Uid::Uuid)
    }
}

/// The two halves of a UUID in canonical text; `None` for any other text (uppercase hex
/// included, so that two texts never share a key).
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

/// An object's resource version as a value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Version {
    /// A decimal number without leading zeros that fits 64 bits.
    Number(u64),
    Text(Box<str>),
}

impl Version {
    fn new(version: &str) -> Version {
        let canonical = !version.is_empty()
            && version.bytes().all(|c| c.is_ascii_digit())
            && (version == "0" || !version.starts_with('0'));
        match version.parse() {
            Ok(n) if canonical => Version::Number(n),
            _ => Version::Text(version.into()),
        }
    }
}

/// The resource versions of the stored objects of a type in a cluster, by uid (see
/// [`super::Store::versions`]).
#[derive(Debug, Default)]
pub struct StoredVersions(HashMap<Uid, Version>);

impl StoredVersions {
    /// Records the stored version of an object.
    pub fn insert(&mut self, uid: &str, version: &str) {
        self.0.insert(Uid::new(uid), Version::new(version));
    }

    /// Whether the object is stored at this version.
    pub fn is_stored(&self, uid: &str, version: &str) -> bool {
        self.0.get(&Uid::new(uid)).is_some_and(|v| *v == Version::new(version))
    }

    /// How many objects are stored.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no object is stored.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The uids of the objects a list returned (see [`super::Store::delete_missing`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uids(HashSet<Uid>);

impl Uids {
    /// Adds a uid.
    pub fn insert(&mut self, uid: &str) {
        self.0.insert(Uid::new(uid));
    }

    /// Whether the uid is among them.
    pub fn contains(&self, uid: &str) -> bool {
        self.0.contains(&Uid::new(uid))
    }

    /// How many uids there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Uids {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut uids = Uids::default();
        for uid in iter {
            uids.insert(uid.as_ref());
        }
        uids
    }
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
            assert_eq!(Uid::new(other), Uid::Text(other.into()));
        }
        assert_ne!(Uid::new(canonical), Uid::new(&canonical.to_uppercase()));
        assert_eq!(std::mem::size_of::<Uid>(), 24);
    }

    #[test]
    fn versions_are_numbers_only_where_the_text_comes_back_the_same() {
        assert_eq!(Version::new("0"), Version::Number(0));
        assert_eq!(Version::new("1234567"), Version::Number(1_234_567));
        assert_eq!(Version::new("18446744073709551615"), Version::Number(u64::MAX));
        for other in ["", "007", "+1", "-1", "1.5", "18446744073709551616", "12a"] {
            assert_eq!(Version::new(other), Version::Text(other.into()), "{other}");
        }
        assert_ne!(Version::new("7"), Version::new("07"));
    }

    #[test]
    fn stored_versions_and_uids_compare_whole_texts() {
        let a = "0b5f8d3e-91c2-4a7b-8e6f-1d2c3b4a5968";
        let mut stored = StoredVersions::default();
        stored.insert(a, "41");
        stored.insert("u1", "x7");
        assert_eq!(stored.len(), 2);
        assert!(stored.is_stored(a, "41") && stored.is_stored("u1", "x7"));
        assert!(!stored.is_stored(a, "42") && !stored.is_stored(a, "041"));
        assert!(!stored.is_stored(&a.to_uppercase(), "41") && !stored.is_stored("u2", "x7"));
        let uids: Uids = [a, "u1"].into_iter().collect();
        assert_eq!(uids.len(), 2);
        assert!(uids.contains(a) && uids.contains("u1"));
        assert!(!uids.contains("u2") && !uids.contains(&a.replace('5', "6")));
        assert!(Uids::default().is_empty() && StoredVersions::default().is_empty());
    }
}
