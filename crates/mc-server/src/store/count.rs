//! How many objects of a query have each combination of some keys' values: the cluster, the
//! namespace and fields of the objects ([`FieldPath`]), grouped in SQL (`GROUP BY`) with the
//! query's filters; or, for keys and filters SQL cannot evaluate (a printed column, a field
//! selector on another field than the name or namespace), counted here over the objects read a
//! page at a time ([`Store::count_each`]).
//!
//! A field is read as JSON by each backend (SQLite `->`, MySQL/MariaDB `JSON_EXTRACT`,
//! PostgreSQL `#>` on the text cast to `json`), its path bound as a parameter, and decoded
//! here: a string is its text, `null` or nothing [`NONE`], any other value its JSON text.
//!
//! A field its type keeps for counts (`count.indexedFields`, [`super::count_index`]) is read
//! from the row's `count_value` instead, an index-only scan, when every row of the type holds
//! that path; any other field is read from every object of the type (see
//! docs/adr/0028-indexed-count-fields.md and docs/adr/0025-counts-grouped-in-sql.md).

use std::collections::BTreeMap;

use mc_types::count::{FieldPath, NONE, value_text};
use serde_json::Value;

use super::{Col, Error, Order, Query, RawObject, Result, SqlFilter, Store, sql, statement};

/// Most combinations one count answers; more is [`Error::TooManyGroups`] (count by fewer or
/// coarser keys, or narrow the query).
pub const MAX_GROUPS: usize = 10_000;

/// Objects read at once by [`Store::count_each`].
const SCAN_PAGE: u32 = 1000;

/// One key objects are grouped by in the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKey {
    /// The cluster.
    Cluster,
    /// The namespace; [`NONE`] for cluster-scoped objects.
    Namespace,
    /// A field of the object.
    Field(FieldPath),
}

impl GroupKey {
    /// This key's value for an object of `cluster`, computed here (as SQL computes it).
    pub fn value_of(&self, cluster: &str, object: &Value) -> String {
        match self {
            GroupKey::Cluster => cluster.to_string(),
            GroupKey::Namespace => {
                namespace_text(object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or(""))
            }
            GroupKey::Field(path) => value_text(path.lookup(object)),
        }
    }

    /// The value of a cell SQL answered for this key.
    fn decode(&self, cell: Option<String>) -> Result<String> {
        match (self, cell) {
            (GroupKey::Cluster, cell) => Ok(cell.unwrap_or_default()),
            (GroupKey::Namespace, cell) => Ok(namespace_text(cell.as_deref().unwrap_or(""))),
            (GroupKey::Field(_), None) => Ok(NONE.to_string()),
            (GroupKey::Field(path), Some(json)) => {
                let value: Value = serde_json::from_str(&json)
                    .map_err(|e| Error::Corrupt(format!("the value at {path} is not JSON: {e}")))?;
                Ok(value_text(Some(&value)))
            }
        }
    }
}

fn namespace_text(namespace: &str) -> String {
    if namespace.is_empty() { NONE.to_string() } else { namespace.to_string() }
}

/// How many objects have one combination of values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Count {
    /// The keys' values, in the keys' order.
    pub values: Vec<String>,
    /// How many objects have them.
    pub count: u64,
}

/// Counts gathered by their values, at most `most` of them.
struct Counts {
    counts: BTreeMap<Vec<String>, u64>,
    most: usize,
}

impl Counts {
    fn new(most: usize) -> Self {
        Counts { counts: BTreeMap::new(), most }
    }

    fn add(&mut self, values: Vec<String>, n: u64) -> Result<()> {
        *self.counts.entry(values).or_default() += n;
        if self.counts.len() > self.most {
            return Err(Error::TooManyGroups(self.most));
        }
        Ok(())
    }

    /// Sorted by the values.
    fn finish(self) -> Vec<Count> {
        self.counts.into_iter().map(|(values, count)| Count { values, count }).collect()
    }
}

