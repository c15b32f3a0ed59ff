//! Label and field selectors in the Kubernetes text syntax.
//!
//! [`LabelSelector`] accepts everything `kubectl -l` accepts except the numeric `<`/`>`
//! operators: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, comma separated.
//! [`FieldSelector`] accepts `field=value`, `field==value` and `field!=value`, comma separated,
//! with `\,`, `\=` and `\\` escapes in values as `kubectl --field-selector` does.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Most requirements one selector may have (label or field); more are refused before any work.
pub const MAX_REQUIREMENTS: usize = 64;
/// Longest selector text accepted.
pub const MAX_SELECTOR_LEN: usize = 4096;
/// Most values of one `in`/`notin` set.
pub const MAX_SET_VALUES: usize = 64;
/// Longest field path or field value accepted (Kubernetes bounds neither; an object field's value
/// compared here is at most this long in practice: names, phases, node names).
pub const MAX_FIELD_LEN: usize = 1024;

/// Why a selector could not be parsed. Every message is one line and quotes the offending text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// The label selector does not follow the grammar (a missing value, a stray parenthesis, …).
    #[error("invalid label selector {input:?}: {reason}")]
    Syntax {
        /// The whole selector text.
        input: String,
        /// What was expected and what was found instead.
        reason: String,
    },
    /// A label key is not a valid qualified name (`[prefix/]name`).
    #[error("invalid label key {key:?}: {reason}")]
    InvalidKey {
        /// The key as written.
        key: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// A label value is not a valid label value.
    #[error("invalid label value {value:?}: {reason}")]
    InvalidValue {
        /// The value as written.
        value: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// The selector is larger than the server accepts (text, requirements or set values).
    #[error("{what} has {actual} {unit}; at most {limit} are allowed")]
    TooLarge {
        /// What is too large, e.g. "label selector".
        what: &'static str,
        /// What was counted, e.g. "requirements".
        unit: &'static str,
        /// The size found.
        actual: usize,
        /// The limit.
        limit: usize,
    },
    /// A field selector term is not `field=value`, `field==value` or `field!=value`.
    #[error("invalid field selector {input:?}: {reason}")]
    Field {
        /// The offending term (or the whole selector when it cannot be split).
        input: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// The operator of one label requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `key=value` or `key==value`: the label is present with that value.
    Equals,
    /// `key!=value`: the label is absent or has another value.
    NotEquals,
    /// `key in (a,b)`: the label is present with one of the values.
    In,
    /// `key notin (a,b)`: the label is absent or has none of the values.
    NotIn,
    /// `key`: the label is present.
    Exists,
    /// `!key`: the label is absent.
    DoesNotExist,
}

/// One requirement of a label selector: a key, an operator and its values.
///
/// `values` holds exactly one value for [`Operator::Equals`]/[`Operator::NotEquals`], one or
/// more (sorted, without duplicates) for [`Operator::In`]/[`Operator::NotIn`] and none for
/// [`Operator::Exists`]/[`Operator::DoesNotExist`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Requirement {
    /// The label key, e.g. `app.kubernetes.io/name`.
    pub key: String,
    /// How the label is compared.
    pub op: Operator,
    /// The values compared against.
    pub values: Vec<String>,
}

impl Requirement {
    /// Builds a validated requirement; `values` are sorted and deduplicated.
    pub fn new(
        key: impl Into<String>,
        op: Operator,
        values: impl IntoIterator<Item = impl Into<String>>,
    ) -> Result<Self, SelectorError> {
        let key = key.into();
        validate_key(&key)?;
        let mut values: Vec<String> = values.into_iter().map(Into::into).collect();
        if values.len() > MAX_SET_VALUES {
            return Err(SelectorError::TooLarge {
                what: "a label set",
                unit: "values",
                actual: values.len(),
                limit: MAX_SET_VALUES,
            });
        }
        for v in &values {
            validate_value(v)?;
        }
        values.sort();
        values.dedup();
        let wanted = match op {
            Operator::Equals | Operator::NotEquals => values.len() == 1,
            Operator::In | Operator::NotIn => !values.is_empty(),
            Operator::Exists | Operator::DoesNotExist => values.is_empty(),
        };
        if !wanted {
            return Err(SelectorError::Syntax {
                input: key,
                reason: format!("operator {op:?} cannot take {} value(s)", values.len()),
            });
        }
        Ok(Self { key, op, values })
    }

    /// Whether a set of labels satisfies this requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.key);
        match self.op {
            Operator::Equals | Operator::In => value.is_some_and(|v| self.values.contains(v)),
            Operator::NotEquals | Operator::NotIn => !value.is_some_and(|v| self.values.contains(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
        }
    }
}

impl fmt::Display for Requirement {
    /// Canonical text, as Kubernetes prints it: `a=b`, `a!=b`, `a in (x,y)`, `a`, `!a`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = &self.key;
        let first = self.values.first().map(String::as_str).unwrap_or_default();
        match self.op {
            Operator::Equals => write!(f, "{key}={first}"),
            Operator::NotEquals => write!(f, "{key}!={first}"),
            Operator::In => write!(f, "{key} in ({})", self.values.join(",")),
            Operator::NotIn => write!(f, "{key} notin ({})", self.values.join(",")),
            Operator::Exists => write!(f, "{key}"),
            Operator::DoesNotExist => write!(f, "!{key}"),
        }
    }
}

/// A parsed label selector: all requirements must hold (logical AND).
///
/// The empty selector has no requirements and matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Parses the Kubernetes label selector syntax. Requirements are kept sorted by key, as
    /// Kubernetes does, so equal selectors print the same.
    pub fn parse(input: &str) -> Result<Self, SelectorError> {
        if input.len() > MAX_SELECTOR_LEN {
            return Err(SelectorError::TooLarge {
                what: "label selector",
                unit: "characters",
                actual: input.len(),
                limit: MAX_SELECTOR_LEN,
            });
        }
        let tokens = lex(input)?;
        let mut parser = Parser { input, tokens, pos: 0 };
        let mut requirements = Vec::new();
        if parser.peek() == &Token::End {
            return Ok(Self::default());
        }
        loop {
            requirements.push(parser.requirement()?);
            if requirements.len() > MAX_REQUIREMENTS {
                return Err(too_many(input.split(',').count()));
            }
            match parser.next() {
                Token::End => break,
                Token::Comma => {}
                other => return Err(parser.error(format!("expected \",\" or end, found {other}"))),
            }
        }
        Ok(Self::from_requirements(requirements))
    }

    /// A selector from already validated requirements.
    pub fn from_requirements(mut requirements: Vec<Requirement>) -> Self {
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Self { requirements }
    }

    /// The selector `k1=v1,k2=v2,…`, as the Go project's `labels[key]=value` parameters meant.
    pub fn from_equalities<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Result<Self, SelectorError>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let mut requirements = Vec::new();
        for (i, (k, v)) in pairs.into_iter().enumerate() {
            if i == MAX_REQUIREMENTS {
                return Err(too_many(i + 1));
            }
            requirements.push(Requirement::new(k, Operator::Equals, [v.into()])?);
        }
        Ok(Self::from_requirements(requirements))
    }

    /// Adds the requirements of `other` (all must hold), keeping them sorted by key.
    pub fn extend(&mut self, other: LabelSelector) {
        self.requirements.extend(other.requirements);
        self.requirements.sort_by(|a, b| a.key.cmp(&b.key));
    }

    /// Adds the requirements of `other`, refusing a result of more than [`MAX_REQUIREMENTS`].
    pub fn try_extend(&mut self, other: LabelSelector) -> Result<(), SelectorError> {
        let total = self.requirements.len() + other.requirements.len();
        if total > MAX_REQUIREMENTS {
            return Err(too_many(total));
        }
        self.extend(other);
        Ok(())
    }

    /// The requirements, sorted by key.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Whether the selector has no requirements (matches everything).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether a set of labels satisfies every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

