//! SQL text shared by the three backends: the statements each operation runs, built by a
//! [`Builder`] (see [`super::statement`]). Each backend module only binds the arguments and
//! decodes the columns.

use std::collections::BTreeMap;

use mc_types::Gvr;
use mc_types::selector::{LabelSelector, Operator, Requirement};

use super::Cursor;
use super::dialect::Dialect;
use super::resource_columns::{IDS_BY_UID_COLS, Prepared, RESOURCE_COLUMNS, RESOURCE_KEY, RESOURCE_UPDATED};
use super::statement::{Arg, Array, Builder, Col, Stmt};

/// Rows per multi-row `INSERT` and ids per `IN` list: far below every backend's parameter limit
/// (SQLite 32766, MySQL and PostgreSQL 65535) and large enough to amortise round trips.
pub(crate) const CHUNK: usize = 500;

/// How many of `n` rows left the next statement of a write takes, at most `most`. On SQLite:
/// whole statements first, then what is left in pieces of a power of two, largest first, down
/// to a rest of fewer than the dialect's `one_text_below` rows in one statement (201 rows: 128, 64, then 9
/// in one). Each size from 64 up then comes back with the same text and is kept prepared (see
/// [`kept`]), where a rest of any size would be parsed again each time (the label rows of every
/// list page; see docs/adr/0008-sqlite-bulk-writes.md). Elsewhere what is left goes in one
/// statement: PostgreSQL binds whole columns as arrays, one text for any number of rows; on
/// MySQL/MariaDB a transaction of more statements holds its locks longer, and writers of
/// different clusters at once (replicas sharing it) deadlock again and again (see
/// docs/adr/0011-mysql-first-lists-as-plain-inserts.md).
fn piece(d: Dialect, n: usize, most: usize) -> usize {
    match n {
        _ if !d.power_of_two_rests || n >= most || n < d.one_text_below => n.min(most),
        _ => 1 << n.ilog2(),
    }
}

/// Whether a write statement of `n` rows (of `most` at most) is one whose text comes back (see
/// [`piece`]), to keep prepared.
pub(crate) fn kept(n: usize, most: usize) -> bool {
    n == most || n.is_power_of_two()
}

/// `items` cut as [`piece`] does.
pub(crate) fn pieces<T>(d: Dialect, items: &[T], most: usize) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        let (piece, tail) = rest.split_at(piece(d, rest.len(), most));
        rest = tail;
        (!piece.is_empty()).then_some(piece)
    })
}

/// Objects per upsert statement and label rows per insert (a dialect that binds whole columns
/// as arrays has no parameter limit).
pub(crate) fn write_chunk(d: Dialect) -> (usize, usize) {
    (d.chunk, d.label_chunk)
}

/// Most bytes of object JSON in one upsert statement (one object more when a single one is
/// larger): a Kubernetes object can be 1.5 MiB, and 2,000 of them in one PostgreSQL array would
/// pass its 1 GiB limit for a value; MariaDB's packets are 16 MiB by default.
pub(crate) const CHUNK_BYTES: usize = 8 << 20;

/// `objects` in the chunks one upsert statement takes: at most [`write_chunk`] objects and
/// about [`CHUNK_BYTES`] of JSON each, cut as [`piece`] does.
pub(crate) fn write_chunks<'a, 'b>(
    d: Dialect,
    objects: &'a [Prepared<'b>],
) -> impl Iterator<Item = &'a [Prepared<'b>]> {
    let most = write_chunk(d).0;
    let mut rest = objects;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut n = 0;
        let mut bytes = 0;
        while n < rest.len().min(most) {
            bytes += rest[n].object.object.text().len();
            if n > 0 && bytes > CHUNK_BYTES {
                break;
            }
            n += 1;
        }
        let (chunk, tail) = rest.split_at(piece(d, n, most));
        rest = tail;
        Some(chunk)
    })
}

