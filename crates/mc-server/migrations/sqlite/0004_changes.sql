-- The change feed of replicas that share a database (see the PostgreSQL migration). A SQLite
-- store has one replica, which never writes here; the table keeps the schema the same.
-- AUTOINCREMENT: ids are never reused, even once every row is pruned.
CREATE TABLE changes (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
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

CREATE TABLE change_clock (
    id INTEGER PRIMARY KEY,
    at BIGINT NOT NULL
);
INSERT INTO change_clock (id, at) VALUES (1, 0);
