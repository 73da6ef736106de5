import LocalCloud

extension PostgresStore {
    /// The registered migrations of one container environment's schema `s`.
    ///
    /// Indexes mean what the SQLite store's do:
    /// - `records_by_type_created`: the Discover query (one type, newest first, keyset pages);
    /// - `records_by_type`: a type's records in id order, for queries without sort descriptors;
    /// - `records_search`: `self CONTAINS`, a GIN index on a `tsvector` built with `localcloud_search`
    ///   (the `simple` parser with `unaccent`, so "cafe" finds "Café");
    /// - queryable and sortable fields get expression indexes as the schema changes (`PostgresSchemaIndexes`).
    static func migrator(schema s: String) -> PostgresMigrator {
        var migrator = PostgresMigrator(schema: s)
        migrator.register(1, "records, zones, assets, references, change log, subscriptions, schema, full text", [
            "CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public",
            "CREATE TEXT SEARCH CONFIGURATION \(s).localcloud_search (COPY = pg_catalog.simple)",
            """
            ALTER TEXT SEARCH CONFIGURATION \(s).localcloud_search
                ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword
                WITH public.unaccent, pg_catalog.simple
            """,
            """
            CREATE TABLE \(s).records (
                id bigserial PRIMARY KEY,
                scope smallint NOT NULL,
                owner text NOT NULL,
                zone text NOT NULL,
                record_name text NOT NULL,
                record_type text NOT NULL,
                created_at double precision NOT NULL,
                modified_at double precision NOT NULL,
                created_by text NOT NULL,
                modified_by text NOT NULL,
                change_tag text NOT NULL,
                fields jsonb NOT NULL,
                search tsvector,
                UNIQUE (scope, owner, zone, record_name)
            )
            """,
            "CREATE INDEX records_by_type_created ON \(s).records (scope, owner, zone, record_type, created_at DESC, id DESC)",
            "CREATE INDEX records_by_type ON \(s).records (scope, owner, zone, record_type, id)",
            "CREATE INDEX records_search ON \(s).records USING gin (search)",
            """
            CREATE TABLE \(s).zones (
                scope smallint NOT NULL,
                owner text NOT NULL,
                zone_name text NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (scope, owner, zone_name)
            )
            """,
            """
            CREATE TABLE \(s).record_references (
                record_id bigint NOT NULL REFERENCES \(s).records (id) ON DELETE CASCADE,
                scope smallint NOT NULL,
                owner text NOT NULL,
                target_zone text NOT NULL,
                target_name text NOT NULL,
                action smallint NOT NULL
            )
            """,
            "CREATE INDEX record_references_by_target ON \(s).record_references (scope, owner, target_zone, target_name)",
            "CREATE INDEX record_references_by_record ON \(s).record_references (record_id)",
            // Content-addressed assets: the row and its chunks are written in one transaction.
            """
            CREATE TABLE \(s).assets (
                digest text PRIMARY KEY,
                size bigint NOT NULL,
                stored_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE \(s).asset_chunks (
                digest text NOT NULL REFERENCES \(s).assets (digest) ON DELETE CASCADE,
                chunk integer NOT NULL,
                bytes bytea NOT NULL,
                PRIMARY KEY (digest, chunk)
            )
            """,
            """
            CREATE TABLE \(s).record_assets (
                record_id bigint NOT NULL REFERENCES \(s).records (id) ON DELETE CASCADE,
                digest text NOT NULL,
                PRIMARY KEY (record_id, digest)
            )
            """,
            "CREATE INDEX record_assets_by_digest ON \(s).record_assets (digest)",
            // Every change; written last in its transaction, under an advisory lock (see PostgresStore).
            """
            CREATE TABLE \(s).change_log (
                seq bigserial PRIMARY KEY,
                scope smallint NOT NULL,
                owner text NOT NULL,
                zone text NOT NULL,
                record_name text NOT NULL,
                record_type text NOT NULL,
                kind text NOT NULL,
                at double precision NOT NULL,
                modified_by text NOT NULL
            )
            """,
            "CREATE INDEX change_log_by_zone ON \(s).change_log (scope, owner, zone, seq)",
            "CREATE TABLE \(s).change_log_meta (key text PRIMARY KEY, value text NOT NULL)",
            "INSERT INTO \(s).change_log_meta (key, value) VALUES ('epoch', md5(random()::text || clock_timestamp()::text)), ('floor', '0')",
            """
            CREATE TABLE \(s).subscriptions (
                subscriber text NOT NULL,
                scope smallint NOT NULL,
                subscription_id text NOT NULL,
                kind integer NOT NULL,
                record_type text,
                zone text,
                predicate text,
                options bigint NOT NULL DEFAULT 0,
                notification_info text,
                created_at double precision NOT NULL,
                PRIMARY KEY (subscriber, scope, subscription_id)
            )
            """,
            // One row: the schema's JSON and a stamp that changes on every write, so caches know.
            """
            CREATE TABLE \(s).schema (
                id integer PRIMARY KEY CHECK (id = 1),
                version bigint NOT NULL,
                stamp text NOT NULL,
                body text
            )
            """,
            "INSERT INTO \(s).schema (id, version, stamp, body) VALUES (1, 0, '', NULL)",
            // A location's coordinate, NULL for anything else: index expressions must never fail on other types.
            """
            CREATE FUNCTION \(s).coordinate(value jsonb, i integer) RETURNS double precision
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            AS $$ SELECT CASE WHEN jsonb_typeof(value) = 'array' AND jsonb_typeof(value -> i) = 'number'
                              THEN (value ->> i)::double precision END $$
            """,
            // Haversine kilometres, as Location.distance(from:) computes them.
            """
            CREATE FUNCTION \(s).distance_km(lat1 double precision, lon1 double precision,
                                              lat2 double precision, lon2 double precision) RETURNS double precision
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            AS $$ SELECT 2 * 6371.0 * atan2(sqrt(a), sqrt(1 - a)) FROM (SELECT
                      sin(radians(lat2 - lat1) / 2) ^ 2 + cos(radians(lat1)) * cos(radians(lat2)) * sin(radians(lon2 - lon1) / 2) ^ 2 AS a) t $$
            """,
        ])
        // A deleted record leaves no parent chain to walk, so its log row keeps the parent it had:
        // a hierarchy share's participant hears only of deletions inside the hierarchy. NULL on
        // rows logged before (and on other kinds of change).
        migrator.register(2, "parents of deleted records in the change log", [
            "ALTER TABLE \(s).change_log ADD COLUMN parent text",
        ])
        // Every read of a record sent `fields::text`: printing the jsonb was about 40% of
        // PostgreSQL's time for a Discover page (pgbench, the page's SQL prepared: 0.35 ms, 0.21 ms
        // reading this column). PostgreSQL keeps the text with each write instead, once per save.
        migrator.register(3, "the fields as text, written with the row", [
            "ALTER TABLE \(s).records ADD COLUMN fields_text text GENERATED ALWAYS AS (fields::text) STORED",
        ])
        return migrator
    }
}