/// Multi-row upsert of `rows` (whose natural keys must be distinct) into `resources`, or the
/// dialect's own. Where the dialect has `RETURNING` (SQLite, PostgreSQL; see
/// [`upsert_returns_ids`]) it answers the [`upsert_cols`] of every row
/// written, which saves a query per chunk.
pub(crate) fn upsert_resources(d: Dialect, cluster: &str, rows: &[Prepared<'_>]) -> Stmt {
    if let Some(upsert) = d.upsert_resources {
        return upsert(cluster, rows);
    }
    let mut b = Builder::new(d, "INSERT INTO resources (");
    b.push(RESOURCE_COLUMNS).push(") VALUES ");
    push_resource_rows(&mut b, cluster, rows, None);
    b.push_upsert(RESOURCE_KEY, &RESOURCE_UPDATED);
    // Kept prepared: SQLite would parse every full chunk's text again and MariaDB prepare it
    // again, on the writer's path (see docs/adr/0008-sqlite-bulk-writes.md and
    // docs/adr/0011-mysql-first-lists-as-plain-inserts.md); chunks of the sizes `piece` cuts
    // come back with the same text.
    if kept(rows.len(), CHUNK) {
        b.reusable();
    }
    if upsert_returns_ids(d) {
        b.push(" RETURNING id, \"group\", version, resource, uid");
    }
    b.finish()
}

/// What [`upsert_resources`] answers: [`IDS_BY_UID_COLS`], and on PostgreSQL whether the row was
/// created by this statement (no label rows of it can exist yet).
pub(crate) fn upsert_cols(d: Dialect) -> &'static [Col] {
    const WITH_CREATED: [Col; 6] = [Col::Int, Col::Text, Col::Text, Col::Text, Col::Text, Col::Bool];
    if d.upsert_tells_created { &WITH_CREATED } else { &IDS_BY_UID_COLS }
}

/// Whether a chunk of `n` objects is upserted with its label rows in one text (SQLite's
/// `upsert_with_labels`): a watch batch's few changes, not a list's page.
pub(crate) fn upserts_with_labels(d: Dialect, n: usize) -> bool {
    d.upsert_with_labels.is_some() && n < d.one_text_below
}

/// The row with this id, as [`super::resource_columns::IDS_BY_UID_COLS`] with the cluster last: `id, group, version,
/// resource, uid, cluster`.
pub(crate) fn select_key_by_id(d: Dialect, id: i64) -> Stmt {
    let mut b =
        Builder::new(d, "SELECT id, \"group\", version, resource, uid, cluster FROM resources WHERE id = ");
    b.bind(id);
    b.finish()
}

/// What [`select_key_by_id`] answers.
pub(crate) const KEY_BY_ID_COLS: [Col; 6] = [Col::Int, Col::Text, Col::Text, Col::Text, Col::Text, Col::Text];

/// The `VALUES` rows of [`RESOURCE_COLUMNS`] (after an `id` from `first_id` on, when given).
pub(crate) fn push_resource_rows(
    b: &mut Builder,
    cluster: &str,
    rows: &[Prepared<'_>],
    first_id: Option<i64>,
) {
    for (i, p) in rows.iter().enumerate() {
        if i > 0 {
            b.push(", ");
        }
        push_resource_row(b, cluster, p, first_id.map(|first| first + i as i64));
    }
}

/// One `VALUES` row of [`RESOURCE_COLUMNS`] (after `id`, when given).
pub(crate) fn push_resource_row(b: &mut Builder, cluster: &str, p: &Prepared<'_>, id: Option<i64>) {
    let o = p.object;
    b.push("(");
    if let Some(id) = id {
        b.bind(id).push(", ");
    }
    b.bind(o.namespace.as_str());
    b.push(", ").bind(o.name.as_str());
    b.push(", ").bind(cluster);
    b.push(", ").bind(o.gvr.group.as_str());
    b.push(", ").bind(o.gvr.version.as_str());
    b.push(", ").bind(o.gvr.resource.as_str());
    b.push(", ").bind(o.kind.as_str());
    b.push(", ").bind(o.resource_version.as_str());
    b.push(", ").bind(Arg::OptText(o.owner_uid.clone()));
    b.push(", ").bind(o.uid.as_str());
    b.push(", ").bind(p.hash.as_str());
    b.push(", ").bind(o.object.text().to_string());
    b.push(", ").bind_unix_time(o.created_at);
    let (field, value) = p.count_columns();
    b.push(", CURRENT_TIMESTAMP, NULL, ").bind(field);
    b.push(", ").bind(Arg::OptText(value.map(str::to_string))).push(")");
}

/// The largest row id of `table` (0 when empty); answers one [`Col::Int`].
pub(crate) fn max_id(d: Dialect, table: &str) -> Stmt {
    let mut b = Builder::new(d, "SELECT COALESCE(MAX(id), 0) FROM ");
    b.push(table);
    b.finish()
}

/// Whether [`upsert_resources`] answers the ids itself (MySQL/MariaDB have no `RETURNING` on
/// `INSERT … ON DUPLICATE KEY UPDATE`, and keep the uid index that [`select_ids_by_uid`] needs;
/// SQLite and PostgreSQL dropped it).
pub(crate) fn upsert_returns_ids(d: Dialect) -> bool {
    d.upsert_returns_ids
}

/// Ids of the rows with these uids in a cluster: `id, group, version, resource, uid`.
pub(crate) fn select_ids_by_uid<'a>(
    d: Dialect,
    cluster: &str,
    uids: impl IntoIterator<Item = &'a str>,
) -> Stmt {
    let mut b =
        Builder::new(d, "SELECT id, \"group\", version, resource, uid FROM resources WHERE cluster = ");
    b.bind(cluster).push(" AND uid IN ").bind_list(uids);
    if kept(b.bound() - 1, CHUNK) {
        b.reusable();
    }
    b.finish()
}

