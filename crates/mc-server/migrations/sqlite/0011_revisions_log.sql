-- Revisions as the writer's transactions write them: the columns of `revisions` (its ids aside),
-- without an index, so that a change's transaction appends its revisions to one page. They are
-- moved into `revisions`, in order and with their clusters' totals, in steps off the writer's
-- path and before any read of the history (see `store::history::settle`,
-- docs/adr/0031-sqlite-revisions-staged.md). The ids only keep the order of the moves.
CREATE TABLE revisions_log (
    id               INTEGER PRIMARY KEY,
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
