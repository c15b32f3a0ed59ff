-- A namespace across every cluster (`kubectl get -n NS` over the fleet) found its rows by
-- scanning the whole type: the other indexes lead with the cluster. This one serves the
-- namespace directly, in the stable order (cluster, name) within it.
CREATE INDEX IF NOT EXISTS ix_resources_namespace ON resources ("group", version, resource, namespace, cluster, name);
