//! Reads that follow links between objects of one cluster: the children of a set of owners (by
//! the `owner` column, the controlling owner's uid), objects of one type by name, and objects of
//! one type with a label. Each read is one statement per chunk of keys (on PostgreSQL one
//! statement, the keys bound as one array), so a tree of thousands of objects costs a few
//! statements per level, not one per object. [`RelatedReads`] runs many reads in one
//! transaction: a whole tree reads one snapshot, with one `BEGIN` and one `COMMIT` (on
//! PostgreSQL each is a round trip to the server, as each statement is).

use mc_types::Gvr;

use super::{Col, Error, RawObject, Result, Store, Tx, sql, statement::Array, statement::Builder};

/// One object as a relation read returns it.
#[derive(Clone, Debug)]
pub struct RelatedObject {
    /// Its type, as stored.
    pub gvr: Gvr,
    /// Its kind.
    pub kind: String,
    /// `""` when cluster-scoped.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its uid.
    pub uid: String,
    /// Its owner's uid (see [`super::StoredObject::owner_uid`]).
    pub owner: Option<String>,
    /// The stored JSON.
    pub object: RawObject,
}

const COLS: [Col; 9] =
    [Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::OptText, Col::Text];

fn select(b: &mut Builder) {
    b.push("SELECT \"group\", version, resource, kind, namespace, name, uid, owner, ");
    b.push_json_column("object");
    b.push(" FROM resources WHERE cluster = ");
}

/// Reads of related objects in one read transaction (one snapshot of the store); ended by
/// [`RelatedReads::finish`] (dropped, it is rolled back).
pub struct RelatedReads {
    tx: Tx,
}

impl Store {
    /// A transaction for several reads of related objects.
    pub async fn related_reads(&self) -> Result<RelatedReads> {
        Ok(RelatedReads { tx: self.begin(false).await? })
    }

    /// The objects of `cluster` whose owner is one of `owners` (uids), in no particular order.
    pub async fn children_of(&self, cluster: &str, owners: &[String]) -> Result<Vec<RelatedObject>> {
        let mut reads = self.related_reads().await?;
        let out = reads.children_of(cluster, owners).await?;
        reads.finish().await?;
        Ok(out)
    }

    /// The objects of type `gvr` in `cluster` and `namespace` (`""`: cluster-scoped) with one of
    /// `names`; a name without an object is absent.
    pub async fn objects_named(
        &self,
        cluster: &str,
        gvr: &Gvr,
        namespace: &str,
        names: &[String],
    ) -> Result<Vec<RelatedObject>> {
        let mut reads = self.related_reads().await?;
        let out = reads.objects_named(cluster, gvr, namespace, names).await?;
        reads.finish().await?;
        Ok(out)
    }

    /// The objects of type `gvr` in `cluster` and `namespace` whose label `key` is one of
    /// `values`.
    pub async fn objects_labelled(
        &self,
        cluster: &str,
        gvr: &Gvr,
        namespace: &str,
        key: &str,
        values: &[String],
    ) -> Result<Vec<RelatedObject>> {
        let mut reads = self.related_reads().await?;
        let out = reads.objects_labelled(cluster, gvr, namespace, key, values).await?;
        reads.finish().await?;
        Ok(out)
    }
}

impl RelatedReads {
    /// As [`Store::children_of`].
    pub async fn children_of(&mut self, cluster: &str, owners: &[String]) -> Result<Vec<RelatedObject>> {
        self.read_chunked(owners, |b, chunk| {
            b.bind(cluster).push(" AND ");
            push_in(b, "owner", chunk);
        })
        .await
    }

    /// As [`Store::objects_named`].
    pub async fn objects_named(
        &mut self,
        cluster: &str,
        gvr: &Gvr,
        namespace: &str,
        names: &[String],
    ) -> Result<Vec<RelatedObject>> {
        self.read_chunked(names, |b, chunk| {
            in_namespace(b, cluster, gvr, namespace);
            b.push(" AND ");
            push_in(b, "name", chunk);
        })
        .await
    }

