//! The JSONPath subset CRD `additionalPrinterColumns` use: `.spec.replicas`,
//! `.status.conditions[?(@.type=="Ready")].status`, `.spec.containers[*].image`,
//! `.spec.ports[0].port`, `.metadata.labels['app.kubernetes.io/name']`.

use serde_json::Value;

/// A parsed path.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath {
    steps: Vec<Step>,
}

#[derive(Clone, Debug, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    All,
    Filter { path: Vec<String>, op: Op, value: Value },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Eq,
    Ne,
    Exists,
}

/// Why a path could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unsupported JSONPath {path:?}: {reason}")]
pub struct ParseError {
    path: String,
    reason: String,
}

/// A field name from `start` up to the next unescaped `.` or `[`, and where it ends. A backslash
/// escapes the next character, as kubectl's JSONPath does: `.metadata.labels.app\.kubernetes\.io/name`.
fn field_name(chars: &[char], start: usize) -> (String, usize) {
    let mut name = String::new();
    let mut end = start;
    while end < chars.len() && !matches!(chars[end], '.' | '[') {
        if chars[end] == '\\' && end + 1 < chars.len() {
            end += 1;
        }
        name.push(chars[end]);
        end += 1;
    }
    (name, end)
}

impl JsonPath {
    /// Parses a path; `{…}` braces and a leading `$` are accepted.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let err = |reason: &str| ParseError { path: text.to_owned(), reason: reason.to_owned() };
        let mut s = text.trim();
        if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            s = inner.trim();
        }
        s = s.strip_prefix('$').unwrap_or(s);
        let chars: Vec<char> = s.chars().collect();
        let mut steps = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '.' => {
                    if chars.get(i + 1) == Some(&'.') {
                        return Err(err("recursive descent (..) is not supported"));
                    }
                    let (name, end) = field_name(&chars, i + 1);
                    if name == "*" {
                        steps.push(Step::All);
                    } else if !name.is_empty() {
                        steps.push(Step::Field(name));
                    }
                    i = end;
                }
                '[' => {
                    let close = find_close(&chars, i).ok_or_else(|| err("unclosed ["))?;
                    let inner: String = chars[i + 1..close].iter().collect();
                    steps.push(
                        parse_bracket(inner.trim()).ok_or_else(|| err("unsupported [...] expression"))?,
                    );
                    i = close + 1;
                }
                _ => {
                    // A path without a leading dot: `spec.replicas`.
                    let (name, end) = field_name(&chars, i);
                    steps.push(Step::Field(name));
                    i = end;
                }
            }
        }
        Ok(JsonPath { steps })
    }

    /// Every value the path selects, in order.
    pub fn select<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        let mut current = vec![root];
        for step in &self.steps {
            let mut next = Vec::new();
            for v in current {
                match step {
                    Step::Field(name) => next.extend(v.get(name.as_str())),
                    Step::Index(i) => {
                        if let Some(items) = v.as_array() {
                            let idx = if *i < 0 { items.len() as i64 + i } else { *i };
                            next.extend(usize::try_from(idx).ok().and_then(|idx| items.get(idx)));
                        }
                    }
                    Step::All => match v {
                        Value::Array(items) => next.extend(items.iter()),
                        Value::Object(map) => next.extend(map.values()),
                        _ => {}
                    },
                    Step::Filter { path, op, value } => {
                        if let Some(items) = v.as_array() {
                            next.extend(items.iter().filter(|item| {
                                let found = path.iter().try_fold(*item, |acc, key| acc.get(key.as_str()));
                                match (op, found) {
                                    (Op::Exists, f) => f.is_some(),
                                    (Op::Eq, Some(f)) => loosely_equal(f, value),
                                    (Op::Ne, Some(f)) => !loosely_equal(f, value),
                                    (_, None) => false,
                                }
                            }));
                        }
                    }
                }
            }
            current = next;
        }
        current
    }
}

/// `"1" == 1` is false in JSONPath, but CRD authors compare against quoted numbers often enough.
fn loosely_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::String(x), other) | (other, Value::String(x)) => x == &other.to_string(),
        _ => a == b,
    }
}

fn find_close(chars: &[char], open: usize) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut depth = 0;
    for (i, &c) in chars.iter().enumerate().skip(open) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn parse_bracket(inner: &str) -> Option<Step> {
    if inner == "*" {
        return Some(Step::All);
    }
    if let Ok(i) = inner.parse::<i64>() {
        return Some(Step::Index(i));
    }
    if let Some(name) = unquote(inner) {
        return Some(Step::Field(name));
    }
    let expr = inner.strip_prefix("?(")?.strip_suffix(')')?.trim();
    let expr = expr.strip_prefix("@.")?;
    let (lhs, op, rhs) = if let Some((l, r)) = expr.split_once("==") {
        (l, Op::Eq, Some(r))
    } else if let Some((l, r)) = expr.split_once("!=") {
        (l, Op::Ne, Some(r))
    } else {
        (expr, Op::Exists, None)
    };
    let path = lhs.trim().split('.').map(str::to_owned).collect();
    let value = match rhs.map(str::trim) {
        None => Value::Null,
        Some(r) => match unquote(r) {
            Some(s) => Value::String(s),
            None => serde_json::from_str(r).ok()?,
        },
    };
    Some(Step::Filter { path, op, value })
}

fn unquote(s: &str) -> Option<String> {
    let s = s.trim();
    for q in ['\'', '"'] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return Some(s[1..s.len() - 1].to_owned());
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn select(path: &str, v: &Value) -> Vec<Value> {
        JsonPath::parse(path).unwrap().select(v).into_iter().cloned().collect()
    }

    #[test]
    fn fields_indices_wildcards_and_filters_select_values() {
        let obj = json!({
            "metadata": {"labels": {"app.kubernetes.io/name": "web"}},
            "spec": {"replicas": 3, "containers": [{"image": "a"}, {"image": "b"}]},
            "status": {"conditions": [{"type": "Synced", "status": "True"}, {"type": "Ready", "status": "False"}]}
        });
        assert_eq!(select(".spec.replicas", &obj), [json!(3)]);
        assert_eq!(select("{.spec.replicas}", &obj), [json!(3)]);
        assert_eq!(select("spec.replicas", &obj), [json!(3)]);
        assert_eq!(select(".spec.containers[*].image", &obj), [json!("a"), json!("b")]);
        assert_eq!(select(".spec.containers[1].image", &obj), [json!("b")]);
        assert_eq!(select(".spec.containers[-1].image", &obj), [json!("b")]);
        assert_eq!(select(r#".status.conditions[?(@.type=="Ready")].status"#, &obj), [json!("False")]);
        assert_eq!(select(".status.conditions[?(@.type=='Synced')].status", &obj), [json!("True")]);
        assert_eq!(select(".status.conditions[?(@.type!='Synced')].type", &obj), [json!("Ready")]);
        assert_eq!(select(".metadata.labels['app.kubernetes.io/name']", &obj), [json!("web")]);
        assert!(select(".spec.missing", &obj).is_empty());
        assert!(select(".spec.replicas[0]", &obj).is_empty());
    }

    #[test]
    fn unsupported_syntax_is_an_error() {
        assert!(JsonPath::parse("..name").is_err());
        assert!(JsonPath::parse(".a[").is_err());
        assert!(JsonPath::parse(".a[?(x)]").is_err());
    }
}
