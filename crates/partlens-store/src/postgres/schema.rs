//! The PostgreSQL schema: its historic migrations (numbered in the table `partlens_schema`, steps
//! 1–10), then the portable steps of the store's description ([`crate::schema`]) rendered in
//! PostgreSQL's dialect, and what PostgreSQL holds beside the description (the nodes sharing the
//! queue, the term index with its trigrams and per-company counts, the visual journal, the views'
//! pgvector table, the metadata generation).
//!
//! Every step runs in one transaction under an advisory lock, so several service processes
//! starting on a new database at once migrate it once. A database whose schema is newer than this
//! program knows is refused: an older node must not write into a schema it does not understand.
//!
//! The description's types here: flags are `boolean`, row ids `bigint` identities, bytes `bytea`,
//! and a name unique case-insensitively has a unique index on `lower(…)`, which every lookup by
//! name uses.

use std::collections::BTreeMap;

use r2d2_postgres::postgres::{self, Client};

use crate::clock::iso_now;
use crate::error::StoreError;
use crate::schema::{
    CataloguedColumn, ColumnType, DEFAULT_CLIENT_ID, Dialect, EngineOwn, agreement_line,
    disagreements,
};

/// The advisory lock migrations take (another constant than the writers').
const MIGRATION_LOCK: i64 = 0x7061_7274_6d69_6772;