    /// As [`Store::objects_labelled`].
    pub async fn objects_labelled(
        &mut self,
        cluster: &str,
        gvr: &Gvr,
        namespace: &str,
        key: &str,
        values: &[String],
    ) -> Result<Vec<RelatedObject>> {
        self.read_chunked(values, |b, chunk| {
            in_namespace(b, cluster, gvr, namespace);
            b.push(" AND id IN (SELECT resource_id FROM resource_labels WHERE \"key\" = ").bind(key);
            b.push(" AND ");
            push_in(b, "\"value\"", chunk);
            b.push(")");
        })
        .await
    }

    /// The objects `filter` picks, after `cluster = `, for each chunk of `keys` in turn.
    async fn read_chunked(
        &mut self,
        keys: &[String],
        filter: impl Fn(&mut Builder, &[String]),
    ) -> Result<Vec<RelatedObject>> {
        let mut out = Vec::new();
        for chunk in keys.chunks(self.chunk()) {
            let mut b = Builder::new(self.tx.dialect, "");
            select(&mut b);
            filter(&mut b, chunk);
            out.extend(decode(self.tx.fetch(b.finish(), &COLS).await?)?);
        }
        Ok(out)
    }

    /// Ends the transaction.
    pub async fn finish(self) -> Result<()> {
        self.tx.commit().await
    }

    /// Keys per statement: all of them where they are bound as one array.
    fn chunk(&self) -> usize {
        if self.tx.dialect.binds_arrays { usize::MAX } else { sql::CHUNK }
    }
}

/// After [`select`]: the objects of `gvr` in `cluster` and `namespace`.
fn in_namespace(b: &mut Builder, cluster: &str, gvr: &Gvr, namespace: &str) {
    b.bind(cluster).push(" AND ").push_gvr("", gvr);
    b.push(" AND namespace = ").bind(namespace);
}

/// `column IN (?, …)`; on PostgreSQL `column = ANY($n::text[])`, one parameter whatever the
/// number of keys, so that the statement's text (and its prepared copy) is always the same.
fn push_in(b: &mut Builder, column: &str, keys: &[String]) {
    b.push(column);
    if b.syntax().binds_arrays {
        b.push(" = ANY(").bind(Array::Text(keys.to_vec())).push("::text[])");
    } else {
        b.push(" IN ").bind_list(keys.iter().map(String::as_str));
    }
}

fn decode(rows: Vec<super::Row>) -> Result<Vec<RelatedObject>> {
    rows.into_iter()
        .map(|mut r| {
            let gvr = Gvr::new(r.text(0), r.text(1), r.text(2));
            let (kind, namespace, name, uid, owner) =
                (r.text(3), r.text(4), r.text(5), r.text(6), r.opt_text(7));
            let object = RawObject::from_text(r.text(8))
                .map_err(|e| Error::Corrupt(format!("object {gvr} {namespace}/{name}: {e}")))?;
            Ok(RelatedObject { gvr, kind, namespace, name, uid, owner, object })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::store::backend::{postgres, sqlite};
    use crate::store::statement::Arg;

    fn children(d: crate::store::dialect::Dialect, keys: &[String]) -> crate::store::Stmt {
        let mut b = Builder::new(d, "");
        select(&mut b);
        b.bind("c1").push(" AND ");
        push_in(&mut b, "owner", keys);
        b.finish()
    }

    #[test]
    fn postgres_binds_the_keys_as_one_array_whatever_their_number() {
        let keys: Vec<String> = (0..1200).map(|i| format!("u{i}")).collect();
        let p = children(&postgres::DIALECT, &keys);
        assert!(p.sql.ends_with("WHERE cluster = $1 AND owner = ANY($2::text[])"), "{}", p.sql);
        assert_eq!(p.args.len(), 2);
        assert!(matches!(&p.args[1], Arg::Array(Array::Text(v)) if v.len() == 1200));
        assert_eq!(children(&postgres::DIALECT, &keys[..3]).sql, p.sql, "one text, kept prepared");
        let s = children(&sqlite::DIALECT, &keys[..3]);
        assert!(s.sql.ends_with("WHERE cluster = ? AND owner IN (?, ?, ?)"), "{}", s.sql);
    }
}
