-- The change feed of replicas that sync only their share of the clusters
-- (`sync.maxClustersPerReplica`): every change a replica writes is also a row here, in the same
-- transaction, and the other replicas read the rows of the others to serve complete watch
-- streams. Rows are kept for minutes.
CREATE TABLE changes (
    id        BIGINT NOT NULL AUTO_INCREMENT,
    origin    VARCHAR(253) NOT NULL,
    cluster   VARCHAR(63) NOT NULL,
    `group`   VARCHAR(253) NOT NULL,
    version   VARCHAR(63) NOT NULL,
    resource  VARCHAR(63) NOT NULL,
    namespace VARCHAR(63) NOT NULL,
    name      VARCHAR(253) NOT NULL,
    uid       VARCHAR(64) NOT NULL,
    deleted   BOOLEAN NOT NULL,
    at        BIGINT NOT NULL COMMENT 'unix milliseconds',
    PRIMARY KEY (id),
    KEY ix_changes_at (at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin ROW_FORMAT = DYNAMIC;

-- One row, updated by every transaction that adds changes right before it adds them: its lock,
-- held until commit, makes ids increase in commit order, so a reader that sees an id has seen
-- every smaller one that will ever be committed.
CREATE TABLE change_clock (
    id INTEGER NOT NULL PRIMARY KEY,
    at BIGINT NOT NULL
) ENGINE = InnoDB;
INSERT INTO change_clock (id, at) VALUES (1, 0);
