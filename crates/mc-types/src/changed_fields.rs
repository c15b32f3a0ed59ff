//! The fields that differ between two states of an object, as JSON paths
//! (`spec.template.spec.containers[0].image`, `metadata.labels.app`), for `history`.
//!
//! A field added or removed whole is one path (not each of its leaves). `metadata.resourceVersion`,
//! `metadata.generation` and `metadata.managedFields`, which the API server changes with every
//! write, are not reported.

use serde_json::Value;

/// Paths never reported: they change with every write.
const IGNORED: &[&str] = &["metadata.resourceVersion", "metadata.generation", "metadata.managedFields"];

/// The paths where `old` and `new` differ, in document order, at most `max` (the count of all
/// is the second value).
pub fn changed(old: &Value, new: &Value, max: usize) -> (Vec<String>, usize) {
    let mut found = Found { paths: Vec::new(), total: 0, max };
    walk(old, new, &mut String::new(), &mut found);
    (found.paths, found.total)
}

struct Found {
    paths: Vec<String>,
    total: usize,
    max: usize,
}

impl Found {
    fn add(&mut self, path: &str) {
        if IGNORED.contains(&path) {
            return;
        }
        self.total += 1;
        if self.paths.len() < self.max {
            self.paths.push(if path.is_empty() { ".".to_string() } else { path.to_string() });
        }
    }
}

fn walk(old: &Value, new: &Value, path: &mut String, found: &mut Found) {
    if old == new {
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            // Keys of the old state in its order, then the new state's new keys.
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for key in keys {
                let len = path.len();
                push_key(path, key);
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => walk(x, y, path, found),
                    _ => found.add(path),
                }
                path.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                match (a.get(i), b.get(i)) {
                    (Some(x), Some(y)) => walk(x, y, path, found),
                    _ => found.add(path),
                }
                path.truncate(len);
            }
        }
        _ => found.add(path),
    }
}

/// `.key`, or `['key']` when the key is not a plain name (`app.kubernetes.io/name`).
fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        path.push_str("['");
        path.push_str(&key.replace('\\', "\\\\").replace('\'', "\\'"));
        path.push_str("']");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment(image: &str, replicas: u32) -> Value {
        json!({"metadata": {"name": "web", "resourceVersion": "1", "labels": {"app": "web"}},
               "spec": {"replicas": replicas, "template": {"spec": {"containers": [
                   {"name": "web", "image": image}, {"name": "side", "image": "busybox"}]}}}})
    }

    #[test]
    fn a_changed_leaf_is_its_path() {
        let (a, b) = (deployment("nginx:1.25", 1), deployment("nginx:1.27", 1));
        assert_eq!(changed(&a, &b, 10), (vec!["spec.template.spec.containers[0].image".to_string()], 1));
        let c = deployment("nginx:1.25", 3);
        assert_eq!(changed(&a, &c, 10).0, ["spec.replicas"]);
        assert_eq!(changed(&a, &a, 10), (vec![], 0));
    }

    #[test]
    fn added_and_removed_fields_are_one_path_each() {
        let a = deployment("x", 1);
        let mut b = a.clone();
        b["metadata"]["labels"]["app.kubernetes.io/name"] = json!("web");
        b["metadata"]["annotations"] = json!({"a": "1", "b": "2"});
        b["metadata"]["resourceVersion"] = json!("2");
        b["spec"]["template"]["spec"]["containers"].as_array_mut().unwrap().pop();
        let (paths, total) = changed(&a, &b, 10);
        assert_eq!(
            paths,
            [
                "metadata.labels['app.kubernetes.io/name']",
                "metadata.annotations",
                "spec.template.spec.containers[1]"
            ]
        );
        assert_eq!(total, 3);
    }

    #[test]
    fn at_most_max_paths_are_kept_and_all_are_counted() {
        let a = json!({"data": {}});
        let b = json!({"data": {"a": "1", "b": "2", "c": "3"}});
        assert_eq!(changed(&a, &b, 2), (vec!["data.a".to_string(), "data.b".to_string()], 3));
        assert_eq!(changed(&json!(1), &json!(2), 2).0, ["."]);
    }
}
