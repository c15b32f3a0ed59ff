-- Objects of every cluster. Columns as the original project's `resources` table; cluster-scoped
-- objects have namespace '' (not NULL) so the natural key stays unique.
CREATE TABLE resources (
    id               INTEGER PRIMARY KEY,
    namespace        TEXT NOT NULL DEFAULT '',
    name             TEXT NOT NULL,
    cluster          TEXT NOT NULL,
    "group"          TEXT NOT NULL,
    version          TEXT NOT NULL,
    resource         TEXT NOT NULL,
    kind             TEXT NOT NULL,
    resource_version TEXT,
    owner            TEXT,            -- owner uid
    uid              TEXT NOT NULL,
    hash             TEXT,            -- FNV-1a 64 of the object JSON, hex
    object           TEXT NOT NULL,   -- JSON
    create_at        TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    update_at        TEXT,
    delete_at        TEXT
);
-- Natural key; its column order serves "one type, ordered by cluster, namespace, name".
CREATE UNIQUE INDEX uq_resources_key ON resources ("group", version, resource, cluster, namespace, name);
-- One row per object and type: the same object may be served by two types (events and
-- events.events.k8s.io share uids).
CREATE UNIQUE INDEX uq_resources_uid ON resources (cluster, uid, "group", version, resource);
-- The stable order across all types.
CREATE INDEX ix_resources_order ON resources (cluster, namespace, name, "group", version, resource);

CREATE TABLE resource_labels (
    resource_id INTEGER NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
    "key"       TEXT NOT NULL,
    "value"     TEXT NOT NULL,
    PRIMARY KEY (resource_id, "key")
) WITHOUT ROWID;
CREATE INDEX ix_resource_labels_kv ON resource_labels ("key", "value", resource_id);

CREATE TABLE clusters (
    name       TEXT PRIMARY KEY NOT NULL,
    is_master  BOOLEAN NOT NULL DEFAULT 0,
    status     TEXT NOT NULL DEFAULT '',
    version    TEXT NOT NULL DEFAULT '',
    platform   TEXT NOT NULL DEFAULT '',
    host       TEXT NOT NULL DEFAULT '',
    updated_at BIGINT NOT NULL DEFAULT 0,   -- unix seconds
    info       TEXT NOT NULL DEFAULT '{}'   -- JSON
);
