//! What to list (a [`Query`]), how it is ordered and paged ([`Order`], [`Cursor`], [`Page`]),
//! and a row of the `clusters` table.

use mc_types::Gvr;
use mc_types::selector::FieldOperator;
use mc_types::selector::FieldRequirement;
use mc_types::selector::FieldSelector;
use mc_types::selector::LabelSelector;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Error, RawObject, Result, Row, SqlFilter};

/// What to list. Every `None` means "no restriction".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    /// Only this resource type; `None` lists every type.
    pub gvr: Option<Gvr>,
    /// Only this cluster.
    pub cluster: Option<String>,
    /// Only this namespace (`""` selects cluster-scoped objects).
    pub namespace: Option<String>,
    /// Only objects with exactly this name.
    pub name: Option<String>,
    /// Only objects whose labels match.
    pub labels: Option<LabelSelector>,
    /// Only objects whose fields match. `metadata.name` and `metadata.namespace` are evaluated
    /// in SQL, any other field on the fetched objects.
    pub fields: Option<FieldSelector>,
    /// At most this many objects; `None` (or `Some(0)`) returns all.
    pub limit: Option<u32>,
    /// Continue after this position (from [`Page::next`]); only in [`Order::Name`].
    pub continue_after: Option<Cursor>,
    /// In which order rows come.
    pub order: Order,
    /// Only where the caller may read (`None`: everywhere).
    pub allowed: Option<Allowed>,
}

/// Where a caller may read a query's type: the clusters, each with every namespace or some.
/// A cluster not named is not read at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowed(pub Vec<(String, Namespaces)>);

/// The namespaces of one cluster a caller may read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Namespaces {
    /// Every namespace, and the cluster-scoped objects.
    All,
    /// These namespaces only (never empty in a useful [`Allowed`]).
    Some(Vec<String>),
}

impl Allowed {
    /// Whether an object of `cluster` in `namespace` (`""`: cluster-scoped) may be read.
    pub fn admits(&self, cluster: &str, namespace: &str) -> bool {
        self.0.iter().any(|(c, ns)| {
            c == cluster
                && match ns {
                    Namespaces::All => true,
                    Namespaces::Some(names) => names.iter().any(|n| n == namespace),
                }
        })
    }
}

impl Query {
    /// The filters SQL evaluates, and the field requirements it cannot (checked on the objects).
    pub(super) fn sql_filter(&self) -> (SqlFilter<'_>, Vec<&FieldRequirement>) {
        let mut columns = Vec::new();
        let mut after_fetch: Vec<&FieldRequirement> = Vec::new();
        for r in self.fields.iter().flat_map(|f| f.requirements()) {
            let equals = r.op == FieldOperator::Equals;
            match r.field.as_str() {
                "metadata.name" => columns.push(("name", equals, r.value.as_str())),
                "metadata.namespace" => columns.push(("namespace", equals, r.value.as_str())),
                _ => after_fetch.push(r),
            }
        }
        let filter = SqlFilter {
            gvr: self.gvr.as_ref(),
            cluster: self.cluster.as_deref(),
            namespace: self.namespace.as_deref(),
            name: self.name.as_deref(),
            columns,
            labels: self.labels.as_ref().filter(|l| !l.is_empty()),
            allowed: self.allowed.as_ref(),
        };
        (filter, after_fetch)
    }
}

/// The order of query results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// The stable order: cluster, namespace, name (then group, version, resource). Pages
    /// continue with [`Cursor`]s.
    #[default]
    Name,
    /// Newest object first (by creation time, then the stable order), as the Go project's server answered.
    /// One page only: no [`Page::next`].
    Newest,
}

/// One page of query results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    /// `(cluster, object)` in the stable order.
    pub items: Vec<(String, RawObject)>,
    /// Where the next page starts; `None` when there are no more matching objects.
    pub next: Option<Cursor>,
}

/// A position in the stable order: the sort key of the last row of a page.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Cursor {
    /// Cluster name.
    pub cluster: String,
    /// Namespace, `""` for cluster-scoped objects.
    pub namespace: String,
    /// Object name.
    pub name: String,
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Plural resource name.
    pub resource: String,
}

impl Cursor {
    /// The sort key a page row starts with (its first six columns, see `sql::select_rows`).
    pub(super) fn from_row(row: &mut Row) -> Cursor {
        Cursor {
            cluster: row.text(0),
            namespace: row.text(1),
            name: row.text(2),
            group: row.text(3),
            version: row.text(4),
            resource: row.text(5),
        }
    }

    /// The opaque, URL-safe `continue` token: lowercase hex of a JSON array.
    pub fn encode(&self) -> String {
        self.encode_parts(None)
    }

    /// [`Cursor::encode`] with `query` (what the query that reached this position selects, as its
    /// caller digests it) inside, so the position is taken only for that query
    /// ([`Cursor::decode_for`]).
    pub fn encode_for(&self, query: &str) -> String {
        self.encode_parts(Some(query))
    }

    pub(super) fn encode_parts(&self, query: Option<&str>) -> String {
        let mut parts = vec![
            &*self.cluster,
            &*self.namespace,
            &*self.name,
            &*self.group,
            &*self.version,
            &*self.resource,
        ];
        parts.extend(query);
        let json = serde_json::to_string(&parts).unwrap_or_default();
        json.bytes().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses a token made by [`Cursor::encode`] or [`Cursor::encode_for`]; anything else is
    /// [`Error::BadCursor`].
    pub fn decode(token: &str) -> Result<Cursor> {
        Self::decode_for(token).map(|(cursor, _)| cursor)
    }

    /// The position a token holds and the query it was made for, if any ([`Cursor::encode_for`]).
    pub fn decode_for(token: &str) -> Result<(Cursor, Option<String>)> {
        let bad = || {
            let shown: String = token.chars().take(64).filter(|c| !c.is_control()).collect();
            Error::BadCursor(if token.chars().count() > 64 { format!("{shown}…") } else { shown })
        };
        if token.is_empty() || !token.len().is_multiple_of(2) || token.len() > 8192 {
            return Err(bad());
        }
        let bytes = (0..token.len())
            .step_by(2)
            .map(|i| token.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(bad)?;
        let mut parts: Vec<String> = serde_json::from_slice(&bytes).map_err(|_| bad())?;
        let query = match parts.len() {
            6 => None,
            7 => parts.pop(),
            _ => return Err(bad()),
        };
        let [cluster, namespace, name, group, version, resource]: [String; 6] =
            parts.try_into().map_err(|_| bad())?;
        Ok((Cursor { cluster, namespace, name, group, version, resource }, query))
    }
}

/// One row of the `clusters` table.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterRow {
    /// Cluster name (primary key).
    pub name: String,
    /// Whether this is the master cluster.
    pub is_master: bool,
    /// `Healthy`, `NotReady`, …
    pub status: String,
    /// Kubernetes version, e.g. `v1.35.4`.
    pub version: String,
    /// Platform, e.g. `linux/amd64`.
    pub platform: String,
    /// API server host.
    pub host: String,
    /// When the row was last written, unix seconds (set by the caller).
    pub updated_at: i64,
    /// Anything else worth keeping (resource type counts, sync lag, …).
    pub info: Value,
}
