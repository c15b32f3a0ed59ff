//! Pages of row digests: for callers that keep what they derive from objects (the Table rows
//! of `http::kube::rows`), a query whose rows carry their id and hash, with the object read
//! only where the caller does not know that hash yet.

use super::sql::{self, DIGEST_COLS, Payload};
use super::{Cursor, Error, Order, Query, RawObject, Result, Store, objects_by_id};

/// One row of a [`DigestPage`].
#[derive(Debug)]
pub struct DigestRow {
    /// Its cluster.
    pub cluster: String,
    /// Its row id (stable while the object exists).
    pub id: i64,
    /// The hash of its object text; `None` for rows written without one.
    pub hash: Option<String>,
    /// The object, read when its hash was not known to the caller.
    pub object: Option<RawObject>,
}

/// One page of [`Store::query_digests`].
#[derive(Debug, Default)]
pub struct DigestPage {
    /// The rows in the query's order.
    pub rows: Vec<DigestRow>,
    /// Where the next page starts, as [`super::Page::next`].
    pub next: Option<Cursor>,
}

impl Store {
    /// [`Store::query`] as digests: every row carries its id and hash, and its object only when
    /// `known(id, hash)` is false (or it has no hash). `None` when the query filters on fields
    /// SQL cannot evaluate (those need every object): use [`Store::query`] then.
    pub async fn query_digests(
        &self,
        q: &Query,
        mut known: impl FnMut(i64, &str) -> bool,
    ) -> Result<Option<DigestPage>> {
        let (filter, after_fetch) = q.sql_filter();
        if !after_fetch.is_empty() {
            return Ok(None);
        }
        let limit = q.limit.filter(|&l| l > 0).map(|l| l as usize);
        let mut tx = self.begin(false).await?;
        let stmt = sql::select_rows(
            tx.dialect,
            &filter,
            q.continue_after.as_ref(),
            limit.map(|l| l + 1),
            q.order,
            Payload::Digest,
        );
        let fetched = tx.fetch(stmt, &DIGEST_COLS).await?;
        let mut page = DigestPage::default();
        let mut last: Option<Cursor> = None;
        for mut row in fetched {
            if limit.is_some_and(|l| page.rows.len() >= l) {
                page.next = if q.order == Order::Name { last.take() } else { None };
                break;
            }
            let cursor = Cursor::from_row(&mut row);
            let hash = row.opt_text(7);
            page.rows.push(DigestRow { cluster: cursor.cluster.clone(), id: row.int(6), hash, object: None });
            last = Some(cursor);
        }
        let wanted: Vec<i64> = page
            .rows
            .iter()
            .filter(|r| !r.hash.as_deref().is_some_and(|h| known(r.id, h)))
            .map(|r| r.id)
            .collect();
        let mut objects = std::collections::HashMap::with_capacity(wanted.len());
        for (id, (hash, text)) in objects_by_id(&mut tx, &wanted).await? {
            let object =
                RawObject::from_text(text).map_err(|e| Error::Corrupt(format!("object of row {id}: {e}")))?;
            objects.insert(id, (hash, object));
        }
        tx.commit().await?;
        // The hash read with the object is the one that describes it (on PostgreSQL each
        // statement sees the latest commit); a row deleted in between is left out.
        let wanted: std::collections::HashSet<i64> = wanted.into_iter().collect();
        page.rows.retain_mut(|r| match objects.remove(&r.id) {
            Some((hash, object)) => {
                r.hash = hash;
                r.object = Some(object);
                true
            }
            None => !wanted.contains(&r.id),
        });
        Ok(Some(page))
    }
}