/// `column IN (ids)`; on PostgreSQL `column = ANY(ids)`, the ids as one array parameter. A full
/// chunk's text comes back again, so SQLite and MySQL keep it prepared.
fn push_id_in(b: &mut Builder, column: &str, ids: &[i64]) {
    b.push(column);
    if b.syntax().binds_arrays {
        b.push(" = ANY(").bind(Array::Int(ids.to_vec())).push("::bigint[])");
    } else {
        b.push(" IN ").bind_list(ids.iter().copied());
        if ids.len() == CHUNK {
            b.reusable();
        }
    }
}

/// `DELETE FROM resource_labels WHERE resource_id IN (ids)`: the label rows of these objects.
pub(crate) fn delete_labels(d: Dialect, ids: &[i64]) -> Stmt {
    let mut b = Builder::new(d, "DELETE FROM resource_labels WHERE ");
    push_id_in(&mut b, "resource_id", ids);
    b.finish()
}

/// Labels per multi-row insert (3 parameters each).
pub(crate) const LABEL_CHUNK: usize = 2000;

/// Multi-row insert of `(resource_id, key, value)` label rows.
pub(crate) fn insert_labels(d: Dialect, rows: &[(i64, &str, &str)]) -> Stmt {
    if let Some(insert) = d.insert_labels {
        return insert(rows);
    }
    let mut b = Builder::new(d, "INSERT INTO resource_labels (resource_id, \"key\", \"value\") VALUES ");
    for (i, (id, k, v)) in rows.iter().enumerate() {
        if i > 0 {
            b.push(", ");
        }
        b.push("(").bind(*id).push(", ").bind(*k).push(", ").bind(*v).push(")");
    }
    if kept(rows.len(), LABEL_CHUNK) {
        b.reusable();
    }
    b.finish()
}

/// `DELETE FROM resources WHERE` the condition `condition` pushes, and the deleted objects'
/// label rows with them: SQLite and MySQL/MariaDB delete those through the foreign key's
/// `ON DELETE CASCADE`; PostgreSQL keeps no foreign key from a label row to its object (its
/// migration 0006), so the same statement deletes them there.
fn delete_objects_where(d: Dialect, condition: impl FnOnce(&mut Builder)) -> Stmt {
    let pg = !d.labels_cascade;
    let mut b = Builder::new(
        d,
        if pg { "WITH gone AS (DELETE FROM resources WHERE " } else { "DELETE FROM resources WHERE " },
    );
    condition(&mut b);
    if pg {
        b.push(" RETURNING id) DELETE FROM resource_labels WHERE resource_id IN (SELECT id FROM gone)");
    }
    b.finish()
}

