-- Free-text search (see `store::search`): one row per object with what `search` looks at, and
-- an FTS5 index of trigrams over it, kept in the writer's transaction. `body` holds one field a
-- line (`ns`, `l` label, `a` annotation, `i` image, `o` owner, a tab, the text), bounded per
-- object. The FTS5 table takes its text from `search_texts` (external content), kept by the
-- triggers below; a row goes when its object's row goes (any deletion of `resources`).
CREATE TABLE search_texts (
    id        INTEGER PRIMARY KEY,
    cluster   TEXT NOT NULL,
    "group"   TEXT NOT NULL,
    version   TEXT NOT NULL,
    resource  TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name      TEXT NOT NULL,
    kind      TEXT NOT NULL,
    body      TEXT NOT NULL
);
CREATE UNIQUE INDEX uq_search_texts_key ON search_texts ("group", version, resource, cluster, namespace, name);

CREATE VIRTUAL TABLE search_fts USING fts5 (
    name, body, content = 'search_texts', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TRIGGER search_texts_ai AFTER INSERT ON search_texts BEGIN
    INSERT INTO search_fts (rowid, name, body) VALUES (new.id, new.name, new.body);
END;
CREATE TRIGGER search_texts_ad AFTER DELETE ON search_texts BEGIN
    INSERT INTO search_fts (search_fts, rowid, name, body) VALUES ('delete', old.id, old.name, old.body);
END;
CREATE TRIGGER search_texts_au AFTER UPDATE ON search_texts BEGIN
    INSERT INTO search_fts (search_fts, rowid, name, body) VALUES ('delete', old.id, old.name, old.body);
    INSERT INTO search_fts (rowid, name, body) VALUES (new.id, new.name, new.body);
END;

CREATE TRIGGER resources_search_ad AFTER DELETE ON resources BEGIN
    DELETE FROM search_texts WHERE "group" = old."group" AND version = old.version
        AND resource = old.resource AND cluster = old.cluster AND namespace = old.namespace
        AND name = old.name;
END;

-- Whether every object's row is here and current: cleared by a start with search off (the
-- writer then keeps no rows), set again once a start with search on has gone over every object.
-- A store upgraded with objects starts without.
CREATE TABLE search_state (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    complete BOOLEAN NOT NULL
);
INSERT INTO search_state (id, complete) SELECT 1, NOT EXISTS (SELECT 1 FROM resources);
