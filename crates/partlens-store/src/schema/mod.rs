//! The one description of the tables both engines keep: every table of the model with its columns
//! in portable types ([`TABLES`]), from which each engine renders its DDL, and against which each
//! engine's database is checked column by column (the tests of `sqlite/schema.rs` and
//! `postgres/schema.rs` run [`disagreements`] on a fresh database and on one migrated from the
//! oldest schema).
//!
//! **Adding a column or a table is one change here.** Give it `since: n`, the next portable step
//! (one more than [`portable_steps`] says today): each engine's migrations end with its own
//! historic steps, then run the portable steps this description renders in the engine's dialect
//! ([`step_sql`]: `CREATE TABLE` for a table of that step, `ALTER TABLE … ADD COLUMN` for a column
//! of that step in an older table, `CREATE INDEX` for an [`Index`] of that step). What only one
//! engine has beside them (SQLite's FTS5 term index and triggers, PostgreSQL's pgvector table, its
//! per-company counts, the nodes sharing its queue) is that engine's own, listed in its
//! `schema.rs` as its private tables and extra columns, so that the check knows every table and
//! column either engine holds.
//!
//! The tables of `since: 0` are those both engines' historic migrations made (SQLite's steps 1–6,
//! PostgreSQL's 1–10, numbered by each engine); those migrations stay as they were written, so
//! that data directories and databases made by earlier programs open and migrate unchanged.

/// The client id registered in every new store.
pub const DEFAULT_CLIENT_ID: &str = "partlens";

/// A column's type, the same in both engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// Text (`TEXT`, `text`).
    Text,
    /// A 64-bit integer (`INTEGER`, `bigint`).
    Integer,
    /// A small integer: a position in a short list (`INTEGER`, `integer`).
    Position,
    /// A flag (`INTEGER` 0/1, `boolean`).
    Flag,
    /// Bytes (`BLOB`, `bytea`).
    Bytes,
    /// The table's own row id, made by the database and the table's primary key (`INTEGER
    /// PRIMARY KEY`, `bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`).
    RowId,
}

/// A column's default value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// A text.
    Text(&'static str),
    /// A flag.
    Flag(bool),
}

/// One column of a table.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Its type.
    pub kind: ColumnType,
    /// `NOT NULL` (primary key columns are always required).
    pub required: bool,
    /// Its default value, if any.
    pub default: Option<DefaultValue>,
    /// The portable step that added it (0: both engines' historic migrations).
    pub since: u32,
}

/// A column that references a row of another table.
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    /// The referencing column.
    pub column: &'static str,
    /// The table referenced.
    pub table: &'static str,
    /// Its column referenced.
    pub target: &'static str,
    /// The row goes with the row it references.
    pub cascade: bool,
}

