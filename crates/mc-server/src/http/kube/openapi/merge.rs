//! Documents of several clusters made into one: the first cluster's document as it is, with
//! the paths and schemas (v3 `components.schemas`, v2 `definitions`) of the others that it lacks.
//! What the first one has is never replaced: the master's word on a type stands.

use serde_json::Value;

use super::access::Visible;
use super::index::GroupVersion;

/// Where the schemas of a document are.
#[derive(Clone, Copy, Debug)]
pub enum Version {
    /// OpenAPI v2 (`/openapi/v2`): `definitions`.
    V2,
    /// OpenAPI v3 (`/openapi/v3/...`): `components.schemas`.
    V3,
}

impl Version {
    fn schemas(self) -> &'static [&'static str] {
        match self {
            Version::V2 => &["definitions"],
            Version::V3 => &["components", "schemas"],
        }
    }
}

/// `first` with what each of `rest` adds; whether anything was added.
pub fn merge(first: &mut Value, rest: Vec<Value>, version: Version) -> bool {
    let mut added = false;
    for mut other in rest {
        for at in [&["paths"][..], version.schemas()] {
            let (Some(into), Some(from)) = (object_at(first, at), take_object(&mut other, at)) else {
                continue;
            };
            for (key, value) in from {
                if !into.contains_key(&key) {
                    into.insert(key, value);
                    added = true;
                }
            }
        }
    }
    added
}

/// The object at `at`, made when missing (`None` when something else is there).
fn object_at<'a>(doc: &'a mut Value, at: &[&str]) -> Option<&'a mut serde_json::Map<String, Value>> {
    let mut here = doc;
    for key in at {
        here =
            here.as_object_mut()?.entry(key.to_string()).or_insert_with(|| Value::Object(Default::default()));
    }
    here.as_object_mut()
}

fn take_object(doc: &mut Value, at: &[&str]) -> Option<serde_json::Map<String, Value>> {
    let mut here = doc;
    for key in at {
        here = here.get_mut(*key)?;
    }
    match here.take() {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Removes from a v2 document the definitions and paths of group versions `visible` hides;
/// whether anything was removed. A definition goes when every kind it is the schema of
/// (`x-kubernetes-group-version-kind`) is hidden; a path under `/apis/{group}/` when its group
/// version (or, for the group's own path, every version of the group) is hidden.
pub fn hide_v2(doc: &mut Value, visible: &Visible) -> bool {
    if visible.is_everything() {
        return false;
    }
    let mut removed = false;
    if let Some(definitions) = doc.get_mut("definitions").and_then(Value::as_object_mut) {
        let before = definitions.len();
        definitions.retain(|_, schema| {
            let kinds = schema.get("x-kubernetes-group-version-kind").and_then(Value::as_array);
            let Some(kinds) = kinds.filter(|k| !k.is_empty()) else { return true };
            kinds.iter().any(|k| {
                let field = |name: &str| k.get(name).and_then(Value::as_str).unwrap_or_default();
                visible.group_version(&GroupVersion::new(field("group"), field("version")))
            })
        });
        removed |= definitions.len() != before;
    }
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        let before = paths.len();
        paths.retain(|path, _| {
            let mut parts = path.trim_start_matches('/').split('/');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("apis"), Some(group), Some(version)) if !version.is_empty() => {
                    visible.group_version(&GroupVersion::new(group, version))
                }
                (Some("apis"), Some(group), _) if !group.is_empty() => visible.group(group),
                _ => true,
            }
        });
        removed |= paths.len() != before;
    }
    removed
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::json;

    use super::*;

    #[test]
    fn the_first_documents_schemas_stand_and_the_others_add_what_it_lacks() {
        let mut master = json!({"paths": {"/apis/a.io/v1/ws": {"get": 1}}, "components": {"schemas": {"io.a.W": {"m": 1}}}});
        let member = json!({"paths": {"/apis/a.io/v1/ws": {"get": 2}, "/apis/b.io/v1/gs": {"get": 2}},
            "components": {"schemas": {"io.a.W": {"m": 2}, "io.b.G": {"m": 2}}}});
        assert!(merge(&mut master, vec![member.clone()], Version::V3));
        assert_eq!(master["components"]["schemas"]["io.a.W"]["m"], 1);
        assert_eq!(master["components"]["schemas"]["io.b.G"]["m"], 2);
        assert_eq!(master["paths"]["/apis/a.io/v1/ws"]["get"], 1);
        assert_eq!(master["paths"]["/apis/b.io/v1/gs"]["get"], 2);
        let mut again = master.clone();
        assert!(!merge(&mut again, vec![member], Version::V3), "nothing new");
    }

    #[test]
    fn hidden_group_versions_leave_no_definition_or_path_in_v2() {
        let gvk = |g: &str| json!({"x-kubernetes-group-version-kind": [{"group": g, "version": "v1", "kind": "K"}]});
        let mut doc = json!({
            "definitions": {"io.k8s.api.apps.v1.Deployment": gvk("apps"), "io.secret.v1.K": gvk("secret.io"),
                "io.seen.v1.K": gvk("seen.io"), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {}},
            "paths": {"/apis/secret.io/": {}, "/apis/secret.io/v1/ks": {}, "/apis/seen.io/v1/ks": {},
                "/apis/apps/v1/deployments": {}, "/api/v1/pods": {}, "/version/": {}}
        });
        let visible = Visible::Only(BTreeSet::from([GroupVersion::new("seen.io", "v1")]));
        assert!(hide_v2(&mut doc, &visible));
        let keys = |at: &str| doc[at].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            keys("definitions"),
            [
                "io.k8s.api.apps.v1.Deployment",
                "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                "io.seen.v1.K"
            ]
        );
        assert_eq!(
            keys("paths"),
            ["/api/v1/pods", "/apis/apps/v1/deployments", "/apis/seen.io/v1/ks", "/version/"]
        );
        assert!(!hide_v2(&mut doc, &Visible::Everything));
    }
}
