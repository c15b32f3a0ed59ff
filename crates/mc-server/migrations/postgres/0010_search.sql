-- Free-text search (see `store::search`): one row per object with what `search` looks at,
-- kept in the writer's transaction. `body` holds one field a line (`ns`, `l` label, `a`
-- annotation, `i` image, `o` owner, a tab, the text), bounded per object. A row goes when its
-- object's row goes (any deletion of `resources`, one statement-level trigger).
CREATE TABLE search_texts (
    cluster   TEXT COLLATE "C" NOT NULL,
    "group"   TEXT COLLATE "C" NOT NULL,
    version   TEXT COLLATE "C" NOT NULL,
    resource  TEXT COLLATE "C" NOT NULL,
    namespace TEXT COLLATE "C" NOT NULL,
    name      TEXT COLLATE "C" NOT NULL,
    kind      TEXT NOT NULL,
    body      TEXT NOT NULL
);
CREATE UNIQUE INDEX uq_search_texts_key ON search_texts ("group", version, resource, cluster, namespace, name);

CREATE FUNCTION search_texts_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM search_texts s USING gone g
     WHERE s."group" = g."group" AND s.version = g.version AND s.resource = g.resource
       AND s.cluster = g.cluster AND s.namespace = g.namespace AND s.name = g.name;
    RETURN NULL;
END $$;
CREATE TRIGGER resources_search_ad AFTER DELETE ON resources
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION search_texts_gone();

-- Trigrams (pg_trgm, shipped with PostgreSQL's contrib): one GIN index over the name and the
-- other fields answers `ILIKE '%text%'` on either. Where the extension cannot be created (no
-- contrib package, no right to create it), search scans the table and says so in a Warning.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm not created (%): search scans', SQLERRM;
END $$;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        EXECUTE 'CREATE INDEX ix_search_texts_trgm ON search_texts USING gin (name gin_trgm_ops, body gin_trgm_ops)';
    END IF;
END $$;

-- Whether every object's row is here and current: cleared by a start with search off (the
-- writer then keeps no rows), set again once a start with search on has gone over every object.
-- A store upgraded with objects starts without.
CREATE TABLE search_state (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    complete BOOLEAN NOT NULL
);
INSERT INTO search_state (id, complete) SELECT 1, NOT EXISTS (SELECT 1 FROM resources);
