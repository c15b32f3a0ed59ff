//! Unit tests on SQLite (a fresh database file per test). The same behaviour is checked on
//! MySQL/MariaDB and PostgreSQL by `tests/store` (feature `db-tests`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use mc_types::Gvr;
use mc_types::selector::{FieldSelector, LabelSelector};
use serde_json::{Value, json};

use super::backend::Access;
use super::backend::sqlite::KEPT_TEXTS_UP_TO;
use super::resource_columns::Prepared;
use super::write::consecutive;
use super::*;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A store in its own directory under the system temp dir, removed on drop.
struct TempStore {
    store: Store,
    dir: PathBuf,
}

impl Drop for TempStore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn temp_store() -> TempStore {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mc-store-unit-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let url = format!("sqlite://{}/nested/mc.db", dir.display());
    let store = Store::connect(&url).await.expect("open sqlite store");
    TempStore { store, dir }
}

fn pods() -> Gvr {
    Gvr::new("", "v1", "pods")
}

fn deployments() -> Gvr {
    Gvr::new("apps", "v1", "deployments")
}

/// Changes a stored object's JSON.
fn edit(o: &mut StoredObject, f: impl FnOnce(&mut serde_json::Value)) {
    let mut value = o.object.value();
    f(&mut value);
    o.object = RawObject::from_value(&value);
}

fn object(gvr: &Gvr, ns: Option<&str>, name: &str, uid: &str, labels: &[(&str, &str)]) -> StoredObject {
    let labels: serde_json::Map<String, Value> =
        labels.iter().map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect();
    let mut meta = json!({"name": name, "uid": uid, "resourceVersion": "1", "labels": labels});
    if let Some(ns) = ns {
        meta["namespace"] = json!(ns);
    }
    StoredObject::from_json(gvr.clone(), "Kind", json!({"metadata": meta, "status": {"phase": "Running"}}))
        .expect("valid object")
}

fn names(page: &Page) -> Vec<String> {
    page.items
        .iter()
        .map(|(c, o)| format!("{c}/{}", o.value()["metadata"]["name"].as_str().unwrap_or("")))
        .collect()
}

async fn list(store: &Store, q: Query) -> Vec<String> {
    names(&store.query(&q).await.unwrap())
}

async fn label_rows(store: &Store) -> i64 {
    let mut tx = store.begin(false).await.unwrap();
    let rows = tx.fetch(
        statement::Builder::new(tx.dialect, "SELECT COUNT(*) FROM resource_labels").finish(),
        &[Col::Int],
    );
    let n = rows.await.unwrap()[0].int(0);
    tx.commit().await.unwrap();
    n
}

