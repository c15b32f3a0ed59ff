//! Statements as text plus a list of [`Arg`]s, built once by a [`Builder`] that knows a
//! backend's few differences of [`Syntax`]: placeholders (`?` or `$n`), identifier quoting (identifiers are
//! written `"group"` here and become `` `group` `` for MySQL), JSON and timestamp conversions and
//! the upsert clause; and the [`Row`]s they answer, decoded by [`Col`].

use mc_types::Gvr;
use mc_types::count::{FieldPath, Segment};

/// `$."a"."b"[0]`: the path syntax of SQLite and MySQL, every key quoted (a key such as `a-b` or
/// `app.kubernetes.io/name` needs it on MySQL). [`FieldPath`] keys hold no quote or backslash.
fn dollar_path(path: &FieldPath) -> String {
    let mut out = String::from("$");
    for s in path.segments() {
        match s {
            Segment::Key(k) => out.push_str(&format!(".\"{k}\"")),
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// How positional parameters are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placeholder {
    /// `?` each.
    Question,
    /// `$1`, `$2`, … in order.
    Numbered,
}

/// How an insert updates a row whose unique key is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Upsert {
    /// `ON CONFLICT (key) DO UPDATE SET c = excluded.c, …`.
    OnConflict,
    /// `ON DUPLICATE KEY UPDATE c = VALUES(c), …` (what MariaDB understands; MySQL 8 deprecates
    /// it with a warning in favour of a row alias that MariaDB lacks).
    OnDuplicateKey,
}

/// A backend's SQL syntax, as far as the [`Builder`] writes it (part of its dialect).
#[derive(Debug)]
pub(crate) struct Syntax {
    /// The quote of an identifier: statements are written with `"group"`, and this replaces it.
    pub(crate) quote: char,
    pub(crate) placeholder: Placeholder,
    /// The text around a parameter of unix seconds that makes it a timestamp.
    pub(crate) unix_time: (&'static str, &'static str),
    /// The text around a parameter of JSON text bound for a JSON column, if it needs a cast.
    pub(crate) json_param: Option<(&'static str, &'static str)>,
    /// The type a JSON column is cast to, to read it as text (`None`: read as is).
    pub(crate) json_as_text: Option<&'static str>,
    pub(crate) upsert: Upsert,
    /// Whether the planner scans an index range for a row-value comparison `(a, b) > (?, ?)`;
    /// where it does not, a cursor's condition is spelled out as the equivalent disjunction.
    pub(crate) row_values_use_index: bool,
    /// Whether a whole column binds as one array parameter (`id = ANY(?)` instead of a list).
    pub(crate) binds_arrays: bool,
    /// How the JSON at a path of an object is read.
    pub(crate) json_at: JsonAt,
}

/// How a backend reads the JSON text at a path of an object's text column (its value as JSON:
/// a string quoted, `null` as `null`, SQL `NULL` when the path leads nowhere). The path is always
/// bound, never written into the statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JsonAt {
    /// `column -> '$."a"[0]'` (SQLite 3.38 and later).
    Arrow,
    /// `CAST(JSON_EXTRACT(column, '$."a"[0]') AS CHAR)` (MySQL, MariaDB).
    Extract,
    /// `CAST(CAST(column AS json) #> '{a,0}' AS TEXT)` (PostgreSQL; `json`, not `jsonb`: read
    /// once, not converted).
    PathArray,
}

/// One bound value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Arg {
    Text(String),
    OptText(Option<String>),
    Int(i64),
    OptInt(Option<i64>),
    Bool(bool),
    /// Bytes (a `BLOB`/`BYTEA`/`LONGBLOB` column), or `NULL`.
    OptBytes(Option<Vec<u8>>),
    /// A whole column, for a syntax that [binds arrays](Syntax::binds_arrays); the others are
    /// never handed one.
    Array(Array),
}

