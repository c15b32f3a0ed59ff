-- The change feed of replicas that sync only their share of the clusters
-- (`sync.maxClustersPerReplica`): every change a replica writes is also a row here, in the same
-- transaction, and the other replicas read the rows of the others to serve complete watch
-- streams. Rows are kept for minutes.
CREATE TABLE changes (
    id        BIGSERIAL PRIMARY KEY,
    origin    TEXT NOT NULL,
    cluster   TEXT NOT NULL,
    "group"   TEXT NOT NULL,
    version   TEXT NOT NULL,
    resource  TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name      TEXT NOT NULL,
    uid       TEXT NOT NULL,
    deleted   BOOLEAN NOT NULL,
    at        BIGINT NOT NULL -- unix milliseconds
);
CREATE INDEX ix_changes_at ON changes (at);

-- One row, updated by every transaction that adds changes right before it adds them: its lock,
-- held until commit, makes ids increase in commit order, so a reader that sees an id has seen
-- every smaller one that will ever be committed.
CREATE TABLE change_clock (
    id INTEGER PRIMARY KEY,
    at BIGINT NOT NULL
);
INSERT INTO change_clock (id, at) VALUES (1, 0);