#[tokio::test]
async fn sqlite_is_built_without_memory_statistics_or_a_shared_page_cache() {
    // Set by the workspace's `.cargo/config.toml` (`LIBSQLITE3_FLAGS`): see there why.
    let t = temp_store().await;
    let mut tx = t.store.begin(false).await.unwrap();
    let rows = tx.fetch(statement::Builder::new(tx.dialect, "PRAGMA compile_options").finish(), &[Col::Text]);
    let options: Vec<String> = rows.await.unwrap().into_iter().map(|mut r| r.text(0)).collect();
    tx.commit().await.unwrap();
    assert!(options.iter().any(|o| o == "THREADSAFE=1"), "{options:?}");
    assert!(options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"), "{options:?}");
    assert!(!options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"), "{options:?}");
}

#[tokio::test]
async fn connect_creates_the_database_file_and_its_directory() {
    let t = temp_store().await;
    assert!(t.dir.join("nested/mc.db").exists());
    assert_eq!(t.store.backend(), Backend::Sqlite);
    // Migrations are idempotent: a second open of the same file works.
    let again = Store::connect(&format!("sqlite://{}/nested/mc.db", t.dir.display())).await.unwrap();
    assert_eq!(again.count("c1").await.unwrap(), 0);
}

/// Polls `done` every 20 ms for up to `seconds`; whether it held.
async fn within(seconds: u64, mut done: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while !done() {
        if std::time::Instant::now() > end {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    true
}

/// The log is copied into the database file by a task of its own, long before a commit grows it
/// to the writers' checkpoint (64 MiB); the task ends with the store, and no connection is left
/// open.
#[tokio::test]
async fn the_log_is_copied_into_the_database_file_off_the_writers_path_until_the_store_closes() {
    let t = temp_store().await;
    let file = t.dir.join("nested/mc.db");
    let log = t.dir.join("nested/mc.db-wal");
    let len = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    // Let the checkpoint of the migrations pass, then write objects (a few hundred KiB).
    tokio::time::sleep(sqlite::CHECKPOINT_EVERY * 2).await;
    let before = len(&file);
    for chunk in 0..4 {
        let batch: Vec<Change> = (0..250)
            .map(|i| {
                let mut o =
                    object(&pods(), Some("ns"), &format!("p{chunk}-{i}"), &format!("u{chunk}-{i}"), &[]);
                edit(&mut o, |v| v["data"] = json!("x".repeat(400)));
                Change::Upsert(o)
            })
            .collect();
        t.store.apply_batch("c1", batch).await.unwrap();
    }
    assert!(len(&log) > 400_000, "the writes went to the log: {} bytes", len(&log));
    assert!(
        within(3, || len(&file) >= before + 400_000).await,
        "the database file did not take the log: {} bytes, {before} before the writes",
        len(&file)
    );
    assert_eq!(t.store.count("c1").await.unwrap(), 1000);
    t.store.close().await;
    let open = || {
        let fds =
            std::fs::read_dir("/proc/self/fd").map(|d| d.flatten().collect::<Vec<_>>()).unwrap_or_default();
        fds.iter().filter(|f| std::fs::read_link(f.path()).is_ok_and(|l| l == file)).count()
    };
    // At once: `close` waits for the task's connection, and closes what comes back to the pools.
    assert_eq!(open(), 0, "the database file is still open after the store closed");
}

#[tokio::test]
async fn unknown_url_scheme_is_a_clear_error_without_the_password() {
    let err = Store::connect("redis://user:secret@host/0").await.unwrap_err();
    assert!(matches!(err, Error::UnsupportedUrl { .. }));
    let msg = err.to_string();
    assert!(msg.contains("redis://user:***@host/0") && !msg.contains("secret"), "{msg}");
    assert!(!err.is_retryable());
}

#[test]
fn urls_are_redacted() {
    assert_eq!(redact_url("mysql://u:p@h:1/db?x=1"), "mysql://u:***@h:1/db?x=1");
    assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
    assert_eq!(redact_url("sqlite:///a/b.db"), "sqlite:///a/b.db");
}

#[tokio::test]
async fn in_memory_store_works() {
    let store = Store::connect("sqlite::memory:").await.unwrap();
    store.apply_batch("c1", vec![Change::Upsert(object(&pods(), Some("ns"), "a", "u1", &[]))]).await.unwrap();
    assert_eq!(store.count("c1").await.unwrap(), 1);
}

/// Objects whose label rows are not exactly the labels in their stored JSON, and how many objects
/// were compared (SQLite).
async fn labels_disagree(store: &Store) -> (i64, i64) {
    let sql = "SELECT (SELECT COUNT(*) FROM resources r WHERE \
                 (SELECT COUNT(*) FROM json_each(r.object, '$.metadata.labels')) != \
                 (SELECT COUNT(*) FROM resource_labels l WHERE l.resource_id = r.id) \
                 OR EXISTS (SELECT 1 FROM resource_labels l WHERE l.resource_id = r.id \
                   AND json_extract(r.object, '$.metadata.labels.' || l.\"key\") IS NOT l.\"value\")), \
               (SELECT COUNT(*) FROM resources)";
    let mut tx = store.begin(false).await.unwrap();
    let rows =
        tx.fetch(statement::Builder::new(tx.dialect, sql).finish(), &[Col::Int, Col::Int]).await.unwrap();
    tx.commit().await.unwrap();
    (rows[0].int(0), rows[0].int(1))
}

/// MySQL/MariaDB trust the ids a plain insert tells only when the row of the last one is the
/// chunk's last object, of its cluster and type: checked here on rows SQLite stored (ids 1-5).
#[tokio::test]
async fn ids_an_insert_tells_are_trusted_only_when_the_last_is_the_last_objects() {
    let t = temp_store().await;
    let s = &t.store;
    let objects: Vec<StoredObject> =
        (0..5).map(|i| object(&pods(), Some("ns"), &format!("p{i}"), &format!("u{i}"), &[])).collect();
    s.apply_batch("c1", objects.iter().cloned().map(Change::Upsert).collect()).await.unwrap();
    s.apply_batch("c2", vec![Change::Upsert(object(&pods(), Some("ns"), "q", "uq", &[]))]).await.unwrap();
    let prepared: Vec<Prepared<'_>> = objects.iter().map(Prepared::new).collect();
    let mut tx = s.begin(false).await.unwrap();
    assert!(consecutive(&mut tx, "c1", &prepared, 1).await.unwrap());
    assert!(consecutive(&mut tx, "c1", &prepared[1..], 2).await.unwrap());
    // Id 6 is another cluster's object; id 5 is not the fourth object; the cluster differs.
    assert!(!consecutive(&mut tx, "c1", &prepared, 2).await.unwrap());
    assert!(!consecutive(&mut tx, "c1", &prepared[..4], 2).await.unwrap());
    assert!(!consecutive(&mut tx, "c2", &prepared, 1).await.unwrap());
    // No id told (0), or nothing inserted.
    assert!(!consecutive(&mut tx, "c1", &prepared[4..], 0).await.unwrap());
    assert!(!consecutive(&mut tx, "c1", &prepared[..0], 1).await.unwrap());
    tx.commit().await.unwrap();
}

/// Label rows follow each write, whether it creates or updates its row, one object or a list's
/// page at a time, and whatever the batch was expected to be (SQLite inserts the objects of a
/// batch expected to be new as new rows with ids it does not read back, and upserts a chunk where
/// an object was already stored).
#[tokio::test]
async fn labels_are_right_whether_a_batch_creates_or_updates_rows() {
    for expect in [Expect::NewRows, Expect::Any] {
        labels_follow_writes(expect).await;
    }
}

async fn labels_follow_writes(expect: Expect) {
    let t = temp_store().await;
    let s = &t.store;
    let apply = |batch: Vec<Change>| async move { s.apply_changes("c1", &batch, expect).await.unwrap() };
    let up = |name: &str, uid: &str, labels: &[(&str, &str)]| {
        Change::Upsert(object(&pods(), Some("ns"), name, uid, labels))
    };
    let sel = |s: &str| Query { labels: Some(LabelSelector::parse(s).unwrap()), ..Query::default() };
    let page = |from: usize, to: usize, value: &str| -> Vec<Change> {
        (from..to)
            .map(|i| up(&format!("n{i}"), &format!("un{i}"), &[("app", value), ("i", &i.to_string())]))
            .collect()
    };
    s.apply_batch(
        "c1",
        vec![up("a", "ua", &[("app", "web"), ("tier", "fe")]), up("b", "ub", &[("app", "web")])],
    )
    .await
    .unwrap();
    s.apply_batch("c1", vec![up("c", "uc", &[("app", "x")]), up("a", "ua", &[("app", "db")])]).await.unwrap();
    // c holds the largest id; deleting it first frees that id for the rows created after it.
    let delete_c = Change::Delete { gvr: pods(), namespace: "ns".into(), name: "c".into(), uid: "uc".into() };
    let mut batch = vec![delete_c];
    // A chunk of new rows, then new rows with one of the first chunk again.
    batch.extend(page(0, sql::CHUNK + 100, "new"));
    batch.push(up("n0", "un0", &[("app", "again"), ("x", "y")]));
    apply(batch).await;
    assert_eq!(label_rows(s).await, 2 + 2 * (sql::CHUNK as i64 + 100));
    assert_eq!(labels_disagree(s).await, (0, 2 + sql::CHUNK as i64 + 100));
    assert_eq!(list(s, sel("app=again,x=y")).await, ["c1/n0"]);
    // A relist: every object stored already, with other labels.
    apply(page(0, sql::CHUNK + 100, "relisted")).await;
    // A page of which a third is stored and the rest new.
    apply(page(sql::CHUNK, sql::CHUNK + 300, "mixed")).await;
    assert_eq!(labels_disagree(s).await, (0, 2 + sql::CHUNK as i64 + 300));
    assert_eq!(label_rows(s).await, 2 + 2 * (sql::CHUNK as i64 + 300));
    assert_eq!(list(s, sel("app=db")).await, ["c1/a"]);
    assert_eq!(list(s, sel("app=web")).await, ["c1/b"]);
    assert_eq!(list(s, sel("app=relisted")).await.len(), sql::CHUNK);
    assert_eq!(list(s, sel("app=mixed")).await.len(), 300);
    assert_eq!(list(s, sel("app=mixed,i=799")).await, ["c1/n799"]);
    assert!(list(s, sel("app in (x, new, again)")).await.is_empty());
    assert!(list(s, sel("tier")).await.is_empty());
    assert!(list(s, sel("x")).await.is_empty());
}

#[tokio::test]
async fn apply_batch_upserts_replaces_labels_and_deletes() {
    let t = temp_store().await;
    let s = &t.store;
    let a = object(&pods(), Some("ns"), "a", "u1", &[("app", "web"), ("tier", "fe")]);
    s.apply_batch("c1", vec![Change::Upsert(a)]).await.unwrap();
    assert_eq!(label_rows(s).await, 2);
    let a2 = object(&pods(), Some("ns"), "a", "u1", &[("app", "db")]);
    s.apply_batch("c1", vec![Change::Upsert(a2)]).await.unwrap();
    assert_eq!(label_rows(s).await, 1);
    let sel = |s: &str| Query { labels: Some(LabelSelector::parse(s).unwrap()), ..Query::default() };
    assert_eq!(list(s, sel("app=db")).await, ["c1/a"]);
    assert!(list(s, sel("app=web")).await.is_empty());
    assert!(list(s, sel("tier")).await.is_empty());

    let delete = Change::Delete { gvr: pods(), namespace: "ns".into(), name: "a".into(), uid: "u1".into() };
    s.apply_batch("c1", vec![delete]).await.unwrap();
    assert_eq!(s.count("c1").await.unwrap(), 0);
    assert_eq!(label_rows(s).await, 0, "labels go with their object");
}

/// A watch batch's few objects go with their labels in one text on SQLite, the labels as JSON
/// (see `sql::upsert_with_labels`): every key and value comes back as written, whatever its
/// characters, and only the batch's own objects (of this cluster and type) change label rows.
#[tokio::test]
async fn a_watch_batch_writes_labels_of_any_text_to_its_own_objects_only() {
    let t = temp_store().await;
    let s = &t.store;
    let odd: [(&str, &str); 5] =
        [("a\"b", "q\"uote"), ("back\\slash", "\\"), ("é/ü", "日本"), ("empty", ""), ("x.y/z", "{\"j\": 1}")];
    let cm = Gvr::new("", "v1", "configmaps");
    // The same namespace and name as another type's and another cluster's object.
    s.apply_batch("c2", vec![Change::Upsert(object(&pods(), Some("ns"), "a", "c2a", &[("keep", "c2")]))])
        .await
        .unwrap();
    s.apply_batch("c1", vec![Change::Upsert(object(&cm, Some("ns"), "a", "cma", &[("keep", "cm")]))])
        .await
        .unwrap();
    let batch = vec![
        Change::Upsert(object(&pods(), Some("ns"), "a", "ua", &odd)),
        Change::Upsert(object(&pods(), Some("ns"), "b", "ub", &[])),
    ];
    assert!(sql::upserts_with_labels(s.dialect(), batch.len()));
    s.apply_batch("c1", batch).await.unwrap();
    let rows = |sql: &'static str| async move {
        let mut tx = s.begin(false).await.unwrap();
        let rows =
            tx.fetch(statement::Builder::new(tx.dialect, sql).finish(), &[Col::Text, Col::Text, Col::Text]);
        let rows: Vec<(String, String, String)> =
            rows.await.unwrap().into_iter().map(|mut r| (r.text(0), r.text(1), r.text(2))).collect();
        tx.commit().await.unwrap();
        rows
    };
    let all = "SELECT r.cluster || '/' || r.resource || '/' || r.name, l.\"key\", l.\"value\" \
               FROM resource_labels l JOIN resources r ON r.id = l.resource_id ORDER BY 1, 2";
    let mut want: Vec<(String, String, String)> =
        odd.iter().map(|(k, v)| ("c1/pods/a".to_string(), k.to_string(), v.to_string())).collect();
    want.push(("c1/configmaps/a".into(), "keep".into(), "cm".into()));
    want.push(("c2/pods/a".into(), "keep".into(), "c2".into()));
    want.sort();
    assert_eq!(rows(all).await, want);
    // Written again with other labels: the old ones go, the others' stay.
    s.apply_batch("c1", vec![Change::Upsert(object(&pods(), Some("ns"), "a", "ua", &[("k", "v")]))])
        .await
        .unwrap();
    want.retain(|(o, _, _)| o != "c1/pods/a");
    want.push(("c1/pods/a".into(), "k".into(), "v".into()));
    want.sort();
    assert_eq!(rows(all).await, want);
    assert_eq!(want.len(), 3);
}

/// A watch batch of upserts only, of several clusters, is one text whose SQL depends only on
/// how many objects it holds, so SQLite keeps it prepared (up to `KEPT_TEXTS_UP_TO` objects):
/// the same text for 3 objects of 3 clusters as for 3 of one. Each object lands in its own
/// cluster with its own labels, though all have the same type, namespace and name; the last
/// upsert of an object wins.
#[tokio::test]
async fn a_watch_batch_of_upserts_of_several_clusters_is_one_kept_text() {
    let t = temp_store().await;
    let s = &t.store;
    let up =
        |uid: &str, labels: &[(&str, &str)]| Change::Upsert(object(&pods(), Some("ns"), "a", uid, labels));
    let (c1, c2, c3) =
        (vec![up("u1", &[("at", "c1")])], vec![up("u2", &[])], vec![up("u3", &[("at", "c3")])]);
    let spread = [
        Batch::new("c1", &c1, Expect::Any),
        Batch::new("c2", &c2, Expect::Any),
        Batch::new("c3", &c3, Expect::Any),
    ];
    let other = |name: &str| Change::Upsert(object(&pods(), Some("ns"), name, name, &[("k", "v")]));
    // 3 objects in 4 upserts: the last of `a` in the place of its first.
    let one = [up("u1", &[]), other("b"), other("c"), up("u1", &[("x", "y")])];
    let (a, b) = (
        s.one_text(&spread, Vec::new).unwrap().unwrap(),
        s.one_text(&[Batch::new("c1", &one, Expect::Any)], Vec::new).unwrap().unwrap(),
    );
    assert_eq!(a.text.sql, b.text.sql, "the text depends on the number of objects only");
    assert!(a.text.reuse && a.text.persistent(), "kept prepared");
    let many: Vec<Change> = (0..=KEPT_TEXTS_UP_TO)
        .map(|i| Change::Upsert(object(&pods(), Some("ns"), &format!("o{i}"), &format!("o{i}"), &[])))
        .collect();
    assert!(!s.one_text(&[Batch::new("c1", &many, Expect::Any)], Vec::new).unwrap().unwrap().text.reuse);

    s.apply(&spread).await.unwrap();
    // Written again, c1's labels changed and c3's gone: the others' stay.
    let (c1, c3) = (vec![up("u1", &[("at", "c1"), ("again", "yes")])], vec![up("u3", &[])]);
    s.apply(&[Batch::new("c1", &c1, Expect::Any), Batch::new("c3", &c3, Expect::Any)]).await.unwrap();
    let mut tx = s.begin(false).await.unwrap();
    let stmt = statement::Builder::new(
        tx.dialect,
        "SELECT r.cluster || '/' || r.uid, COALESCE(group_concat(l.\"key\" || '=' || l.\"value\"), '') \
         FROM resources r LEFT JOIN resource_labels l ON l.resource_id = r.id GROUP BY r.id ORDER BY 1",
    );
    let rows = tx.fetch(stmt.finish(), &[Col::Text, Col::Text]).await.unwrap();
    tx.commit().await.unwrap();
    let rows: Vec<(String, String)> = rows.into_iter().map(|mut r| (r.text(0), r.text(1))).collect();
    let labels = |o: &str| rows.iter().find(|(k, _)| k == o).map(|(_, l)| l.split(',').collect::<Vec<_>>());
    let mut c1 = labels("c1/u1").unwrap();
    c1.sort();
    assert_eq!(c1, ["again=yes", "at=c1"]);
    assert_eq!(labels("c2/u2").unwrap(), [""]);
    assert_eq!(labels("c3/u3").unwrap(), [""]);
    assert_eq!(rows.len(), 3);
}

/// A watch batch with deletions is one text too, its deletions first, then the upserts they
/// left (see `Pending`), which ends as its changes in order would: an object deleted and
/// created again (another uid) stays as created, with its new labels only; an upsert of a new
/// incarnation ahead of the old one's deletion is kept; one created and deleted in the batch
/// is not there; a deletion's label rows go with it.
#[tokio::test]
async fn a_watch_batch_with_deletions_is_written_in_order() {
    let t = temp_store().await;
    let s = &t.store;
    let up = |name: &str, uid: &str, labels: &[(&str, &str)]| {
        Change::Upsert(object(&pods(), Some("ns"), name, uid, labels))
    };
    let delete = |name: &str, uid: &str| Change::Delete {
        gvr: pods(),
        namespace: "ns".into(),
        name: name.into(),
        uid: uid.into(),
    };
    s.apply_batch("c1", vec![up("a", "a1", &[("old", "1")]), up("d", "d1", &[("old", "1")])]).await.unwrap();
    let batch = vec![
        up("a", "a1", &[("old", "2")]),
        delete("a", "a1"),
        up("a", "a2", &[("new", "1")]),
        up("b", "b1", &[("old", "1")]),
        delete("b", ""),
        // A new incarnation of d, then the old one's deletion: nothing of it is left to delete.
        up("d", "d2", &[("new", "1")]),
        delete("d", "d1"),
        up("c", "c1", &[("new", "1"), ("x", "y")]),
        up("c", "c1", &[("new", "1")]),
        // Created and deleted within the batch: its deletion runs first and drops its upsert.
        up("e", "e1", &[("new", "1")]),
        delete("e", "e1"),
    ];
    let one = s.one_text(&[Batch::new("c1", &batch, Expect::Any)], Vec::new).unwrap().expect("one text");
    assert!(!one.upserts_only);
    s.apply_batch("c1", batch).await.unwrap();
    let page = s.query(&Query::default()).await.unwrap();
    let mut uids: Vec<String> =
        page.items.iter().map(|(_, o)| o.value()["metadata"]["uid"].as_str().unwrap().to_string()).collect();
    uids.sort();
    assert_eq!(uids, ["a2", "c1", "d2"]);
    assert_eq!(labels_disagree(s).await, (0, 3));
    assert_eq!(label_rows(s).await, 3);
    let sel = |s: &str| Query { labels: Some(LabelSelector::parse(s).unwrap()), ..Query::default() };
    assert!(list(s, sel("old")).await.is_empty());
    assert_eq!(list(s, sel("new")).await.len(), 3);
}

/// A watch batch's one text (`BEGIN`, upserts, `COMMIT`; see `Store::one_text`) that fails
/// half-way, after its upsert ran, leaves nothing of it, and no transaction open on the
/// connection: the next writes, by one text and by a transaction of steps, go through.
#[tokio::test]
async fn a_watch_batch_that_fails_half_way_leaves_nothing_and_no_transaction_open() {
    let t = temp_store().await;
    let s = &t.store;
    let sel = |s: &str| Query { labels: Some(LabelSelector::parse(s).unwrap()), ..Query::default() };
    let up =
        |name: &str, value: &str| Change::Upsert(object(&pods(), Some("ns"), name, name, &[("v", value)]));
    s.apply_batch("c1", vec![up("a", "1")]).await.unwrap();
    let rename = |from: &'static str, to: &'static str| async move {
        let mut tx = s.begin(true).await.unwrap();
        let sql = format!("ALTER TABLE {from} RENAME TO {to}");
        tx.execute(statement::Builder::new(tx.dialect, &sql).finish()).await.unwrap();
        tx.commit().await.unwrap();
    };
    // The upsert runs, then the label rows' delete finds no table.
    rename("resource_labels", "labels_away").await;
    let batch = vec![up("a", "2"), up("b", "2")];
    assert!(s.one_text(&[Batch::new("c1", &batch, Expect::Any)], Vec::new).unwrap().is_some());
    let err = s.apply_batch("c1", batch.clone()).await.unwrap_err();
    assert!(err.to_string().contains("resource_labels"), "{err}");
    rename("labels_away", "resource_labels").await;
    assert_eq!(s.count("c1").await.unwrap(), 1);
    assert_eq!(list(s, sel("v=1")).await, ["c1/a"]);
    s.apply_batch("c1", batch).await.unwrap();
    assert_eq!(list(s, sel("v=2")).await, ["c1/a", "c1/b"]);
    let delete_b =
        Change::Delete { gvr: pods(), namespace: "ns".into(), name: "b".into(), uid: String::new() };
    s.apply_batch("c1", vec![delete_b, up("c", "3")]).await.unwrap();
    assert_eq!(list(s, sel("v")).await, ["c1/a", "c1/c"]);
}

#[tokio::test]
async fn apply_batch_keeps_the_outcome_of_watch_order() {
    let t = temp_store().await;
    let s = &t.store;
    let del = |name: &str, uid: &str| Change::Delete {
        gvr: pods(),
        namespace: "ns".into(),
        name: name.into(),
        uid: uid.into(),
    };
    s.apply_batch(
        "c1",
        vec![
            Change::Upsert(object(&pods(), Some("ns"), "a", "u1", &[])),
            del("a", "u1"),
            Change::Upsert(object(&pods(), Some("ns"), "a", "u2", &[("v", "2")])),
            Change::Upsert(object(&pods(), Some("ns"), "b", "u3", &[])),
            del("b", ""),
            Change::Upsert(object(&pods(), Some("ns"), "c", "u4", &[])),
            // A late delete of an older incarnation leaves the current object alone.
            del("c", "u-old"),
        ],
    )
    .await
    .unwrap();
    assert_eq!(s.list_keys("c1", &pods()).await.unwrap().len(), 2);
    let page = s.query(&Query::default()).await.unwrap();
    assert_eq!(names(&page), ["c1/a", "c1/c"]);
    assert_eq!(page.items[0].1.value()["metadata"]["uid"], "u2");
}

#[tokio::test]
async fn large_batches_are_written_in_chunks() {
    let t = temp_store().await;
    let s = &t.store;
    let changes: Vec<Change> = (0..1234)
        .map(|i| {
            Change::Upsert(object(&pods(), Some("ns"), &format!("p{i:05}"), &format!("u{i}"), &[("i", "x")]))
        })
        .collect();
    s.apply_batch("c1", changes).await.unwrap();
    assert_eq!(s.count("c1").await.unwrap(), 1234);
    assert_eq!(label_rows(s).await, 1234);
}

/// What the sync does with a fresh list of a type (see `sync::watch` and the writer): the
/// objects stored at their version are skipped, the others written, then the rows the list
/// lacks removed (and returned as deletions).
async fn relist(s: &Store, cluster: &str, gvr: &Gvr, live: Vec<StoredObject>) -> Vec<Change> {
    let mut keys = s.relist_keys(cluster, gvr).await.unwrap();
    let changed: Vec<Change> =
        live.into_iter().filter(|o| !keys.listed(&o.uid, &o.resource_version)).map(Change::Upsert).collect();
    s.apply_changes(cluster, &changed, Expect::Any).await.unwrap();
    s.delete_missing(cluster, gvr, &keys).await.unwrap()
}

#[tokio::test]
async fn a_relist_makes_the_rows_equal_the_list() {
    let t = temp_store().await;
    let s = &t.store;
    let batch = vec![
        Change::Upsert(object(&pods(), Some("ns"), "keep", "u1", &[("a", "1")])),
        Change::Upsert(object(&pods(), Some("ns"), "gone", "u2", &[("a", "1")])),
        Change::Upsert(object(&pods(), Some("ns"), "recreated", "u3", &[])),
        Change::Upsert(object(&deployments(), Some("ns"), "other-type", "u4", &[])),
    ];
    s.apply_batch("c1", batch.clone()).await.unwrap();
    s.apply_batch("c2", batch).await.unwrap();
    let mut keep = object(&pods(), Some("ns"), "keep", "u1", &[("a", "2")]);
    edit(&mut keep, |v| v["metadata"]["resourceVersion"] = json!("2"));
    keep.resource_version = "2".into();
    let live = vec![
        keep,
        object(&pods(), Some("ns"), "recreated", "u3b", &[]),
        object(&pods(), Some("ns"), "new", "u5", &[]),
    ];
    let gone = relist(s, "c1", &pods(), live).await;
    assert_eq!(gone.len(), 1);
    assert!(matches!(&gone[0], Change::Delete { name, uid, .. } if name == "gone" && uid == "u2"));
    let q = Query { cluster: Some("c1".into()), gvr: Some(pods()), ..Query::default() };
    assert_eq!(list(s, q).await, ["c1/keep", "c1/new", "c1/recreated"]);
    let mut keys = s.list_keys("c1", &pods()).await.unwrap();
    keys.sort();
    assert_eq!(keys.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(), ["u1", "u3b", "u5"]);
    let q = Query { labels: Some(LabelSelector::parse("a=2").unwrap()), ..Query::default() };
    assert_eq!(list(s, q).await, ["c1/keep"]);
    // Other types and other clusters are untouched.
    assert_eq!(s.count("c1").await.unwrap(), 4);
    assert_eq!(s.count("c2").await.unwrap(), 4);
    // An empty list empties the type.
    assert_eq!(relist(s, "c1", &pods(), vec![]).await.len(), 3);
    assert_eq!(s.count("c1").await.unwrap(), 1);
}

#[tokio::test]
async fn label_selectors_of_every_operator() {
    let t = temp_store().await;
    let s = &t.store;
    s.apply_batch(
        "c1",
        vec![
            Change::Upsert(object(&pods(), Some("ns"), "web", "u1", &[("app", "web"), ("env", "prod")])),
            Change::Upsert(object(&pods(), Some("ns"), "db", "u2", &[("app", "db"), ("env", "dev")])),
            Change::Upsert(object(&pods(), Some("ns"), "bare", "u3", &[])),
        ],
    )
    .await
    .unwrap();
    let sel = |text: &'static str| async move {
        let q = Query { labels: Some(LabelSelector::parse(text).unwrap()), ..Query::default() };
        list(s, q).await
    };
    assert_eq!(sel("app=web").await, ["c1/web"]);
    assert_eq!(sel("app!=web").await, ["c1/bare", "c1/db"]);
    assert_eq!(sel("env in (dev,prod)").await, ["c1/db", "c1/web"]);
    assert_eq!(sel("env notin (prod)").await, ["c1/bare", "c1/db"]);
    assert_eq!(sel("app").await, ["c1/db", "c1/web"]);
    assert_eq!(sel("!app").await, ["c1/bare"]);
    assert_eq!(sel("app,env=dev").await, ["c1/db"]);
    assert_eq!(sel("").await, ["c1/bare", "c1/db", "c1/web"]);
}

#[tokio::test]
async fn field_selectors_use_columns_and_the_object() {
    let t = temp_store().await;
    let s = &t.store;
    let mut running = object(&pods(), Some("a"), "p1", "u1", &[]);
    edit(&mut running, |o| o["spec"] = json!({"nodeName": "n1"}));
    let mut pending = object(&pods(), Some("b"), "p2", "u2", &[]);
    edit(&mut pending, |o| o["status"]["phase"] = json!("Pending"));
    s.apply_batch("c1", vec![Change::Upsert(running), Change::Upsert(pending)]).await.unwrap();
    let sel = |text: &'static str| async move {
        let q = Query { fields: Some(FieldSelector::parse(text).unwrap()), ..Query::default() };
        list(s, q).await
    };
    assert_eq!(sel("metadata.name=p1").await, ["c1/p1"]);
    assert_eq!(sel("metadata.namespace!=a").await, ["c1/p2"]);
    assert_eq!(sel("status.phase=Pending").await, ["c1/p2"]);
    assert_eq!(sel("spec.nodeName=n1").await, ["c1/p1"]);
    assert_eq!(sel("spec.nodeName=").await, ["c1/p2"]);
    assert_eq!(sel("status.phase=Running,metadata.namespace=b").await, Vec::<String>::new());
}

#[tokio::test]
async fn pages_return_every_row_once_in_stable_order() {
    let t = temp_store().await;
    let s = &t.store;
    let mut expected = Vec::new();
    for cluster in ["c2", "c1"] {
        let mut batch = Vec::new();
        for i in 0..23 {
            let ns = if i % 2 == 0 { "even" } else { "odd" };
            let phase = if i % 3 == 0 { "Pending" } else { "Running" };
            let mut o = object(&pods(), Some(ns), &format!("p{i:02}"), &format!("{cluster}-u{i}"), &[]);
            edit(&mut o, |o| o["status"]["phase"] = json!(phase));
            batch.push(Change::Upsert(o));
            // Same namespace and name under another type: ordered after the pod.
            batch.push(Change::Upsert(object(
                &deployments(),
                Some(ns),
                &format!("p{i:02}"),
                &format!("{cluster}-d{i}"),
                &[],
            )));
            expected.push((cluster.to_string(), ns.to_string(), format!("p{i:02}")));
        }
        s.apply_batch(cluster, batch).await.unwrap();
    }
    expected.sort();
    let all = s.query(&Query::default()).await.unwrap();
    assert_eq!(all.items.len(), 92);
    assert!(all.next.is_none());
    let kinds: Vec<String> =
        all.items.iter().take(2).map(|(_, o)| o.value()["apiVersion"].as_str().unwrap().to_owned()).collect();
    assert_eq!(kinds, ["v1", "apps/v1"], "same name: ordered by group (\"\" first)");

    for (q, total) in [
        (Query::default(), 92),
        (Query { gvr: Some(pods()), ..Query::default() }, 46),
        (
            Query {
                gvr: Some(pods()),
                fields: Some(FieldSelector::parse("status.phase=Pending").unwrap()),
                ..Query::default()
            },
            16,
        ),
    ] {
        for limit in [1, 7, 10, 46, 100] {
            let mut seen = Vec::new();
            let mut q = Query { limit: Some(limit), ..q.clone() };
            let mut pages = 0;
            loop {
                let page = s.query(&q).await.unwrap();
                assert!(page.items.len() <= limit as usize);
                seen.extend(page.items.iter().map(|(c, o)| (c.clone(), o.clone())));
                pages += 1;
                match page.next {
                    Some(cursor) => {
                        let token = cursor.encode();
                        q.continue_after = Some(Cursor::decode(&token).unwrap());
                    }
                    None => break,
                }
            }
            let unpaged = s.query(&Query { limit: None, continue_after: None, ..q.clone() }).await.unwrap();
            assert_eq!(seen.len(), total, "limit {limit}");
            assert_eq!(seen, unpaged.items, "limit {limit}");
            assert_eq!(pages, total.div_ceil(limit as usize).max(1), "limit {limit}: no empty last page");
        }
    }
    let pods_only = s.query(&Query { gvr: Some(pods()), ..Query::default() }).await.unwrap();
    let order: Vec<(String, String, String)> = pods_only
        .items
        .iter()
        .map(|(c, o)| {
            let o = o.value();
            let m = &o["metadata"];
            (c.clone(), m["namespace"].as_str().unwrap().into(), m["name"].as_str().unwrap().into())
        })
        .collect();
    assert_eq!(order, expected);
}

#[test]
fn cursors_round_trip_and_bad_tokens_are_rejected() {
    let c = Cursor {
        cluster: "c1".into(),
        namespace: "".into(),
        name: "a/b?c=d&e".into(),
        group: "apps".into(),
        version: "v1".into(),
        resource: "deployments".into(),
    };
    let token = c.encode();
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(Cursor::decode(&token).unwrap(), c);
    for bad in ["", "zz", "abc", "7b7d", &"ab".repeat(5000)] {
        let err = Cursor::decode(bad).unwrap_err();
        assert!(matches!(err, Error::BadCursor { .. }), "{bad}");
        assert!(err.to_string().len() < 200);
    }
}

#[tokio::test]
async fn delete_cluster_removes_its_objects_labels_and_row() {
    let t = temp_store().await;
    let s = &t.store;
    for c in ["c1", "c2"] {
        s.apply_batch(c, vec![Change::Upsert(object(&pods(), None, "n", &format!("{c}-u"), &[("a", "b")]))])
            .await
            .unwrap();
        let row = ClusterRow {
            name: c.into(),
            is_master: c == "c1",
            status: "Healthy".into(),
            version: "v1.35.4".into(),
            platform: "linux/amd64".into(),
            host: "https://127.0.0.1:6443".into(),
            updated_at: 1_700_000_000,
            info: json!({"objects": 1}),
        };
        s.upsert_cluster(&row).await.unwrap();
    }
    let gone = Change::Delete { gvr: pods(), namespace: String::new(), name: "n".into(), uid: "c1-u".into() };
    assert_eq!(s.delete_cluster("c1").await.unwrap(), [gone]);
    assert_eq!(s.count("c1").await.unwrap(), 0);
    assert_eq!(label_rows(s).await, 1);
    let clusters = s.list_clusters().await.unwrap();
    assert_eq!(clusters.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["c2"]);
    assert_eq!(clusters[0].info, json!({"objects": 1}));
    assert!(!clusters[0].is_master);
}

#[tokio::test]
async fn cluster_rows_are_upserted() {
    let t = temp_store().await;
    let s = &t.store;
    let mut row = ClusterRow {
        name: "c1".into(),
        is_master: true,
        status: "NotReady".into(),
        version: String::new(),
        platform: String::new(),
        host: "h".into(),
        updated_at: 1,
        info: json!({}),
    };
    s.upsert_cluster(&row).await.unwrap();
    row.status = "Healthy".into();
    row.updated_at = 2;
    row.info = json!({"types": 42});
    s.upsert_cluster(&row).await.unwrap();
    assert_eq!(s.list_clusters().await.unwrap(), vec![row]);
}

/// `PRAGMA foreign_keys` of the next write transaction of `access`.
async fn foreign_keys(store: &Store, access: Access) -> i64 {
    let mut tx = store.begin_as(access).await.unwrap();
    let rows = tx.fetch(statement::Builder::new(tx.dialect, "PRAGMA foreign_keys").finish(), &[Col::Int]);
    let on = rows.await.unwrap()[0].int(0);
    tx.commit().await.unwrap();
    on
}

#[tokio::test]
async fn upserts_skip_the_foreign_key_checks_and_a_deletion_on_the_same_connection_still_cascades() {
    // One connection for ever: every transaction below runs on it, switching the checks.
    let store = Store::connect("sqlite::memory:").await.unwrap();
    upserts_skip_the_foreign_key_checks_and_deletions_still_cascade(&store).await;
}

#[tokio::test]
async fn a_file_store_writes_upserts_on_a_connection_without_the_checks_and_deletions_still_cascade() {
    // Upserts on a connection opened without the checks, everything else on connections that
    // keep them: no transaction switches them (that would expire the prepared statements).
    let t = temp_store().await;
    upserts_skip_the_foreign_key_checks_and_deletions_still_cascade(&t.store).await;
}

async fn upserts_skip_the_foreign_key_checks_and_deletions_still_cascade(store: &Store) {
    let store = store.clone();
    let a = object(&pods(), Some("ns"), "a", "u1", &[("app", "x"), ("tier", "web")]);
    let b = object(&pods(), Some("ns"), "b", "u2", &[("app", "y")]);
    store.apply_batch("c1", vec![Change::Upsert(a), Change::Upsert(b)]).await.unwrap();
    assert_eq!(foreign_keys(&store, Access::Upserts).await, 0);
    let c = object(&pods(), Some("ns"), "c", "u3", &[("app", "z")]);
    store.apply_changes("c1", &[Change::Upsert(c)], Expect::NewRows).await.unwrap();
    assert_eq!(label_rows(&store).await, 4);
    assert_eq!(foreign_keys(&store, Access::Write).await, 1, "checked again after upserts");
    assert_eq!(foreign_keys(&store, Access::Upserts).await, 0);

    // A batch with a deletion, right after upserts on the same connection: `a`'s two label rows
    // go with it, `b`'s one is replaced.
    let deleted = Change::Delete { gvr: pods(), namespace: "ns".into(), name: "a".into(), uid: "u1".into() };
    let relabelled = object(&pods(), Some("ns"), "b", "u2", &[("app", "y2")]);
    store.apply_batch("c1", vec![deleted, Change::Upsert(relabelled)]).await.unwrap();
    assert_eq!(label_rows(&store).await, 2);
    let q = Query { labels: Some(LabelSelector::parse("app=y2").unwrap()), ..Query::default() };
    assert_eq!(list(&store, q).await, ["c1/b"]);

    // The other deletions, after upserts again.
    let d = object(&pods(), Some("ns"), "d", "u4", &[("app", "w")]);
    store.apply_batch("c1", vec![Change::Upsert(d)]).await.unwrap();
    assert_eq!(label_rows(&store).await, 3);
    assert_eq!(store.delete_gvr("c1", &pods()).await.unwrap().len(), 3);
    assert_eq!(label_rows(&store).await, 0);
    let e = object(&pods(), Some("ns"), "e", "u5", &[("app", "v")]);
    store.apply_batch("c2", vec![Change::Upsert(e)]).await.unwrap();
    assert_eq!(store.delete_cluster("c2").await.unwrap().len(), 1);
    assert_eq!(label_rows(&store).await, 0);
}

#[tokio::test]
#[should_panic(expected = "deletes objects")]
async fn a_transaction_begun_for_upserts_may_not_delete_objects() {
    let store = Store::connect("sqlite::memory:").await.unwrap();
    let mut tx = store.begin_upserts().await.unwrap();
    let _ = tx.execute(sql::delete_objects(tx.dialect, &[1])).await;
}

#[tokio::test]
async fn counts_keys_and_delete_gvr() {
    let t = temp_store().await;
    let s = &t.store;
    s.apply_batch(
        "c1",
        vec![
            Change::Upsert(object(&pods(), Some("ns"), "a", "u1", &[])),
            Change::Upsert(object(&pods(), Some("ns"), "b", "u2", &[])),
            Change::Upsert(object(&deployments(), Some("ns"), "a", "u3", &[])),
        ],
    )
    .await
    .unwrap();
    let counts = s.count_by_gvr("c1").await.unwrap();
    assert_eq!(counts.get(&pods()), Some(&2));
    assert_eq!(counts.get(&deployments()), Some(&1));
    let mut keys = s.list_keys("c1", &pods()).await.unwrap();
    keys.sort();
    assert_eq!(keys, vec![("u1".to_string(), "1".to_string()), ("u2".to_string(), "1".to_string())]);
    assert_eq!(s.delete_gvr("c1", &pods()).await.unwrap().len(), 2);
    assert_eq!(s.count("c1").await.unwrap(), 1);
    assert!(s.count_by_gvr("c2").await.unwrap().is_empty());
}

#[tokio::test]
async fn the_same_object_may_be_stored_under_two_types() {
    let t = temp_store().await;
    let s = &t.store;
    let events = Gvr::new("", "v1", "events");
    let k8s_events = Gvr::new("events.k8s.io", "v1", "events");
    s.apply_batch(
        "c1",
        vec![
            Change::Upsert(object(&events, Some("ns"), "e", "same-uid", &[("a", "b")])),
            Change::Upsert(object(&k8s_events, Some("ns"), "e", "same-uid", &[("a", "b")])),
        ],
    )
    .await
    .unwrap();
    assert_eq!(s.count("c1").await.unwrap(), 2);
    assert_eq!(label_rows(s).await, 2);
    assert_eq!(relist(s, "c1", &events, vec![]).await.len(), 1);
    let q = Query { labels: Some(LabelSelector::parse("a=b").unwrap()), ..Query::default() };
    assert_eq!(list(s, q).await, ["c1/e"]);
}

#[tokio::test]
async fn cluster_scoped_objects_have_an_empty_namespace() {
    let t = temp_store().await;
    let s = &t.store;
    let nodes = Gvr::new("", "v1", "nodes");
    s.apply_batch("c1", vec![Change::Upsert(object(&nodes, None, "n1", "u1", &[]))]).await.unwrap();
    // Upserting again must hit the same row, not add one (NULLs would never conflict).
    s.apply_batch("c1", vec![Change::Upsert(object(&nodes, None, "n1", "u1", &[]))]).await.unwrap();
    assert_eq!(s.count("c1").await.unwrap(), 1);
    let q = Query { namespace: Some(String::new()), ..Query::default() };
    assert_eq!(list(s, q).await, ["c1/n1"]);
}

/// A relist reads the stored keys of its type a page at a time (7 rows in unit tests): across
/// namespaces, with names shared between them and other types and clusters around, every row
/// is read once.
#[tokio::test]
async fn stored_keys_are_read_a_page_at_a_time_and_none_is_missed() {
    let t = temp_store().await;
    let s = &t.store;
    let uid = |i: usize| format!("0b5f8d3e-91c2-4a7b-8e6f-{i:012x}");
    let mut batch = Vec::new();
    for i in 0..30 {
        let (ns, name) = (format!("ns{}", i % 3), format!("p{}", i / 3));
        let mut pod = object(&pods(), Some(&ns), &name, &uid(i), &[]);
        pod.resource_version = (100 + i).to_string();
        batch.push(Change::Upsert(pod));
        batch.push(Change::Upsert(object(&deployments(), Some(&ns), &name, &format!("d{i}"), &[])));
    }
    s.apply_batch("c1", batch.clone()).await.unwrap();
    s.apply_batch("c2", batch).await.unwrap();
    let mut keys = s.list_keys("c1", &pods()).await.unwrap();
    keys.sort();
    let want: Vec<(String, String)> = (0..30).map(|i| (uid(i), (100 + i).to_string())).collect();
    assert_eq!(keys, want);
    let mut relist = s.relist_keys("c1", &pods()).await.unwrap();
    assert_eq!(relist.len(), 30);
    // The list returns every third pod, one of them changed, and a pod that was not stored.
    let unchanged = (0..30).filter(|i| i % 3 == 0).filter(|&i| {
        let version = if i == 3 { "1000".to_string() } else { (100 + i).to_string() };
        relist.listed(&uid(i), &version)
    });
    assert_eq!(unchanged.count(), 9);
    assert!(!relist.listed("d0", "1"));
    // Deleted meanwhile: the others, in c1 only.
    let gone = s.delete_missing("c1", &pods(), &relist).await.unwrap();
    assert_eq!(gone.len(), 20);
    assert!(gone.iter().all(|c| matches!(c, Change::Delete { uid, .. } if !relist.was_listed(uid))));
    assert_eq!(s.list_keys("c1", &pods()).await.unwrap().len(), 10);
    assert_eq!(s.count("c1").await.unwrap(), 40);
    assert_eq!(s.count("c2").await.unwrap(), 60);
}

#[tokio::test]
async fn delete_missing_keeps_only_the_listed_uids_of_one_type() {
    let t = temp_store().await;
    let s = &t.store;
    for c in ["c1", "c2"] {
        s.apply_batch(
            c,
            vec![
                Change::Upsert(object(&pods(), Some("ns"), "a", "u1", &[("x", "y")])),
                Change::Upsert(object(&pods(), Some("ns"), "b", "u2", &[("x", "y")])),
                Change::Upsert(object(&deployments(), Some("ns"), "c", "u3", &[])),
            ],
        )
        .await
        .unwrap();
    }
    let keep: RelistKeys = ["u2", "not-stored"].into_iter().collect();
    // What would go, read without removing it (a replica that does not write the cluster).
    let gone = Change::Delete { gvr: pods(), namespace: "ns".into(), name: "a".into(), uid: "u1".into() };
    assert_eq!(s.missing("c1", &pods(), &keep).await.unwrap(), std::slice::from_ref(&gone));
    assert_eq!(s.count("c1").await.unwrap(), 3);
    assert_eq!(s.delete_missing("c1", &pods(), &keep).await.unwrap(), [gone]);
    assert_eq!(s.missing("c1", &pods(), &keep).await.unwrap(), []);
    assert_eq!(list(s, Query { cluster: Some("c1".into()), ..Query::default() }).await, ["c1/b", "c1/c"]);
    assert_eq!(s.count("c2").await.unwrap(), 3);
    assert_eq!(label_rows(s).await, 3);
}

#[tokio::test]
async fn cluster_names_come_from_objects_and_cluster_rows() {
    let t = temp_store().await;
    let s = &t.store;
    s.apply_batch("b", vec![Change::Upsert(object(&pods(), Some("ns"), "a", "u1", &[]))]).await.unwrap();
    s.apply_batch("a", vec![Change::Upsert(object(&pods(), Some("ns"), "a", "u1", &[]))]).await.unwrap();
    let row = ClusterRow {
        name: "c".into(),
        is_master: false,
        status: String::new(),
        version: String::new(),
        platform: String::new(),
        host: String::new(),
        updated_at: 0,
        info: json!({}),
    };
    s.upsert_cluster(&row).await.unwrap();
    s.upsert_cluster(&ClusterRow { name: "a".into(), ..row }).await.unwrap();
    assert_eq!(s.cluster_names().await.unwrap(), ["a", "b", "c"]);
}

/// SQLite's plan of one page of a query (limited, after a cursor or not), its steps joined.
async fn page_plan(store: &Store, f: &sql::SqlFilter<'_>, after: Option<&Cursor>, order: Order) -> String {
    let mut tx = store.begin(false).await.unwrap();
    let mut stmt = sql::select_page(tx.dialect, f, after, Some(500), order);
    stmt.sql.insert_str(0, "EXPLAIN QUERY PLAN ");
    let plan = tx.fetch(stmt, &[Col::Int, Col::Int, Col::Int, Col::Text]).await.unwrap();
    tx.commit().await.unwrap();
    plan.iter().map(|r| r.str(3).to_string()).collect::<Vec<_>>().join("; ")
}

#[tokio::test]
async fn pages_are_read_in_one_step_only_where_an_index_gives_their_order() {
    let t = temp_store().await;
    let s = &t.store;
    let objects = (0..200).map(|i| {
        let labels: &[(&str, &str)] = if i % 4 == 0 { &[("app", "web")] } else { &[("app", "db")] };
        let ns = if i % 2 == 0 { "ns" } else { "other" };
        Change::Upsert(object(&pods(), Some(ns), &format!("p{i:03}"), &format!("u{i}"), labels))
    });
    s.apply_batch("c1", objects.collect()).await.unwrap();
    let gvr = pods();
    let after = Cursor {
        cluster: "c1".into(),
        namespace: "ns".into(),
        name: "p010".into(),
        group: String::new(),
        version: "v1".into(),
        resource: "pods".into(),
    };
    let absent = LabelSelector::parse("app!=web,!tier").unwrap();
    let present = LabelSelector::parse("app=web").unwrap();
    let filter = |gvr, cluster, namespace, name, labels| sql::SqlFilter {
        gvr,
        cluster,
        namespace,
        name,
        columns: Vec::new(),
        labels,
        allowed: None,
    };
    let columns = |columns| sql::SqlFilter { columns, ..filter(Some(&gvr), None, None, None, None) };
    // Read in one step: the plan must walk an index in the page's order, with no sort.
    let in_order = [
        filter(Some(&gvr), None, None, None, None),
        filter(Some(&gvr), Some("c1"), None, None, None),
        filter(Some(&gvr), None, Some("ns"), None, None),
        filter(Some(&gvr), Some("c1"), Some("ns"), None, None),
        filter(Some(&gvr), None, None, Some("p010"), None),
        filter(Some(&gvr), None, Some("ns"), None, Some(&absent)),
        columns(vec![("namespace", true, "ns")]),
        columns(vec![("name", false, "p010"), ("namespace", false, "ns")]),
        filter(None, None, None, None, None),
        filter(None, Some("c1"), None, None, None),
    ];
    for (i, f) in in_order.iter().enumerate() {
        assert!(!sql::sorts_rows(f, Order::Name));
        for cursor in [None, Some(&after)] {
            let plan = page_plan(s, f, cursor, Order::Name).await;
            assert!(
                plan.contains("USING INDEX") && !plan.contains("TEMP B-TREE"),
                "shape {i}, after {}: {plan}",
                cursor.is_some()
            );
        }
    }
    // Read as keys first: a label that must be present, a namespace or name across types, or the
    // newest first, may sort the rows.
    for f in [
        filter(Some(&gvr), None, Some("ns"), None, Some(&present)),
        filter(None, None, Some("ns"), None, None),
        filter(None, None, None, Some("p010"), None),
    ] {
        assert!(sql::sorts_rows(&f, Order::Name));
    }
    assert!(
        page_plan(s, &filter(None, None, Some("ns"), None, None), None, Order::Name)
            .await
            .contains("TEMP B-TREE")
    );
    let newest = filter(Some(&gvr), None, None, None, None);
    assert!(sql::sorts_rows(&newest, Order::Newest));
    assert!(page_plan(s, &newest, None, Order::Newest).await.contains("TEMP B-TREE"));
    // Either way a limited page is the start of the same query without a limit.
    for labels in [None, Some(present)] {
        let q = Query { namespace: Some("ns".into()), labels, ..Query::default() };
        let all = list(s, q.clone()).await;
        assert!(all.len() > 7, "{all:?}");
        assert_eq!(list(s, Query { limit: Some(7), ..q }).await, all[..7]);
    }
}

/// Names of the store's indexes on `resources` and `resource_labels`, and the plan of a query
/// for a namespace across clusters and a label.
async fn indexes_and_plan(store: &Store) -> (Vec<String>, String) {
    let mut tx = store.begin(false).await.unwrap();
    let d = tx.dialect;
    let sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL \
               AND tbl_name IN ('resources', 'resource_labels') ORDER BY name";
    let names = tx.fetch(statement::Builder::new(d, sql).finish(), &[Col::Text]).await.unwrap();
    let plan = "EXPLAIN QUERY PLAN SELECT id FROM resources WHERE \"group\" = '' AND version = 'v1' \
                AND resource = 'pods' AND namespace = 'ns' AND EXISTS (SELECT 1 FROM resource_labels \
                WHERE resource_id = resources.id AND \"key\" = 'app' AND \"value\" = 'web')";
    let plan =
        tx.fetch(statement::Builder::new(d, plan).finish(), &[Col::Int, Col::Int, Col::Int, Col::Text]).await;
    tx.commit().await.unwrap();
    let plan = plan.unwrap().iter().map(|r| r.str(3).to_string()).collect::<Vec<_>>().join("; ");
    (names.into_iter().map(|mut r| r.text(0)).collect(), plan)
}

const EVERY_INDEX: [&str; 6] = [
    "ix_resource_labels_kv",
    "ix_resources_count",
    "ix_resources_namespace",
    "ix_resources_order",
    "ix_resources_owner",
    "uq_resources_key",
];

#[tokio::test]
async fn an_empty_store_defers_four_indexes_and_builds_them_after_its_first_sync() {
    let t = temp_store().await;
    let s = &t.store;
    assert_eq!(indexes_and_plan(s).await.0, EVERY_INDEX);
    assert_eq!(s.defer_indexes().await.unwrap(), 4);
    assert_eq!(indexes_and_plan(s).await.0, ["ix_resources_order", "uq_resources_key"]);
    assert!(s.pending_indexes().unwrap().contains("building the store's indexes"));

    // Written and queried without them: the answers are the same, found by scanning.
    let objects = (0..300).map(|i| {
        let labels: &[(&str, &str)] = if i % 3 == 0 { &[("app", "web")] } else { &[("app", "db")] };
        let ns = if i % 2 == 0 { "ns" } else { "other" };
        Change::Upsert(object(&pods(), Some(ns), &format!("p{i:03}"), &format!("u{i}"), labels))
    });
    s.apply_batch("c1", objects.collect()).await.unwrap();
    let q = Query {
        namespace: Some("ns".into()),
        labels: Some(LabelSelector::parse("app=web").unwrap()),
        ..Query::default()
    };
    let before = list(s, q.clone()).await;
    assert_eq!(before.len(), 50);

    assert_eq!(s.build_deferred_indexes().await.unwrap(), 4);
    assert_eq!(s.pending_indexes(), None);
    let (names, plan) = indexes_and_plan(s).await;
    assert_eq!(names, EVERY_INDEX);
    assert!(plan.contains("ix_resources_namespace") || plan.contains("ix_resource_labels_kv"), "{plan}");
    assert_eq!(list(s, q).await, before);
    // Nothing is left to build, and a store with objects defers nothing.
    assert_eq!(s.build_deferred_indexes().await.unwrap(), 0);
    assert_eq!(s.defer_indexes().await.unwrap(), 0);
    assert_eq!(indexes_and_plan(s).await.0, EVERY_INDEX);
}

#[tokio::test]
async fn indexes_a_stopped_run_deferred_are_built_by_the_next() {
    let t = temp_store().await;
    let url = format!("sqlite://{}/nested/mc.db", t.dir.display());
    assert_eq!(t.store.defer_indexes().await.unwrap(), 4);
    t.store
        .apply_batch("c1", vec![Change::Upsert(object(&pods(), Some("ns"), "a", "u1", &[("app", "web")]))])
        .await
        .unwrap();
    t.store.close().await;

    // The next start finds objects, so defers nothing more, but still owes the four indexes.
    let again = Store::connect(&url).await.unwrap();
    assert_eq!(again.defer_indexes().await.unwrap(), 4);
    assert!(again.pending_indexes().is_some());
    assert_eq!(again.build_deferred_indexes().await.unwrap(), 4);
    assert_eq!(indexes_and_plan(&again).await.0, EVERY_INDEX);
    let q = Query { labels: Some(LabelSelector::parse("app=web").unwrap()), ..Query::default() };
    assert_eq!(list(&again, q).await, ["c1/a"]);
}

#[tokio::test]
async fn a_deferred_index_whose_statement_was_changed_is_not_run() {
    let t = temp_store().await;
    let s = &t.store;
    assert_eq!(s.defer_indexes().await.unwrap(), 4);
    let mut tx = s.begin(true).await.unwrap();
    let evil = "UPDATE deferred_indexes SET sql = 'CREATE INDEX x ON resources (name); DROP TABLE resources' \
                WHERE name = 'ix_resources_namespace'";
    tx.execute(statement::Builder::new(tx.dialect, evil).finish()).await.unwrap();
    tx.commit().await.unwrap();
    let err = s.build_deferred_indexes().await.unwrap_err();
    assert!(matches!(err, Error::Corrupt(_)), "{err}");
    let why = s.pending_indexes().unwrap();
    assert!(why.contains("failed") && why.contains("retrying"), "{why}");
    assert_eq!(s.count("c1").await.unwrap(), 0, "the resources table is still there");
}

/// Every column of the `resources` rows of `resource`, but `update_at`, in id order.
async fn resource_rows(store: &Store, resource: &str) -> Vec<Vec<statement::Cell>> {
    let mut tx = store.begin(false).await.unwrap();
    let mut b = statement::Builder::new(
        tx.dialect,
        "SELECT id, namespace, name, cluster, \"group\", version, resource, kind, resource_version, \
         owner, uid, hash, object, create_at, delete_at FROM resources WHERE resource = ",
    );
    b.bind(resource).push(" ORDER BY id");
    // id; namespace to kind; resource_version, owner; uid; hash; object, create_at; delete_at.
    let cols = [
        &[Col::Int][..],
        &[Col::Text; 7],
        &[Col::OptText; 2],
        &[Col::Text],
        &[Col::OptText],
        &[Col::Text; 2],
        &[Col::OptText],
    ]
    .concat();
    let rows = tx.fetch(b.finish(), &cols).await.unwrap();
    tx.commit().await.unwrap();
    rows.into_iter().map(|r| r.0).collect()
}

#[tokio::test]
async fn a_first_list_page_of_one_type_is_stored_as_a_batch_of_several_types_is() {
    // A page of one type binds its cluster and type once (a SELECT over VALUES); the same
    // objects with one of another type in their batch are rows of their own (plain VALUES).
    let pod = |i: usize| {
        let mut meta = json!({
            "name": format!("p{i}"), "namespace": "ns", "uid": format!("u{i}"), "resourceVersion": format!("{}", 40 + i),
            "labels": {"app": "x", "i": i.to_string()}, "creationTimestamp": "2024-01-02T03:04:05Z",
        });
        if i.is_multiple_of(2) {
            meta["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "owner-1", "controller": true}]);
        }
        StoredObject::from_json(pods(), "Pod", json!({"metadata": meta, "spec": {"n": i}})).unwrap()
    };
    let page: Vec<Change> = (0..7).map(|i| Change::Upsert(pod(i))).collect();
    let typed = Store::connect("sqlite::memory:").await.unwrap();
    typed.apply_changes("c1", &page, Expect::NewRows).await.unwrap();
    let mut mixed_batch = page.clone();
    mixed_batch.push(Change::Upsert(object(&deployments(), Some("ns"), "d", "ud", &[("app", "x")])));
    let mixed = Store::connect("sqlite::memory:").await.unwrap();
    mixed.apply_changes("c1", &mixed_batch, Expect::NewRows).await.unwrap();

    let rows = resource_rows(&typed, "pods").await;
    assert_eq!(rows.len(), 7);
    assert_eq!(rows, resource_rows(&mixed, "pods").await);
    assert_eq!(rows[0][3], statement::Cell::Text("c1".into()));
    assert_eq!(rows[0][7], statement::Cell::Text("Pod".into()));
    assert_eq!(rows[0][9], statement::Cell::Text("owner-1".into()));
    assert_eq!(rows[1][9], statement::Cell::Null);
    assert_eq!(rows[1][8], statement::Cell::Text("41".into()));
    assert_eq!(rows[0][13], statement::Cell::Text("2024-01-02 03:04:05".into()));
    assert_eq!(label_rows(&typed).await, 14);
    let q = Query { labels: Some(LabelSelector::parse("i=3").unwrap()), ..Query::default() };
    assert_eq!(list(&typed, q).await, ["c1/p3"]);
}
