//! `-o custom-columns=HEADER:PATH,…`: one column per path, headers as given, `<none>` for a
//! path that selects nothing, several values joined by commas (as kubectl prints them).

use mc_types::jsonpath::JsonPath;
use serde_json::Value;

use super::template::{self, parse_path};

/// Why a custom-columns spec cannot be used (not retryable: fix the spec).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A column is not `HEADER:PATH`.
    #[error("custom-columns: unexpected column {column:?}, expected HEADER:JSONPATH")]
    Column {
        /// The column as given.
        column: String,
    },
    /// A column's path is outside the supported subset.
    #[error("custom-columns")]
    Path(#[source] template::Error),
}

/// Parsed columns.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomColumns {
    columns: Vec<(String, JsonPath)>,
}

impl CustomColumns {
    /// Parses `NAME:.metadata.name,CLUSTER:.metadata.annotations.mulitcluster\.practice\.com/cluster`.
    pub fn parse(spec: &str) -> Result<Self, Error> {
        let columns = split_columns(spec)
            .into_iter()
            .map(|column| {
                let bad = || Error::Column { column: column.to_owned() };
                let (header, path) = column.split_once(':').ok_or_else(bad)?;
                if header.trim().is_empty() || path.trim().is_empty() {
                    return Err(bad());
                }
                Ok((header.trim().to_owned(), parse_path(path).map_err(Error::Path)?))
            })
            .collect::<Result<_, _>>()?;
        Ok(CustomColumns { columns })
    }

    /// The headers, as given.
    pub fn headers(&self) -> Vec<String> {
        self.columns.iter().map(|(header, _)| header.clone()).collect()
    }

    /// One object's cells.
    pub fn row(&self, object: &Value) -> Vec<String> {
        self.columns
            .iter()
            .map(|(_, path)| {
                let values: Vec<String> =
                    path.select(object).into_iter().filter(|v| !v.is_null()).map(template::text).collect();
                if values.is_empty() { "<none>".to_owned() } else { values.join(",") }
            })
            .collect()
    }
}

/// The columns: split on commas outside `[…]` (a filter may hold one).
fn split_columns(spec: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in spec.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&spec[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&spec[start..]);
    parts
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_are_the_selected_values_or_none() {
        let columns = CustomColumns::parse(
            r"NAME:.metadata.name,APP:.metadata.labels.app\.kubernetes\.io/name,IMAGES:.spec.containers[*].image,X:{.x}",
        )
        .unwrap();
        assert_eq!(columns.headers(), ["NAME", "APP", "IMAGES", "X"]);
        let obj = json!({"metadata": {"name": "a", "labels": {"app.kubernetes.io/name": "web"}},
                         "spec": {"containers": [{"image": "i1"}, {"image": "i2"}]}});
        assert_eq!(columns.row(&obj), ["a", "web", "i1,i2", "<none>"]);
    }

    #[test]
    fn a_column_without_header_or_path_is_an_error() {
        for bad in ["NAME", "NAME:", ":.a", "NAME:.a,", "NAME:.a b"] {
            assert!(CustomColumns::parse(bad).is_err(), "{bad}");
        }
    }
}