impl fmt::Display for LabelSelector {
    /// Canonical text: requirements joined by `,`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

impl FromStr for LabelSelector {
    type Err = SelectorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Ident(String),
    Comma,
    Open,
    Close,
    Eq,
    DoubleEq,
    NotEq,
    Bang,
    In,
    NotIn,
    End,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(s) => write!(f, "{s:?}"),
            Token::Comma => f.write_str("\",\""),
            Token::Open => f.write_str("\"(\""),
            Token::Close => f.write_str("\")\""),
            Token::Eq => f.write_str("\"=\""),
            Token::DoubleEq => f.write_str("\"==\""),
            Token::NotEq => f.write_str("\"!=\""),
            Token::Bang => f.write_str("\"!\""),
            Token::In => f.write_str("\"in\""),
            Token::NotIn => f.write_str("\"notin\""),
            Token::End => f.write_str("end of input"),
        }
    }
}

/// Characters that end an identifier, as in the Kubernetes lexer (plus `<`/`>`, rejected).
fn is_special(c: char) -> bool {
    matches!(c, '!' | '=' | ',' | '(' | ')' | '<' | '>') || c.is_whitespace()
}

fn lex(input: &str) -> Result<Vec<Token>, SelectorError> {
    let syntax = |reason: String| SelectorError::Syntax { input: input.to_string(), reason };
    let mut tokens = Vec::new();
    let mut chars = input.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            ',' => {
                chars.next();
                tokens.push(Token::Comma);
            }
            '(' => {
                chars.next();
                tokens.push(Token::Open);
            }
            ')' => {
                chars.next();
                tokens.push(Token::Close);
            }
            '=' => {
                chars.next();
                if chars.next_if(|&(_, c)| c == '=').is_some() {
                    tokens.push(Token::DoubleEq);
                } else {
                    tokens.push(Token::Eq);
                }
            }
            '!' => {
                chars.next();
                if chars.next_if(|&(_, c)| c == '=').is_some() {
                    tokens.push(Token::NotEq);
                } else {
                    tokens.push(Token::Bang);
                }
            }
            '<' | '>' => {
                return Err(syntax(format!("operator \"{c}\" is not supported (use =, !=, in, notin)")));
            }
            _ => {
                let mut end = input.len();
                while let Some(&(j, c)) = chars.peek() {
                    if is_special(c) {
                        end = j;
                        break;
                    }
                    chars.next();
                }
                let word = &input[i..end];
                tokens.push(match word {
                    "in" => Token::In,
                    "notin" => Token::NotIn,
                    _ => Token::Ident(word.to_string()),
                });
            }
        }
    }
    tokens.push(Token::End);
    Ok(tokens)
}

