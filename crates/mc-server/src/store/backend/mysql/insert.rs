//! MySQL/MariaDB: a first list's objects as plain inserts, whose ids InnoDB answers (see
//! docs/adr/0011-mysql-first-lists-as-plain-inserts.md).

use crate::store::resource_columns::{Prepared, RESOURCE_COLUMNS};
use crate::store::sql::{CHUNK, kept, push_resource_rows};
use crate::store::statement::{Builder, Stmt};

/// Plain multi-row insert of `rows` as new rows, without `ON DUPLICATE KEY
/// UPDATE`. InnoDB gives the rows of such an insert consecutive ids (with
/// `innodb_autoinc_lock_mode` 0 or 1, MariaDB's default) and tells the first: the writer then
/// knows every id without reading them back by uid, and new rows have no label rows to delete
/// (see `store::write_objects`, which checks the last id). A row already stored fails the
/// statement with a duplicate key, and only the statement is rolled back.
pub(crate) fn insert_resources(cluster: &str, rows: &[Prepared<'_>]) -> Stmt {
    let mut b = Builder::new(&super::DIALECT, "INSERT INTO resources (");
    b.push(RESOURCE_COLUMNS).push(") VALUES ");
    push_resource_rows(&mut b, cluster, rows, None);
    if kept(rows.len(), CHUNK) {
        b.reusable();
    }
    b.finish()
}