/// The historic migration steps; step `n` brings the schema from version `n` to `n + 1`. They stay
/// as they were written (databases made by earlier programs migrate through them); what comes
/// after them is the description's portable steps.
const HISTORY: &[&str] = &[
    // 1: accounts: companies, users, client ids, tokens, the service's secrets.
    r#"
    CREATE TABLE companies (
        id          text PRIMARY KEY,          -- GUID, the VizSpaceID of the company's files
        name        text NOT NULL,
        created_at  text NOT NULL
    );
    CREATE UNIQUE INDEX companies_by_name ON companies (lower(name));
    CREATE TABLE users (
        id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        company_id    text NOT NULL REFERENCES companies(id),
        name          text NOT NULL,
        password_hash text NOT NULL,           -- argon2 PHC string of the SHA-1 hex digest
        admin         boolean NOT NULL,
        created_at    text NOT NULL
    );
    CREATE UNIQUE INDEX users_by_name ON users (lower(name));
    CREATE TABLE clients (
        id          text PRIMARY KEY,
        created_at  text NOT NULL
    );
    CREATE TABLE tokens (
        token_hash  text PRIMARY KEY,          -- SHA-256 of the token; the token itself is never stored
        user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        client_id   text NOT NULL,
        expires_at  bigint NOT NULL            -- Unix seconds
    );
    CREATE INDEX tokens_by_expiry ON tokens (expires_at);
    CREATE TABLE settings (
        name   text PRIMARY KEY,
        value  bytea NOT NULL
    );
    "#,
    // 2: file records, their stored view descriptors, the indexing queue with the nodes that claim
    // from it (`jobs.rs`), saved attributes and their values, feedback. `search_text` is kept as in SQLite
    // (lower-cased names, attributes and text); free text is not searched through it yet.
    r#"
    CREATE TABLE files (
        uid                  text PRIMARY KEY, -- canonical lower-case GUID
        company_id           text NOT NULL REFERENCES companies(id),
        owner_user_id        bigint NOT NULL,
        is_search_input      boolean NOT NULL,
        stored_path          text NOT NULL,
        path_key             text,             -- lower-cased stored path of a database file
        display_name         text NOT NULL,
        extension            text NOT NULL,
        size                 bigint NOT NULL,
        state                text NOT NULL,    -- queued, in_progress, completed, failed
        revision             bigint NOT NULL,  -- bumped on every overwrite; stale indexing is dropped
        uploaded_at          text NOT NULL,
        indexed_at           text,
        text                 text NOT NULL DEFAULT '',
        extracted_attributes text NOT NULL DEFAULT '[]',
        pmi                  text NOT NULL DEFAULT '[]',
        has_thumbnail        boolean NOT NULL DEFAULT false,
        has_large_image      boolean NOT NULL DEFAULT false,
        search_text          text NOT NULL DEFAULT '',
        callback_param       text,
        failure_reason       text
    );
    CREATE UNIQUE INDEX files_by_path ON files (company_id, path_key) WHERE path_key IS NOT NULL;
    CREATE INDEX files_by_company ON files (company_id, is_search_input, state);
    CREATE INDEX files_by_state ON files (state);
    CREATE TABLE views (
        file_uid    text NOT NULL REFERENCES files(uid) ON DELETE CASCADE,
        position    integer NOT NULL,
        descriptor  bytea NOT NULL,
        PRIMARY KEY (file_uid, position)
    );
    CREATE TABLE nodes (
        id            text PRIMARY KEY,        -- one running store (a service process)
        heartbeat_at  timestamptz NOT NULL     -- the database's clock, renewed while it runs
    );
    CREATE SEQUENCE job_seq;
    CREATE TABLE jobs (
        file_uid    text PRIMARY KEY REFERENCES files(uid) ON DELETE CASCADE,
        seq         bigint NOT NULL,
        queued_at   text NOT NULL,
        claimed_by  text                       -- the node indexing it (NULL while queued)
    );
    CREATE INDEX jobs_by_seq ON jobs (seq);
    CREATE TABLE attribute_names (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        company_id  text NOT NULL REFERENCES companies(id),
        name        text NOT NULL,
        unit        text NOT NULL,
        name_key    text NOT NULL,
        unit_key    text NOT NULL,
        UNIQUE (company_id, name_key, unit_key)
    );
    CREATE TABLE file_attributes (
        file_uid      text NOT NULL REFERENCES files(uid) ON DELETE CASCADE,
        position      integer NOT NULL,
        attribute_id  bigint NOT NULL REFERENCES attribute_names(id),
        text          text NOT NULL,
        PRIMARY KEY (file_uid, position)
    );
    CREATE INDEX file_attributes_by_attribute ON file_attributes (attribute_id);
    CREATE TABLE attribute_values (
        file_uid      text NOT NULL REFERENCES files(uid) ON DELETE CASCADE,
        attribute_id  bigint NOT NULL REFERENCES attribute_names(id),
        value         text NOT NULL,
        value_key     text NOT NULL
    );
    CREATE INDEX attribute_values_by_attribute ON attribute_values (attribute_id, value_key);
    CREATE INDEX attribute_values_by_file ON attribute_values (file_uid);
    CREATE TABLE feedback (
        id             text PRIMARY KEY,
        file_uid       text NOT NULL,
        company_id     text NOT NULL,
        user_id        bigint NOT NULL,
        external_user  text NOT NULL,
        feedback       text NOT NULL,
        attributes     text NOT NULL,          -- JSON array of name=value strings
        created_at     text NOT NULL
    );
    "#,
    // 3: the order records were made in, the tie-break of the library's newest-first listing
    // (SQLite's rowid).
    r#"
    ALTER TABLE files ADD COLUMN row_order bigint GENERATED ALWAYS AS IDENTITY;
    CREATE INDEX files_by_upload ON files (company_id, uploaded_at COLLATE "C", row_order);
    "#,
    // 4: the metadata generation (SQLite's step 6): moved, in the same transaction, by every change
    // to what a search filters on, so a filter resolved at one value holds while it is unchanged
    // (`service::filter_scopes`), whichever node wrote. A file's state moves it only into or out
    // of completed/failed (what a filter selects): the job queue's claims and returns, which run
    // beside the writers, never touch it.
    r#"
    CREATE TABLE metadata_generation (
        id     integer PRIMARY KEY CHECK (id = 1),
        value  bigint NOT NULL
    );
    INSERT INTO metadata_generation (id, value) VALUES (1, 0);
    CREATE FUNCTION partlens_metadata_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE metadata_generation SET value = value + 1 WHERE id = 1;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER metadata_file_added_or_removed AFTER INSERT OR DELETE ON files
        FOR EACH ROW EXECUTE FUNCTION partlens_metadata_changed();
    CREATE TRIGGER metadata_file_changed AFTER UPDATE ON files
        FOR EACH ROW WHEN (
            old.uid IS DISTINCT FROM new.uid OR old.company_id IS DISTINCT FROM new.company_id
            OR old.is_search_input IS DISTINCT FROM new.is_search_input
            OR old.display_name IS DISTINCT FROM new.display_name
            OR old.search_text IS DISTINCT FROM new.search_text
            OR ((old.state IN ('completed', 'failed')) IS DISTINCT FROM
                (new.state IN ('completed', 'failed'))))
        EXECUTE FUNCTION partlens_metadata_changed();
    CREATE TRIGGER metadata_value_changed AFTER INSERT OR UPDATE OR DELETE ON attribute_values
        FOR EACH ROW EXECUTE FUNCTION partlens_metadata_changed();
    CREATE TRIGGER metadata_view_changed AFTER INSERT OR DELETE ON views
        FOR EACH ROW EXECUTE FUNCTION partlens_metadata_changed();
    "#,
    // 5: the visual journal (SQLite's step 3, with the company): every change to what a node's
    // visual index holds (a view stored or removed, a file into or out of `completed`, a file
    // deleted) is a row, numbered by a sequence, in the same transaction. Writers are serialised
    // (`mod.rs`), so a snapshot that sees a number sees every smaller one: a node that has applied
    // the journal up to n catches up by reading the rows after n (`visual/keeper.rs`). Old rows are
    // forgotten after a while; `trimmed_through` says up to where, so a node further behind loads
    // its index again instead of missing changes. The job queue's claims and returns (beside the
    // writers) never move a file into or out of `completed`, so never write here.
    r#"
    CREATE TABLE visual_changes (
        seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        file_uid    text NOT NULL,
        company_id  text NOT NULL,
        at          timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX visual_changes_by_time ON visual_changes (at);
    CREATE TABLE visual_journal (
        id               integer PRIMARY KEY CHECK (id = 1),
        trimmed_through  bigint NOT NULL
    );
    INSERT INTO visual_journal (id, trimmed_through) VALUES (1, 0);
    CREATE FUNCTION partlens_visual_file_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF tg_op = 'DELETE' THEN
            INSERT INTO visual_changes (file_uid, company_id) VALUES (old.uid, old.company_id);
        ELSE
            IF tg_op = 'UPDATE' AND old.company_id IS DISTINCT FROM new.company_id THEN
                INSERT INTO visual_changes (file_uid, company_id) VALUES (old.uid, old.company_id);
            END IF;
            INSERT INTO visual_changes (file_uid, company_id) VALUES (new.uid, new.company_id);
        END IF;
        RETURN NULL;
    END
    $$;
    CREATE FUNCTION partlens_visual_view_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF tg_op = 'DELETE' THEN
            INSERT INTO visual_changes (file_uid, company_id)
                SELECT uid, company_id FROM files WHERE uid = old.file_uid;
        ELSE
            INSERT INTO visual_changes (file_uid, company_id)
                SELECT uid, company_id FROM files WHERE uid = new.file_uid;
        END IF;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER visual_file_removed AFTER DELETE ON files
        FOR EACH ROW EXECUTE FUNCTION partlens_visual_file_changed();
    CREATE TRIGGER visual_file_added AFTER INSERT ON files
        FOR EACH ROW WHEN (new.state = 'completed')
        EXECUTE FUNCTION partlens_visual_file_changed();
    CREATE TRIGGER visual_file_changed AFTER UPDATE ON files
        FOR EACH ROW WHEN (
            old.company_id IS DISTINCT FROM new.company_id
            OR old.is_search_input IS DISTINCT FROM new.is_search_input
            OR ((old.state = 'completed') IS DISTINCT FROM (new.state = 'completed')))
        EXECUTE FUNCTION partlens_visual_file_changed();
    CREATE TRIGGER visual_view_changed AFTER INSERT OR DELETE ON views
        FOR EACH ROW EXECUTE FUNCTION partlens_visual_view_changed();
    "#,
    // 6: the views' feature vectors in a pgvector HNSW index (`view_vectors.rs`), when the server
    // has pgvector: one row a view of a visually searched file, in half precision (`halfvec`,
    // 256 features: `partlens_engine::FEATURE_LEN`, checked by a test), inner product (the
    // views' similarity is built on the features' dot product). Deleted with its view. A server
    // without pgvector (or a role that may not install it) gets no table: every node then
    // searches large companies through its own graph, as before. The vectors of views stored
    // before this step (or copied in by `migrate`) are filled in when a node starts.
    r#"
    DO $$
    BEGIN
        IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
            BEGIN
                CREATE EXTENSION IF NOT EXISTS vector;
            EXCEPTION WHEN insufficient_privilege THEN
                RAISE NOTICE 'pgvector is available but this role may not install it';
            END;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
            CREATE TABLE view_vectors (
                file_uid    text NOT NULL,
                position    integer NOT NULL,
                company_id  text NOT NULL,
                embedding   halfvec(256) NOT NULL,
                PRIMARY KEY (file_uid, position),
                FOREIGN KEY (file_uid, position) REFERENCES views (file_uid, position)
                    ON DELETE CASCADE
            );
            CREATE INDEX view_vectors_nearest ON view_vectors
                USING hnsw (embedding halfvec_ip_ops) WITH (m = 16, ef_construction = 128);
        END IF;
    END
    $$;
    "#,
    // 7: free text through a term index (`text_terms.rs`): the distinct terms of the search texts,
    // their trigrams (no `pg_trgm` needed) with how many terms hold each, the files holding each
    // term. Files stored before are
    // indexed when a node starts.
    r#"
    CREATE TABLE search_terms (
        id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        term  text NOT NULL UNIQUE
    );
    CREATE TABLE search_term_trigrams (
        trigram  text NOT NULL,
        term_id  bigint NOT NULL REFERENCES search_terms(id) ON DELETE CASCADE,
        PRIMARY KEY (trigram, term_id)
    );
    CREATE INDEX search_term_trigrams_by_term ON search_term_trigrams (term_id);
    CREATE TABLE search_trigram_counts (
        trigram  text PRIMARY KEY,
        terms    bigint NOT NULL            -- how many terms hold it: a word goes by its rarest
    );
    CREATE TABLE search_postings (
        term_id   bigint NOT NULL REFERENCES search_terms(id) ON DELETE CASCADE,
        file_uid  text NOT NULL REFERENCES files(uid) ON DELETE CASCADE,
        PRIMARY KEY (term_id, file_uid)
    );
    CREATE INDEX search_postings_by_file ON search_postings (file_uid);
    -- An attribute term finds its files from the index alone (no visit of the values' rows).
    CREATE INDEX attribute_values_by_attribute_with_file ON attribute_values (attribute_id, value_key)
        INCLUDE (file_uid);
    DROP INDEX attribute_values_by_attribute;
    "#,
    // 8: a company's database files in the order a search without inputs shows them (display
    // name with ASCII letters folded, by bytes, then UID: `first_matches.rs`), so that a broad
    // filter's first files are found by walking it rather than by sorting every match.
    r#"
    CREATE INDEX files_by_name ON files (
        company_id,
        (translate(display_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) COLLATE "C",
        uid COLLATE "C"
    ) WHERE NOT is_search_input;
    "#,
    // 9: postings and attribute values carry the company of their file while a search may show it
    // (a database file whose indexing has ended: `shown_company`, NULL otherwise), with partial
    // indexes on it (`selection.rs`): a filter of 100,000 files is counted from an index alone
    // (13 ms) instead of joining each selected file with the files (120–360 ms). Kept by
    // triggers: a row takes its file's at insert, a file that moves into or out of being shown
    // (or to another company) moves its rows. The metadata generation's trigger on the values
    // now fires only for a change of what a filter reads, not of this column. Filling it at
    // 100,000 records (2.4 M postings, 600,000 values) took 43 s, during which writes wait.
    r#"
    CREATE FUNCTION partlens_shown_company(file text) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT f.company_id FROM files f
        WHERE f.uid = file AND NOT f.is_search_input AND f.state IN ('completed', 'failed')
    $$;
    CREATE FUNCTION partlens_row_shown() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        new.shown_company := partlens_shown_company(new.file_uid);
        RETURN new;
    END
    $$;
    CREATE FUNCTION partlens_file_shown_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        shown text := CASE WHEN NOT new.is_search_input AND new.state IN ('completed', 'failed')
                           THEN new.company_id END;
    BEGIN
        UPDATE search_postings SET shown_company = shown
        WHERE file_uid = new.uid AND shown_company IS DISTINCT FROM shown;
        UPDATE attribute_values SET shown_company = shown
        WHERE file_uid = new.uid AND shown_company IS DISTINCT FROM shown;
        RETURN NULL;
    END
    $$;

    DROP TRIGGER metadata_value_changed ON attribute_values;
    CREATE TRIGGER metadata_value_changed
        AFTER INSERT OR DELETE OR UPDATE OF file_uid, attribute_id, value, value_key
        ON attribute_values FOR EACH ROW EXECUTE FUNCTION partlens_metadata_changed();

    ALTER TABLE search_postings ADD COLUMN shown_company text;
    UPDATE search_postings p SET shown_company = f.company_id FROM files f
    WHERE f.uid = p.file_uid AND NOT f.is_search_input AND f.state IN ('completed', 'failed');
    CREATE INDEX search_postings_shown ON search_postings (term_id, shown_company, file_uid)
        WHERE shown_company IS NOT NULL;
    ALTER TABLE attribute_values ADD COLUMN shown_company text;
    UPDATE attribute_values v SET shown_company = f.company_id FROM files f
    WHERE f.uid = v.file_uid AND NOT f.is_search_input AND f.state IN ('completed', 'failed');
    CREATE INDEX attribute_values_shown ON attribute_values
        (attribute_id, shown_company, value_key COLLATE "C") INCLUDE (file_uid)
        WHERE shown_company IS NOT NULL;
    -- A walk in name order checks each file without visiting the tables' rows: the files' names
    -- and states, a file's values, in the indexes it goes through (1.2 against 10.5 ms for 2,346
    -- files walked; 14 against 37 µs a file's values checked).
    DROP INDEX files_by_name;
    CREATE INDEX files_by_name ON files (
        company_id,
        (translate(display_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) COLLATE "C",
        uid COLLATE "C"
    ) INCLUDE (display_name, state) WHERE NOT is_search_input;
    DROP INDEX attribute_values_by_file;
    CREATE INDEX attribute_values_by_file ON attribute_values (file_uid)
        INCLUDE (attribute_id, shown_company, value_key);

    CREATE TRIGGER postings_shown BEFORE INSERT OR UPDATE OF file_uid ON search_postings
        FOR EACH ROW EXECUTE FUNCTION partlens_row_shown();
    CREATE TRIGGER values_shown BEFORE INSERT OR UPDATE OF file_uid ON attribute_values
        FOR EACH ROW EXECUTE FUNCTION partlens_row_shown();
    CREATE TRIGGER shown_file_changed AFTER UPDATE ON files
        FOR EACH ROW WHEN (
            old.company_id IS DISTINCT FROM new.company_id
            OR old.is_search_input IS DISTINCT FROM new.is_search_input
            OR ((old.state IN ('completed', 'failed')) IS DISTINCT FROM
                (new.state IN ('completed', 'failed'))))
        EXECUTE FUNCTION partlens_file_shown_changed();
    "#,
    // 10: how many rows of each term and each attribute value a company's shown files hold, kept
    // by statement triggers on the postings and the values in the same transaction as the rows,
    // and whether an attribute ever had two values on one file. A filter of one term or of one
    // attribute that is one value a file is then counted from a few rows instead of the 100,000
    // entries of a word every file holds (18–28 ms) or the 30,000 values of a prefix (15–20 ms
    // with their repeats removed); a regular (substring) term reads the attribute's distinct
    // values, not every file's. Writers are serialised (`mod.rs`), so the counters' rows never
    // deadlock.
    r#"
    CREATE TABLE shown_term_counts (
        term_id     bigint NOT NULL,
        company_id  text NOT NULL,
        files       bigint NOT NULL,
        PRIMARY KEY (term_id, company_id)
    );
    CREATE TABLE shown_value_counts (
        attribute_id  bigint NOT NULL,
        company_id    text NOT NULL,
        value_key     text COLLATE "C" NOT NULL,
        value_rows    bigint NOT NULL,
        PRIMARY KEY (attribute_id, company_id, value_key)
    );
    ALTER TABLE attribute_names ADD COLUMN several_values boolean NOT NULL DEFAULT false;

    -- A trigger's transition tables are only those it declares: each branch reads its own.
    CREATE FUNCTION partlens_postings_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO shown_term_counts AS c (term_id, company_id, files)
            SELECT term_id, shown_company, count(*) FROM new_rows
            WHERE shown_company IS NOT NULL GROUP BY term_id, shown_company
            ON CONFLICT (term_id, company_id) DO UPDATE SET files = c.files + excluded.files;
            RETURN NULL;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO shown_term_counts AS c (term_id, company_id, files)
            SELECT term_id, shown_company, -count(*) FROM old_rows
            WHERE shown_company IS NOT NULL GROUP BY term_id, shown_company
            ON CONFLICT (term_id, company_id) DO UPDATE SET files = c.files + excluded.files;
        ELSE
            INSERT INTO shown_term_counts AS c (term_id, company_id, files)
            SELECT r.term_id, r.company, sum(r.change) FROM (
                SELECT term_id, shown_company AS company, 1 AS change FROM new_rows
                UNION ALL
                SELECT term_id, shown_company, -1 FROM old_rows) r
            WHERE r.company IS NOT NULL
            GROUP BY r.term_id, r.company HAVING sum(r.change) <> 0
            ON CONFLICT (term_id, company_id) DO UPDATE SET files = c.files + excluded.files;
        END IF;
        DELETE FROM shown_term_counts c WHERE c.files = 0
          AND (c.term_id, c.company_id) IN (SELECT term_id, shown_company FROM old_rows);
        RETURN NULL;
    END
    $$;
    CREATE FUNCTION partlens_values_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO shown_value_counts AS c (attribute_id, company_id, value_key, value_rows)
            SELECT attribute_id, shown_company, value_key, count(*) FROM new_rows
            WHERE shown_company IS NOT NULL GROUP BY attribute_id, shown_company, value_key
            ON CONFLICT (attribute_id, company_id, value_key)
            DO UPDATE SET value_rows = c.value_rows + excluded.value_rows;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO shown_value_counts AS c (attribute_id, company_id, value_key, value_rows)
            SELECT attribute_id, shown_company, value_key, -count(*) FROM old_rows
            WHERE shown_company IS NOT NULL GROUP BY attribute_id, shown_company, value_key
            ON CONFLICT (attribute_id, company_id, value_key)
            DO UPDATE SET value_rows = c.value_rows + excluded.value_rows;
        ELSE
            INSERT INTO shown_value_counts AS c (attribute_id, company_id, value_key, value_rows)
            SELECT r.attribute_id, r.company, r.value_key, sum(r.change) FROM (
                SELECT attribute_id, shown_company AS company, value_key, 1 AS change
                FROM new_rows
                UNION ALL
                SELECT attribute_id, shown_company, value_key, -1 FROM old_rows) r
            WHERE r.company IS NOT NULL
            GROUP BY r.attribute_id, r.company, r.value_key HAVING sum(r.change) <> 0
            ON CONFLICT (attribute_id, company_id, value_key)
            DO UPDATE SET value_rows = c.value_rows + excluded.value_rows;
        END IF;
        IF TG_OP <> 'INSERT' THEN
            DELETE FROM shown_value_counts c WHERE c.value_rows = 0
              AND (c.attribute_id, c.company_id, c.value_key) IN
                  (SELECT attribute_id, shown_company, value_key FROM old_rows);
        END IF;
        IF TG_OP <> 'DELETE' THEN
            UPDATE attribute_names n SET several_values = true
            WHERE NOT n.several_values AND n.id IN (
                SELECT v.attribute_id FROM attribute_values v
                JOIN (SELECT DISTINCT file_uid, attribute_id FROM new_rows) w
                  ON v.file_uid = w.file_uid AND v.attribute_id = w.attribute_id
                GROUP BY v.file_uid, v.attribute_id HAVING count(*) > 1);
        END IF;
        RETURN NULL;
    END
    $$;

    INSERT INTO shown_term_counts (term_id, company_id, files)
    SELECT term_id, shown_company, count(*) FROM search_postings
    WHERE shown_company IS NOT NULL GROUP BY term_id, shown_company;
    INSERT INTO shown_value_counts (attribute_id, company_id, value_key, value_rows)
    SELECT attribute_id, shown_company, value_key, count(*) FROM attribute_values
    WHERE shown_company IS NOT NULL GROUP BY attribute_id, shown_company, value_key;
    UPDATE attribute_names SET several_values = true WHERE id IN (
        SELECT attribute_id FROM attribute_values GROUP BY file_uid, attribute_id
        HAVING count(*) > 1);

    CREATE TRIGGER postings_counted_inserted AFTER INSERT ON search_postings
        REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION partlens_postings_counted();
    CREATE TRIGGER postings_counted_updated AFTER UPDATE ON search_postings
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION partlens_postings_counted();
    CREATE TRIGGER postings_counted_deleted AFTER DELETE ON search_postings
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION partlens_postings_counted();
    CREATE TRIGGER values_counted_inserted AFTER INSERT ON attribute_values
        REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION partlens_values_counted();
    CREATE TRIGGER values_counted_updated AFTER UPDATE ON attribute_values
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION partlens_values_counted();
    CREATE TRIGGER values_counted_deleted AFTER DELETE ON attribute_values
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION partlens_values_counted();
    "#,
];

/// The schema version this program writes: the historic steps, then the description's.
pub(crate) fn current_version() -> i64 {
    (HISTORY.len() as u32 + crate::schema::portable_steps()) as i64
}

/// The SQL of step `step` (0-based): a historic one, or a portable one of the description.
fn step_sql(step: usize) -> String {
    match HISTORY.get(step) {
        Some(sql) => (*sql).to_owned(),
        None => crate::schema::step_sql(&DIALECT, (step + 1 - HISTORY.len()) as u32),
    }
}

/// How PostgreSQL writes the description.
pub(crate) const DIALECT: Dialect = Dialect {
    engine: "PostgreSQL",
    declared: |kind| match kind {
        ColumnType::Text => "text",
        ColumnType::Integer => "bigint",
        ColumnType::Position => "integer",
        ColumnType::Flag => "boolean",
        ColumnType::Bytes => "bytea",
        ColumnType::RowId => "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    },
    catalogued: |kind| match kind {
        ColumnType::Text => "text",
        ColumnType::Integer | ColumnType::RowId => "bigint",
        ColumnType::Position => "integer",
        ColumnType::Flag => "boolean",
        ColumnType::Bytes => "bytea",
    },
    flag: |flag| if flag { "true" } else { "false" },
};

/// What PostgreSQL holds beside the description.
pub(crate) const OWN: EngineOwn = EngineOwn {
    tables: &[
        // The schema's version (step 1), the nodes sharing the queue (step 2).
        "partlens_schema",
        "nodes",
        // The metadata generation (step 4), the visual journal (step 5), the views' vectors
        // (step 6, with pgvector).
        "metadata_generation",
        "visual_changes",
        "visual_journal",
        "view_vectors",
        // The term index (step 7) and the counts of shown rows (step 10).
        "search_terms",
        "search_term_trigrams",
        "search_trigram_counts",
        "search_postings",
        "shown_term_counts",
        "shown_value_counts",
    ],
    columns: &[
        // The order records were made in (step 3), the node indexing a job (step 2), the company
        // a value is shown in (step 9), an attribute ever two values on a file (step 10).
        ("files", "row_order"),
        ("jobs", "claimed_by"),
        ("attribute_values", "shown_company"),
        ("attribute_names", "several_values"),
    ],
};

/// Every table of the database's schema with its columns as the catalogue describes them.
pub(crate) fn catalogue(
    client: &mut impl postgres::GenericClient,
) -> Result<BTreeMap<String, Vec<CataloguedColumn>>, StoreError> {
    let rows = client.query(
        "SELECT c.table_name::text, c.column_name::text, c.data_type::text,
                c.is_nullable = 'NO', c.column_default IS NOT NULL
         FROM information_schema.columns c
         JOIN information_schema.tables t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name
         WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
         ORDER BY c.table_name, c.ordinal_position",
        &[],
    )?;
    let mut catalogue: BTreeMap<String, Vec<CataloguedColumn>> = BTreeMap::new();
    for row in rows {
        catalogue
            .entry(row.try_get(0)?)
            .or_default()
            .push(CataloguedColumn {
                name: row.try_get(1)?,
                kind: row.try_get(2)?,
                required: row.try_get(3)?,
                defaulted: row.try_get(4)?,
            });
    }
    Ok(catalogue)
}

/// The database's schema version (0 for a database this service never opened).
pub(crate) fn version(client: &mut Client) -> Result<i64, StoreError> {
    let exists: bool = client
        .query_one("SELECT to_regclass('partlens_schema') IS NOT NULL", &[])?
        .try_get(0)?;
    if !exists {
        return Ok(0);
    }
    Ok(client
        .query_opt("SELECT version FROM partlens_schema", &[])?
        .map(|row| row.try_get(0))
        .transpose()?
        .unwrap_or(0))
}

/// What `partlens-service check` finds in a PostgreSQL database, without changing it: one line a
/// finding, and whether the service can run on it as it is (a schema that is only older is brought
/// up to date at start, so it is no problem).
pub(crate) fn check(client: &mut Client) -> Result<(Vec<String>, bool), StoreError> {
    let mut lines = Vec::new();
    let mut usable = true;
    let server: String = client.query_one("SHOW server_version", &[])?.try_get(0)?;
    lines.push(format!("PostgreSQL {server} answers"));
    let vector = client.query_opt(
        "SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'",
        &[],
    )?;
    match vector {
        Some(row) => {
            let available: Option<String> = row.try_get(0)?;
            let installed: Option<String> = row.try_get(1)?;
            let vectors = super::view_vectors::table_exists(client)?;
            lines.push(match (installed, vectors) {
                (Some(version), true) => format!(
                    "pgvector {version} is installed: large companies are searched through its \
                     HNSW index"
                ),
                (Some(version), false) => format!(
                    "pgvector {version} is installed, but the schema has no view vector table (it \
                     was made without pgvector): nodes search large companies through graphs of \
                     their own"
                ),
                (None, _) => format!(
                    "pgvector {} is available, not yet installed in this database: the service \
                     installs it when it makes the schema (a role that may CREATE EXTENSION)",
                    available.unwrap_or_default()
                ),
            });
        }
        None => lines.push(
            "pgvector is not available on this server: nodes search large companies through \
             graphs of their own"
                .into(),
        ),
    }
    let found = version(client)?;
    let current = current_version();
    lines.push(match found {
        0 => format!("no partlens schema yet: the service creates version {current} at start"),
        found if found < current => {
            format!("schema version {found}: the service brings it to {current} at start")
        }
        found if found == current => {
            let catalogued = catalogue(client)?;
            let agreement = agreement_line(&disagreements(&DIALECT, &OWN, &catalogued));
            format!("schema version {found} is current; {agreement}")
        }
        found => {
            usable = false;
            format!("schema version {found} is newer than this program's {current}: run the newer partlens-service")
        }
    });
    Ok((lines, usable))
}

/// Brings the schema up to date; refuses a database whose schema is newer than this program's.
pub(crate) fn migrate(client: &mut Client) -> Result<(), StoreError> {
    migrate_to(client, current_version() as usize)
}

/// Brings the schema up to step `last` (at most the latest); the tests of a migration start from
/// the step before it.
pub(crate) fn migrate_to(client: &mut Client, last: usize) -> Result<(), StoreError> {
    let mut transaction = client.transaction()?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    transaction.batch_execute(
        "CREATE TABLE IF NOT EXISTS partlens_schema (version bigint NOT NULL);
         INSERT INTO partlens_schema (version)
           SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM partlens_schema);",
    )?;
    let found: i64 = transaction
        .query_one("SELECT version FROM partlens_schema", &[])?
        .try_get(0)?;
    if found > current_version() {
        return Err(StoreError::Internal(format!(
            "the database's schema is version {found}, newer than this program's {}: \
             run the newer partlens-service on it",
            current_version()
        )));
    }
    for step in (found as usize)..last.min(current_version() as usize) {
        transaction.batch_execute(&step_sql(step))?;
        transaction.execute(
            "UPDATE partlens_schema SET version = $1",
            &[&(step as i64 + 1)],
        )?;
        if step == 0 {
            transaction.execute(
                "INSERT INTO clients (id, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&DEFAULT_CLIENT_ID, &iso_now()],
            )?;
        }
    }
    transaction.commit()?;
    if (1..SHOWN_COMPANY_VERSION).contains(&found) {
        // Step 9 rewrote every posting and value of a database that had some: until a vacuum
        // marks their pages all-visible again, a count from the new indexes visits each row (108
        // ms instead of 13 for 100,000 postings), and so does a walk of the files. Autovacuum would get to it within minutes; this takes seconds. Not fatal:
        // the service only counts more slowly meanwhile.
        if let Err(error) =
            client.batch_execute("VACUUM (ANALYZE) search_postings, attribute_values, files")
        {
            tracing::warn!(%error, "cannot vacuum the postings, values and files after schema step 9");
        }
    }
    if (1..ROW_COUNTS_VERSION).contains(&found)
        && let Err(error) =
            client.batch_execute("ANALYZE shown_term_counts, shown_value_counts, attribute_names")
    {
        tracing::warn!(%error, "cannot analyze the row counts after schema step 10");
    }
    Ok(())
}

/// The schema version whose step (9) made postings and values carry their file's company while it
/// is shown: [`migrate`] from an older one vacuums the tables that step rewrote.
const SHOWN_COMPANY_VERSION: i64 = 9;

/// The schema version whose step (10) counts the shown rows by term and by value: [`migrate`]
/// from an older one gathers the new tables' statistics, which the planner reads at once.
const ROW_COUNTS_VERSION: i64 = 10;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{disagreements_of, future};
    use r2d2_postgres::postgres::NoTls;

    /// A client of a fresh test database (with the database, dropped with it), or `None` when
    /// there is no server (skipped off CI).
    fn fresh() -> Option<(Client, partlens_testkit::postgres::TestDatabase)> {
        let database = partlens_testkit::postgres::database()?;
        let client = Client::connect(&database.url, NoTls).unwrap();
        Some((client, database))
    }

    #[test]
    fn the_schema_agrees_with_the_description_column_by_column() {
        let Some((mut client, _database)) = fresh() else {
            return;
        };
        migrate(&mut client).unwrap();
        let fresh_catalogue = catalogue(&mut client).unwrap();
        assert_eq!(
            disagreements(&DIALECT, &OWN, &fresh_catalogue),
            Vec::<String>::new()
        );
        assert_eq!(version(&mut client).unwrap(), current_version());
        // A database of the first schema, with a company in it, migrated: the same.
        let Some((mut oldest, _older)) = fresh() else {
            return;
        };
        migrate_to(&mut oldest, 1).unwrap();
        oldest
            .batch_execute("INSERT INTO companies VALUES ('c', 'Acme', 't')")
            .unwrap();
        migrate(&mut oldest).unwrap();
        assert_eq!(catalogue(&mut oldest).unwrap(), fresh_catalogue);
        // And the check sees a column that is not described.
        client
            .batch_execute("ALTER TABLE jobs ADD COLUMN stray text")
            .unwrap();
        assert_eq!(
            disagreements(&DIALECT, &OWN, &catalogue(&mut client).unwrap()),
            ["PostgreSQL: column jobs.stray is neither described nor the engine's own"]
        );
    }

    #[test]
    fn a_portable_step_adds_its_table_and_columns_to_a_database_of_any_step() {
        let Some((mut client, _database)) = fresh() else {
            return;
        };
        migrate(&mut client).unwrap();
        let tables = future::tables();
        for step in future::FIRST..=future::FIRST + 1 {
            client
                .batch_execute(&DIALECT.step_sql(step, &tables, future::INDEXES))
                .unwrap();
        }
        let found = catalogue(&mut client).unwrap();
        assert_eq!(
            disagreements_of(&DIALECT, &tables, &OWN, &found),
            Vec::<String>::new()
        );
        let indexed: i64 = client
            .query_one(
                "SELECT count(*) FROM pg_indexes WHERE indexname = 'assembly_links_by_part'",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(indexed, 1);
    }
}