/// Deletes one object by natural key, and by uid too when one is given, with its label rows.
pub(crate) fn delete_object(
    d: Dialect,
    cluster: &str,
    gvr: &Gvr,
    namespace: &str,
    name: &str,
    uid: &str,
) -> Stmt {
    delete_objects_where(d, |b| {
        b.push_gvr("", gvr);
        b.push(" AND cluster = ").bind(cluster);
        b.push(" AND namespace = ").bind(namespace);
        b.push(" AND name = ").bind(name);
        if !uid.is_empty() {
            b.push(" AND uid = ").bind(uid);
        }
    })
}

/// Deletes the objects with these ids, with their label rows.
pub(crate) fn delete_objects(d: Dialect, ids: &[i64]) -> Stmt {
    delete_objects_where(d, |b| push_id_in(b, "id", ids))
}

/// Deletes every object of a cluster, with their label rows.
pub(crate) fn delete_cluster_objects(d: Dialect, cluster: &str) -> Stmt {
    delete_objects_where(d, |b| {
        b.push("cluster = ").bind(cluster);
    })
}

/// How many rows one type has in one cluster; answers one [`Col::Int`].
pub(crate) fn count_gvr_rows(d: Dialect, cluster: &str, gvr: &Gvr) -> Stmt {
    let mut b = Builder::new(d, "SELECT COUNT(*) FROM resources WHERE ");
    b.push_gvr("", gvr).push(" AND cluster = ").bind(cluster);
    b.finish()
}

/// `id, uid, resource_version, namespace, name` of at most `limit` rows of one type in one
/// cluster, after `(namespace, name)` in that order: the unique key's index, a range per page.
pub(crate) fn select_keys_page(
    d: Dialect,
    cluster: &str,
    gvr: &Gvr,
    after: Option<&(String, String)>,
    limit: usize,
) -> Stmt {
    let mut b = Builder::new(d, "SELECT id, uid, resource_version, namespace, name FROM resources WHERE ");
    b.push_gvr("", gvr).push(" AND cluster = ").bind(cluster);
    if let Some((namespace, name)) = after {
        b.push(" AND ").push_after(&[("namespace", namespace.as_str()), ("name", name.as_str())]);
    }
    b.push(" ORDER BY namespace, name LIMIT ").bind(i64::try_from(limit).unwrap_or(i64::MAX));
    b.finish()
}

pub(crate) const KEYS_PAGE_COLS: [Col; 5] = [Col::Int, Col::Text, Col::OptText, Col::Text, Col::Text];

/// The columns a query returns, in order.
pub(crate) const QUERY_COLS: [Col; 7] =
    [Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::Text];

/// Filters of a query that SQL evaluates.
pub(crate) struct SqlFilter<'a> {
    pub(crate) gvr: Option<&'a Gvr>,
    pub(crate) cluster: Option<&'a str>,
    pub(crate) namespace: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
    /// `(column, equals, value)` from field selectors on `metadata.name`/`metadata.namespace`.
    pub(crate) columns: Vec<(&'static str, bool, &'a str)>,
    pub(crate) labels: Option<&'a LabelSelector>,
    /// Only where the caller may read.
    pub(crate) allowed: Option<&'a super::Allowed>,
}

/// One page of a query: rows after `after` in the stable order, at most `limit`.
pub(crate) fn select_page(
    d: Dialect,
    f: &SqlFilter<'_>,
    after: Option<&Cursor>,
    limit: Option<usize>,
    order: super::Order,
) -> Stmt {
    select_rows(d, f, after, limit, order, Payload::Object)
}

/// What a page row carries after its sort key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Payload {
    /// The object ([`QUERY_COLS`]).
    Object,
    /// Row id and hash, not the object ([`DIGEST_COLS`]).
    Digest,
}

/// The columns of a page of digests, in order.
pub(crate) const DIGEST_COLS: [Col; 8] =
    [Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::Int, Col::OptText];

/// `id, hash, object` of the rows with these ids.
pub(crate) fn select_by_id(d: Dialect, ids: &[i64]) -> Stmt {
    let mut b = Builder::new(d, "SELECT id, hash, ");
    b.push_json_column("object").push(" FROM resources WHERE id IN ").bind_list(ids.iter().copied());
    b.finish()
}

/// The columns of [`select_by_id`].
pub(crate) const BY_ID_COLS: [Col; 3] = [Col::Int, Col::OptText, Col::Text];