/// Which rows of a table belong to a company, for counting what a copy between stores carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// The company whose id is in this column.
    Company(&'static str),
    /// The company of the file whose UID is in this column.
    File(&'static str),
    /// The company of the user whose id is in this column.
    User(&'static str),
    /// No company: a global table, counted by the keys in this column.
    Key(&'static str),
}

/// One table of the model.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// Its name.
    pub name: &'static str,
    /// Its columns, in order.
    pub columns: &'static [Column],
    /// The columns of its primary key (none: the table has no key).
    pub primary_key: &'static [&'static str],
    /// Its references to other tables.
    pub references: &'static [Reference],
    /// Sets of columns that are unique together.
    pub unique: &'static [&'static [&'static str]],
    /// Whose rows they are.
    pub owner: Owner,
    /// The portable step that added it (0: both engines' historic migrations).
    pub since: u32,
}

/// An index added by a portable step (the indexes of the historic migrations are each engine's).
#[derive(Clone, Copy, Debug)]
pub struct Index {
    /// Its name.
    pub name: &'static str,
    /// Its table.
    pub table: &'static str,
    /// Its columns, in order.
    pub columns: &'static [&'static str],
    /// Whether the columns are unique together.
    pub unique: bool,
    /// The portable step that added it.
    pub since: u32,
}

/// A column of the historic migrations.
const fn column(name: &'static str, kind: ColumnType, required: bool) -> Column {
    Column {
        name,
        kind,
        required,
        default: None,
        since: 0,
    }
}

/// A required text column of the historic migrations.
const fn text(name: &'static str) -> Column {
    column(name, ColumnType::Text, true)
}

/// A text column of the historic migrations that may be NULL.
const fn optional_text(name: &'static str) -> Column {
    column(name, ColumnType::Text, false)
}

/// A required 64-bit integer column of the historic migrations.
const fn integer(name: &'static str) -> Column {
    column(name, ColumnType::Integer, true)
}

/// A required column of the historic migrations with a default value.
const fn defaulted(name: &'static str, kind: ColumnType, default: DefaultValue) -> Column {
    Column {
        name,
        kind,
        required: true,
        default: Some(default),
        since: 0,
    }
}

/// A column of the historic kind added by portable step `since`.
const fn added(column: Column, since: u32) -> Column {
    Column { since, ..column }
}

/// A reference that does not cascade.
const fn refers(column: &'static str, table: &'static str, target: &'static str) -> Reference {
    Reference {
        column,
        table,
        target,
        cascade: false,
    }
}

/// A reference whose row goes with the row it references.
const fn belongs(column: &'static str, table: &'static str, target: &'static str) -> Reference {
    Reference {
        column,
        table,
        target,
        cascade: true,
    }
}

/// Every table of the model, in the order their references need (a table after those it
/// references): the order a copy between stores writes them in.
pub const TABLES: &[Table] = &[
    Table {
        name: "companies",
        // The id is a GUID, the VizSpaceID of the company's files; names are unique
        // case-insensitively (each engine's own way: a collation, an index on lower(name)).
        columns: &[text("id"), text("name"), text("created_at")],
        primary_key: &["id"],
        references: &[],
        unique: &[],
        owner: Owner::Company("id"),
        since: 0,
    },
    Table {
        name: "users",
        // A user name is unique across companies, case-insensitively; the password hash is the
        // argon2 PHC string of the password's SHA-1 hex digest.
        columns: &[
            column("id", ColumnType::RowId, true),
            text("company_id"),
            text("name"),
            text("password_hash"),
            column("admin", ColumnType::Flag, true),
            text("created_at"),
        ],
        primary_key: &["id"],
        references: &[refers("company_id", "companies", "id")],
        unique: &[],
        owner: Owner::Company("company_id"),
        since: 0,
    },
    Table {
        name: "clients",
        columns: &[text("id"), text("created_at")],
        primary_key: &["id"],
        references: &[],
        unique: &[],
        owner: Owner::Key("id"),
        since: 0,
    },
    Table {
        name: "tokens",
        // The SHA-256 of a token (the token itself is never stored); expiry in Unix seconds.
        columns: &[
            text("token_hash"),
            integer("user_id"),
            text("client_id"),
            integer("expires_at"),
        ],
        primary_key: &["token_hash"],
        references: &[belongs("user_id", "users", "id")],
        unique: &[],
        owner: Owner::User("user_id"),
        since: 0,
    },
    Table {
        name: "settings",
        // The service's own secrets (the image-link key).
        columns: &[text("name"), column("value", ColumnType::Bytes, true)],
        primary_key: &["name"],
        references: &[],
        unique: &[],
        owner: Owner::Key("name"),
        since: 0,
    },
    Table {
        name: "files",
        // One stored file. `path_key` is the lower-cased stored path of a database file (unique
        // in its company; NULL for a search input); `revision` is bumped on every overwrite (a
        // stale indexing is dropped); `search_text` is the lower-cased names, attributes and text
        // free text is searched in (`model::search_text`).
        columns: &[
            text("uid"),
            text("company_id"),
            integer("owner_user_id"),
            column("is_search_input", ColumnType::Flag, true),
            text("stored_path"),
            optional_text("path_key"),
            text("display_name"),
            text("extension"),
            integer("size"),
            text("state"),
            integer("revision"),
            text("uploaded_at"),
            optional_text("indexed_at"),
            defaulted("text", ColumnType::Text, DefaultValue::Text("")),
            defaulted(
                "extracted_attributes",
                ColumnType::Text,
                DefaultValue::Text("[]"),
            ),
            defaulted("pmi", ColumnType::Text, DefaultValue::Text("[]")),
            defaulted("has_thumbnail", ColumnType::Flag, DefaultValue::Flag(false)),
            defaulted(
                "has_large_image",
                ColumnType::Flag,
                DefaultValue::Flag(false),
            ),
            defaulted("search_text", ColumnType::Text, DefaultValue::Text("")),
            optional_text("callback_param"),
            optional_text("failure_reason"),
            // A drawing's pages as JSON (number, size, which views are its own, pictured): the
            // service's `pages.rs` reads and writes it; `[]` for a file without pages.
            Column {
                name: "pages",
                kind: ColumnType::Text,
                required: true,
                default: Some(DefaultValue::Text("[]")),
                since: 1,
            },
            // `textOnly=true`: indexed for its text and attributes only (no views, no pictures).
            added(
                defaulted("text_only", ColumnType::Flag, DefaultValue::Flag(false)),
                2,
            ),
        ],
        primary_key: &["uid"],
        references: &[refers("company_id", "companies", "id")],
        unique: &[],
        owner: Owner::Company("company_id"),
        since: 0,
    },
    Table {
        name: "views",
        // A file's stored view descriptors, in order.
        columns: &[
            text("file_uid"),
            column("position", ColumnType::Position, true),
            column("descriptor", ColumnType::Bytes, true),
        ],
        primary_key: &["file_uid", "position"],
        references: &[belongs("file_uid", "files", "uid")],
        unique: &[],
        owner: Owner::File("file_uid"),
        since: 0,
    },
    Table {
        name: "attribute_names",
        // The stable IDs of `GET /api/FileAttributes`: a name with its unit, as first written,
        // and their lower-cased keys.
        columns: &[
            column("id", ColumnType::RowId, true),
            text("company_id"),
            text("name"),
            text("unit"),
            text("name_key"),
            text("unit_key"),
            // Set by a person (saved on a file) rather than only extracted by the service
            // (`IsCustom`); when a file last had it set or extracted (`Timestamp`).
            added(
                defaulted("custom", ColumnType::Flag, DefaultValue::Flag(true)),
                2,
            ),
            added(optional_text("last_set_at"), 2),
        ],
        primary_key: &["id"],
        references: &[refers("company_id", "companies", "id")],
        unique: &[&["company_id", "name_key", "unit_key"]],
        owner: Owner::Company("company_id"),
        since: 0,
    },
    Table {
        name: "file_attributes",
        // A file's saved attributes in the wire form they came in (`name(unit)=v1|v2`).
        columns: &[
            text("file_uid"),
            column("position", ColumnType::Position, true),
            integer("attribute_id"),
            text("text"),
        ],
        primary_key: &["file_uid", "position"],
        references: &[
            belongs("file_uid", "files", "uid"),
            refers("attribute_id", "attribute_names", "id"),
        ],
        unique: &[],
        owner: Owner::File("file_uid"),
        since: 0,
    },
    Table {
        name: "attribute_values",
        // One row a value of a (possibly multi-valued) attribute, with its trimmed, lower-cased
        // key: what metadata search and `GET /api/AttributeValues` read. No key of its own: a
        // copy writes a file's values together.
        columns: &[
            text("file_uid"),
            integer("attribute_id"),
            text("value"),
            text("value_key"),
        ],
        primary_key: &[],
        references: &[
            belongs("file_uid", "files", "uid"),
            refers("attribute_id", "attribute_names", "id"),
        ],
        unique: &[],
        owner: Owner::File("file_uid"),
        since: 0,
    },
    Table {
        name: "feedback",
        // Feedback on extracted attributes; `attributes` is a JSON array of name=value strings.
        columns: &[
            text("id"),
            text("file_uid"),
            text("company_id"),
            integer("user_id"),
            text("external_user"),
            text("feedback"),
            text("attributes"),
            text("created_at"),
        ],
        primary_key: &["id"],
        references: &[],
        unique: &[],
        owner: Owner::Company("company_id"),
        since: 0,
    },
    Table {
        name: "jobs",
        // The indexing queue: a row a file waiting to be (or being) indexed, in `seq` order.
        columns: &[text("file_uid"), integer("seq"), text("queued_at")],
        primary_key: &["file_uid"],
        references: &[belongs("file_uid", "files", "uid")],
        unique: &[],
        owner: Owner::File("file_uid"),
        since: 0,
    },
    Table {
        name: "file_relations",
        // Parent/child relations between files of one company (`model::relations`): a `.zip`
        // bundle and its entries, an assembly and its components. `position` orders a parent's
        // children; `reference` is an assembly's reference designator, if any. A row goes with
        // either file.
        columns: &[
            added(text("parent_uid"), 1),
            added(column("position", ColumnType::Position, true), 1),
            added(text("child_uid"), 1),
            added(integer("quantity"), 1),
            added(optional_text("reference"), 1),
        ],
        primary_key: &["parent_uid", "position"],
        references: &[
            belongs("parent_uid", "files", "uid"),
            belongs("child_uid", "files", "uid"),
        ],
        unique: &[],
        owner: Owner::File("parent_uid"),
        since: 1,
    },
    Table {
        name: "categories",
        // A company's file categories (`partlens-service category`): an id of the company's
        // choosing, a name unique case-insensitively (`name_key`), and the attribute names an
        // upload of the category must carry (a JSON array of names).
        columns: &[
            added(text("company_id"), 2),
            added(integer("id"), 2),
            added(text("name"), 2),
            added(text("name_key"), 2),
            added(
                defaulted(
                    "required_attributes",
                    ColumnType::Text,
                    DefaultValue::Text("[]"),
                ),
                2,
            ),
            added(text("created_at"), 2),
        ],
        primary_key: &["company_id", "id"],
        references: &[refers("company_id", "companies", "id")],
        unique: &[&["company_id", "name_key"]],
        owner: Owner::Company("company_id"),
        since: 2,
    },
    Table {
        name: "callback_settings",
        // A company's callback (`partlens-service callback set`): the URL events are POSTed to,
        // the signing secret (`whsec_…`), the events sent (a JSON array of names), on or off.
        columns: &[
            added(text("company_id"), 3),
            added(text("url"), 3),
            added(text("secret"), 3),
            added(
                defaulted("events", ColumnType::Text, DefaultValue::Text("[]")),
                3,
            ),
            added(
                defaulted("enabled", ColumnType::Flag, DefaultValue::Flag(true)),
                3,
            ),
            added(text("updated_at"), 3),
        ],
        primary_key: &["company_id"],
        references: &[refers("company_id", "companies", "id")],
        unique: &[],
        owner: Owner::Company("company_id"),
        since: 3,
    },
    Table {
        name: "callback_deliveries",
        // The callbacks' outbox (`model::callbacks`): a row an event, written in the event's
        // transaction; `id` is its `webhook-id`; times in Unix milliseconds; `state` pending,
        // sending (leased until `next_attempt_at`), delivered or failed.
        columns: &[
            added(text("id"), 3),
            added(text("company_id"), 3),
            added(text("event"), 3),
            added(text("payload"), 3),
            added(integer("created_at"), 3),
            added(integer("next_attempt_at"), 3),
            added(integer("attempts"), 3),
            added(text("state"), 3),
            added(column("delivered_at", ColumnType::Integer, false), 3),
            added(column("last_status", ColumnType::Integer, false), 3),
            added(optional_text("last_error"), 3),
        ],
        primary_key: &["id"],
        references: &[refers("company_id", "companies", "id")],
        unique: &[],
        owner: Owner::Company("company_id"),
        since: 3,
    },
    Table {
        name: "callback_attempts",
        // Each attempt to send a delivery: when (Unix milliseconds), the receiver's status if it
        // answered, why it did not deliver, and the outcome (delivered, retry, failed).
        columns: &[
            added(text("delivery_id"), 3),
            added(integer("number"), 3),
            added(integer("attempted_at"), 3),
            added(column("status", ColumnType::Integer, false), 3),
            added(optional_text("error"), 3),
            added(text("outcome"), 3),
        ],
        primary_key: &["delivery_id", "number"],
        references: &[belongs("delivery_id", "callback_deliveries", "id")],
        unique: &[],
        owner: Owner::Key("delivery_id"),
        since: 3,
    },
    Table {
        name: "file_pairs",
        // A database file's candidate duplicates, as the service's `pairing.rs` found them when
        // the file was indexed: each file its ranking by its own views put among its best and
        // that passes the size rule, with the same-part score in millionths (`model::pairs`),
        // whatever the score. The company is the file's, for reading a company's pairs at once.
        // A row goes with either file.
        columns: &[
            added(text("file_uid"), 4),
            added(text("other_uid"), 4),
            added(text("company_id"), 4),
            added(integer("score"), 4),
        ],
        primary_key: &["file_uid", "other_uid"],
        references: &[
            belongs("file_uid", "files", "uid"),
            belongs("other_uid", "files", "uid"),
        ],
        unique: &[],
        owner: Owner::File("file_uid"),
        since: 4,
    },
    Table {
        name: "paired_files",
        // A database file whose pairs are computed, by the service's pairing `version`; the mark
        // goes (with the file's pairs) when the file is indexed again.
        columns: &[
            added(text("file_uid"), 4),
            added(text("company_id"), 4),
            added(integer("version"), 4),
        ],
        primary_key: &["file_uid"],
        references: &[belongs("file_uid", "files", "uid")],
        unique: &[],
        owner: Owner::File("file_uid"),
        since: 4,
    },
];

/// The indexes of the portable steps (the historic ones are each engine's).
pub const INDEXES: &[Index] = &[
    Index {
        name: "file_relations_by_child",
        table: "file_relations",
        columns: &["child_uid"],
        unique: false,
        since: 1,
    },
    // The sender's question: which deliveries are due.
    Index {
        name: "callback_deliveries_due",
        table: "callback_deliveries",
        columns: &["state", "next_attempt_at"],
        unique: false,
        since: 3,
    },
    // `callback log`: a company's deliveries, newest first.
    Index {
        name: "callback_deliveries_by_company",
        table: "callback_deliveries",
        columns: &["company_id", "created_at"],
        unique: false,
        since: 3,
    },
    // A file's pairs found by the others' rankings (their cascade when it is deleted).
    Index {
        name: "file_pairs_by_other",
        table: "file_pairs",
        columns: &["other_uid"],
        unique: false,
        since: 4,
    },
    // `GET /api/Duplicates`: a company's pairs above a score.
    Index {
        name: "file_pairs_by_company",
        table: "file_pairs",
        columns: &["company_id", "score"],
        unique: false,
        since: 4,
    },
    Index {
        name: "paired_files_by_company",
        table: "paired_files",
        columns: &["company_id"],
        unique: false,
        since: 4,
    },
];

/// How many portable steps the description holds: the largest `since` of a table, column or
/// index.
pub fn portable_steps() -> u32 {
    portable_steps_of(TABLES, INDEXES)
}

/// [`portable_steps`] of a description.
pub(crate) fn portable_steps_of(tables: &[Table], indexes: &[Index]) -> u32 {
    let columns = tables
        .iter()
        .flat_map(|table| table.columns.iter().map(|column| column.since));
    tables
        .iter()
        .map(|table| table.since)
        .chain(columns)
        .chain(indexes.iter().map(|index| index.since))
        .max()
        .unwrap_or(0)
}

/// The table of the description called `name`.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|table| table.name == name)
}

