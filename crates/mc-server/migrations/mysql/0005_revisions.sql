-- The history store: every change the writer applies, kept as a revision written in the same
-- transaction as the object's row (see `store::history`). `at` is when mc-server wrote it
-- (unix ms); `change` 1 ADDED, 2 MODIFIED, 3 DELETED; `seen` 0 by a watch, 1 found by a list
-- (the change happened after `gap_from`, NULL: not known, and before `at`), 2 the type or
-- cluster stopped being synced (the object was not deleted in its cluster; no object kept);
-- `encoding` 0 no object, 1 zstd of the JSON text, 2 the JSON text; `bytes` the stored size.
-- The object index's key (3,050 bytes) fits InnoDB's 3,072.
CREATE TABLE revisions (
    id               BIGINT NOT NULL AUTO_INCREMENT,
    cluster          VARCHAR(63) NOT NULL,
    `group`          VARCHAR(253) NOT NULL,
    version          VARCHAR(63) NOT NULL,
    resource         VARCHAR(63) NOT NULL,
    namespace        VARCHAR(63) NOT NULL,
    name             VARCHAR(253) NOT NULL,
    uid              VARCHAR(64) NOT NULL,
    resource_version VARCHAR(80) NOT NULL DEFAULT '',
    at               BIGINT NOT NULL,
    `change`         SMALLINT NOT NULL,
    seen             SMALLINT NOT NULL,
    gap_from         BIGINT NULL,
    bytes            INTEGER NOT NULL,
    encoding         SMALLINT NOT NULL,
    object           LONGBLOB NULL,
    PRIMARY KEY (id),
    KEY ix_revisions_object (cluster, `group`, version, resource, namespace, name, id, at, `change`),
    KEY ix_revisions_at (cluster, at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin ROW_FORMAT = DYNAMIC;

CREATE TABLE history_totals (
    cluster               VARCHAR(63) NOT NULL,
    revisions             BIGINT NOT NULL DEFAULT 0,
    bytes                 BIGINT NOT NULL DEFAULT 0,
    complete_since        BIGINT NULL,
    events_complete_since BIGINT NULL,
    PRIMARY KEY (cluster)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
