-- The children of an owner in one cluster (trees of relations, `list --owner`).
CREATE INDEX ix_resources_owner ON resources (cluster, owner);