/// How many objects one cluster has of one type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeCount {
    /// The cluster.
    pub cluster: String,
    /// The type.
    pub gvr: mc_types::Gvr,
    /// How many objects.
    pub count: u64,
}

/// `SELECT k0, …, COUNT(*) FROM (SELECT <key> AS k0, … FROM resources r WHERE …) t GROUP BY k0, …`:
/// each field read once per row in the inner select, its JSON text grouped by the outer one;
/// with `indexed`, the path every field key of `by` is, read from `count_value` instead.
/// One more group than `most` tells that there are too many.
fn count_statement(
    d: super::dialect::Dialect,
    filter: &SqlFilter<'_>,
    by: &[GroupKey],
    most: usize,
    indexed: Option<&str>,
) -> statement::Stmt {
    let columns: Vec<String> = (0..by.len()).map(|i| format!("k{i}")).collect();
    let mut b = statement::Builder::new(d, "SELECT ");
    for c in &columns {
        b.push("t.").push(c).push(", ");
    }
    b.push("COUNT(*) FROM (SELECT ");
    for (i, key) in by.iter().enumerate() {
        match key {
            GroupKey::Cluster => b.push("r.cluster"),
            GroupKey::Namespace => b.push("r.namespace"),
            GroupKey::Field(_) if indexed.is_some() => b.push("r.count_value"),
            GroupKey::Field(path) => b.push_json_at("r.object", path),
        };
        b.push(" AS ").push(&columns[i]).push(", ");
    }
    b.push("1 AS one FROM resources r WHERE 1 = 1");
    sql::push_filter(&mut b, filter);
    if let Some(path) = indexed {
        b.push(" AND r.count_field = ").bind(path);
    }
    b.push(") t");
    if !by.is_empty() {
        let grouped: Vec<String> = columns.iter().map(|c| format!("t.{c}")).collect();
        b.push(" GROUP BY ").push(&grouped.join(", "));
    }
    b.push(" LIMIT ").bind(i64::try_from(most.saturating_add(1)).unwrap_or(i64::MAX));
    b.finish()
}

impl Store {
    /// How many objects of `q` (its filters and `allowed`; not its limit, cursor or order) have
    /// each combination of the values of `by`, sorted by the values. Grouped in SQL; with a field
    /// selector SQL cannot evaluate, counted over the objects as [`Store::count_each`] does.
    pub async fn count_by(&self, q: &Query, by: &[GroupKey]) -> Result<Vec<Count>> {
        self.count_by_at_most(q, by, MAX_GROUPS).await
    }

    /// [`Store::count_by`] answering at most `most` combinations (more is
    /// [`Error::TooManyGroups`]).
    pub async fn count_by_at_most(&self, q: &Query, by: &[GroupKey], most: usize) -> Result<Vec<Count>> {
        let (filter, after_fetch) = q.sql_filter();
        if !after_fetch.is_empty() {
            return self
                .count_objects(q, most, |cluster, object| {
                    let value = object.value();
                    by.iter().map(|k| k.value_of(cluster, &value)).collect()
                })
                .await;
        }
        let mut tx = self.begin(false).await?;
        let indexed = match (&q.gvr, indexed_path(by)) {
            (Some(gvr), Some(path)) => kept_by_every_row(&mut tx, gvr, &path).await?.then_some(path),
            _ => None,
        };
        let mut cols = vec![Col::OptText; by.len()];
        cols.push(Col::Int);
        let stmt = count_statement(tx.dialect, &filter, by, most, indexed.as_deref());
        let rows = tx.fetch(stmt, &cols).await?;
        tx.commit().await?;
        // Values SQL told apart may be one here (a string escaped two ways in PostgreSQL's text).
        let mut counts = Counts::new(most);
        for mut row in rows {
            let n = u64::try_from(row.int(by.len())).unwrap_or(0);
            let values =
                by.iter().enumerate().map(|(i, k)| k.decode(row.opt_text(i))).collect::<Result<_>>()?;
            counts.add(values, n)?;
        }
        Ok(counts.finish())
    }