struct Parser<'a> {
    input: &'a str,
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        self.tokens.get(self.pos).unwrap_or(&Token::End)
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        self.pos += 1;
        t
    }

    fn error(&self, reason: String) -> SelectorError {
        SelectorError::Syntax { input: self.input.to_string(), reason }
    }

    fn requirement(&mut self) -> Result<Requirement, SelectorError> {
        let negated = if self.peek() == &Token::Bang {
            self.next();
            true
        } else {
            false
        };
        let key = match self.next() {
            Token::Ident(key) => key,
            other => return Err(self.error(format!("expected a label key, found {other}"))),
        };
        if negated {
            return Requirement::new(key, Operator::DoesNotExist, Vec::<String>::new());
        }
        let op = match self.peek() {
            Token::End | Token::Comma => {
                return Requirement::new(key, Operator::Exists, Vec::<String>::new());
            }
            Token::Eq | Token::DoubleEq => Operator::Equals,
            Token::NotEq => Operator::NotEquals,
            Token::In => Operator::In,
            Token::NotIn => Operator::NotIn,
            other => {
                let reason = format!("expected an operator after {key:?}, found {other}");
                return Err(self.error(reason));
            }
        };
        self.next();
        let values = match op {
            Operator::In | Operator::NotIn => self.value_set(&key)?,
            _ => vec![self.exact_value(&key)?],
        };
        Requirement::new(key, op, values)
    }

    /// The value after `=`, `==` or `!=`; nothing before `,` or the end means the empty value.
    fn exact_value(&mut self, key: &str) -> Result<String, SelectorError> {
        match self.peek().clone() {
            Token::End | Token::Comma => Ok(String::new()),
            Token::Ident(v) => {
                self.next();
                Ok(v)
            }
            // `in`/`notin` are words like any other in value position.
            Token::In => {
                self.next();
                Ok("in".into())
            }
            Token::NotIn => {
                self.next();
                Ok("notin".into())
            }
            other => Err(self.error(format!("expected a value for {key:?}, found {other}"))),
        }
    }

    /// `( v1, v2, … )`; an empty slot is the empty value, as in Kubernetes.
    fn value_set(&mut self, key: &str) -> Result<Vec<String>, SelectorError> {
        match self.next() {
            Token::Open => {}
            other => {
                return Err(
                    self.error(format!("expected \"(\" after the operator of {key:?}, found {other}"))
                );
            }
        }
        let mut values = Vec::new();
        loop {
            match self.next() {
                Token::Ident(v) => {
                    values.push(v);
                    match self.next() {
                        Token::Comma => {}
                        Token::Close => return Ok(values),
                        other => {
                            return Err(self.error(format!(
                                "expected \",\" or \")\" in the values of {key:?}, found {other}"
                            )));
                        }
                    }
                }
                Token::Comma => values.push(String::new()),
                Token::Close => {
                    values.push(String::new());
                    return Ok(values);
                }
                other => return Err(self.error(format!("expected a value for {key:?}, found {other}"))),
            }
        }
    }
}

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// A qualified name part or a label value: alphanumerics, `-`, `_`, `.`, starting and ending
/// with an alphanumeric.
fn check_name_chars(s: &str) -> Result<(), &'static str> {
    if !s.chars().all(|c| is_alnum(c) || matches!(c, '-' | '_' | '.')) {
        return Err("only alphanumerics, '-', '_' and '.' are allowed");
    }
    if !s.starts_with(is_alnum) || !s.ends_with(is_alnum) {
        return Err("must start and end with an alphanumeric character");
    }
    Ok(())
}

