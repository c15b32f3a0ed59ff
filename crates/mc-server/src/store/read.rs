//! Reading: pages of objects for a query, counts, and the keys a relist compares against.

use std::collections::BTreeMap;
use std::collections::HashMap;

use mc_types::Gvr;

use super::{
    ClusterRow, Col, Cursor, Error, Order, Page, Query, RawObject, RelistKeys, Result, Row, SqlFilter, Store,
    Tx, sql, statement,
};

/// Objects scanned per query when fields are filtered after fetching.
pub(super) const MIN_SCAN_BATCH: usize = 256;

/// Rows of [`each_key`] read at once: a few megabytes however many rows the type has (a few in
/// unit tests, so that their types span pages).
pub(super) const KEYS_PAGE: usize = if cfg!(test) { 7 } else { 10_000 };

/// Calls `each` with `(id, uid, resource_version)` of every row of one type in one cluster, in
/// key order, reading [`KEYS_PAGE`] rows at a time (along the unique key's index).
pub(super) async fn each_key(
    tx: &mut Tx,
    cluster: &str,
    gvr: &Gvr,
    mut each: impl FnMut(i64, &str, &str),
) -> Result<()> {
    let mut after: Option<(String, String)> = None;
    loop {
        let stmt = sql::select_keys_page(tx.dialect, cluster, gvr, after.as_ref(), KEYS_PAGE);
        let mut rows = tx.fetch(stmt, &sql::KEYS_PAGE_COLS).await?;
        for row in &rows {
            each(row.int(0), row.str(1), row.str(2));
        }
        if rows.len() < KEYS_PAGE {
            return Ok(());
        }
        let Some(last) = rows.last_mut() else { return Ok(()) };
        after = Some((last.text(3), last.text(4)));
    }
}

/// One page of query rows in the [`sql::QUERY_COLS`] shape. On SQLite a limited page whose rows
/// must be sorted ([`sql::sorts_rows`]) is read as its sort keys and row ids first, then its
/// objects by id: SQLite sorts an `ORDER BY … LIMIT` in a b-tree that carries each row's whole
/// object, while the keys alone sort as fast as without a limit. A page read along an index in
/// its order is read in one step: it needs no sort, and a second read of every row only costs
/// time (see docs/adr/0020-store-query-plans.md).
pub(super) async fn fetch_page(
    tx: &mut Tx,
    filter: &SqlFilter<'_>,
    after: Option<&Cursor>,
    limit: Option<usize>,
    order: Order,
) -> Result<Vec<Row>> {
    let d = tx.dialect;
    if !d.sorts_keys_first || limit.is_none() || !sql::sorts_rows(filter, order) {
        return tx.fetch(sql::select_page(d, filter, after, limit, order), &sql::QUERY_COLS).await;
    }
    let keys = sql::select_rows(d, filter, after, limit, order, sql::Payload::Digest);
    let keys = tx.fetch(keys, &sql::DIGEST_COLS).await?;
    let ids: Vec<i64> = keys.iter().map(|r| r.int(6)).collect();
    let mut objects = objects_by_id(tx, &ids).await?;
    // Both reads are in one transaction: every id of the first has its object in the second.
    keys.into_iter()
        .map(|mut row| {
            let (_, object) = objects.remove(&row.int(6)).ok_or_else(|| {
                Error::Corrupt(format!("row {} vanished between two reads of one transaction", row.int(6)))
            })?;
            row.0.truncate(6);
            row.0.push(statement::Cell::Text(object));
            Ok(row)
        })
        .collect()
}

/// `(hash, object JSON)` of the rows with these ids, read a chunk of ids at a time; a row that
/// is gone is absent.
pub(super) async fn objects_by_id(
    tx: &mut Tx,
    ids: &[i64],
) -> Result<HashMap<i64, (Option<String>, String)>> {
    let mut objects = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(sql::CHUNK) {
        for mut row in tx.fetch(sql::select_by_id(tx.dialect, chunk), &sql::BY_ID_COLS).await? {
            objects.insert(row.int(0), (row.opt_text(1), row.text(2)));
        }
    }
    Ok(objects)
}
impl Store {
    /// Every cluster that has objects or a cluster row, by name.
    pub async fn cluster_names(&self) -> Result<Vec<String>> {
        let mut tx = self.begin(false).await?;
        let stmt = statement::Builder::new(
            tx.dialect,
            "SELECT cluster FROM resources UNION SELECT name FROM clusters ORDER BY 1",
        )
        .finish();
        let rows = tx.fetch(stmt, &[Col::Text]).await?;
        tx.commit().await?;
        Ok(rows.into_iter().map(|mut r| r.text(0)).collect())
    }

