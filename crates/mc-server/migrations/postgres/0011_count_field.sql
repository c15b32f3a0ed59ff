-- One field of an object kept beside it for counts (`count.indexedFields`, see
-- `store::count_index`): `count_field` the path whose value `count_value` holds (its JSON text,
-- NULL where the object has none), '' for a type without one. Written by the writer from the
-- value the cluster's task extracted, so a count by the field reads this index alone. Every row
-- is in it, '' too: a count first asks it whether any row of the type lacks the path. An empty
-- store builds it after its first sync (see `store::deferred`).
ALTER TABLE resources ADD COLUMN IF NOT EXISTS count_field TEXT NOT NULL DEFAULT '';
ALTER TABLE resources ADD COLUMN IF NOT EXISTS count_value TEXT;
CREATE INDEX IF NOT EXISTS ix_resources_count ON resources ("group", version, resource, count_field, cluster, count_value, namespace);