/// How an engine writes the description: its type names, its flags, and what its catalogue says a
/// column's type is.
pub(crate) struct Dialect {
    /// The engine's name, for messages.
    pub engine: &'static str,
    /// A column's type as written in DDL.
    pub declared: fn(ColumnType) -> &'static str,
    /// A column's type as the engine's catalogue reports it (compared case-insensitively).
    pub catalogued: fn(ColumnType) -> &'static str,
    /// A flag's literal.
    pub flag: fn(bool) -> &'static str,
}

impl Dialect {
    /// A default value as written in DDL.
    fn default_sql(&self, value: DefaultValue) -> String {
        match value {
            DefaultValue::Text(text) => format!("'{}'", text.replace('\'', "''")),
            DefaultValue::Flag(flag) => (self.flag)(flag).to_owned(),
        }
    }

    /// A column as written in `CREATE TABLE` or `ADD COLUMN`.
    fn column_sql(&self, column: &Column) -> String {
        let mut sql = format!("{} {}", column.name, (self.declared)(column.kind));
        if column.required && column.kind != ColumnType::RowId {
            sql.push_str(" NOT NULL");
        }
        if let Some(value) = column.default {
            sql.push_str(&format!(" DEFAULT {}", self.default_sql(value)));
        }
        sql
    }

