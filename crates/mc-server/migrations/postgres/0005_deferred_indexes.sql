-- Secondary indexes dropped while an empty store takes its first sync, and built again in one
-- pass once it is done (see `store::deferred`): one row per index still to build, with the
-- statement that builds it.
CREATE TABLE deferred_indexes (
    name TEXT COLLATE "C" PRIMARY KEY,
    sql  TEXT NOT NULL
);