/// Whether SQLite may sort a page of this filter and order after finding its rows, with no index
/// giving their order: the newest-first order (no index on the creation time); a label that must
/// be present (the query then starts from the label index, `id IN (…)`); a namespace or name
/// across types (the order index leads with the cluster, and without statistics SQLite sorts).
/// Every other page is read along an index in its order: the natural key for one type (with or
/// without a cluster), the namespace index for a namespace, the order index across types.
pub(crate) fn sorts_rows(f: &SqlFilter<'_>, order: super::Order) -> bool {
    order == super::Order::Newest
        || f.labels.is_some_and(|labels| labels.requirements().iter().any(|r| label_condition(r).0))
        || (f.gvr.is_none() && (f.namespace.is_some() || f.name.is_some() || !f.columns.is_empty()))
}

/// A label requirement as SQL asks it: whether a label row must exist (else must not), and the
/// values it may have (any when empty).
fn label_condition(req: &Requirement) -> (bool, &[String]) {
    match req.op {
        Operator::Equals | Operator::In => (true, &req.values),
        Operator::Exists => (true, &[]),
        Operator::NotEquals | Operator::NotIn => (false, &req.values),
        Operator::DoesNotExist => (false, &[]),
    }
}

pub(crate) fn select_rows(
    d: Dialect,
    f: &SqlFilter<'_>,
    after: Option<&Cursor>,
    limit: Option<usize>,
    order: super::Order,
    payload: Payload,
) -> Stmt {
    let mut b =
        Builder::new(d, "SELECT r.cluster, r.namespace, r.name, r.\"group\", r.version, r.resource, ");
    match payload {
        Payload::Object => b.push_json_column("r.object"),
        Payload::Digest => b.push("r.id, r.hash"),
    };
    b.push(" FROM resources r WHERE 1 = 1");
    push_filter(&mut b, f);
    if let Some(c) = after {
        // With the type fixed the last three sort columns are constant: comparing the first three
        // lets the (group, version, resource, cluster, namespace, name) index drive the scan.
        let mut keys = vec![
            ("r.cluster", c.cluster.as_str()),
            ("r.namespace", c.namespace.as_str()),
            ("r.name", c.name.as_str()),
        ];
        if f.gvr.is_none() {
            keys.extend([
                ("r.\"group\"", c.group.as_str()),
                ("r.version", c.version.as_str()),
                ("r.resource", c.resource.as_str()),
            ]);
        }
        b.push(" AND ").push_after(&keys);
    }
    b.push(match order {
        super::Order::Name => " ORDER BY r.cluster, r.namespace, r.name, r.\"group\", r.version, r.resource",
        super::Order::Newest => {
            " ORDER BY r.create_at DESC, r.cluster, r.namespace, r.name, r.\"group\", r.version, r.resource"
        }
    });
    if let Some(limit) = limit {
        b.push(" LIMIT ").bind(i64::try_from(limit).unwrap_or(i64::MAX));
    }
    b.finish()
}

/// ` AND …` for each filter of `f`, on the table alias `r`.
pub(crate) fn push_filter(b: &mut Builder, f: &SqlFilter<'_>) {
    if let Some(gvr) = f.gvr {
        b.push(" AND ").push_gvr("r.", gvr);
    }
    if let Some(cluster) = f.cluster {
        b.push(" AND r.cluster = ").bind(cluster);
    }
    if let Some(namespace) = f.namespace {
        b.push(" AND r.namespace = ").bind(namespace);
    }
    if let Some(name) = f.name {
        b.push(" AND r.name = ").bind(name);
    }
    for (column, equals, value) in &f.columns {
        b.push(" AND r.").push(column).push(if *equals { " = " } else { " <> " }).bind(*value);
    }
    if let Some(allowed) = f.allowed {
        push_allowed(b, allowed);
    }
    if let Some(labels) = f.labels {
        for req in labels.requirements() {
            let (exists, values) = label_condition(req);
            // Positive requirements drive the query from the label index (`id IN (…)`); with
            // planner statistics the database starts there instead of scanning the type.
            if exists {
                b.push(" AND r.id IN (SELECT l.resource_id FROM resource_labels l WHERE l.\"key\" = ");
            } else {
                b.push(" AND NOT EXISTS (SELECT 1 FROM resource_labels l WHERE l.resource_id = r.id AND l.\"key\" = ");
            }
            b.bind(req.key.as_str());
            match values {
                [] => {}
                [one] => {
                    b.push(" AND l.\"value\" = ").bind(one.as_str());
                }
                many => {
                    b.push(" AND l.\"value\" IN ").bind_list(many.iter().map(String::as_str));
                }
            }
            b.push(")");
        }
    }
}

