-- The history store: every change the writer applies, kept as a revision written in the same
-- transaction as the object's row (see `store::history`). Ids are never reused (AUTOINCREMENT):
-- they order one object's revisions and let a reader page on. `at` is when mc-server wrote it
-- (unix ms); `change` 1 ADDED, 2 MODIFIED, 3 DELETED; `seen` 0 by a watch, 1 found by a list
-- (the change happened after `gap_from`, NULL: not known, and before `at`), 2 the type or
-- cluster stopped being synced (the object was not deleted in its cluster; no object kept);
-- `encoding` 0 no object, 1 zstd of the JSON text, 2 the JSON text; `bytes` the stored size.
CREATE TABLE revisions (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    cluster          TEXT NOT NULL,
    "group"          TEXT NOT NULL,
    version          TEXT NOT NULL,
    resource         TEXT NOT NULL,
    namespace        TEXT NOT NULL,
    name             TEXT NOT NULL,
    uid              TEXT NOT NULL,
    resource_version TEXT NOT NULL DEFAULT '',
    at               BIGINT NOT NULL,
    change           SMALLINT NOT NULL,
    seen             SMALLINT NOT NULL,
    gap_from         BIGINT,
    bytes            INTEGER NOT NULL,
    encoding         SMALLINT NOT NULL,
    object           BLOB
);
-- One object's history, and a type's state at a time: `at` and `change` make it covering, so
-- the newest revision of every object at a time is found from the index alone.
CREATE INDEX ix_revisions_object ON revisions (cluster, "group", version, resource, namespace, name, id, at, change);
-- Pruning oldest first, a cluster's oldest revision, time windows.
CREATE INDEX ix_revisions_at ON revisions (cluster, at, id);

-- Per cluster: revisions and their bytes (kept by the writer and the pruner, so stats and
-- `maxBytes` need no scan), and the horizons: the times before which pruning made the history
-- incomplete, for Events and for every other type (NULL: nothing pruned).
CREATE TABLE history_totals (
    cluster               TEXT PRIMARY KEY NOT NULL,
    revisions             BIGINT NOT NULL DEFAULT 0,
    bytes                 BIGINT NOT NULL DEFAULT 0,
    complete_since        BIGINT,
    events_complete_since BIGINT
);
