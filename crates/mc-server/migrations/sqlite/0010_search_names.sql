-- A trigram index of the names alone (see `store::search`), beside `search_fts` (name and
-- other fields). Trigrams of `search_fts` are not told apart by column: asking it for the names
-- that hold a text reads every occurrence of its trigrams in any field, which for a text found
-- in every object's image or label is the whole index. This one holds only the names' trigrams,
-- so the names' query reads what the names hold. Kept like `search_fts`, by triggers on
-- `search_texts` (external content); built here from the rows already there.
CREATE VIRTUAL TABLE search_names USING fts5 (
    name, content = 'search_texts', content_rowid = 'id', tokenize = 'trigram'
);
INSERT INTO search_names (search_names) VALUES ('rebuild');

CREATE TRIGGER search_texts_names_ai AFTER INSERT ON search_texts BEGIN
    INSERT INTO search_names (rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER search_texts_names_ad AFTER DELETE ON search_texts BEGIN
    INSERT INTO search_names (search_names, rowid, name) VALUES ('delete', old.id, old.name);
END;
-- The name of a row never changes (it is part of its key): an update leaves this index alone.
