//! PostgreSQL's bulk writes: one array parameter per column, read back as rows by `unnest`.
//!
//! The multi-row `VALUES` the other backends use has 15 parameters per object, so every chunk
//! is a new statement text that PostgreSQL parses and plans again (7,500 parameters for 500
//! objects). Here a chunk of any size is the same text with 15 parameters: prepared once per
//! connection, planned once, and the rows travel as 15 binary arrays. A first list's objects,
//! new rows, go by `COPY` instead ([`super::copy`]); these statements write the others and any
//! chunk of them found stored.

use crate::store::resource_columns::{Prepared, RESOURCE_COLUMNS, RESOURCE_KEY, RESOURCE_UPDATED};
use crate::store::statement::{Array, Builder, Stmt};

/// Objects (and label rows) per statement: no parameter limit applies, so a whole batch of the
/// writer goes in one statement.
pub(in crate::store) const CHUNK: usize = 2000;

/// Upsert of `rows` (distinct natural keys) into `resources`, answering the
/// [`crate::store::sql::upsert_cols`] of every row written, as the other backends' multi-row upsert does.
pub(in crate::store) fn upsert_resources(cluster: &str, rows: &[Prepared<'_>]) -> Stmt {
    let mut columns: [Vec<String>; 10] = Default::default();
    let mut owners: Vec<Option<String>> = Vec::with_capacity(rows.len());
    let mut created: Vec<Option<i64>> = Vec::with_capacity(rows.len());
    let mut fields: Vec<String> = Vec::with_capacity(rows.len());
    let mut count_values: Vec<Option<String>> = Vec::with_capacity(rows.len());
    for column in &mut columns {
        column.reserve_exact(rows.len());
    }
    for p in rows {
        let o = p.object;
        let values = [
            &o.namespace,
            &o.name,
            &o.gvr.group,
            &o.gvr.version,
            &o.gvr.resource,
            &o.kind,
            &o.resource_version,
            &o.uid,
            &p.hash,
        ];
        for (column, value) in columns.iter_mut().zip(values) {
            column.push(value.clone());
        }
        columns[9].push(o.object.text().to_string());
        owners.push(o.owner_uid.clone());
        created.push(o.created_at);
        let (field, value) = p.count_columns();
        fields.push(field.to_string());
        count_values.push(value.map(str::to_string));
    }
    let [namespace, name, group, version, resource, kind, rv, uid, hash, object] = columns;
    let mut b = Builder::new(&super::DIALECT, "INSERT INTO resources (");
    b.push(RESOURCE_COLUMNS).push(") SELECT t.namespace, t.name, ").bind(cluster);
    b.push(
        ", t.\"group\", t.version, t.resource, t.kind, t.rv, t.owner, t.uid, t.hash, \
         t.object, COALESCE(to_timestamp(CAST(t.created AS DOUBLE PRECISION)), \
         CURRENT_TIMESTAMP), CURRENT_TIMESTAMP, NULL, t.count_field, t.count_value FROM unnest(",
    );
    let texts = [namespace, name, group, version, resource, kind, rv];
    for column in texts {
        b.bind(Array::Text(column)).push("::text[], ");
    }
    b.bind(Array::OptText(owners)).push("::text[], ");
    b.bind(Array::Text(uid)).push("::text[], ");
    b.bind(Array::Text(hash)).push("::text[], ");
    b.bind(Array::Text(object)).push("::text[], ");
    b.bind(Array::OptInt(created)).push("::bigint[], ");
    b.bind(Array::Text(fields)).push("::text[], ");
    b.bind(Array::OptText(count_values)).push("::text[]");
    b.push(
        ") AS t(namespace, name, \"group\", version, resource, kind, rv, owner, uid, hash, object, \
         created, count_field, count_value)",
    );
    b.push_upsert(RESOURCE_KEY, &RESOURCE_UPDATED);
    // A row inserted by this statement has no deleting transaction (`xmax = 0`); an updated one
    // has this one. Label rows of created rows need no delete: a first sync deletes nothing.
    b.push(" RETURNING id, \"group\", version, resource, uid, (xmax = 0) AS created");
    b.finish()
}

/// Insert of `(resource_id, key, value)` label rows.
pub(in crate::store) fn insert_labels(rows: &[(i64, &str, &str)]) -> Stmt {
    let ids = rows.iter().map(|(id, _, _)| *id).collect();
    let keys = rows.iter().map(|(_, k, _)| k.to_string()).collect();
    let values = rows.iter().map(|(_, _, v)| v.to_string()).collect();
    let mut b = Builder::new(
        &super::DIALECT,
        "INSERT INTO resource_labels (resource_id, \"key\", \"value\") SELECT * FROM unnest(",
    );
    b.bind(Array::Int(ids)).push("::bigint[], ");
    b.bind(Array::Text(keys)).push("::text[], ");
    b.bind(Array::Text(values)).push("::text[])");
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoredObject;
    use crate::store::statement::Arg;
    use mc_types::Gvr;

    #[test]
    fn a_chunk_of_any_size_is_one_statement_of_fifteen_parameters() {
        let objects: Vec<StoredObject> = (0..3)
            .map(|i| {
                let json = serde_json::json!({"metadata": {"name": format!("cm-{i}"), "namespace": "ns",
                    "uid": format!("u{i}"), "resourceVersion": "1", "labels": {"a": "b"}}});
                StoredObject::from_json(Gvr::new("", "v1", "configmaps"), "ConfigMap", json)
            })
            .collect::<Result<_, _>>()
            .expect("valid objects");
        let one = upsert_resources("c", &[Prepared::new(&objects[0])]);
        let three = upsert_resources("c", &objects.iter().map(Prepared::new).collect::<Vec<_>>());
        assert_eq!(one.sql, three.sql, "the text does not depend on the row count");
        assert_eq!(three.args.len(), 15);
        assert!(three.persistent(), "prepared once per connection");
        let Arg::Array(Array::Text(names)) = &three.args[2] else { panic!("names: {:?}", three.args[2]) };
        assert_eq!(names, &["cm-0", "cm-1", "cm-2"]);
        assert!(three.sql.contains("$13::bigint[]"), "{}", three.sql);
        assert!(three.sql.contains("$15::text[]"), "{}", three.sql);

        let labels = insert_labels(&[(1, "a", "b"), (2, "a", "c")]);
        assert_eq!(
            labels.args,
            [
                Arg::Array(Array::Int(vec![1, 2])),
                Arg::Array(Array::Text(vec!["a".into(), "a".into()])),
                Arg::Array(Array::Text(vec!["b".into(), "c".into()])),
            ]
        );
    }
}
