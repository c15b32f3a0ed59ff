//! Links an operator declares between types in the server's config (`relations.links`), which
//! `tree` and `describe --related` follow besides the built-in ones: from objects of one type to
//! objects of another, found by a name at a field path of the source object (in its namespace
//! when the target type is namespaced) or by a label selector at a field path (a `matchLabels`
//! map, or a map of labels).
//!
//! ```yaml
//! relations:
//!   links:
//!     - from: {group: example.com, resource: widgets}
//!       to: {resource: configmaps}
//!       fieldPath: spec.configRef.name
//!     - from: {group: example.com, resource: widgets}
//!       to: {resource: pods}
//!       selector: spec.selector
//! ```

use serde::{Deserialize, Serialize};

use crate::count::FieldPath;

/// Most declared links.
pub const MAX_LINKS: usize = 64;

/// `relations:` of the server's config.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelationsSection {
    /// The declared links, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<DeclaredLink>,
}

/// One declared link: exactly one of `field_path` and `selector`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeclaredLink {
    /// The type whose objects link.
    pub from: TypeRef,
    /// The type of the objects linked to.
    pub to: TypeRef,
    /// Where the source object names its target (a string, or a list of strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    /// Where the source object holds a label selector of its targets: `{matchLabels: {...}}` or
    /// a map of labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// A resource type by group (`""`: core) and plural resource name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeRef {
    /// API group; empty or absent for the core group.
    #[serde(default)]
    pub group: String,
    /// Plural resource name (`configmaps`, `widgets`).
    pub resource: String,
}

/// How a declared link finds its targets, checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Find {
    /// By the name (or names) at this path.
    Name(FieldPath),
    /// By the labels of the selector at this path.
    Selector(FieldPath),
}

impl DeclaredLink {
    /// How it finds its targets; a message when the link is not usable.
    pub fn find(&self) -> Result<Find, String> {
        match (&self.field_path, &self.selector) {
            (Some(path), None) => FieldPath::parse(path)
                .map(Find::Name)
                .map_err(|e| format!("fieldPath {path:?}: {}", e.reason())),
            (None, Some(path)) => FieldPath::parse(path)
                .map(Find::Selector)
                .map_err(|e| format!("selector {path:?}: {}", e.reason())),
            (Some(_), Some(_)) => Err("give fieldPath or selector, not both".into()),
            (None, None) => {
                Err("give fieldPath (where the target's name is) or selector (where a label selector is)"
                    .into())
            }
        }
    }
}

impl TypeRef {
    fn problem(&self) -> Option<String> {
        let name_like = |s: &str, max: usize| {
            s.len() <= max
                && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        };
        if self.resource.is_empty() || !name_like(&self.resource, 63) || self.resource.contains('.') {
            return Some(format!(
                "resource {:?}: a plural resource name of a-z 0-9 - (configmaps, widgets)",
                self.resource
            ));
        }
        if !name_like(&self.group, 253) {
            return Some(format!("group {:?}: an API group of a-z 0-9 . - (\"\" for core)", self.group));
        }
        None
    }
}

impl RelationsSection {
    /// The first problem of the section, as one line; `None` when every link is usable.
    pub fn problem(&self) -> Option<String> {
        if self.links.len() > MAX_LINKS {
            return Some(format!("relations.links: at most {MAX_LINKS} links, got {}", self.links.len()));
        }
        self.links.iter().enumerate().find_map(|(i, link)| {
            let at = |what: &str, problem: String| format!("relations.links[{i}]{what}: {problem}");
            if let Some(p) = link.from.problem() {
                return Some(at(".from", p));
            }
            if let Some(p) = link.to.problem() {
                return Some(at(".to", p));
            }
            link.find().err().map(|p| at("", p))
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn section(yaml: &str) -> RelationsSection {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn links_are_checked_one_line_each() {
        let ok = section(
            "links:\n- {from: {group: example.com, resource: widgets}, to: {resource: configmaps}, fieldPath: spec.configRef.name}\n\
             - {from: {group: example.com, resource: widgets}, to: {group: '', resource: pods}, selector: spec.selector}\n",
        );
        assert_eq!(ok.problem(), None);
        assert!(matches!(ok.links[0].find(), Ok(Find::Name(_))));
        assert!(matches!(ok.links[1].find(), Ok(Find::Selector(_))));
        for (yaml, problem) in [
            (
                "links: [{from: {resource: widgets}, to: {resource: pods}}]",
                "relations.links[0]: give fieldPath (where the target's name is) or selector (where a label selector is)",
            ),
            (
                "links: [{from: {resource: widgets}, to: {resource: pods}, fieldPath: a, selector: b}]",
                "relations.links[0]: give fieldPath or selector, not both",
            ),
            (
                "links: [{from: {resource: widgets}, to: {resource: pods}, fieldPath: 'spec..name'}]",
                "relations.links[0]: fieldPath \"spec..name\": empty key",
            ),
            (
                "links: [{from: {resource: Widgets}, to: {resource: pods}, fieldPath: a}]",
                "relations.links[0].from: resource \"Widgets\": a plural resource name of a-z 0-9 - (configmaps, widgets)",
            ),
        ] {
            let p = section(yaml).problem().unwrap();
            assert_eq!(p, problem);
            assert!(!p.contains('\n'));
        }
        // Unknown fields are refused when the file is read.
        let unknown: Result<RelationsSection, _> = serde_saphyr::from_str(
            "links: [{from: {resource: widgets}, to: {resource: pods}, fieldpath: a}]",
        );
        assert!(unknown.unwrap_err().to_string().contains("unknown field `fieldpath`"));
    }
}
