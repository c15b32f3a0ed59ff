//! PostgreSQL: a first list's objects, and their label rows, written by binary `COPY`.
//!
//! A first list's objects are new rows. The upsert of [`super::unnest`] made PostgreSQL parse
//! 15 arrays, read them back through `unnest`, and look up every row's natural key for a
//! conflict before inserting it. `COPY` inserts rows as they arrive, in PostgreSQL's binary
//! format, with ids drawn from the table's own sequence beforehand (so label rows are written
//! with them, and nothing is read back). It is all-or-nothing: one object already stored fails
//! it with a duplicate key, and [`write_new_rows`] then rolls back to before it, for the caller
//! to upsert the objects as any others.

use crate::store::resource_columns::Prepared;
use crate::store::sql;
use crate::store::statement::{Arg, Builder, Col, Stmt};
use crate::store::{Error, Result, Tx};

/// Columns of `resources` a `COPY` fills, in the order [`Rows::resource`] writes them;
/// `delete_at` stays NULL.
const RESOURCES: &str = "COPY resources (id, namespace, name, cluster, \"group\", version, resource, kind, \
     resource_version, owner, uid, hash, object, create_at, update_at, count_field, count_value) FROM STDIN \
     (FORMAT binary)";

const LABELS: &str = "COPY resource_labels (resource_id, \"key\", \"value\") FROM STDIN (FORMAT binary)";

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 00:00 UTC), the origin of a
/// binary `timestamptz`.
const POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

/// Inserts `objects` (distinct natural keys, none expected stored) of `cluster` and their label
/// rows. On a duplicate key the transaction is back where it was before the call and the error
/// says so ([`Error::is_duplicate`]); any other error leaves the transaction to be rolled back.
pub(in crate::store) async fn write_new_rows(
    tx: &mut Tx,
    cluster: &str,
    objects: &[Prepared<'_>],
) -> Result<()> {
    if objects.is_empty() {
        return Ok(());
    }
    let savepoint = |sql: &str| Builder::new(&super::DIALECT, sql).finish();
    tx.execute(savepoint("SAVEPOINT new_rows")).await?;
    match copy(tx, cluster, objects).await {
        Ok(()) => {}
        Err(e) if e.is_duplicate() => {
            tx.execute(savepoint("ROLLBACK TO SAVEPOINT new_rows")).await?;
            tx.execute(savepoint("RELEASE SAVEPOINT new_rows")).await?;
            return Err(e);
        }
        Err(e) => return Err(e),
    }
    tx.execute(savepoint("RELEASE SAVEPOINT new_rows")).await?;
    Ok(())
}

async fn copy(tx: &mut Tx, cluster: &str, objects: &[Prepared<'_>]) -> Result<()> {
    let rows = tx.fetch(reserve_ids(objects.len()), &[Col::Int, Col::Int]).await?;
    let (Some(first), true) = (rows.first(), rows.len() == objects.len()) else {
        let drawn = format!("{} ids drawn from the sequence for {} new rows", rows.len(), objects.len());
        return Err(Error::Query(sqlx::Error::Protocol(drawn)));
    };
    let now = first.int(1) - POSTGRES_EPOCH_MICROS;
    let ids: Vec<i64> = rows.iter().map(|r| r.int(0)).collect();
    // Pieces of at most about `sql::CHUNK_BYTES` of JSON each: an object can be 1.5 MiB.
    let mut at = 0;
    let pieces = sql::write_chunks(&super::DIALECT, objects).map(|chunk| {
        let mut rows = Rows::new(at == 0);
        for (p, &id) in chunk.iter().zip(&ids[at..]) {
            rows.resource(cluster, p, id, now);
        }
        at += chunk.len();
        rows.finish(at == objects.len())
    });
    tx.copy(RESOURCES, pieces).await?;
    let labels = sql::label_rows(objects.iter().zip(&ids).map(|(p, &id)| (id, &p.object.labels)));
    if labels.is_empty() {
        return Ok(());
    }
    tx.copy(LABELS, label_pieces(&labels, LABEL_PIECE_BYTES)).await?;
    Ok(())
}

/// Bytes of label rows built before they are sent: 2,000 objects' labels can be large.
const LABEL_PIECE_BYTES: usize = 1 << 20;

/// The `COPY` data of `(resource_id, key, value)` label rows, in pieces of about `most` bytes.
fn label_pieces<'a>(labels: &'a [(i64, &str, &str)], most: usize) -> impl Iterator<Item = Vec<u8>> + 'a {
    let mut rest = labels;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut rows = Rows::new(rest.len() == labels.len());
        while let Some((&(id, key, value), tail)) = rest.split_first() {
            rows.label(id, key, value);
            rest = tail;
            if rows.0.len() >= most {
                break;
            }
        }
        Some(rows.finish(rest.is_empty()))
    })
}