/// ` AND (r.cluster = ? OR (r.cluster = ? AND r.namespace IN (…)) …)`: the rows of the clusters
/// and namespaces a caller may read; no row when it may read none.
fn push_allowed(b: &mut Builder, allowed: &super::Allowed) {
    let mut scopes =
        allowed.0.iter().filter(|(_, ns)| !matches!(ns, super::Namespaces::Some(n) if n.is_empty()));
    let Some(first) = scopes.next() else {
        b.push(" AND 1 = 0");
        return;
    };
    b.push(" AND (");
    for (i, (cluster, namespaces)) in std::iter::once(first).chain(scopes).enumerate() {
        b.push(if i > 0 { " OR (r.cluster = " } else { "(r.cluster = " }).bind(cluster.as_str());
        if let super::Namespaces::Some(names) = namespaces {
            b.push(" AND r.namespace IN ").bind_list(names.iter().map(String::as_str));
        }
        b.push(")");
    }
    b.push(")");
}

/// Upsert of one row of the `clusters` table.
pub(crate) fn upsert_cluster(d: Dialect, c: &super::ClusterRow) -> Stmt {
    let mut b = Builder::new(
        d,
        "INSERT INTO clusters (name, is_master, status, version, platform, host, updated_at, info) VALUES (",
    );
    b.bind(c.name.as_str()).push(", ").bind(c.is_master);
    b.push(", ").bind(c.status.as_str()).push(", ").bind(c.version.as_str());
    b.push(", ").bind(c.platform.as_str()).push(", ").bind(c.host.as_str());
    b.push(", ").bind(c.updated_at).push(", ").bind_json(c.info.to_string()).push(")");
    b.push_upsert("name", &["is_master", "status", "version", "platform", "host", "updated_at", "info"]);
    b.finish()
}

pub(crate) fn select_clusters(d: Dialect) -> Stmt {
    let mut b = Builder::new(d, "SELECT name, is_master, status, version, platform, host, updated_at, ");
    b.push_json_column("info").push(" FROM clusters ORDER BY name");
    b.finish()
}

pub(crate) const CLUSTER_COLS: [Col; 8] =
    [Col::Text, Col::Bool, Col::Text, Col::Text, Col::Text, Col::Text, Col::Int, Col::Text];