/// A whole column of values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Array {
    Text(Vec<String>),
    OptText(Vec<Option<String>>),
    Int(Vec<i64>),
    OptInt(Vec<Option<i64>>),
}

impl Array {
    /// The column as a JSON array: how a backend without array parameters binds it, so a
    /// mistake fails as a type error of the statement, not a panic.
    pub(crate) fn to_json(&self) -> String {
        match self {
            Array::Text(v) => serde_json::json!(v),
            Array::OptText(v) => serde_json::json!(v),
            Array::Int(v) => serde_json::json!(v),
            Array::OptInt(v) => serde_json::json!(v),
        }
        .to_string()
    }
}

impl From<Array> for Arg {
    fn from(a: Array) -> Self {
        Arg::Array(a)
    }
}

impl From<&str> for Arg {
    fn from(s: &str) -> Self {
        Arg::Text(s.to_string())
    }
}

impl From<String> for Arg {
    fn from(s: String) -> Self {
        Arg::Text(s)
    }
}

impl From<i64> for Arg {
    fn from(i: i64) -> Self {
        Arg::Int(i)
    }
}

impl From<Option<i64>> for Arg {
    fn from(i: Option<i64>) -> Self {
        Arg::OptInt(i)
    }
}

impl From<bool> for Arg {
    fn from(b: bool) -> Self {
        Arg::Bool(b)
    }
}

/// How to decode one result column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Col {
    Int,
    Text,
    OptText,
    Bool,
    /// An integer or `NULL`.
    OptInt,
    /// Bytes or `NULL`.
    OptBytes,
}

/// One decoded result cell.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    Int(i64),
    Text(String),
    Null,
    Bool(bool),
    Bytes(Vec<u8>),
}

/// A decoded row; the getters take cells out by position.
#[derive(Debug)]
pub(crate) struct Row(pub(crate) Vec<Cell>);

impl Row {
    pub(crate) fn text(&mut self, i: usize) -> String {
        match self.0.get_mut(i).map(take) {
            Some(Cell::Text(s)) => s,
            Some(Cell::Int(n)) => n.to_string(),
            _ => String::new(),
        }
    }

    /// A text cell, borrowed (`""` for any other cell).
    pub(crate) fn str(&self, i: usize) -> &str {
        match self.0.get(i) {
            Some(Cell::Text(s)) => s,
            _ => "",
        }
    }

