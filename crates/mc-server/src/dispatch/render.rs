//! The renderer: a template plus one cluster's customize actions gives the object for that
//! cluster. Pure: no I/O, every input either renders or names the action that failed.
//!
//! The Go project's conventions hold: `value` is a list whose element is the value, `"key=value"`
//! strings make a map (several of them one map), a plain value works too. `add` creates missing
//! parent objects and merges a map into an existing map; `remove` of an absent path does nothing;
//! JSON-Pointer escapes (`~1`, `~0`) work.

use mc_types::crd::Action;
use serde_json::{Map, Value};

/// Why an action could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("customize action #{index} ({op} {path}): {reason}")]
pub struct RenderError {
    /// 1-based position of the action in the cluster's list.
    pub index: usize,
    /// The action's op.
    pub op: String,
    /// The action's path.
    pub path: String,
    /// What is wrong (not retryable: the spec must change).
    pub reason: String,
}

/// Renders the object for one cluster.
pub fn render(template: &Value, actions: &[Action]) -> Result<Value, RenderError> {
    let mut object = template.clone();
    for (i, action) in actions.iter().enumerate() {
        apply(&mut object, action).map_err(|reason| RenderError {
            index: i + 1,
            op: action.op.clone(),
            path: action.path.clone(),
            reason,
        })?;
    }
    Ok(object)
}

fn apply(object: &mut Value, action: &Action) -> Result<(), String> {
    let tokens = pointer(&action.path)?;
    let Some((last, parents)) = tokens.split_last() else {
        return Err("the path must name a field below the object (\"\" is the whole object)".into());
    };
    match action.op.to_ascii_lowercase().as_str() {
        "add" => {
            let value = value_of(action.value.as_ref())?;
            let parent = walk(object, parents, true)?.ok_or("parent path does not exist")?;
            add(parent, last, value)
        }
        "replace" => {
            let value = value_of(action.value.as_ref())?;
            let parent =
                walk(object, parents, false)?.ok_or("path does not exist (use op add to create it)")?;
            replace(parent, last, value)
        }
        "remove" => match walk(object, parents, false)? {
            None => Ok(()),
            Some(parent) => remove(parent, last),
        },
        "" => Err("op is missing (add, replace or remove)".into()),
        other => Err(format!("unknown op \"{other}\" (add, replace or remove)")),
    }
}

/// Splits a JSON Pointer into unescaped tokens.
fn pointer(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err("the path must start with '/'".into());
    };
    rest.split('/')
        .map(|t| {
            if t.replace("~0", "").replace("~1", "").contains('~') {
                return Err(format!("bad escape in \"{t}\" (use ~0 for '~' and ~1 for '/')"));
            }
            Ok(t.replace("~1", "/").replace("~0", "~"))
        })
        .collect()
}

/// The value of an action in the Go project's convention.
fn value_of(value: Option<&Value>) -> Result<Value, String> {
    match value {
        None | Some(Value::Null) => Err("value is missing".into()),
        Some(Value::Array(items)) => {
            if items.is_empty() {
                return Err("value is an empty list".into());
            }
            let pairs: Option<Vec<(String, String)>> = items.iter().map(key_value).collect();
            match pairs {
                Some(pairs) => {
                    Ok(Value::Object(pairs.into_iter().map(|(k, v)| (k, Value::String(v))).collect()))
                }
                None if items.len() == 1 => Ok(items[0].clone()),
                None => Ok(Value::Array(items.clone())),
            }
        }
        Some(v) => Ok(v.clone()),
    }
}

/// `"key=value"` → `(key, value)`; keys look like label or data keys (no spaces).
fn key_value(item: &Value) -> Option<(String, String)> {
    let s = item.as_str()?;
    let (k, v) = s.split_once('=')?;
    let key_ok = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || "-._/".contains(c));
    key_ok.then(|| (k.to_string(), v.to_string()))
}