    /// `CREATE TABLE` of a table as it is at portable step `step` (its columns of later steps are
    /// added by theirs, so that a database made at any step ends the same).
    fn create_table_sql(&self, table: &Table, step: u32) -> String {
        let mut parts: Vec<String> = table
            .columns
            .iter()
            .filter(|column| column.since <= step)
            .map(|column| self.column_sql(column))
            .collect();
        let row_id = table
            .columns
            .iter()
            .any(|column| column.kind == ColumnType::RowId);
        if !table.primary_key.is_empty() && !row_id {
            parts.push(format!("PRIMARY KEY ({})", table.primary_key.join(", ")));
        }
        for unique in table.unique {
            parts.push(format!("UNIQUE ({})", unique.join(", ")));
        }
        for reference in table.references {
            parts.push(format!(
                "FOREIGN KEY ({}) REFERENCES {}({}){}",
                reference.column,
                reference.table,
                reference.target,
                if reference.cascade {
                    " ON DELETE CASCADE"
                } else {
                    ""
                }
            ));
        }
        format!(
            "CREATE TABLE {} (\n    {}\n);\n",
            table.name,
            parts.join(",\n    ")
        )
    }

    /// The SQL of portable step `step` of a description: its new tables, its new columns of older
    /// tables, its new indexes.
    pub(crate) fn step_sql(&self, step: u32, tables: &[Table], indexes: &[Index]) -> String {
        let mut sql = String::new();
        for table in tables {
            if table.since == step {
                sql.push_str(&self.create_table_sql(table, step));
                continue;
            }
            if table.since > step {
                continue;
            }
            for column in table.columns.iter().filter(|column| column.since == step) {
                sql.push_str(&format!(
                    "ALTER TABLE {} ADD COLUMN {};\n",
                    table.name,
                    self.column_sql(column)
                ));
            }
        }
        for index in indexes.iter().filter(|index| index.since == step) {
            sql.push_str(&format!(
                "CREATE {}INDEX {} ON {} ({});\n",
                if index.unique { "UNIQUE " } else { "" },
                index.name,
                index.table,
                index.columns.join(", ")
            ));
        }
        sql
    }
}

