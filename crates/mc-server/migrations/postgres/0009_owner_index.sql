-- The children of an owner in one cluster (trees of relations, `list --owner`). An empty store
-- drops it during its first sync and builds it after (see `store::deferred`).
CREATE INDEX IF NOT EXISTS ix_resources_owner ON resources (cluster, owner);
