//! SQLite: a first list's objects inserted as new rows with ids chosen above the table's
//! largest (see docs/adr/0008-sqlite-bulk-writes.md).

use mc_types::Gvr;

use crate::store::resource_columns::{Prepared, RESOURCE_COLUMNS};
use crate::store::sql::{CHUNK, kept, push_resource_rows};
use crate::store::statement::{Arg, Builder, Stmt};

/// Inserts `rows` with the ids `first_id`, `first_id + 1`, … (above every id of the
/// table), skipping a row whose natural key is already stored. When every row is inserted, the
/// writer knows their ids without asking and they have no label rows yet (see
/// `store::write_objects`).
///
/// A chunk of one type (a list's page) binds its cluster, type and kind once, for every row:
/// 5 texts fewer to copy per row, here and into SQLite.
pub(crate) fn insert_new_resources(cluster: &str, rows: &[Prepared<'_>], first_id: i64) -> Stmt {
    let mut b = Builder::new(&super::DIALECT, "INSERT INTO resources (id, ");
    b.push(RESOURCE_COLUMNS).push(") ");
    match rows.first().map(|p| p.object) {
        Some(o) if rows.iter().all(|p| p.object.gvr == o.gvr && p.object.kind == o.kind) => {
            push_typed_resource_rows(&mut b, cluster, &o.gvr, &o.kind, rows, first_id);
        }
        _ => {
            b.push("VALUES ");
            push_resource_rows(&mut b, cluster, rows, Some(first_id));
        }
    }
    b.push(" ON CONFLICT DO NOTHING");
    if kept(rows.len(), CHUNK) {
        b.reusable();
    }
    b.finish()
}

/// SQLite: a `SELECT` of the `id` and [`RESOURCE_COLUMNS`] of rows of one type, its cluster and
/// type bound once. (Numbered placeholders, `?1` in every row, would do it too, but sqlx asks
/// SQLite for every placeholder's name at every bind, which scans the list of names: that made
/// a chunk of 500 rows quadratic.) The `WHERE` tells SQLite's parser that the `ON CONFLICT`
/// which follows is the insert's.
fn push_typed_resource_rows(
    b: &mut Builder,
    cluster: &str,
    gvr: &Gvr,
    kind: &str,
    rows: &[Prepared<'_>],
    first_id: i64,
) {
    b.push(
        "SELECT v.column1, v.column2, v.column3, t.c, t.g, t.v, t.r, t.k, v.column4, v.column5, \
         v.column6, v.column7, v.column8, COALESCE(datetime(v.column9, 'unixepoch'), CURRENT_TIMESTAMP), \
         CURRENT_TIMESTAMP, NULL, v.column10, v.column11 FROM (SELECT ",
    );
    b.bind(cluster).push(" AS c, ").bind(gvr.group.as_str()).push(" AS g, ");
    b.bind(gvr.version.as_str()).push(" AS v, ").bind(gvr.resource.as_str()).push(" AS r, ");
    b.bind(kind).push(" AS k) AS t, (VALUES ");
    for (i, p) in rows.iter().enumerate() {
        let o = p.object;
        b.push(if i == 0 { "(" } else { ", (" });
        b.bind(first_id + i as i64).push(", ").bind(o.namespace.as_str());
        b.push(", ").bind(o.name.as_str()).push(", ").bind(o.resource_version.as_str());
        b.push(", ").bind(Arg::OptText(o.owner_uid.clone())).push(", ").bind(o.uid.as_str());
        b.push(", ").bind(p.hash.as_str()).push(", ").bind(o.object.text().to_string());
        b.push(", ").bind(Arg::OptInt(o.created_at));
        let (field, value) = p.count_columns();
        b.push(", ").bind(field).push(", ").bind(Arg::OptText(value.map(str::to_string))).push(")");
    }
    b.push(") AS v WHERE true");
}