/// The SQL of portable step `step` of [`TABLES`] and [`INDEXES`] in an engine's dialect.
pub(crate) fn step_sql(dialect: &Dialect, step: u32) -> String {
    dialect.step_sql(step, TABLES, INDEXES)
}

/// A column as an engine's catalogue describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CataloguedColumn {
    /// Its name.
    pub name: String,
    /// Its type as the catalogue says it.
    pub kind: String,
    /// It may not be NULL (`NOT NULL`, or part of the primary key).
    pub required: bool,
    /// It has a default value.
    pub defaulted: bool,
}

/// What one engine holds beside the description: its private tables and its extra columns of the
/// described tables.
pub(crate) struct EngineOwn {
    /// Tables only this engine has (its indexes, journals, counters, bookkeeping).
    pub tables: &'static [&'static str],
    /// Columns only this engine has in described tables, as `(table, column)`.
    pub columns: &'static [(&'static str, &'static str)],
}

/// Where a database's tables disagree with a description, in words (none when they agree): a
/// described table or column missing, one of another type or nullability or without its default,
/// and any table or column neither described nor the engine's own.
pub(crate) fn disagreements_of(
    dialect: &Dialect,
    tables: &[Table],
    own: &EngineOwn,
    catalogue: &std::collections::BTreeMap<String, Vec<CataloguedColumn>>,
) -> Vec<String> {
    let engine = dialect.engine;
    let mut found = Vec::new();
    for table in tables {
        let Some(columns) = catalogue.get(table.name) else {
            found.push(format!("{engine}: no table {}", table.name));
            continue;
        };
        for column in table.columns {
            let Some(live) = columns.iter().find(|live| live.name == column.name) else {
                found.push(format!(
                    "{engine}: no column {}.{}",
                    table.name, column.name
                ));
                continue;
            };
            let expected = (dialect.catalogued)(column.kind);
            if !live.kind.eq_ignore_ascii_case(expected) {
                found.push(format!(
                    "{engine}: {}.{} is {}, described {expected}",
                    table.name, column.name, live.kind
                ));
            }
            if column.kind != ColumnType::RowId && live.required != column.required {
                found.push(format!(
                    "{engine}: {}.{} is {}, described {}",
                    table.name,
                    column.name,
                    if live.required {
                        "NOT NULL"
                    } else {
                        "nullable"
                    },
                    if column.required {
                        "NOT NULL"
                    } else {
                        "nullable"
                    },
                ));
            }
            if live.defaulted != column.default.is_some() {
                found.push(format!(
                    "{engine}: {}.{} {} a default, described {}",
                    table.name,
                    column.name,
                    if live.defaulted { "has" } else { "has no" },
                    if column.default.is_some() {
                        "with one"
                    } else {
                        "without"
                    },
                ));
            }
        }
        for live in columns {
            let described = table.columns.iter().any(|column| column.name == live.name);
            let own_column = own.columns.contains(&(table.name, live.name.as_str()));
            if !described && !own_column {
                found.push(format!(
                    "{engine}: column {}.{} is neither described nor the engine's own",
                    table.name, live.name
                ));
            }
        }
    }
    for name in catalogue.keys() {
        let described = tables.iter().any(|table| table.name == name);
        if !described && !own.tables.contains(&name.as_str()) {
            found.push(format!(
                "{engine}: table {name} is neither described nor the engine's own"
            ));
        }
    }
    found
}

