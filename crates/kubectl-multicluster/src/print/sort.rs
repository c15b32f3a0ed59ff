//! `--sort-by JSONPATH`: objects of every cluster in one order, as kubectl sorts them.

use std::cmp::Ordering;

use mc_types::jsonpath::JsonPath;
use serde_json::Value;

use super::template::{self, parse_path};

/// Why `--sort-by` cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("--sort-by")]
pub struct Error(#[source] template::Error);

/// A parsed `--sort-by` path.
#[derive(Clone, Debug, PartialEq)]
pub struct SortBy(JsonPath);

/// What an object sorts by: objects without the value first, then numbers (numerically), then
/// everything else as text.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// The path selects nothing (or null).
    Missing,
    /// A JSON number.
    Number(f64),
    /// A string, or any other value as JSON.
    Text(String),
}

impl Eq for Key {}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Key::Missing, Key::Missing) => Ordering::Equal,
            (Key::Missing, _) => Ordering::Less,
            (_, Key::Missing) => Ordering::Greater,
            (Key::Number(a), Key::Number(b)) => a.total_cmp(b),
            (Key::Number(_), Key::Text(_)) => Ordering::Less,
            (Key::Text(_), Key::Number(_)) => Ordering::Greater,
            (Key::Text(a), Key::Text(b)) => a.cmp(b),
        }
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl SortBy {
    /// Parses `.metadata.name`, `{.metadata.creationTimestamp}`, `.status.phase`, ….
    pub fn parse(text: &str) -> Result<Self, Error> {
        parse_path(text).map(SortBy).map_err(Error)
    }

    /// The key of one object (the first value the path selects).
    pub fn key(&self, object: &Value) -> Key {
        match self.0.select(object).first() {
            None | Some(Value::Null) => Key::Missing,
            Some(Value::Number(n)) => n.as_f64().map_or(Key::Missing, Key::Number),
            Some(value) => Key::Text(template::text(value)),
        }
    }

    /// Sorts items by their keys, keeping the order of equal ones (clusters in order given).
    pub fn sort<T>(keyed: &mut [(Key, T)]) {
        keyed.sort_by(|(a, _), (b, _)| a.cmp(b));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_sort_numerically_text_lexically_and_missing_values_first() {
        let by = SortBy::parse("{.spec.replicas}").unwrap();
        let mut keyed: Vec<(Key, &str)> = [
            (json!({"spec": {"replicas": 10}}), "ten"),
            (json!({"spec": {}}), "none"),
            (json!({"spec": {"replicas": 9}}), "nine"),
            (json!({"spec": {"replicas": "x"}}), "text"),
        ]
        .iter()
        .map(|(obj, name)| (by.key(obj), *name))
        .collect();
        SortBy::sort(&mut keyed);
        let order: Vec<&str> = keyed.iter().map(|(_, n)| *n).collect();
        assert_eq!(order, ["none", "nine", "ten", "text"]);
    }

    #[test]
    fn a_path_outside_the_subset_is_an_error() {
        let message = format!("{:#}", anyhow::Error::new(SortBy::parse("..name").unwrap_err()));
        assert_eq!(
            message,
            r#"--sort-by: unsupported JSONPath "..name": recursive descent (..) is not supported"#
        );
        assert!(SortBy::parse("{range .items[*]}").is_err());
    }
}