    /// Whether a count of `gvr` by `path` reads the field kept for counts (every row of the type
    /// keeps that path; see [`super::count_index`]) rather than every object.
    pub async fn counts_read_kept_field(&self, gvr: &mc_types::Gvr, path: &FieldPath) -> Result<bool> {
        let mut tx = self.begin(false).await?;
        let kept = kept_by_every_row(&mut tx, gvr, &path.to_string()).await?;
        tx.commit().await?;
        Ok(kept)
    }

    /// How many objects of `q` (as [`Store::count_by`]) have each combination of the values
    /// `keys` computes from an object and its cluster: every object is read, [`SCAN_PAGE`] at a
    /// time, each page in a transaction of its own.
    pub async fn count_each(
        &self,
        q: &Query,
        keys: impl FnMut(&str, &RawObject) -> Vec<String>,
    ) -> Result<Vec<Count>> {
        self.count_objects(q, MAX_GROUPS, keys).await
    }

    async fn count_objects(
        &self,
        q: &Query,
        most: usize,
        mut keys: impl FnMut(&str, &RawObject) -> Vec<String>,
    ) -> Result<Vec<Count>> {
        let mut counts = Counts::new(most);
        let mut query =
            Query { limit: Some(SCAN_PAGE), continue_after: None, order: Order::Name, ..q.clone() };
        loop {
            let page = self.query(&query).await?;
            for (cluster, object) in &page.items {
                counts.add(keys(cluster, object), 1)?;
            }
            match page.next {
                Some(next) => query.continue_after = Some(next),
                None => return Ok(counts.finish()),
            }
        }
    }
}

/// The path of the field keys of `by`, as `count_field` holds it, when there is at least one
/// and they are all the same path (one field per type is kept for counts).
fn indexed_path(by: &[GroupKey]) -> Option<String> {
    let mut paths = by.iter().filter_map(|k| match k {
        GroupKey::Field(path) => Some(path),
        _ => None,
    });
    let first = paths.next()?;
    paths.all(|p| p == first).then(|| first.to_string())
}

/// Whether every row of `gvr` keeps the field `path` for counts: no row has another
/// `count_field` (two range seeks in `ix_resources_count`; MySQL/MariaDB, which have no such
/// index, read the type's rows).
async fn kept_by_every_row(tx: &mut super::Tx, gvr: &mc_types::Gvr, path: &str) -> Result<bool> {
    let mut b = statement::Builder::new(tx.dialect, "SELECT ");
    for (i, op) in [" < ", " > "].into_iter().enumerate() {
        b.push(if i == 0 { "NOT (EXISTS (" } else { " OR EXISTS (" });
        b.push("SELECT 1 FROM resources WHERE \"group\" = ").bind(gvr.group.as_str());
        b.push(" AND version = ").bind(gvr.version.as_str());
        b.push(" AND resource = ").bind(gvr.resource.as_str());
        b.push(" AND count_field").push(op).bind(path).push(")");
    }
    b.push(")");
    let rows = tx.fetch(b.finish(), &[Col::Bool]).await?;
    Ok(rows.first().is_some_and(|r| r.bool(0)))
}