/// What `partlens-service check` says of a database at this program's schema version: that it
/// agrees with the description column by column, or where it does not.
pub(crate) fn agreement_line(found: &[String]) -> String {
    if found.is_empty() {
        "its tables agree with this program's description, column by column".to_owned()
    } else {
        format!(
            "its tables differ from this program's description (a column or table changed by \
             hand?): {}",
            found.join("; ")
        )
    }
}

/// [`disagreements_of`] for [`TABLES`].
pub(crate) fn disagreements(
    dialect: &Dialect,
    own: &EngineOwn,
    catalogue: &std::collections::BTreeMap<String, Vec<CataloguedColumn>>,
) -> Vec<String> {
    disagreements_of(dialect, TABLES, own, catalogue)
}

/// A description of two portable steps beyond [`TABLES`], for the tests of each engine's
/// rendering: a new table (with a row id, a reference, a flag with a default and a unique pair)
/// and, in the step after, a column added to it and to `files`, and an index.
#[cfg(test)]
pub(crate) mod future {
    use super::*;

    /// The first step of the test description: the one after [`TABLES`]' last.
    pub(crate) const FIRST: u32 = 5;

    /// The description: [`TABLES`] with `files` grown by a column, and a new table.
    pub(crate) fn tables() -> Vec<Table> {
        let mut tables: Vec<Table> = TABLES.to_vec();
        for table in tables.iter_mut().filter(|table| table.name == "files") {
            let mut columns = table.columns.to_vec();
            columns.push(Column {
                name: "category",
                kind: ColumnType::Text,
                required: false,
                default: None,
                since: FIRST + 1,
            });
            table.columns = Box::leak(columns.into_boxed_slice());
        }
        tables.push(Table {
            name: "assembly_links",
            columns: &[
                Column {
                    name: "id",
                    kind: ColumnType::RowId,
                    required: true,
                    default: None,
                    since: FIRST,
                },
                Column {
                    name: "assembly_uid",
                    kind: ColumnType::Text,
                    required: true,
                    default: None,
                    since: FIRST,
                },
                Column {
                    name: "part_uid",
                    kind: ColumnType::Text,
                    required: true,
                    default: None,
                    since: FIRST,
                },
                Column {
                    name: "mirrored",
                    kind: ColumnType::Flag,
                    required: true,
                    default: Some(DefaultValue::Flag(false)),
                    since: FIRST,
                },
                Column {
                    name: "quantity",
                    kind: ColumnType::Integer,
                    required: false,
                    default: None,
                    since: FIRST + 1,
                },
            ],
            primary_key: &["id"],
            references: &[Reference {
                column: "assembly_uid",
                table: "files",
                target: "uid",
                cascade: true,
            }],
            unique: &[&["assembly_uid", "part_uid"]],
            owner: Owner::File("assembly_uid"),
            since: FIRST,
        });
        tables
    }

