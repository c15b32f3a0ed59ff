-- One field of an object kept beside it for counts (`count.indexedFields`, see
-- `store::count_index`): `count_field` the path whose value `count_value` holds (its JSON text,
-- NULL where the object has none), '' for a type without one. No index: InnoDB's 3072-byte key
-- limit leaves too little beside the type and cluster; a count reads the narrow columns of the
-- type's rows instead of parsing their JSON.
ALTER TABLE resources ADD COLUMN count_field VARCHAR(300) NOT NULL DEFAULT '', ADD COLUMN count_value TEXT NULL;
