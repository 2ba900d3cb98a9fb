-- The prepared insert of a row into a staging table (dialect.go,
-- createStage): ?0 the table, ?1 a placeholder per column.
INSERT INTO ?0 VALUES (?1)