    /// The test description's index.
    pub(crate) const INDEXES: &[Index] = &[Index {
        name: "assembly_links_by_part",
        table: "assembly_links",
        columns: &["part_uid"],
        unique: false,
        since: FIRST + 1,
    }];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_comes_after_those_it_references_and_keys_name_its_columns() {
        for (position, table) in TABLES.iter().enumerate() {
            let has = |name: &str| table.columns.iter().any(|column| column.name == name);
            for reference in table.references {
                assert!(has(reference.column), "{}.{}", table.name, reference.column);
                let target = TABLES[..position]
                    .iter()
                    .find(|earlier| earlier.name == reference.table);
                let target = target.unwrap_or_else(|| {
                    panic!(
                        "{} references {}, not before it",
                        table.name, reference.table
                    )
                });
                assert!(target.columns.iter().any(|c| c.name == reference.target));
            }
            for key in table.primary_key {
                assert!(has(key), "{}.{key}", table.name);
            }
            let owner = match table.owner {
                Owner::Company(column)
                | Owner::File(column)
                | Owner::User(column)
                | Owner::Key(column) => column,
            };
            assert!(has(owner), "{}.{owner}", table.name);
        }
        assert_eq!(
            portable_steps() + 1,
            future::FIRST,
            "the test description's steps come after the real ones"
        );
    }