/// Input as shown in an error: at most 80 characters, so an oversize input is not echoed whole.
fn shown(input: &str) -> String {
    if input.chars().count() <= 80 {
        input.to_string()
    } else {
        input.chars().take(80).chain(['…']).collect()
    }
}

fn too_many(actual: usize) -> SelectorError {
    SelectorError::TooLarge { what: "label selector", unit: "requirements", actual, limit: MAX_REQUIREMENTS }
}

/// Validates a label key: an optional DNS-subdomain prefix (≤ 253) and `/`, then a name (≤ 63).
pub fn validate_key(key: &str) -> Result<(), SelectorError> {
    let bad = |reason: &str| SelectorError::InvalidKey { key: shown(key), reason: reason.to_string() };
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            return Err(bad("prefix must not be empty"));
        }
        if prefix.len() > 253 {
            return Err(bad("prefix must be at most 253 characters"));
        }
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.len() <= 63
                && l.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        if !prefix.split('.').all(label_ok) {
            return Err(bad("prefix must be a DNS subdomain (lowercase alphanumerics, '-' and '.')"));
        }
    }
    if name.is_empty() {
        return Err(bad("name part must not be empty"));
    }
    if name.len() > 63 {
        return Err(bad("name part must be at most 63 characters"));
    }
    check_name_chars(name).map_err(bad)
}

/// Validates a label value: empty, or at most 63 characters of alphanumerics, `-`, `_`, `.`
/// starting and ending with an alphanumeric.
pub fn validate_value(value: &str) -> Result<(), SelectorError> {
    if value.is_empty() {
        return Ok(());
    }
    let bad = |reason: &str| SelectorError::InvalidValue { value: shown(value), reason: reason.to_string() };
    if value.len() > 63 {
        return Err(bad("must be at most 63 characters"));
    }
    check_name_chars(value).map_err(bad)
}

/// The operator of one field requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldOperator {
    /// `field=value` or `field==value`.
    Equals,
    /// `field!=value`.
    NotEquals,
}

/// One requirement of a field selector, e.g. `status.phase=Running`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldRequirement {
    /// Dotted path into the object, e.g. `spec.nodeName`.
    pub field: String,
    /// How the field is compared.
    pub op: FieldOperator,
    /// The value compared against; an absent field compares as the empty string.
    pub value: String,
}

impl FieldRequirement {
    /// Whether the object satisfies this requirement.
    pub fn matches(&self, object: &serde_json::Value) -> bool {
        let actual = field_value(object, &self.field);
        match self.op {
            FieldOperator::Equals => actual == self.value,
            FieldOperator::NotEquals => actual != self.value,
        }
    }
}

impl fmt::Display for FieldRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.op {
            FieldOperator::Equals => "=",
            FieldOperator::NotEquals => "!=",
        };
        write!(f, "{}{op}{}", self.field, escape_field_value(&self.value))
    }
}

