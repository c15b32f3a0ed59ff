//! Reads that follow links between objects of one cluster: the children of a set of owners (by
//! the `owner` column, the controlling owner's uid), objects of one type by name, and objects of
//! one type with a label. Each read is one statement per chunk of keys, so a tree of thousands of
//! objects costs a few statements per level, not one per object.

use mc_types::Gvr;

use super::{Col, Error, RawObject, Result, Store, sql, statement::Builder};

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

impl Store {
    /// The objects of `cluster` whose owner is one of `owners` (uids), in no particular order.
    pub async fn children_of(&self, cluster: &str, owners: &[String]) -> Result<Vec<RelatedObject>> {
        let mut tx = self.begin(false).await?;
        let mut out = Vec::new();
        for chunk in owners.chunks(sql::CHUNK) {
            let mut b = Builder::new(tx.dialect, "");
            select(&mut b);
            b.bind(cluster).push(" AND owner IN ").bind_list(chunk.iter().map(String::as_str));
            out.extend(decode(tx.fetch(b.finish(), &COLS).await?)?);
        }
        tx.commit().await?;
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
        let mut tx = self.begin(false).await?;
        let mut out = Vec::new();
        for chunk in names.chunks(sql::CHUNK) {
            let mut b = Builder::new(tx.dialect, "");
            select(&mut b);
            b.bind(cluster).push(" AND ").push_gvr("", gvr);
            b.push(" AND namespace = ").bind(namespace);
            b.push(" AND name IN ").bind_list(chunk.iter().map(String::as_str));
            out.extend(decode(tx.fetch(b.finish(), &COLS).await?)?);
        }
        tx.commit().await?;
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
        let mut tx = self.begin(false).await?;
        let mut out = Vec::new();
        for chunk in values.chunks(sql::CHUNK) {
            let mut b = Builder::new(tx.dialect, "");
            select(&mut b);
            b.bind(cluster).push(" AND ").push_gvr("", gvr);
            b.push(" AND namespace = ").bind(namespace);
            b.push(" AND id IN (SELECT resource_id FROM resource_labels WHERE \"key\" = ").bind(key);
            b.push(" AND \"value\" IN ").bind_list(chunk.iter().map(String::as_str)).push(")");
            out.extend(decode(tx.fetch(b.finish(), &COLS).await?)?);
        }
        tx.commit().await?;
        Ok(out)
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
