//! The links an operator declared in the config (`relations.links`), read from an object's JSON:
//! a name at a field path, or a label selector at a field path. Pure functions, no store.

use std::collections::BTreeMap;

use mc_types::count::FieldPath;
use mc_types::declared_links::{DeclaredLink, Find, TypeRef};
use mc_types::tree::Relation;
use serde_json::Value;

use super::links::{Link, Target};

/// A declared link, checked: from objects of `from` to objects of `to`.
#[derive(Clone, Debug)]
pub struct Declared {
    from: TypeRef,
    to: TypeRef,
    find: Find,
}

/// The usable links of `links` (the config's were checked when it was read; one that is not
/// usable is left out).
pub fn compile(links: &[DeclaredLink]) -> Vec<Declared> {
    links
        .iter()
        .filter_map(|l| l.find().ok().map(|find| Declared { from: l.from.clone(), to: l.to.clone(), find }))
        .collect()
}

/// The links of `object` (of `group`/`resource`) that `declared` makes; `namespaced(to)` says
/// whether a target type is namespaced (its targets are then in the object's namespace).
pub fn of(
    declared: &[Declared],
    group: &str,
    resource: &str,
    object: &Value,
    namespaced: impl Fn(&TypeRef) -> bool,
) -> Vec<Link> {
    let ns = object["metadata"]["namespace"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    for d in declared.iter().filter(|d| d.from.group == group && d.from.resource == resource) {
        let namespace = if namespaced(&d.to) { ns } else { "" };
        let link = |target| Link {
            relation: Relation::Linked,
            group: d.to.group.clone(),
            resource: d.to.resource.clone(),
            by_kind: false,
            namespace: namespace.into(),
            target,
        };
        match &d.find {
            Find::Name(path) => {
                for name in names(path, object) {
                    out.push(link(Target::Named(name)));
                }
            }
            Find::Selector(path) => {
                if let Some(labels) = selector(path, object) {
                    out.push(link(Target::Selected(labels)));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The name, or names, at `path`: a non-empty string or a list of them.
fn names(path: &FieldPath, object: &Value) -> Vec<String> {
    match path.lookup(object) {
        Some(Value::String(s)) if !s.is_empty() => vec![s.clone()],
        Some(Value::Array(items)) => {
            items.iter().filter_map(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string).collect()
        }
        _ => Vec::new(),
    }
}

/// The labels of the selector at `path`: its `matchLabels`, or the map itself; `None` when there
/// is none or it is empty (an empty selector selects nothing here, not everything).
fn selector(path: &FieldPath, object: &Value) -> Option<BTreeMap<String, String>> {
    let at = path.lookup(object)?;
    let map = at.get("matchLabels").unwrap_or(at).as_object()?;
    let labels: BTreeMap<String, String> =
        map.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string()))).collect();
    (!labels.is_empty()).then_some(labels)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn link(to: &str, field_path: Option<&str>, selector: Option<&str>) -> DeclaredLink {
        DeclaredLink {
            from: TypeRef { group: "example.com".into(), resource: "widgets".into() },
            to: TypeRef { group: String::new(), resource: to.into() },
            field_path: field_path.map(str::to_string),
            selector: selector.map(str::to_string),
        }
    }

    #[test]
    fn a_widget_links_its_config_map_by_name_and_its_pods_by_selector() {
        let declared = compile(&[
            link("configmaps", Some("spec.configRef.name"), None),
            link("pods", None, Some("spec.selector")),
            link("nodes", Some("spec.nodes"), None),
        ]);
        let widget = json!({"metadata": {"namespace": "shop", "name": "w"}, "spec": {
            "configRef": {"name": "w-conf"}, "selector": {"matchLabels": {"app": "w", "tier": "web"}},
            "nodes": ["n1", "", "n2"]}});
        let links = of(&declared, "example.com", "widgets", &widget, |t| t.resource != "nodes");
        let shown: Vec<String> = links
            .iter()
            .map(|l| match &l.target {
                Target::Named(n) => format!("{}/{}/{}", l.resource, l.namespace, n),
                Target::Selected(m) => format!("{}/{}{m:?}", l.resource, l.namespace),
                Target::Labelled(k, v) => format!("{}[{k}={v}]", l.resource),
            })
            .collect();
        assert_eq!(
            shown,
            [
                "configmaps/shop/w-conf",
                "nodes//n1",
                "nodes//n2",
                "pods/shop{\"app\": \"w\", \"tier\": \"web\"}",
            ]
        );
        assert!(links.iter().all(|l| l.relation == Relation::Linked));
        // A map of labels works as well; other types, and objects without the fields, link nothing.
        let plain = json!({"metadata": {"namespace": "shop"}, "spec": {"selector": {"app": "w"}}});
        assert_eq!(of(&declared, "example.com", "widgets", &plain, |_| true).len(), 1);
        assert!(of(&declared, "example.com", "gadgets", &widget, |_| true).is_empty());
        assert!(
            of(&declared, "example.com", "widgets", &json!({"spec": {"selector": {}}}), |_| true).is_empty()
        );
    }
}