    pub(crate) fn opt_text(&mut self, i: usize) -> Option<String> {
        match self.0.get_mut(i).map(take) {
            Some(Cell::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// An integer cell, `None` for `NULL`.
    pub(crate) fn opt_int(&self, i: usize) -> Option<i64> {
        match self.0.get(i) {
            Some(Cell::Int(n)) => Some(*n),
            Some(Cell::Bool(b)) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// A bytes cell, taken out; `None` for `NULL`.
    pub(crate) fn opt_bytes(&mut self, i: usize) -> Option<Vec<u8>> {
        match self.0.get_mut(i).map(take) {
            Some(Cell::Bytes(b)) => Some(b),
            Some(Cell::Text(s)) => Some(s.into_bytes()),
            _ => None,
        }
    }

    pub(crate) fn int(&self, i: usize) -> i64 {
        match self.0.get(i) {
            Some(Cell::Int(n)) => *n,
            Some(Cell::Bool(b)) => i64::from(*b),
            _ => 0,
        }
    }

    pub(crate) fn bool(&self, i: usize) -> bool {
        match self.0.get(i) {
            Some(Cell::Bool(b)) => *b,
            Some(Cell::Int(n)) => *n != 0,
            _ => false,
        }
    }
}

fn take(cell: &mut Cell) -> Cell {
    std::mem::replace(cell, Cell::Null)
}

/// A statement ready to run.
#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    pub(crate) sql: String,
    pub(crate) args: Vec<Arg>,
    /// Kept prepared however many arguments it has (see [`Builder::reusable`]).
    pub(crate) reuse: bool,
}

impl Stmt {
    /// This statement, then `next`, as one text (SQLite runs a text's statements in turn,
    /// binding the arguments in order; see [`upsert_with_labels`]).
    pub(crate) fn then(mut self, next: Stmt) -> Stmt {
        self.sql.push_str("; ");
        self.sql.push_str(&next.sql);
        self.args.extend(next.args);
        self.reuse &= next.reuse;
        self
    }

    /// Large generated statements (bulk inserts, long `IN` lists) are not cached unless marked
    /// [`Builder::reusable`]: most such texts never come again, and each prepared copy stays in
    /// every connection that ran it.
    pub(crate) fn persistent(&self) -> bool {
        self.reuse || self.args.len() <= 64
    }
}

/// Builds one statement for one syntax.
pub(crate) struct Builder {
    syntax: &'static Syntax,
    sql: String,
    args: Vec<Arg>,
    reuse: bool,
}

impl Builder {
    /// The syntax the statement is written in.
    pub(crate) fn syntax(&self) -> &'static Syntax {
        self.syntax
    }

    /// Arguments bound so far.
    pub(crate) fn bound(&self) -> usize {
        self.args.len()
    }

    /// A statement in `syntax` (a backend's dialect derefs to its syntax), beginning with `sql`.
    pub(crate) fn new(syntax: &'static Syntax, sql: &str) -> Self {
        let mut b = Self { syntax, sql: String::with_capacity(256), args: Vec::new(), reuse: false };
        b.push(sql);
        b
    }

    /// Appends SQL text; `"ident"` quoting becomes backticks for MySQL.
    pub(crate) fn push(&mut self, sql: &str) -> &mut Self {
        match self.syntax.quote {
            '"' => self.sql.push_str(sql),
            quote => self.sql.extend(sql.chars().map(|c| if c == '"' { quote } else { c })),
        }
        self
    }

    fn placeholder(&mut self) {
        match self.syntax.placeholder {
            Placeholder::Question => self.sql.push('?'),
            Placeholder::Numbered => {
                self.sql.push('$');
                self.sql.push_str(&self.args.len().to_string());
            }
        }
    }

    /// Appends a placeholder bound to `arg`.
    pub(crate) fn bind(&mut self, arg: impl Into<Arg>) -> &mut Self {
        self.args.push(arg.into());
        self.placeholder();
        self
    }

    /// A JSON document given as text for a JSON column (a cluster's `info`; PostgreSQL needs the
    /// cast to `jsonb`). Objects are bound as text: PostgreSQL keeps them as text.
    pub(crate) fn bind_json(&mut self, json: String) -> &mut Self {
        match self.syntax.json_param {
            Some((before, after)) => {
                self.sql.push_str(before);
                self.bind(json);
                self.sql.push_str(after);
            }
            None => {
                self.bind(json);
            }
        }
        self
    }

    /// A timestamp from unix seconds, the current time when `None`.
    pub(crate) fn bind_unix_time(&mut self, secs: Option<i64>) -> &mut Self {
        self.sql.push_str("COALESCE(");
        let (before, after) = self.syntax.unix_time;
        self.sql.push_str(before);
        self.args.push(Arg::OptInt(secs));
        self.placeholder();
        self.sql.push_str(after);
        self.sql.push_str(", CURRENT_TIMESTAMP)");
        self
    }

    /// `(?, ?, …)` bound to the items.
    pub(crate) fn bind_list<A: Into<Arg>>(&mut self, items: impl IntoIterator<Item = A>) -> &mut Self {
        self.sql.push('(');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.sql.push_str(", ");
            }
            self.bind(item);
        }
        self.sql.push(')');
        self
    }

    /// `(k1, k2, …) > (v1, v2, …)`: rows after a cursor. MariaDB does not scan an index range
    /// for a row-value comparison (it sorts every remaining row for each page; see
    /// docs/adr/0020-store-query-plans.md), so there it is spelled out as the equivalent
    /// disjunction `k1 > v1 OR (k1 = v1 AND k2 > v2) OR …`, whose ranges it does scan.
    pub(crate) fn push_after(&mut self, keys: &[(&str, &str)]) -> &mut Self {
        if self.syntax.row_values_use_index {
            let columns: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
            self.push("(").push(&columns.join(", ")).push(") > (");
            for (i, (_, v)) in keys.iter().enumerate() {
                if i > 0 {
                    self.push(", ");
                }
                self.bind(*v);
            }
            return self.push(")");
        }
        self.push("(");
        for i in 0..keys.len() {
            if i > 0 {
                self.push(" OR ");
            }
            self.push("(");
            for (k, v) in &keys[..i] {
                self.push(k).push(" = ").bind(*v).push(" AND ");
            }
            let (k, v) = keys[i];
            self.push(k).push(" > ").bind(v).push(")");
        }
        self.push(")")
    }

    /// The expression reading a JSON column as text.
    pub(crate) fn push_json_column(&mut self, column: &str) -> &mut Self {
        match self.syntax.json_as_text {
            None => self.push(column),
            Some(text) => self.push("CAST(").push(column).push(" AS ").push(text).push(")"),
        }
    }

    /// The JSON text at `path` of the JSON text column `column` (see [`JsonAt`]).
    pub(crate) fn push_json_at(&mut self, column: &str, path: &FieldPath) -> &mut Self {
        match self.syntax.json_at {
            JsonAt::Arrow => self.push(column).push(" -> ").bind(dollar_path(path)),
            JsonAt::Extract => self
                .push("CAST(JSON_EXTRACT(")
                .push(column)
                .push(", ")
                .bind(dollar_path(path))
                .push(") AS CHAR)"),
            JsonAt::PathArray => {
                let steps = path
                    .segments()
                    .iter()
                    .map(|s| match s {
                        Segment::Key(k) => k.clone(),
                        Segment::Index(i) => i.to_string(),
                    })
                    .collect();
                self.push("CAST(CAST(")
                    .push(column)
                    .push(" AS json) #> ")
                    .bind(Array::Text(steps))
                    .push("::text[] AS TEXT)")
            }
        }
    }

    /// `ON CONFLICT (…) DO UPDATE SET c = excluded.c, …` or MySQL's `ON DUPLICATE KEY UPDATE`.
    pub(crate) fn push_upsert(&mut self, conflict: &str, columns: &[&str]) -> &mut Self {
        match self.syntax.upsert {
            Upsert::OnConflict => {
                self.push(" ON CONFLICT (").push(conflict).push(") DO UPDATE SET ");
                for (i, c) in columns.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.push(c).push(" = excluded.").push(c);
                }
            }
            Upsert::OnDuplicateKey => {
                self.push(" ON DUPLICATE KEY UPDATE ");
                for (i, c) in columns.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.push(c).push(" = VALUES(").push(c).push(")");
                }
            }
        }
        self
    }

    /// `"group" = ? AND version = ? AND resource = ?` for the table alias `t` (may be empty).
    pub(crate) fn push_gvr(&mut self, t: &str, gvr: &Gvr) -> &mut Self {
        self.push(t).push("\"group\" = ").bind(gvr.group.as_str());
        self.push(" AND ").push(t).push("version = ").bind(gvr.version.as_str());
        self.push(" AND ").push(t).push("resource = ").bind(gvr.resource.as_str())
    }

    /// Keeps the statement prepared in the connection, however large: for a text that comes
    /// again and again (a full chunk of a bulk write), where parsing it anew each time costs
    /// more than the memory of one prepared copy per connection.
    pub(crate) fn reusable(&mut self) -> &mut Self {
        self.reuse = true;
        self
    }

    pub(crate) fn finish(self) -> Stmt {
        Stmt { sql: self.sql, args: self.args, reuse: self.reuse }
    }
}