    #[test]
    fn a_step_renders_its_tables_its_columns_of_older_tables_and_its_indexes() {
        let dialect = Dialect {
            engine: "test",
            declared: |kind| match kind {
                ColumnType::RowId => "ROWID",
                ColumnType::Flag => "FLAG",
                _ => "T",
            },
            catalogued: |_| "T",
            flag: |flag| if flag { "yes" } else { "no" },
        };
        let tables = future::tables();
        assert_eq!(
            portable_steps_of(&tables, future::INDEXES),
            future::FIRST + 1
        );
        let first = dialect.step_sql(future::FIRST, &tables, future::INDEXES);
        assert!(
            first.starts_with("CREATE TABLE assembly_links ("),
            "{first}"
        );
        assert!(first.contains("id ROWID,"), "{first}");
        assert!(
            first.contains("mirrored FLAG NOT NULL DEFAULT no"),
            "{first}"
        );
        assert!(first.contains("UNIQUE (assembly_uid, part_uid)"), "{first}");
        assert!(
            first.contains("FOREIGN KEY (assembly_uid) REFERENCES files(uid) ON DELETE CASCADE"),
            "{first}"
        );
        // A column of a later step is added by that step, to a table made at any step.
        assert!(!first.contains("quantity"), "{first}");
        let second = dialect.step_sql(future::FIRST + 1, &tables, future::INDEXES);
        assert_eq!(
            second,
            "ALTER TABLE files ADD COLUMN category T;\n\
             ALTER TABLE assembly_links ADD COLUMN quantity T;\n\
             CREATE INDEX assembly_links_by_part ON assembly_links (part_uid);\n"
        );
    }
}