/// The text of the field at a dotted path: strings as they are, numbers and booleans as JSON,
/// absent or `null` as the empty string (so `spec.nodeName=` selects unscheduled pods).
fn field_value(object: &serde_json::Value, path: &str) -> String {
    let mut current = object;
    for segment in path.split('.') {
        match current.get(segment) {
            Some(v) => current = v,
            None => return String::new(),
        }
    }
    match current {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn escape_field_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A parsed field selector: all requirements must hold. The empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldSelector {
    requirements: Vec<FieldRequirement>,
}

impl FieldSelector {
    /// The fields every resource type supports in Kubernetes, plus the two most used
    /// type-specific ones. Any other dotted path is accepted and evaluated on the object.
    pub const WELL_KNOWN_FIELDS: [&'static str; 4] =
        ["metadata.name", "metadata.namespace", "status.phase", "spec.nodeName"];

    /// Parses `field=value`, `field==value`, `field!=value`, comma separated.
    pub fn parse(input: &str) -> Result<Self, SelectorError> {
        let mut requirements = Vec::new();
        if input.trim().is_empty() {
            return Ok(Self::default());
        }
        if input.len() > MAX_SELECTOR_LEN {
            return Err(SelectorError::TooLarge {
                what: "field selector",
                unit: "characters",
                actual: input.len(),
                limit: MAX_SELECTOR_LEN,
            });
        }
        for term in split_unescaped(input, ',') {
            if requirements.len() == MAX_REQUIREMENTS {
                return Err(SelectorError::TooLarge {
                    what: "field selector",
                    unit: "requirements",
                    actual: split_unescaped(input, ',').len(),
                    limit: MAX_REQUIREMENTS,
                });
            }
            if term.len() > MAX_FIELD_LEN {
                return Err(SelectorError::TooLarge {
                    what: "a field selector term",
                    unit: "characters",
                    actual: term.len(),
                    limit: MAX_FIELD_LEN,
                });
            }
            requirements.push(parse_field_term(input, &term)?);
        }
        Ok(Self { requirements })
    }

    /// The requirements, in the order written.
    pub fn requirements(&self) -> &[FieldRequirement] {
        &self.requirements
    }

    /// Whether the selector has no requirements (matches everything).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether the object satisfies every requirement.
    pub fn matches(&self, object: &serde_json::Value) -> bool {
        self.requirements.iter().all(|r| r.matches(object))
    }
}

impl fmt::Display for FieldSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

impl FromStr for FieldSelector {
    type Err = SelectorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Splits on `sep` that is not preceded by a backslash; escapes are kept for the next step.
fn split_unescaped(input: &str, sep: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut escaped = false;
    for c in input.chars() {
        if escaped {
            current.push(c);
            escaped = false;
        } else if c == '\\' {
            current.push(c);
            escaped = true;
        } else if c == sep {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    parts
}

fn parse_field_term(input: &str, term: &str) -> Result<FieldRequirement, SelectorError> {
    let bad = |reason: String| SelectorError::Field { input: term.trim().to_string(), reason };
    if term.trim().is_empty() {
        return Err(SelectorError::Field {
            input: input.to_string(),
            reason: "empty requirement (stray \",\")".to_string(),
        });
    }
    // The field name never contains an escape, so the first unescaped operator splits the term.
    let (field, op, raw_value) = if let Some(i) = term.find("!=") {
        (&term[..i], FieldOperator::NotEquals, &term[i + 2..])
    } else if let Some(i) = term.find("==") {
        (&term[..i], FieldOperator::Equals, &term[i + 2..])
    } else if let Some(i) = term.find('=') {
        (&term[..i], FieldOperator::Equals, &term[i + 1..])
    } else {
        return Err(bad("expected field=value, field==value or field!=value".into()));
    };
    let field = field.trim();
    if field.is_empty() {
        return Err(bad("missing field name".into()));
    }
    let segment_ok =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
    if !field.split('.').all(segment_ok) {
        return Err(bad(format!("{field:?} is not a dotted field path")));
    }
    let value = unescape_field_value(raw_value.trim()).map_err(bad)?;
    Ok(FieldRequirement { field: field.to_string(), op, value })
}

fn unescape_field_value(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | ',' | '=')) => out.push(e),
                Some(e) => return Err(format!("invalid escape \"\\{e}\" in value")),
                None => return Err("value ends with a lone \"\\\"".into()),
            },
            '=' | ',' => return Err(format!("unescaped {c:?} in value {raw:?}")),
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn oversize_selectors_are_refused_with_the_limit() {
        let at = (0..MAX_REQUIREMENTS).map(|i| format!("!k{i}")).collect::<Vec<_>>().join(",");
        assert_eq!(LabelSelector::parse(&at).unwrap().requirements().len(), MAX_REQUIREMENTS);
        let over = format!("{at},!one-more");
        let e = LabelSelector::parse(&over).unwrap_err().to_string();
        assert_eq!(e, "label selector has 65 requirements; at most 64 are allowed");
        let long = "a,".repeat(3000);
        assert!(LabelSelector::parse(&long).unwrap_err().to_string().contains("at most 4096"));
        let set = (0..65).map(|i| format!("v{i}")).collect::<Vec<_>>().join(",");
        assert!(
            LabelSelector::parse(&format!("k in ({set})")).unwrap_err().to_string().contains("at most 64")
        );
        let pairs: Vec<(String, String)> = (0..65).map(|i| (format!("k{i}"), "v".to_string())).collect();
        assert!(LabelSelector::from_equalities(pairs.clone()).is_err());
        let mut a = LabelSelector::from_equalities(pairs[..40].to_vec()).unwrap();
        let b = LabelSelector::from_equalities(pairs[40..].to_vec()).unwrap();
        assert!(a.try_extend(b).is_err());
        let fields = (0..65).map(|i| format!("metadata.name!=n{i}")).collect::<Vec<_>>().join(",");
        assert!(FieldSelector::parse(&fields).unwrap_err().to_string().contains("at most 64"));
        assert!(FieldSelector::parse(&format!("metadata.name={}", "n".repeat(2000))).is_err());
    }

    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn req(s: &str) -> Requirement {
        let sel = LabelSelector::parse(s).unwrap();
        assert_eq!(sel.requirements().len(), 1, "{s}");
        sel.requirements()[0].clone()
    }

    #[test]
    fn parses_every_operator() {
        assert_eq!(
            req("a=b"),
            Requirement { key: "a".into(), op: Operator::Equals, values: vec!["b".into()] }
        );
        assert_eq!(req("a==b").op, Operator::Equals);
        assert_eq!(req("a!=b").op, Operator::NotEquals);
        let r = req("env in (prod, dev,prod)");
        assert_eq!(r.op, Operator::In);
        assert_eq!(r.values, vec!["dev", "prod"]);
        let r = req("env notin (qa)");
        assert_eq!((r.op, r.values), (Operator::NotIn, vec!["qa".to_string()]));
        assert_eq!(req("a").op, Operator::Exists);
        assert!(req("a").values.is_empty());
        assert_eq!(req("!a").op, Operator::DoesNotExist);
        assert_eq!(req("! a").op, Operator::DoesNotExist);
    }

    #[test]
    fn tolerates_whitespace_and_sorts_by_key() {
        let sel = LabelSelector::parse("  tier != cache ,app=web,  !legacy ,  env in ( a , b )  ").unwrap();
        let keys: Vec<_> = sel.requirements().iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["app", "env", "legacy", "tier"]);
        assert_eq!(sel.to_string(), "app=web,env in (a,b),!legacy,tier!=cache");
    }

    #[test]
    fn display_round_trips() {
        for s in ["a=b", "a!=b", "a in (x,y)", "a notin (x)", "a", "!a", "app.kubernetes.io/name=web,b"] {
            let sel = LabelSelector::parse(s).unwrap();
            assert_eq!(sel.to_string(), s);
            assert_eq!(LabelSelector::parse(&sel.to_string()).unwrap(), sel);
        }
        assert_eq!(LabelSelector::parse("a==b").unwrap().to_string(), "a=b");
    }

    #[test]
    fn empty_selector_matches_everything() {
        for s in ["", "   "] {
            let sel = LabelSelector::parse(s).unwrap();
            assert!(sel.is_empty());
            assert!(sel.matches(&labels(&[])));
            assert!(sel.matches(&labels(&[("a", "b")])));
            assert_eq!(sel.to_string(), "");
        }
    }

    #[test]
    fn accepts_prefixed_keys_and_empty_values() {
        let r = req("app.kubernetes.io/name=my-app_1.0");
        assert_eq!(r.key, "app.kubernetes.io/name");
        assert_eq!(r.values, vec!["my-app_1.0"]);
        assert_eq!(req("a=").values, vec![""]);
        let sel = LabelSelector::parse("a=,b").unwrap();
        assert_eq!(sel.requirements()[0].values, vec![""]);
        assert_eq!(sel.requirements()[1].op, Operator::Exists);
        assert_eq!(req("a in ()").values, vec![""]);
        assert_eq!(req("a in (x,)").values, vec!["", "x"]);
    }

    #[test]
    fn keywords_may_be_values() {
        assert_eq!(req("a=in").values, vec!["in"]);
        assert_eq!(req("a!=notin").values, vec!["notin"]);
    }

    #[test]
    fn matches_as_kubernetes_does() {
        let l = labels(&[("app", "web"), ("env", "prod")]);
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(&l);
        assert!(m("app=web"));
        assert!(!m("app=db"));
        assert!(m("app!=db"));
        assert!(m("missing!=x"), "!= matches objects without the label");
        assert!(!m("app!=web"));
        assert!(m("env in (dev,prod)"));
        assert!(!m("env in (dev)"));
        assert!(!m("missing in (x)"));
        assert!(m("env notin (dev)"));
        assert!(m("missing notin (dev)"));
        assert!(!m("env notin (prod)"));
        assert!(m("app"));
        assert!(!m("missing"));
        assert!(m("!missing"));
        assert!(!m("!app"));
        assert!(m("app=web,env=prod"));
        assert!(!m("app=web,env=dev"));
    }

    #[test]
    fn from_equalities_builds_equals_requirements() {
        let sel = LabelSelector::from_equalities([("b", "2"), ("a", "1")]).unwrap();
        assert_eq!(sel.to_string(), "a=1,b=2");
        assert!(sel.matches(&labels(&[("a", "1"), ("b", "2"), ("c", "3")])));
        assert!(LabelSelector::from_equalities([("bad key", "x")]).is_err());
        assert!(LabelSelector::from_equalities([("k", "bad value")]).is_err());
        assert!(LabelSelector::from_equalities(Vec::<(String, String)>::new()).unwrap().is_empty());
    }

    #[test]
    fn extend_ands_two_selectors() {
        let mut sel = LabelSelector::from_equalities([("z", "1")]).unwrap();
        sel.extend(LabelSelector::parse("a in (x),!b").unwrap());
        assert_eq!(sel.to_string(), "a in (x),!b,z=1");
        assert!(sel.matches(&labels(&[("a", "x"), ("z", "1")])));
        assert!(!sel.matches(&labels(&[("a", "x")])));
    }

    #[test]
    fn rejects_bad_syntax_with_the_input_quoted() {
        for s in [
            "a in b",
            "a in (b",
            "a in (b c)",
            "=b",
            "a=b=c",
            "a b",
            "a,,b",
            ",a",
            "a,",
            "!",
            "!a=b",
            "a>1",
            "a<1",
            "(a)",
            "a notin",
            "a=(b)",
        ] {
            let err = LabelSelector::parse(s).unwrap_err();
            let msg = err.to_string();
            assert!(!msg.contains('\n'), "{msg}");
            assert!(msg.contains(&format!("{s:?}")) || msg.contains('"'), "{s}: {msg}");
        }
        let msg = LabelSelector::parse("a in b").unwrap_err().to_string();
        assert_eq!(
            msg,
            r#"invalid label selector "a in b": expected "(" after the operator of "a", found "b""#
        );
    }

    #[test]
    fn validates_keys_and_values() {
        let long63 = "a".repeat(63);
        let long64 = "a".repeat(64);
        assert!(LabelSelector::parse(&format!("{long63}={long63}")).is_ok());
        assert!(matches!(
            LabelSelector::parse(&format!("{long64}=x")),
            Err(SelectorError::InvalidKey { .. })
        ));
        assert!(matches!(
            LabelSelector::parse(&format!("x={long64}")),
            Err(SelectorError::InvalidValue { .. })
        ));
        for key in ["-a", "a-", "a b", "Example.com/a", "/a", "a/", "ex_ample.com/a", "a/b/c", "a@b"] {
            assert!(validate_key(key).is_err(), "{key}");
        }
        for key in ["a", "A_b.c-d", "example.com/a", "a.b.c/X", "1"] {
            assert!(validate_key(key).is_ok(), "{key}");
        }
        for value in ["-x", "x.", "a b", "é"] {
            assert!(validate_value(value).is_err(), "{value}");
        }
        let err = LabelSelector::parse("app=-bad").unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"invalid label value "-bad": must start and end with an alphanumeric character"#
        );
        assert!(LabelSelector::parse(&format!("{}/a=b", "a".repeat(254))).is_err());
    }

    #[test]
    fn requirement_new_checks_value_count() {
        assert!(Requirement::new("a", Operator::Equals, ["x", "y"]).is_err());
        assert!(Requirement::new("a", Operator::In, Vec::<String>::new()).is_err());
        assert!(Requirement::new("a", Operator::Exists, ["x"]).is_err());
        assert!(Requirement::new("a", Operator::In, ["y", "x"]).is_ok());
    }

    #[test]
    fn from_str_is_parse() {
        let sel: LabelSelector = "a=b".parse().unwrap();
        assert_eq!(sel, LabelSelector::parse("a=b").unwrap());
        let sel: FieldSelector = "a=b".parse().unwrap();
        assert_eq!(sel, FieldSelector::parse("a=b").unwrap());
    }

    fn pod() -> serde_json::Value {
        json!({
            "metadata": {"name": "web-1", "namespace": "default"},
            "spec": {"nodeName": "node-a", "replicas": 3, "hostNetwork": false},
            "status": {"phase": "Running"}
        })
    }

    #[test]
    fn field_selector_parses_and_matches_well_known_fields() {
        let sel =
            FieldSelector::parse("metadata.name=web-1, metadata.namespace==default,status.phase!=Failed")
                .unwrap();
        assert_eq!(sel.requirements().len(), 3);
        assert_eq!(sel.requirements()[1].op, FieldOperator::Equals);
        assert_eq!(sel.requirements()[2].op, FieldOperator::NotEquals);
        assert!(sel.matches(&pod()));
        assert!(FieldSelector::parse("spec.nodeName=node-a").unwrap().matches(&pod()));
        assert!(!FieldSelector::parse("spec.nodeName=node-b").unwrap().matches(&pod()));
        assert!(!FieldSelector::parse("status.phase!=Running").unwrap().matches(&pod()));
        assert_eq!(sel.to_string(), "metadata.name=web-1,metadata.namespace=default,status.phase!=Failed");
    }

    #[test]
    fn field_selector_evaluates_any_path_and_absent_fields_as_empty() {
        assert!(FieldSelector::parse("spec.replicas=3").unwrap().matches(&pod()));
        assert!(FieldSelector::parse("spec.hostNetwork=false").unwrap().matches(&pod()));
        let unscheduled = json!({"metadata": {"name": "p"}, "spec": {}});
        assert!(FieldSelector::parse("spec.nodeName=").unwrap().matches(&unscheduled));
        assert!(FieldSelector::parse("spec.nodeName!=node-a").unwrap().matches(&unscheduled));
        assert!(FieldSelector::parse("metadata.namespace=").unwrap().matches(&unscheduled));
        assert!(!FieldSelector::parse("spec.nodeName=").unwrap().matches(&pod()));
    }

    #[test]
    fn field_selector_handles_escapes() {
        let sel = FieldSelector::parse(r"metadata.name=a\,b\=c\\d").unwrap();
        assert_eq!(sel.requirements()[0].value, r"a,b=c\d");
        assert_eq!(sel.to_string(), r"metadata.name=a\,b\=c\\d");
        assert!(sel.matches(&json!({"metadata": {"name": r"a,b=c\d"}})));
    }

    #[test]
    fn field_selector_empty_matches_everything() {
        let sel = FieldSelector::parse(" ").unwrap();
        assert!(sel.is_empty());
        assert!(sel.matches(&pod()));
    }

    #[test]
    fn field_selector_rejects_unsupported_syntax() {
        for s in [
            "metadata.name",
            "status.phase in (Running)",
            "=x",
            "a..b=x",
            "a b=x",
            "a=b,",
            ",a=b",
            "a=b=c",
            r"a=b\x",
            "a>1",
            "a=x\\",
        ] {
            let err = FieldSelector::parse(s).unwrap_err();
            assert!(matches!(err, SelectorError::Field { .. }), "{s}: {err}");
            assert!(!err.to_string().contains('\n'));
        }
        assert_eq!(
            FieldSelector::parse("metadata.name").unwrap_err().to_string(),
            r#"invalid field selector "metadata.name": expected field=value, field==value or field!=value"#
        );
    }
}
