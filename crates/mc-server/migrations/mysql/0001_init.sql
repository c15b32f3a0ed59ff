-- Objects of every cluster. Columns as the original project's `resources` table (InnoDB instead
-- of MyISAM for transactions; widths fit Kubernetes names while the natural key stays within
-- InnoDB's 3072-byte index limit). Cluster-scoped objects have namespace '' (not NULL) so the
-- natural key stays unique. utf8mb4_bin: names and label values compare byte for byte.
CREATE TABLE resources (
    id               BIGINT NOT NULL AUTO_INCREMENT,
    namespace        VARCHAR(63) NOT NULL DEFAULT '',
    name             VARCHAR(253) NOT NULL,
    cluster          VARCHAR(63) NOT NULL,
    `group`          VARCHAR(253) NOT NULL,
    version          VARCHAR(63) NOT NULL,
    resource         VARCHAR(63) NOT NULL,
    kind             VARCHAR(63) NOT NULL,
    resource_version VARCHAR(80) NULL DEFAULT NULL,
    owner            VARCHAR(64) NULL DEFAULT NULL COMMENT 'owner uid',
    uid              VARCHAR(64) NOT NULL,
    hash             VARCHAR(1024) NULL DEFAULT NULL COMMENT 'FNV-1a 64 of the object JSON, hex',
    object           JSON NOT NULL,
    create_at        TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    update_at        TIMESTAMP NULL DEFAULT NULL,
    delete_at        TIMESTAMP NULL DEFAULT NULL,
    PRIMARY KEY (id),
    -- Natural key; its column order serves "one type, ordered by cluster, namespace, name".
    UNIQUE KEY uq_resources_key (`group`, version, resource, cluster, namespace, name),
    -- One row per object and type: the same object may be served by two types (events and
    -- events.events.k8s.io share uids).
    UNIQUE KEY uq_resources_uid (cluster, uid, `group`, version, resource),
    -- The stable order across all types.
    KEY ix_resources_order (cluster, namespace, name, `group`, version, resource)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin ROW_FORMAT = DYNAMIC;

CREATE TABLE resource_labels (
    resource_id BIGINT NOT NULL,
    `key`       VARCHAR(317) NOT NULL,
    `value`     VARCHAR(63) NOT NULL,
    PRIMARY KEY (resource_id, `key`),
    KEY ix_resource_labels_kv (`key`, `value`, resource_id),
    CONSTRAINT fk_resource_labels_resource FOREIGN KEY (resource_id) REFERENCES resources (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin ROW_FORMAT = DYNAMIC;

CREATE TABLE clusters (
    name       VARCHAR(63) NOT NULL,
    is_master  BOOLEAN NOT NULL DEFAULT FALSE,
    status     VARCHAR(64) NOT NULL DEFAULT '',
    version    VARCHAR(128) NOT NULL DEFAULT '',
    platform   VARCHAR(128) NOT NULL DEFAULT '',
    host       VARCHAR(512) NOT NULL DEFAULT '',
    updated_at BIGINT NOT NULL DEFAULT 0 COMMENT 'unix seconds',
    info       JSON NOT NULL,
    PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
