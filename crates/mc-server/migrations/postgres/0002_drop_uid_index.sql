-- Kubernetes never gives two objects of one type the same uid, the natural key already makes a
-- row unique, and the writer learns row ids from RETURNING: the index only cost every write.
DROP INDEX IF EXISTS uq_resources_uid;