/// Follows `tokens`; with `create`, missing object members are created as `{}`. `Ok(None)` when
/// the path does not exist and `create` is off.
fn walk<'a>(mut at: &'a mut Value, tokens: &[String], create: bool) -> Result<Option<&'a mut Value>, String> {
    for (depth, t) in tokens.iter().enumerate() {
        let here = || format!("/{}", tokens[..=depth].join("/"));
        at = match at {
            Value::Object(map) => {
                if !map.contains_key(t) {
                    if !create {
                        return Ok(None);
                    }
                    map.insert(t.clone(), Value::Object(Map::new()));
                }
                match map.get_mut(t) {
                    Some(v) if v.is_null() && create => {
                        *v = Value::Object(Map::new());
                        v
                    }
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            Value::Array(items) => {
                let idx = index(t, items.len(), false).map_err(|e| format!("{}: {e}", here()))?;
                match items.get_mut(idx) {
                    Some(v) => v,
                    None if create => return Err(format!("{}: index {idx} is out of range", here())),
                    None => return Ok(None),
                }
            }
            other => {
                return Err(format!("{} is a {}, not an object or list", here(), kind_of(other)));
            }
        };
    }
    Ok(Some(at))
}

fn index(token: &str, len: usize, for_add: bool) -> Result<usize, String> {
    if token == "-" && for_add {
        return Ok(len);
    }
    let idx: usize = token.parse().map_err(|_| format!("\"{token}\" is not a list index"))?;
    if (for_add && idx > len) || (!for_add && idx >= len) {
        return Err(format!("index {idx} is out of range (the list has {len} items)"));
    }
    Ok(idx)
}

fn add(parent: &mut Value, key: &str, value: Value) -> Result<(), String> {
    match parent {
        Value::Object(map) => {
            match (map.get_mut(key), value) {
                // Adding a map to a map merges, so `add /metadata/annotations ["foo=bar"]` keeps
                // the template's other annotations.
                (Some(Value::Object(existing)), Value::Object(new)) => existing.extend(new),
                (_, value) => {
                    map.insert(key.to_string(), value);
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            let idx = index(key, items.len(), true)?;
            items.insert(idx, value);
            Ok(())
        }
        other => Err(format!("cannot add a member to a {}", kind_of(other))),
    }
}

fn replace(parent: &mut Value, key: &str, value: Value) -> Result<(), String> {
    match parent {
        Value::Object(map) => match map.get_mut(key) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err("path does not exist (use op add to create it)".into()),
        },
        Value::Array(items) => {
            let idx = index(key, items.len(), false)?;
            items[idx] = value;
            Ok(())
        }
        other => Err(format!("cannot replace a member of a {}", kind_of(other))),
    }
}

fn remove(parent: &mut Value, key: &str) -> Result<(), String> {
    match parent {
        Value::Object(map) => {
            map.remove(key);
            Ok(())
        }
        Value::Array(items) => {
            if let Ok(idx) = key.parse::<usize>() {
                if idx < items.len() {
                    items.remove(idx);
                }
                Ok(())
            } else {
                Err(format!("\"{key}\" is not a list index"))
            }
        }
        _ => Ok(()),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn act(op: &str, path: &str, value: Value) -> Action {
        Action { op: op.into(), path: path.into(), value: (!value.is_null()).then_some(value) }
    }

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "default", "labels": {"app": "example"}},
            "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": "nginx:latest"}]}}}
        })
    }

    #[test]
    fn the_deployment_example_renders_per_cluster() {
        let tencent1 = [
            act("remove", "/metadata/labels/app", json!(["example"])),
            act("replace", "/spec/template/spec/containers/0/image", json!(["nginx:1.19.0-alpine"])),
            act("replace", "/spec/replicas", json!([2])),
        ];
        let out = render(&deployment(), &tencent1).unwrap();
        assert_eq!(out["metadata"]["labels"], json!({}));
        assert_eq!(out["spec"]["replicas"], 2);
        assert_eq!(out["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.19.0-alpine");

        let tencent2 = [
            act("add", "/metadata/annotations", json!(["foo=bar"])),
            act("replace", "/spec/replicas", json!([1])),
        ];
        let out = render(&deployment(), &tencent2).unwrap();
        assert_eq!(out["metadata"]["annotations"], json!({"foo": "bar"}));
        assert_eq!(out["spec"]["replicas"], 1);
    }

    #[test]
    fn add_creates_missing_parents() {
        let pod = json!({"metadata": {"name": "p"}});
        let out = render(&pod, &[act("add", "/metadata/annotations/example", json!(["example"]))]).unwrap();
        assert_eq!(out["metadata"]["annotations"]["example"], "example");
    }

    #[test]
    fn several_key_value_strings_make_one_map() {
        let out = render(&json!({}), &[act("add", "/metadata/labels", json!(["a=1", "b=2"]))]).unwrap();
        assert_eq!(out["metadata"]["labels"], json!({"a": "1", "b": "2"}));
    }

    #[test]
    fn adding_a_map_to_a_map_merges() {
        let t = json!({"metadata": {"annotations": {"keep": "me"}}});
        let out = render(&t, &[act("add", "/metadata/annotations", json!(["foo=bar"]))]).unwrap();
        assert_eq!(out["metadata"]["annotations"], json!({"keep": "me", "foo": "bar"}));
    }

    #[test]
    fn plain_scalars_and_lists_work_as_values() {
        let out =
            render(&json!({"spec": {"replicas": 1}}), &[act("replace", "/spec/replicas", json!(5))]).unwrap();
        assert_eq!(out["spec"]["replicas"], 5);
        let out = render(&json!({"spec": {}}), &[act("add", "/spec/args", json!(["a", "b"]))]).unwrap();
        assert_eq!(out["spec"]["args"], json!(["a", "b"]));
    }

    #[test]
    fn configmap_keys_with_dots_are_replaced_and_added() {
        let cm = json!({"data": {"example.property.1": "hello"}});
        let out = render(
            &cm,
            &[
                act("replace", "/data/example.property.1", json!(["patch-configmaps-test"])),
                act("add", "/data/cluster1test", json!(["patch-configmaps-test"])),
            ],
        )
        .unwrap();
        assert_eq!(
            out["data"],
            json!({"example.property.1": "patch-configmaps-test", "cluster1test": "patch-configmaps-test"})
        );
    }

    #[test]
    fn remove_of_an_absent_path_is_a_no_op() {
        let t = json!({"metadata": {}});
        assert_eq!(render(&t, &[act("remove", "/metadata/labels/app", Value::Null)]).unwrap(), t);
        assert_eq!(render(&t, &[act("remove", "/nothing/here/at/all", Value::Null)]).unwrap(), t);
    }

    #[test]
    fn json_pointer_escapes_work() {
        let out = render(&json!({}), &[act("add", "/metadata/annotations/example.com~1team", json!(["a"]))])
            .unwrap();
        assert_eq!(out["metadata"]["annotations"]["example.com/team"], "a");
        let out = render(&json!({}), &[act("add", "/a~0b", json!(["x"]))]).unwrap();
        assert_eq!(out["a~b"], "x");
    }

    #[test]
    fn list_indexes_and_append_work() {
        let t = json!({"items": [1, 2]});
        let out =
            render(&t, &[act("add", "/items/-", json!([3])), act("add", "/items/0", json!([0]))]).unwrap();
        assert_eq!(out["items"], json!([0, 1, 2, 3]));
        let out = render(&t, &[act("remove", "/items/0", Value::Null)]).unwrap();
        assert_eq!(out["items"], json!([2]));
    }

    #[test]
    fn malformed_actions_name_the_action() {
        let t = deployment();
        let cases = [
            (act("upsert", "/spec/replicas", json!([1])), "unknown op \"upsert\""),
            (act("", "/spec/replicas", json!([1])), "op is missing"),
            (act("replace", "spec/replicas", json!([1])), "must start with '/'"),
            (act("replace", "/spec/nothing", json!([1])), "does not exist"),
            (act("replace", "/spec/replicas", Value::Null), "value is missing"),
            (act("replace", "/spec/replicas", json!([])), "empty list"),
            (act("add", "/spec/replicas/x", json!([1])), "cannot add a member to a number"),
            (act("add", "/spec/replicas/x/y", json!([1])), "is a number"),
            (
                act("replace", "/spec/template/spec/containers/5/image", json!(["x"])),
                "index 5 is out of range",
            ),
            (act("add", "/spec/template/spec/containers/9", json!(["x"])), "out of range"),
            (act("add", "", json!(["x"])), "must name a field"),
            (act("add", "/a~2", json!(["x"])), "bad escape"),
        ];
        for (action, want) in cases {
            let err = render(&t, &[act("add", "/ok", json!(["fine"])), action.clone()]).unwrap_err();
            assert_eq!(err.index, 2, "{action:?}");
            let msg = err.to_string();
            assert!(msg.contains(want), "{action:?}: {msg}");
            assert!(msg.contains(&action.path) || action.path.is_empty(), "{msg}");
        }
    }

    #[test]
    fn rendering_never_changes_the_template() {
        let t = deployment();
        let _ = render(&t, &[act("replace", "/spec/replicas", json!([9]))]).unwrap();
        assert_eq!(t, deployment());
    }
}