    /// Lists objects in the stable order, one page at a time.
    pub async fn query(&self, q: &Query) -> Result<Page> {
        let (filter, after_fetch) = q.sql_filter();
        let limit = q.limit.filter(|&l| l > 0).map(|l| l as usize);
        // One row more than a page tells whether another page exists; with fields filtered
        // here, scan in larger batches until the page is full or the rows run out.
        // Newest first has no cursor to scan on from: with fields filtered here it reads every row.
        let batch = match (q.order, after_fetch.is_empty()) {
            (_, true) => limit.map(|l| l + 1),
            (Order::Name, false) => limit.map(|l| (l + 1).max(MIN_SCAN_BATCH)),
            (Order::Newest, false) => None,
        };

        let mut tx = self.begin(false).await?;
        let mut after = q.continue_after.clone();
        let mut items = Vec::new();
        let mut last: Option<Cursor> = None;
        loop {
            let rows = fetch_page(&mut tx, &filter, after.as_ref(), batch, q.order).await?;
            let scanned = rows.len();
            for mut row in rows {
                let cursor = Cursor::from_row(&mut row);
                let object = RawObject::from_text(row.text(6)).map_err(|e| {
                    Error::Corrupt(format!(
                        "object {}/{}/{} of cluster {}: {e}",
                        cursor.group, cursor.resource, cursor.name, cursor.cluster
                    ))
                })?;
                // Only fields SQL cannot evaluate need the parsed object.
                let matches = after_fetch.is_empty() || {
                    let parsed = object.value();
                    after_fetch.iter().all(|r| r.matches(&parsed))
                };
                after = Some(cursor.clone());
                if !matches {
                    continue;
                }
                if limit.is_some_and(|l| items.len() >= l) {
                    tx.commit().await?;
                    let next = if q.order == Order::Name { last } else { None };
                    return Ok(Page { items, next });
                }
                items.push((cursor.cluster.clone(), object));
                last = Some(cursor);
            }
            match batch {
                Some(b) if scanned >= b => {}
                _ => break,
            }
        }
        tx.commit().await?;
        Ok(Page { items, next: None })
    }

    /// How many objects of a cluster are stored.
    pub async fn count(&self, cluster: &str) -> Result<u64> {
        let mut tx = self.begin(false).await?;
        let mut b = statement::Builder::new(tx.dialect, "SELECT COUNT(*) FROM resources WHERE cluster = ");
        b.bind(cluster);
        let rows = tx.fetch(b.finish(), &[Col::Int]).await?;
        tx.commit().await?;
        Ok(rows.first().map_or(0, |r| u64::try_from(r.int(0)).unwrap_or(0)))
    }

    /// How many objects of each type a cluster has.
    pub async fn count_by_gvr(&self, cluster: &str) -> Result<BTreeMap<Gvr, u64>> {
        let mut tx = self.begin(false).await?;
        let mut b = statement::Builder::new(
            tx.dialect,
            "SELECT \"group\", version, resource, COUNT(*) FROM resources WHERE cluster = ",
        );
        b.bind(cluster).push(" GROUP BY \"group\", version, resource");
        let rows = tx.fetch(b.finish(), &[Col::Text, Col::Text, Col::Text, Col::Int]).await?;
        tx.commit().await?;
        Ok(rows
            .into_iter()
            .map(|mut r| {
                let n = u64::try_from(r.int(3)).unwrap_or(0);
                (Gvr::new(r.text(0), r.text(1), r.text(2)), n)
            })
            .collect())
    }

    /// `(uid, resource_version)` of every stored object of one type in one cluster.
    pub async fn list_keys(&self, cluster: &str, gvr: &Gvr) -> Result<Vec<(String, String)>> {
        let mut keys = Vec::new();
        let mut tx = self.begin(false).await?;
        each_key(&mut tx, cluster, gvr, |_, uid, version| keys.push((uid.to_string(), version.to_string())))
            .await?;
        tx.commit().await?;
        Ok(keys)
    }

    /// The resource version of every stored object of one type in one cluster, by uid, read a
    /// page at a time into a compact sorted array: a relist skips the objects stored at their
    /// version and marks what it lists (see [`Store::delete_missing`]).
    pub async fn relist_keys(&self, cluster: &str, gvr: &Gvr) -> Result<RelistKeys> {
        let mut tx = self.begin(false).await?;
        // Sized once: a map that doubles as it fills holds both tables while it moves.
        let rows = tx.fetch(sql::count_gvr_rows(tx.dialect, cluster, gvr), &[Col::Int]).await?;
        let mut keys =
            RelistKeys::with_capacity(rows.first().map_or(0, |r| r.int(0)).try_into().unwrap_or(0));
        each_key(&mut tx, cluster, gvr, |_, uid, version| keys.insert(uid, version)).await?;
        tx.commit().await?;
        keys.seal();
        Ok(keys)
    }

    /// Every cluster row, by name.
    pub async fn list_clusters(&self) -> Result<Vec<ClusterRow>> {
        let mut tx = self.begin(false).await?;
        let rows = tx.fetch(sql::select_clusters(tx.dialect), &sql::CLUSTER_COLS).await?;
        tx.commit().await?;
        rows.into_iter()
            .map(|mut r| {
                let name = r.text(0);
                let info = serde_json::from_str(&r.text(7))
                    .map_err(|e| Error::Corrupt(format!("info of cluster {name}: {e}")))?;
                Ok(ClusterRow {
                    is_master: r.bool(1),
                    status: r.text(2),
                    version: r.text(3),
                    platform: r.text(4),
                    host: r.text(5),
                    updated_at: r.int(6),
                    info,
                    name,
                })
            })
            .collect()
    }
}