impl Store {
    /// How many objects each cluster has of each type, by type, then cluster.
    pub async fn count_types(&self) -> Result<Vec<TypeCount>> {
        let mut tx = self.begin(false).await?;
        // In the order of the type index, which holds every column asked.
        let stmt = statement::Builder::new(
            tx.dialect,
            "SELECT \"group\", version, resource, cluster, COUNT(*) FROM resources \
             GROUP BY \"group\", version, resource, cluster ORDER BY \"group\", version, resource, cluster",
        )
        .finish();
        let rows = tx.fetch(stmt, &[Col::Text, Col::Text, Col::Text, Col::Text, Col::Int]).await?;
        tx.commit().await?;
        Ok(rows
            .into_iter()
            .map(|mut r| TypeCount {
                gvr: mc_types::Gvr::new(r.text(0), r.text(1), r.text(2)),
                cluster: r.text(3),
                count: u64::try_from(r.int(4)).unwrap_or(0),
            })
            .collect())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use mc_types::Gvr;

    use super::*;
    use crate::store::backend::{mysql, postgres, sqlite};

    fn by() -> Vec<GroupKey> {
        vec![
            GroupKey::Cluster,
            GroupKey::Field(FieldPath::parse("metadata.labels[\"app.kubernetes.io/name\"]").unwrap()),
        ]
    }

    #[test]
    fn paths_are_bound_never_written_into_the_statement() {
        let gvr = Gvr::new("", "v1", "pods");
        let filter = SqlFilter {
            gvr: Some(&gvr),
            cluster: None,
            namespace: None,
            name: None,
            columns: vec![],
            labels: None,
            allowed: None,
        };
        let s = count_statement(&sqlite::DIALECT, &filter, &by(), MAX_GROUPS, None);
        assert_eq!(
            s.sql,
            "SELECT t.k0, t.k1, COUNT(*) FROM (SELECT r.cluster AS k0, r.object -> ? AS k1, 1 AS one \
             FROM resources r WHERE 1 = 1 AND r.\"group\" = ? AND r.version = ? AND r.resource = ?) t \
             GROUP BY t.k0, t.k1 LIMIT ?"
        );
        assert_eq!(
            s.args[0],
            statement::Arg::Text("$.\"metadata\".\"labels\".\"app.kubernetes.io/name\"".into())
        );
        let m = count_statement(&mysql::DIALECT, &filter, &by(), MAX_GROUPS, None);
        assert!(m.sql.contains("CAST(JSON_EXTRACT(r.object, ?) AS CHAR) AS k1"), "{}", m.sql);
        let p = count_statement(&postgres::DIALECT, &filter, &by(), MAX_GROUPS, None);
        assert!(p.sql.contains("CAST(CAST(r.object AS json) #> $1::text[] AS TEXT) AS k1"), "{}", p.sql);
        assert_eq!(
            p.args[0],
            statement::Arg::Array(statement::Array::Text(vec![
                "metadata".into(),
                "labels".into(),
                "app.kubernetes.io/name".into()
            ]))
        );
    }

    #[test]
    fn sql_cells_decode_as_the_objects_do() {
        let phase = GroupKey::Field(FieldPath::parse("status.phase").unwrap());
        assert_eq!(phase.decode(Some("\"Running\"".into())).unwrap(), "Running");
        assert_eq!(phase.decode(Some("\"a\\u00e9\"".into())).unwrap(), "aé");
        assert_eq!(phase.decode(Some("null".into())).unwrap(), NONE);
        assert_eq!(phase.decode(None).unwrap(), NONE);
        assert_eq!(phase.decode(Some("true".into())).unwrap(), "true");
        assert_eq!(phase.decode(Some("{\"a\": 1}".into())).unwrap(), "{\"a\":1}");
        assert_eq!(GroupKey::Namespace.decode(Some(String::new())).unwrap(), NONE);
        let pod = serde_json::json!({"metadata": {"namespace": "a"}, "status": {"phase": "Running"}});
        assert_eq!(phase.value_of("c", &pod), "Running");
        assert_eq!(GroupKey::Namespace.value_of("c", &pod), "a");
        assert_eq!(GroupKey::Namespace.value_of("c", &serde_json::json!({})), NONE);
    }

    #[test]
    fn more_groups_than_the_bound_is_an_error() {
        let mut counts = Counts::new(MAX_GROUPS);
        for i in 0..MAX_GROUPS {
            counts.add(vec![i.to_string()], 1).unwrap();
        }
        counts.add(vec!["0".into()], 1).unwrap();
        assert!(matches!(counts.add(vec!["x".into()], 1), Err(Error::TooManyGroups(MAX_GROUPS))));
    }
}
