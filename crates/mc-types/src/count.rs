//! The keys objects are counted by (`count TYPE --by cluster,namespace,status.phase`): the
//! cluster, the namespace, a field of the object ([`FieldPath`], a strict subset of JSONPath that
//! every store backend evaluates in SQL) or a printed column of the type (`STATUS` of pods, which
//! kubectl computes and SQL cannot).
//!
//! The server and the plugin parse `--by` here alike: the plugin to refuse a bad key before
//! asking, and to head its columns ([`CountKey::header`]).

use std::fmt;

use serde_json::Value;

/// What a missing value (or JSON `null`, or a cluster-scoped object's namespace) counts as.
pub const NONE: &str = "<none>";

/// Most keys one count groups by.
pub const MAX_KEYS: usize = 8;

/// Longest field path, in bytes.
pub const MAX_PATH_LEN: usize = 256;

/// Most segments of one field path.
pub const MAX_SEGMENTS: usize = 16;

/// Largest array index of a field path.
pub const MAX_INDEX: u32 = 99_999;

/// Longest key of a bracketed segment (`["app.kubernetes.io/name"]`): a label key's length.
const MAX_KEY_LEN: usize = 253;

/// One key of a count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CountKey {
    /// The cluster (`cluster`).
    Cluster,
    /// The namespace (`namespace`); cluster-scoped objects count as [`NONE`].
    Namespace,
    /// A field of the object: `status.phase`, `spec.containers[0].image`.
    Field(FieldPath),
    /// A printed column of the type, by its header (`status`, `nominated-node`), uppercase with
    /// spaces (`NOMINATED NODE`).
    Column(String),
}

/// A field of an object: object keys and array indexes, nothing else (no wildcards, filters
/// or slices), so that every backend reads it in SQL with the path bound as a parameter.
///
/// Written `a.b[0].c`, with an optional leading `.`; a key with other characters than
/// `A-Za-z0-9_-` goes in brackets and quotes: `metadata.labels["app.kubernetes.io/name"]`
/// (`A-Za-z0-9._/-` there).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldPath {
    segments: Vec<Segment>,
}

/// One step of a [`FieldPath`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// An object's key.
    Key(String),
    /// An array's element, from 0.
    Index(u32),
}

/// Why a key of `--by` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid count key {key:?}: {reason}")]
pub struct KeyError {
    key: String,
    reason: String,
}

impl KeyError {
    /// Why, without the key.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    fn new(key: &str, reason: impl Into<String>) -> Self {
        let key = if key.len() > 64 {
            format!("{}…", key.chars().take(64).collect::<String>())
        } else {
            key.into()
        };
        KeyError { key, reason: reason.into() }
    }
}

fn plain_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn quoted_key_char(c: char) -> bool {
    plain_key_char(c) || matches!(c, '.' | '/')
}

