//! `-o jsonpath=TEMPLATE`: kubectl's JSONPath template over the `List` that `-o json` prints.
//!
//! Supported: literal text, `{PATH}` (the [`jsonpath`](mc_types::jsonpath) subset; several values
//! are joined by spaces, as kubectl joins them), `{range PATH}…{end}` (nested too) and quoted
//! literals `{"\n"}`, `{"\t"}`, `{'text'}`. Anything else — unions (`{.a,.b}`), functions,
//! recursive descent — is an [`Error`], not a silently empty output.

use mc_types::jsonpath::{self, JsonPath};
use serde_json::Value;

/// Why a template or path cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The path is outside the supported JSONPath subset (not retryable: fix the path).
    #[error(transparent)]
    Path(#[from] jsonpath::ParseError),
    /// The path or template uses syntax this plugin does not support (not retryable).
    #[error("unsupported JSONPath {text:?}: {reason}")]
    Syntax {
        /// The path or template as given.
        text: String,
        /// What is not supported.
        reason: String,
    },
}

/// Result of parsing a template or path.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A parsed template.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    nodes: Vec<Node>,
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Text(String),
    Path(JsonPath),
    Range(JsonPath, Vec<Node>),
}

impl Template {
    /// Parses a template such as `{range .items[*]}{.metadata.name}{"\n"}{end}`.
    pub fn parse(text: &str) -> Result<Self> {
        let err = |reason: &str| Error::Syntax { text: text.to_owned(), reason: reason.to_owned() };
        // The innermost open `{range}` is last; the template itself is first.
        let mut open: Vec<(Option<JsonPath>, Vec<Node>)> = vec![(None, Vec::new())];
        let mut rest = text;
        while !rest.is_empty() {
            let Some(start) = rest.find('{') else {
                push(&mut open, Node::Text(rest.to_owned()));
                break;
            };
            if start > 0 {
                push(&mut open, Node::Text(rest[..start].to_owned()));
            }
            let end = action_end(&rest[start..]).ok_or_else(|| err("unclosed {"))? + start;
            let action = rest[start + 1..end].trim();
            rest = &rest[end + 1..];
            if action == "end" {
                match open.pop() {
                    Some((Some(path), nodes)) if !open.is_empty() => {
                        push(&mut open, Node::Range(path, nodes))
                    }
                    _ => return Err(err("{end} without {range}")),
                }
            } else if let Some(path) =
                action.strip_prefix("range").filter(|p| p.starts_with(char::is_whitespace))
            {
                open.push((Some(parse_path(path)?), Vec::new()));
            } else if action.starts_with(['"', '\'']) {
                push(&mut open, Node::Text(literal(action).ok_or_else(|| err("bad quoted text"))?));
            } else if action.is_empty() {
                return Err(err("empty {}"));
            } else {
                push(&mut open, Node::Path(parse_path(action)?));
            }
        }
        match open.pop() {
            Some((None, nodes)) if open.is_empty() => Ok(Template { nodes }),
            _ => Err(err("{range} without {end}")),
        }
    }

    /// The template applied to a document.
    pub fn render(&self, root: &Value) -> String {
        let mut out = String::new();
        render(&self.nodes, root, &mut out);
        out
    }
}

fn push(open: &mut [(Option<JsonPath>, Vec<Node>)], node: Node) {
    if let Some((_, nodes)) = open.last_mut() {
        nodes.push(node);
    }
}

fn render(nodes: &[Node], current: &Value, out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Path(path) => {
                let values: Vec<String> = path.select(current).into_iter().map(text).collect();
                out.push_str(&values.join(" "));
            }
            Node::Range(path, body) => {
                for value in path.select(current) {
                    render(body, value, out);
                }
            }
        }
    }
}

/// A value as kubectl prints it in templates and columns: strings bare, anything else as JSON.
pub fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Where the `{` at the start of `text` closes: the first `}` outside quotes.
fn action_end(text: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some('"'), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{') => return None,
            (None, '}') => return Some(i),
            _ => {}
        }
    }
    None
}

