//! `--sort-by`: rows of every cluster in one order, by a JSONPath of the objects (as kubectl
//! sorts them) or by a printed column (`AGE`, `STATUS`).

use std::cmp::Ordering;

use mc_types::jsonpath::JsonPath;
use serde_json::Value;

use super::template::{self, parse_path};

/// Why `--sort-by` cannot be used (not retryable: fix the flag).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The JSONPath is outside the supported subset.
    #[error("--sort-by")]
    Path(#[source] template::Error),
    /// No printed column has that name.
    #[error("--sort-by {name:?}: no such column; the columns are {}", columns.join(", "))]
    NoColumn {
        /// The name as given.
        name: String,
        /// The printed columns.
        columns: Vec<String>,
    },
}

/// A parsed `--sort-by`: a JSONPath (it starts with `.` or `{`) or a column's name.
#[derive(Clone, Debug, PartialEq)]
pub enum SortBy {
    /// `.metadata.name`, `{.status.phase}`: a value of each object.
    Path(JsonPath),
    /// `AGE`, `status`, `pod ip`: a printed column, by its header (any case).
    Column(String),
}

/// What an object sorts by: objects without the value first, then numbers (numerically), then
/// everything else as text.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// The path selects nothing (or null), or the cell is empty or `<none>`.
    Missing,
    /// A JSON number, a numeric cell, or an age (`5m3s`) in seconds.
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
    /// Parses `.metadata.name`, `{.metadata.creationTimestamp}`, `.status.phase`, … or a column
    /// name (`AGE`).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let trimmed = text.trim();
        if trimmed.starts_with(['.', '{']) || trimmed.is_empty() {
            parse_path(text).map(SortBy::Path).map_err(Error::Path)
        } else {
            Ok(SortBy::Column(trimmed.to_owned()))
        }
    }

    /// The JSONPath, when this sorts by one.
    pub fn path(&self) -> Option<&JsonPath> {
        match self {
            SortBy::Path(path) => Some(path),
            SortBy::Column(_) => None,
        }
    }

    /// The key of one object (the first value the path selects); [`Key::Missing`] for a column.
    pub fn key(&self, object: &Value) -> Key {
        let Some(path) = self.path() else { return Key::Missing };
        match path.select(object).first() {
            None | Some(Value::Null) => Key::Missing,
            Some(Value::Number(n)) => n.as_f64().map_or(Key::Missing, Key::Number),
            Some(value) => Key::Text(template::text(value)),
        }
    }

    /// Sorts items by their keys, keeping the order of equal ones (clusters in order given).
    pub fn sort<T>(keyed: &mut [(Key, T)]) {
        keyed.sort_by(|(a, _), (b, _)| a.cmp(b));
    }

    /// Sorts table rows by the column this names (headers compared in any case, `-` and `_`
    /// as spaces); a JSONPath leaves them as they are.
    pub fn sort_rows(&self, headers: &[String], rows: &mut Vec<Vec<String>>) -> Result<(), Error> {
        let SortBy::Column(name) = self else { return Ok(()) };
        let index = column_index(name, headers)?;
        let mut keyed: Vec<(Key, Vec<String>)> = std::mem::take(rows)
            .into_iter()
            .map(|row| (row.get(index).map_or(Key::Missing, |cell| cell_key(cell)), row))
            .collect();
        SortBy::sort(&mut keyed);
        *rows = keyed.into_iter().map(|(_, row)| row).collect();
        Ok(())
    }
}

/// Where the column `name` is among `headers`.
fn column_index(name: &str, headers: &[String]) -> Result<usize, Error> {
    let normal = |s: &str| s.trim().replace(['-', '_'], " ").to_ascii_uppercase();
    let wanted = normal(name);
    headers
        .iter()
        .position(|h| normal(h) == wanted)
        .ok_or_else(|| Error::NoColumn { name: name.to_owned(), columns: headers.to_vec() })
}

/// What a printed cell sorts by: empty, `<none>` and `<unknown>` first, then numbers and ages
/// (`45s`, `5m3s`, `3d`, `2y4d`, in seconds) by value, then text.
pub fn cell_key(cell: &str) -> Key {
    let cell = cell.trim();
    if cell.is_empty() || cell == "<none>" || cell == "<unknown>" {
        return Key::Missing;
    }
    if let Some(n) = decimal(cell).or_else(|| age_seconds(cell)) {
        return Key::Number(n);
    }
    Key::Text(cell.to_owned())
}

/// `12`, `-3`, `0.25`: digits with at most one point (not `nan`, `1e5` or `10.0.0.1`).
fn decimal(text: &str) -> Option<f64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|&b| b == b'.').count() <= 1
        && digits.bytes().any(|b| b.is_ascii_digit());
    if plain { text.parse().ok() } else { None }
}

/// An age as kubectl prints one (`45s`, `5m3s`, `7h`, `3d4h`, `2y30d`) in seconds.
fn age_seconds(text: &str) -> Option<f64> {
    let mut total = 0f64;
    let mut number = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            'd' => 86_400.0,
            'y' => 365.0 * 86_400.0,
            _ => return None,
        };
        let n: f64 = std::mem::take(&mut number).parse().ok()?;
        total += n * unit;
    }
    number.is_empty().then_some(total)
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

    fn rows(cells: &[&str]) -> Vec<Vec<String>> {
        cells.iter().enumerate().map(|(i, c)| vec![format!("r{i}"), (*c).to_owned()]).collect()
    }

    fn sorted_by(column: &str, cells: &[&str]) -> Vec<String> {
        let headers = vec!["NAME".to_owned(), "POD IP".to_owned()];
        let mut rows = rows(cells);
        SortBy::parse(column).unwrap().sort_rows(&headers, &mut rows).unwrap();
        rows.into_iter().map(|r| r[1].clone()).collect()
    }

    #[test]
    fn a_column_sorts_ages_by_duration_numbers_by_value_and_missing_cells_first() {
        assert_eq!(
            sorted_by("pod ip", &["3d", "45s", "5m3s", "<none>", "2y30d", "7h", "119s"]),
            ["<none>", "45s", "119s", "5m3s", "7h", "3d", "2y30d"]
        );
        assert_eq!(sorted_by("POD-IP", &["10", "9", "-1", "0.5"]), ["-1", "0.5", "9", "10"]);
        // Text that only looks numeric stays text: after numbers, in text order.
        assert_eq!(
            sorted_by("pod_ip", &["10.0.0.2", "nan", "Running", "1e5", "10.0.0.10", "2"]),
            ["2", "10.0.0.10", "10.0.0.2", "1e5", "Running", "nan"]
        );
    }

    #[test]
    fn an_unknown_column_names_the_columns_there_are() {
        let mut rows = rows(&["a"]);
        let err = SortBy::parse("STATUS").unwrap().sort_rows(&["NAME".into(), "AGE".into()], &mut rows);
        assert_eq!(
            err.unwrap_err().to_string(),
            r#"--sort-by "STATUS": no such column; the columns are NAME, AGE"#
        );
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