/// `n` ids from the sequence of `resources.id`, each with the transaction's time in microseconds
/// since the Unix epoch (`CURRENT_TIMESTAMP`, which the upserts write), as two integer columns.
fn reserve_ids(n: usize) -> Stmt {
    let mut b = Builder::new(
        &super::DIALECT,
        "SELECT nextval((SELECT CAST(pg_get_serial_sequence('resources', 'id') AS regclass))), \
         CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000000 AS BIGINT) FROM generate_series(1, ",
    );
    b.bind(Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))).push(")");
    b.finish()
}

/// Rows in `COPY`'s binary format: a header, then per row its field count and each field's
/// length (-1 for NULL) and bytes, then a trailer.
struct Rows(Vec<u8>);

impl Rows {
    /// Starts a piece of the data; the first piece carries the header.
    fn new(first: bool) -> Self {
        let mut buf = Vec::with_capacity(64 << 10);
        if first {
            buf.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
            buf.extend_from_slice(&0i32.to_be_bytes()); // flags
            buf.extend_from_slice(&0i32.to_be_bytes()); // header extension length
        }
        Self(buf)
    }

    fn fields(&mut self, n: i16) {
        self.0.extend_from_slice(&n.to_be_bytes());
    }

    fn text(&mut self, s: &str) {
        let len = i32::try_from(s.len()).expect("a field is smaller than 2 GiB: objects are bounded");
        self.0.extend_from_slice(&len.to_be_bytes());
        self.0.extend_from_slice(s.as_bytes());
    }