/// The digest of a stored object's text: 64-bit XXH3, stable across releases (unlike
/// `DefaultHasher`). It only tells whether a row's text changed (cached table rows are kept by
/// id and digest), so a row an earlier release wrote with FNV-1a has its table row made once
/// more, and nothing else.
pub(crate) fn digest(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Label rows of the given objects, keyed by their row ids.
pub(crate) fn label_rows<'a>(
    objects: impl IntoIterator<Item = (i64, &'a BTreeMap<String, String>)>,
) -> Vec<(i64, &'a str, &'a str)> {
    objects
        .into_iter()
        .flat_map(|(id, labels)| labels.iter().map(move |(k, v)| (id, k.as_str(), v.as_str())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::backend::{mysql, postgres, sqlite};
    use crate::store::resource_columns::hex;

    use crate::store::StoredObject;

    const SQLITE: Dialect = &sqlite::DIALECT;
    const MYSQL: Dialect = &mysql::DIALECT;
    const POSTGRES: Dialect = &postgres::DIALECT;

    #[test]
    fn chunks_hold_a_bounded_number_of_objects_and_bytes() {
        let object = |kb: usize| {
            let json = serde_json::json!({"metadata": {"name": "n", "uid": "u"}, "data": {"x": "y".repeat(kb << 10)}});
            StoredObject::from_json(Gvr::new("", "v1", "configmaps"), "ConfigMap", json).expect("valid")
        };
        let sizes = |objects: &[StoredObject], d| {
            let prepared: Vec<Prepared<'_>> = objects.iter().map(Prepared::new).collect();
            write_chunks(d, &prepared).map(<[_]>::len).collect::<Vec<_>>()
        };
        let small: Vec<StoredObject> = (0..1201).map(|_| object(1)).collect();
        assert_eq!(sizes(&small, SQLITE), [500, 500, 128, 64, 9]);
        assert_eq!(sizes(&small, MYSQL), [500, 500, 201]);
        assert_eq!(sizes(&small, POSTGRES), [1201]);
        // 1.5 MiB each: 5 fit in 8 MiB; one larger than the limit still goes, alone.
        let large: Vec<StoredObject> = (0..12).map(|_| object(1536)).collect();
        assert_eq!(sizes(&large, POSTGRES), [5, 5, 2]);
        let huge = [object(9 << 10), object(1)];
        assert_eq!(sizes(&huge, MYSQL), [1, 1]);
        assert_eq!(sizes(&[], POSTGRES), Vec::<usize>::new());
    }

    #[test]
    fn every_write_statement_comes_back_with_its_text_and_is_kept_prepared() {
        let mut sizes = std::collections::BTreeSet::new();
        for n in 0..=2 * LABEL_CHUNK + 3 {
            let items: Vec<usize> = (0..n).collect();
            let cut: Vec<usize> = pieces(SQLITE, &items, LABEL_CHUNK).map(<[_]>::len).collect();
            assert_eq!(cut.iter().sum::<usize>(), n, "{cut:?}");
            assert!(cut.windows(2).all(|w| w[0] >= w[1] && (w[0] == LABEL_CHUNK || w[0] > w[1])), "{cut:?}");
            // A watch batch's few rows: one statement.
            if n > 0 && n < SQLITE.one_text_below {
                assert_eq!(cut, [n]);
            }
            // Only a last rest of fewer than 64 rows has a text that may not come back.
            let (last, kept_ones) = cut.split_last().map_or((0, &[][..]), |(l, k)| (*l, k));
            assert!(kept_ones.iter().all(|&k| kept(k, LABEL_CHUNK)), "{n}: {cut:?}");
            assert!(kept(last, LABEL_CHUNK) || last < SQLITE.one_text_below, "{n}: {cut:?}");
            sizes.extend(cut.into_iter().filter(|&k| k >= SQLITE.one_text_below));
        }
        // 2,000 and every power of two from 64 to 1,024: 6 texts of 64 rows or more.
        assert_eq!(sizes.len(), 6, "{sizes:?}");
        let items = [0u8; 4001];
        for d in [POSTGRES, MYSQL] {
            let cut: Vec<usize> = pieces(d, &items, 2000).map(<[_]>::len).collect();
            assert_eq!(cut, [2000, 2000, 1], "{d:?}: the rest in one statement");
        }
        // The statements themselves: 1,000 label rows (a list page's, 1 label each), in 5 pieces.
        let labels: Vec<(i64, &str, &str)> = (0..1000).map(|i| (i, "k", "v")).collect();
        let statements: Vec<Stmt> =
            pieces(SQLITE, &labels, LABEL_CHUNK).map(|rows| insert_labels(SQLITE, rows)).collect();
        let rows: Vec<usize> = statements.iter().map(|s| s.args.len() / 3).collect();
        assert_eq!(rows, [512, 256, 128, 64, 40]);
        assert!(statements[..4].iter().all(Stmt::persistent));
        let objects: Vec<StoredObject> = (0..300)
            .map(|i| {
                let json = serde_json::json!({"metadata": {"name": format!("n{i}"), "uid": format!("u{i}")}});
                StoredObject::from_json(Gvr::new("", "v1", "configmaps"), "ConfigMap", json).expect("valid")
            })
            .collect();
        let prepared: Vec<Prepared<'_>> = objects.iter().map(Prepared::new).collect();
        let chunks: Vec<_> = write_chunks(SQLITE, &prepared).collect();
        assert_eq!(chunks.iter().map(|c| c.len()).collect::<Vec<_>>(), [256, 44]);
        for chunk in &chunks[..1] {
            assert!(upsert_resources(SQLITE, "c", chunk).persistent(), "{}", chunk.len());
            let crate::store::dialect::NewRows::IdsAboveLargest(insert_new_resources) =
                sqlite::DIALECT.new_rows
            else {
                unreachable!()
            };
            assert!(insert_new_resources("c", chunk, 1).persistent(), "{}", chunk.len());
        }
    }

    #[test]
    fn the_digest_is_xxh3_64() {
        // Reference values from the Python binding of the C library (`xxhash.xxh3_64_hexdigest`).
        assert_eq!(hex(digest(b"")), "2d06800538d394c2");
        assert_eq!(hex(digest(b"a")), "e6c632b61e964e1f");
        assert_eq!(hex(digest(b"foobar")), "d78fda63144c5c84");
        let long: Vec<u8> = (0..=255u8).cycle().take(2304).collect();
        assert_eq!(hex(digest(&long)), "5703bd07d242ea32");
    }

    #[test]
    fn placeholders_and_quoting_follow_the_dialect() {
        let gvr = Gvr::new("apps", "v1", "deployments");
        let sqlite = delete_object(SQLITE, "c", &gvr, "ns", "n", "u");
        assert_eq!(
            sqlite.sql,
            "DELETE FROM resources WHERE \"group\" = ? AND version = ? AND resource = ? AND cluster = ? \
             AND namespace = ? AND name = ? AND uid = ?"
        );
        assert_eq!(sqlite.args.len(), 7);
        let pg = delete_object(POSTGRES, "c", &gvr, "ns", "n", "");
        assert!(
            pg.sql.starts_with("WITH gone AS (DELETE FROM resources WHERE \"group\" = $1 AND version = $2"),
            "{}",
            pg.sql
        );
        assert!(pg.sql.contains("name = $6 RETURNING id) DELETE FROM resource_labels "), "{}", pg.sql);
        let my = delete_object(MYSQL, "c", &gvr, "ns", "n", "");
        assert!(my.sql.contains("`group` = ?"), "{}", my.sql);
    }

    #[test]
    fn label_requirements_become_exists_subqueries() {
        let sel = LabelSelector::parse("a=1,b!=2,c in (x,y),d notin (z),e,!f").unwrap_or_default();
        let f = SqlFilter {
            gvr: None,
            cluster: None,
            namespace: None,
            name: None,
            columns: vec![],
            labels: Some(&sel),
            allowed: None,
        };
        let stmt = select_page(SQLITE, &f, None, Some(10), super::super::Order::Name);
        assert_eq!(stmt.sql.matches(" AND r.id IN (SELECT").count(), 3, "{}", stmt.sql);
        assert_eq!(stmt.sql.matches(" AND NOT EXISTS").count(), 3, "{}", stmt.sql);
        assert!(stmt.sql.contains("l.\"value\" IN (?, ?)"), "{}", stmt.sql);
        // 6 keys + 1 + 1 + 2 + 1 values + limit
        assert_eq!(stmt.args.len(), 12);
    }

    #[test]
    fn mariadb_gets_the_cursor_comparison_spelled_out() {
        let gvr = Gvr::new("", "v1", "configmaps");
        let f = SqlFilter {
            gvr: Some(&gvr),
            cluster: None,
            namespace: None,
            name: None,
            columns: vec![],
            labels: None,
            allowed: None,
        };
        let cursor = Cursor {
            cluster: "c".into(),
            namespace: "n".into(),
            name: "x".into(),
            group: String::new(),
            version: "v1".into(),
            resource: "configmaps".into(),
        };
        let mysql = select_page(MYSQL, &f, Some(&cursor), Some(10), super::super::Order::Name);
        assert!(
            mysql.sql.contains(
                "((r.cluster > ?) OR (r.cluster = ? AND r.namespace > ?) OR (r.cluster = ? AND r.namespace = ? AND r.name > ?))"
            ),
            "{}",
            mysql.sql
        );
        let sqlite = select_page(SQLITE, &f, Some(&cursor), Some(10), super::super::Order::Name);
        assert!(sqlite.sql.contains("(r.cluster, r.namespace, r.name) > (?, ?, ?)"), "{}", sqlite.sql);
        // 3 type + 6 cursor + limit on MariaDB; 3 + 3 + 1 elsewhere.
        assert_eq!((mysql.args.len(), sqlite.args.len()), (10, 7));
    }
}