impl FieldPath {
    /// Parses `a.b[0].c` (see [`FieldPath`]).
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        let err = |reason: &str| KeyError::new(text, reason);
        if text.len() > MAX_PATH_LEN {
            return Err(err(&format!("a field path has at most {MAX_PATH_LEN} characters")));
        }
        let s = text.strip_prefix('.').unwrap_or(text);
        let bytes = s.as_bytes();
        let mut segments = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'[' {
                let close = s[i..].find(']').map(|j| i + j).ok_or_else(|| err("unclosed ["))?;
                let inner = &s[i + 1..close];
                let quoted = inner
                    .strip_prefix('"')
                    .and_then(|r| r.strip_suffix('"'))
                    .or_else(|| inner.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')));
                match quoted {
                    Some(key) => {
                        if key.is_empty() || key.len() > MAX_KEY_LEN || !key.chars().all(quoted_key_char) {
                            return Err(err(&format!(
                                "a quoted key has 1 to {MAX_KEY_LEN} characters of A-Z a-z 0-9 . _ / -"
                            )));
                        }
                        segments.push(Segment::Key(key.into()));
                    }
                    None => {
                        if segments.is_empty() {
                            return Err(err("a field path starts with a key"));
                        }
                        let index = (!inner.is_empty() && inner.len() <= 5 && inner.bytes().all(|b| b.is_ascii_digit()))
                            .then(|| inner.parse::<u32>().ok())
                            .flatten()
                            .filter(|&n| n <= MAX_INDEX)
                            .ok_or_else(|| {
                                err(&format!(
                                    "[{inner}]: only an index from 0 to {MAX_INDEX} or a quoted key (\"…\") goes in brackets"
                                ))
                            })?;
                        segments.push(Segment::Index(index));
                    }
                }
                i = close + 1;
                if i < bytes.len() && !matches!(bytes[i], b'.' | b'[') {
                    return Err(err("expected . or [ after ]"));
                }
            } else {
                if bytes[i] == b'.' {
                    if segments.is_empty() {
                        return Err(err("empty key"));
                    }
                    i += 1;
                }
                let end = s[i..].find(['.', '[']).map_or(s.len(), |j| i + j);
                let key = &s[i..end];
                if key.is_empty() {
                    return Err(err("empty key"));
                }
                if !key.chars().all(plain_key_char) {
                    return Err(err(&format!(
                        "{key:?}: a key has only A-Z a-z 0-9 _ -; write others as [\"key\"]"
                    )));
                }
                segments.push(Segment::Key(key.into()));
                i = end;
                if i < bytes.len() && bytes[i] == b'.' && i + 1 == bytes.len() {
                    return Err(err("empty key"));
                }
            }
            if segments.len() > MAX_SEGMENTS {
                return Err(err(&format!("a field path has at most {MAX_SEGMENTS} segments")));
            }
        }
        if segments.is_empty() {
            return Err(err("empty field path"));
        }
        Ok(FieldPath { segments })
    }

    /// The steps, first to last.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The value at this path, if there is one.
    pub fn lookup<'a>(&self, root: &'a Value) -> Option<&'a Value> {
        self.segments.iter().try_fold(root, |v, s| match s {
            Segment::Key(k) => v.get(k.as_str()),
            Segment::Index(i) => v.get(*i as usize),
        })
    }

    /// The last key, uppercase, with the index after it when the path ends in one:
    /// `status.phase` → `PHASE`, `spec.containers[0]` → `CONTAINERS[0]`.
    pub fn header(&self) -> String {
        let mut out = String::new();
        let last_key = self.segments.iter().rposition(|s| matches!(s, Segment::Key(_))).unwrap_or(0);
        for s in &self.segments[last_key..] {
            match s {
                Segment::Key(k) => out.push_str(&k.to_uppercase()),
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

impl fmt::Display for FieldPath {
    /// The canonical spelling: `status.phase`, `metadata.labels["app.kubernetes.io/name"]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.segments.iter().enumerate() {
            match s {
                Segment::Key(k) if k.chars().all(plain_key_char) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Segment::Key(k) => write!(f, "[\"{k}\"]")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A value as a count shows it: a string as it is, `null` and nothing as [`NONE`], anything else
/// as its JSON text (`true`, `3`, `{"a":1}`).
pub fn value_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => NONE.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

impl CountKey {
    /// Parses one key: `cluster`, `namespace`, a field path (any key with `.` or `[`), or else a
    /// printed column's header (`status`, `nominated-node`).
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("cluster") {
            return Ok(CountKey::Cluster);
        }
        if text.eq_ignore_ascii_case("namespace") {
            return Ok(CountKey::Namespace);
        }
        if text.contains(['.', '[']) {
            return FieldPath::parse(text).map(CountKey::Field);
        }
        let column = text.starts_with(|c: char| c.is_ascii_alphabetic())
            && text.len() <= 63
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ' ' | '%' | '(' | ')'));
        if !column {
            return Err(KeyError::new(
                text,
                "a key is cluster, namespace, a field path (status.phase) or a printed column (status)",
            ));
        }
        Ok(CountKey::Column(text.to_uppercase().replace(['-', '_'], " ")))
    }

    /// Parses `--by`: keys separated by commas, at most [`MAX_KEYS`], none twice.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, KeyError> {
        let mut keys: Vec<CountKey> = Vec::new();
        for part in text.split(',') {
            let key = CountKey::parse(part)?;
            if keys.contains(&key) {
                return Err(KeyError::new(part.trim(), "given twice"));
            }
            keys.push(key);
        }
        if keys.len() > MAX_KEYS {
            return Err(KeyError::new(text, format!("at most {MAX_KEYS} keys")));
        }
        Ok(keys)
    }

    /// The column header the plugin prints: `CLUSTER`, `NAMESPACE`, the last key of a field
    /// path uppercase (`PHASE`), or the printed column's own.
    pub fn header(&self) -> String {
        match self {
            CountKey::Cluster => "CLUSTER".into(),
            CountKey::Namespace => "NAMESPACE".into(),
            CountKey::Field(path) => path.header(),
            CountKey::Column(header) => header.clone(),
        }
    }
}

impl fmt::Display for CountKey {
    /// How the answer's `by` names it: `cluster`, `namespace`, the field path, the header.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CountKey::Cluster => f.write_str("cluster"),
            CountKey::Namespace => f.write_str("namespace"),
            CountKey::Field(path) => path.fmt(f),
            CountKey::Column(header) => f.write_str(header),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn path(text: &str) -> FieldPath {
        FieldPath::parse(text).unwrap()
    }

    #[test]
    fn field_paths_take_keys_indexes_and_quoted_keys() {
        assert_eq!(
            path("status.phase").segments(),
            [Segment::Key("status".into()), Segment::Key("phase".into())]
        );
        assert_eq!(path(".status.phase"), path("status.phase"));
        assert_eq!(
            path("spec.containers[0].image").segments(),
            [
                Segment::Key("spec".into()),
                Segment::Key("containers".into()),
                Segment::Index(0),
                Segment::Key("image".into())
            ]
        );
        let label = path("metadata.labels['app.kubernetes.io/name']");
        assert_eq!(label.segments()[2], Segment::Key("app.kubernetes.io/name".into()));
        assert_eq!(label.to_string(), "metadata.labels[\"app.kubernetes.io/name\"]");
        assert_eq!(label.header(), "APP.KUBERNETES.IO/NAME");
        assert_eq!(path("spec.containers[0]").header(), "CONTAINERS[0]");
        assert_eq!(path("a.b[2][3]").to_string(), "a.b[2][3]");
    }

    #[test]
    fn field_paths_refuse_everything_else() {
        for bad in [
            "",
            ".",
            "a.",
            "a..b",
            "[0]",
            "a[-1]",
            "a[*]",
            "a[100000]",
            "a[?(@.x==1)]",
            "a['x\"y']",
            "a[\"x'y\"]",
            "a['']",
            "a[\"b\"]c",
            "a b.c",
            "a.b'); DROP TABLE resources; --",
            "a.$b",
            "a[0",
            "a.b\\.c",
            "a.é",
        ] {
            assert!(FieldPath::parse(bad).is_err(), "{bad:?} parsed");
        }
        let long = "a.".repeat(MAX_SEGMENTS) + "a";
        assert!(FieldPath::parse(&long).unwrap_err().to_string().contains("at most 16 segments"));
        let wide = format!("a.{}", "b".repeat(MAX_PATH_LEN));
        assert!(FieldPath::parse(&wide).is_err());
    }

    #[test]
    fn lookups_follow_keys_and_indexes() {
        let pod = json!({"status": {"phase": "Running"}, "spec": {"containers": [{"image": "nginx"}]}});
        assert_eq!(path("status.phase").lookup(&pod), Some(&json!("Running")));
        assert_eq!(path("spec.containers[0].image").lookup(&pod), Some(&json!("nginx")));
        assert_eq!(path("spec.containers[1].image").lookup(&pod), None);
        assert_eq!(path("status.phase.x").lookup(&pod), None);
        assert_eq!(value_text(None), NONE);
        assert_eq!(value_text(Some(&json!(null))), NONE);
        assert_eq!(value_text(Some(&json!(true))), "true");
        assert_eq!(value_text(Some(&json!(3))), "3");
        assert_eq!(value_text(Some(&json!({"a": 1}))), "{\"a\":1}");
    }

    #[test]
    fn keys_are_cluster_namespace_fields_or_columns() {
        let keys = CountKey::parse_list("cluster, Namespace,status.phase,status,nominated-node").unwrap();
        assert_eq!(keys[0], CountKey::Cluster);
        assert_eq!(keys[1], CountKey::Namespace);
        assert_eq!(keys[2], CountKey::Field(path("status.phase")));
        assert_eq!(keys[3], CountKey::Column("STATUS".into()));
        assert_eq!(keys[4], CountKey::Column("NOMINATED NODE".into()));
        let headers: Vec<String> = keys.iter().map(CountKey::header).collect();
        assert_eq!(headers, ["CLUSTER", "NAMESPACE", "PHASE", "STATUS", "NOMINATED NODE"]);
        assert!(CountKey::parse_list("cluster,cluster").unwrap_err().to_string().contains("twice"));
        assert!(CountKey::parse_list("a,b,c,d,e,f,g,h,i").unwrap_err().to_string().contains("at most 8"));
        assert!(CountKey::parse("").is_err());
        assert!(CountKey::parse("9lives").is_err());
        assert!(CountKey::parse("a;b").is_err());
    }
}