    fn opt_text(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.text(s),
            None => self.0.extend_from_slice(&(-1i32).to_be_bytes()),
        }
    }

    fn int8(&mut self, v: i64) {
        self.0.extend_from_slice(&8i32.to_be_bytes());
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    /// One `resources` row, in the order of [`RESOURCES`]: `now` is the transaction's time in
    /// microseconds since 2000, the creation time when the object has none, as the upserts'
    /// `COALESCE(…, CURRENT_TIMESTAMP)`.
    fn resource(&mut self, cluster: &str, p: &Prepared<'_>, id: i64, now: i64) {
        let o = p.object;
        self.fields(17);
        self.int8(id);
        for s in [&o.namespace, &o.name] {
            self.text(s);
        }
        self.text(cluster);
        for s in [&o.gvr.group, &o.gvr.version, &o.gvr.resource, &o.kind, &o.resource_version] {
            self.text(s);
        }
        self.opt_text(o.owner_uid.as_deref());
        self.text(&o.uid);
        self.text(&p.hash);
        self.text(o.object.text());
        let created = o
            .created_at
            .and_then(|secs| secs.checked_mul(1_000_000))
            .and_then(|micros| micros.checked_sub(POSTGRES_EPOCH_MICROS));
        self.int8(created.unwrap_or(now));
        self.int8(now);
        let (field, value) = p.count_columns();
        self.text(field);
        self.opt_text(value);
    }

    fn label(&mut self, id: i64, key: &str, value: &str) {
        self.fields(3);
        self.int8(id);
        self.text(key);
        self.text(value);
    }

    /// The piece's bytes; the last piece carries the trailer.
    fn finish(mut self, last: bool) -> Vec<u8> {
        if last {
            self.fields(-1);
        }
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoredObject;
    use mc_types::Gvr;

    #[test]
    fn a_row_is_its_fields_in_copys_binary_format() {
        let json = serde_json::json!({"metadata": {"name": "cm", "namespace": "ns", "uid": "u1",
            "resourceVersion": "7", "creationTimestamp": "2000-01-01T00:00:01Z", "labels": {"a": "b"}}});
        let object =
            StoredObject::from_json(Gvr::new("", "v1", "configmaps"), "ConfigMap", json).expect("valid");
        let p = Prepared::new(&object);
        let mut rows = Rows::new(true);
        rows.resource("c1", &p, 42, 5);
        let bytes = rows.finish(true);

        let mut expected: Vec<u8> = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0".to_vec();
        expected.extend_from_slice(&17i16.to_be_bytes());
        let int8 = |e: &mut Vec<u8>, v: i64| {
            e.extend_from_slice(&8i32.to_be_bytes());
            e.extend_from_slice(&v.to_be_bytes());
        };
        let text = |e: &mut Vec<u8>, s: &str| {
            e.extend_from_slice(&(s.len() as i32).to_be_bytes());
            e.extend_from_slice(s.as_bytes());
        };
        int8(&mut expected, 42);
        for s in ["ns", "cm", "c1", "", "v1", "configmaps", "ConfigMap", "7"] {
            text(&mut expected, s);
        }
        expected.extend_from_slice(&(-1i32).to_be_bytes()); // no owner
        for s in ["u1", p.hash.as_str(), object.object.text()] {
            text(&mut expected, s);
        }
        int8(&mut expected, 1_000_000); // one second after PostgreSQL's epoch
        int8(&mut expected, 5);
        text(&mut expected, ""); // no field kept for counts
        expected.extend_from_slice(&(-1i32).to_be_bytes());
        expected.extend_from_slice(&(-1i16).to_be_bytes());
        assert_eq!(bytes, expected);

        // A middle piece has neither header nor trailer; no creation time is the transaction's.
        let json = serde_json::json!({"metadata": {"name": "x", "uid": "u2"}});
        let bare =
            StoredObject::from_json(Gvr::new("", "v1", "namespaces"), "Namespace", json).expect("valid");
        let mut rows = Rows::new(false);
        rows.resource("c1", &Prepared::new(&bare), 1, 5);
        let bytes = rows.finish(false);
        assert_eq!(&bytes[..2], &17i16.to_be_bytes());
        let times = bytes.len() - 8; // before the empty count_field and the NULL count_value
        assert_eq!(&bytes[times - 8..times], &5i64.to_be_bytes());
        assert_eq!(&bytes[times - 20..times - 12], &5i64.to_be_bytes());
    }

    #[test]
    fn label_rows_go_in_pieces_that_make_one_copy() {
        let values: Vec<String> = (0..100).map(|i| format!("value-{i}")).collect();
        let labels: Vec<(i64, &str, &str)> =
            values.iter().zip(1..).map(|(v, id)| (id, "app", v.as_str())).collect();
        let whole: Vec<Vec<u8>> = label_pieces(&labels, usize::MAX).collect();
        assert_eq!(whole.len(), 1);
        let pieces: Vec<Vec<u8>> = label_pieces(&labels, 256).collect();
        assert!(pieces.len() > 5, "{} pieces", pieces.len());
        assert!(pieces.iter().all(|p| p.len() < 256 + 64), "a piece ends once it passes the bound");
        assert_eq!(pieces.concat(), whole[0], "the header once, at the start; the trailer once, at the end");
        assert!(whole[0].starts_with(b"PGCOPY\n\xff\r\n\0"));
        assert!(whole[0].ends_with(&(-1i16).to_be_bytes()));
        let row =
            [&3i16.to_be_bytes()[..], &8i32.to_be_bytes(), &1i64.to_be_bytes(), &3i32.to_be_bytes(), b"app"]
                .concat();
        assert_eq!(&whole[0][19..19 + row.len()], row.as_slice(), "the first row follows the header");
        assert_eq!(label_pieces(&[], 256).count(), 0);
    }
}
