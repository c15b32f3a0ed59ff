-- An ownerReference uid is any string Kubernetes accepts, not always a 36-character UUID: a
-- longer one made the whole batch fail in strict mode. 255 characters hold every real uid; a
-- longer one is stored without its owner column (see sync/resilient.rs).
ALTER TABLE resources MODIFY owner VARCHAR(255) NULL DEFAULT NULL COMMENT 'owner uid';
