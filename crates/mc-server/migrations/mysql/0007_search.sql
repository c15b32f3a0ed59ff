-- Free-text search (see `store::search`): one row per object with what `search` looks at,
-- kept in the writer's transaction. `body` holds one field a line (`ns`, `l` label, `a`
-- annotation, `i` image, `o` owner, a tab, the text), bounded per object. MySQL and MariaDB
-- have no trigram index: search reads this table (far smaller than `resources`) with a bounded
-- `LIKE`. A row goes when its object's row goes (any deletion of `resources`).
CREATE TABLE search_texts (
    cluster   VARCHAR(63) NOT NULL,
    `group`   VARCHAR(253) NOT NULL,
    version   VARCHAR(63) NOT NULL,
    resource  VARCHAR(63) NOT NULL,
    namespace VARCHAR(63) NOT NULL,
    name      VARCHAR(253) NOT NULL,
    kind      VARCHAR(63) NOT NULL,
    body      TEXT NOT NULL,
    PRIMARY KEY (`group`, version, resource, cluster, namespace, name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin ROW_FORMAT = DYNAMIC;

CREATE TRIGGER resources_search_ad AFTER DELETE ON resources FOR EACH ROW
    DELETE FROM search_texts WHERE `group` = OLD.`group` AND version = OLD.version
        AND resource = OLD.resource AND cluster = OLD.cluster AND namespace = OLD.namespace
        AND name = OLD.name;

-- Whether every object's row is here and current: cleared by a start with search off (the
-- writer then keeps no rows), set again once a start with search on has gone over every object.
-- A store upgraded with objects starts without.
CREATE TABLE search_state (
    id       INTEGER NOT NULL PRIMARY KEY,
    complete BOOLEAN NOT NULL
) ENGINE = InnoDB;
INSERT INTO search_state (id, complete) SELECT 1, NOT EXISTS (SELECT 1 FROM resources);