/// `"a\tb"` with Go's escapes, or `'text'` as is.
fn literal(action: &str) -> Option<String> {
    if let Some(inner) = action.strip_prefix('\'') {
        return inner.strip_suffix('\'').filter(|s| !s.contains('\'')).map(str::to_owned);
    }
    let inner = action.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '"' {
            return None;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '\\' => '\\',
            '"' => '"',
            '\'' => '\'',
            _ => return None,
        });
    }
    Some(out)
}

/// A path as kubectl's `--sort-by` and `custom-columns` take it (`.a.b`, `{.a.b}`, `a.b`;
/// `@` for the current object), refusing what the subset would misread: spaces, unions, braces.
pub fn parse_path(text: &str) -> Result<JsonPath> {
    let err = |reason: &str| Error::Syntax { text: text.to_owned(), reason: reason.to_owned() };
    let mut path = text.trim();
    if let Some(inner) = path.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
        path = inner.trim();
    }
    if path.is_empty() {
        return Err(err("empty path"));
    }
    path = path.strip_prefix('@').unwrap_or(path);
    let (mut depth, mut quote) = (0usize, None::<char>);
    for c in path.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') if depth > 0 => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => depth = depth.saturating_sub(1),
            (None, '{' | '}') => return Err(err("unexpected brace")),
            (None, ',') if depth == 0 => return Err(err("unions (a,b) are not supported")),
            (None, c) if depth == 0 && c.is_whitespace() => {
                return Err(err("only paths, {range PATH}, {end} and quoted text are supported"));
            }
            _ => {}
        }
    }
    Ok(JsonPath::parse(path)?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"app": "web"}}, "spec": {"replicas": 2}},
            {"metadata": {"name": "b"}, "spec": {"replicas": 1}},
        ]})
    }

    fn render(template: &str) -> String {
        Template::parse(template).unwrap().render(&list())
    }

    #[test]
    fn several_values_of_one_path_are_joined_by_spaces() {
        assert_eq!(render("{.items[*].metadata.name}"), "a b");
        assert_eq!(render("names: {.items[*].metadata.name}!"), "names: a b!");
        assert_eq!(render("{.kind}"), "List");
    }

    #[test]
    fn range_repeats_its_body_for_each_value() {
        assert_eq!(
            render(r#"{range .items[*]}{.metadata.name}{"\t"}{.spec.replicas}{"\n"}{end}"#),
            "a\t2\nb\t1\n"
        );
        assert_eq!(render("{range .items[*]}[{.metadata.labels.app}]{end}"), "[web][]");
        assert_eq!(render("{range .items[*]}{range .metadata.labels.*}{@}{end}{end}"), "web");
        assert_eq!(render("{'x'}{.items[0].spec}"), r#"x{"replicas":2}"#);
    }

    #[test]
    fn unsupported_syntax_is_an_error() {
        for bad in [
            "{.items[*].metadata.name",
            "{range .items[*]}{.x}",
            "{end}",
            "{}",
            "{.a,.b}",
            "{len .items}",
            "{..name}",
            r#"{"\q"}"#,
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_accept_kubectl_s_relaxed_forms() {
        let obj = json!({"metadata": {"name": "a", "labels": {"app.kubernetes.io/name": "x"}}});
        for path in [".metadata.name", "{.metadata.name}", "metadata.name", "{$.metadata.name}"] {
            assert_eq!(parse_path(path).unwrap().select(&obj), [&json!("a")], "{path}");
        }
        let escaped = parse_path(r".metadata.labels.app\.kubernetes\.io/name").unwrap();
        assert_eq!(escaped.select(&obj), [&json!("x")]);
        assert!(parse_path(".status.conditions[?(@.type == 'Ready')].status").is_ok());
        assert!(parse_path("").is_err());
        assert!(parse_path(".a b").is_err());
    }
}
