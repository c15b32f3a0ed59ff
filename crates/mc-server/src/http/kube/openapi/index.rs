//! The OpenAPI v3 index (`/openapi/v3`): each document's path (`api/v1`, `apis/apps/v1`, …) with
//! its hash, as a cluster lists it, and how several clusters' documents of one path combine: the
//! primary cluster's document first, then each member's that has kinds the earlier ones lack.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::{Value, json};

use super::super::digest::hex;

/// What a path of the index names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocPath {
    /// `api/v1` (group `""`) or `apis/{group}/{version}`.
    GroupVersion(GroupVersion),
    /// `apis/{group}`: the group's own discovery paths.
    Group(String),
    /// Anything else (`api`, `apis`, `version`, `.well-known/openid-configuration`, …).
    Other,
}

/// An API group and version.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupVersion {
    /// `""` for the core group.
    pub group: String,
    /// `v1`, `v1beta1`, …
    pub version: String,
}

impl DocPath {
    /// Reads a path of the index.
    pub fn of(path: &str) -> Self {
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            ["api", version] => DocPath::GroupVersion(GroupVersion::new("", version)),
            ["apis", group, version] => DocPath::GroupVersion(GroupVersion::new(group, version)),
            ["apis", group] => DocPath::Group(group.to_string()),
            _ => DocPath::Other,
        }
    }
}

impl GroupVersion {
    /// A group version.
    pub fn new(group: &str, version: &str) -> Self {
        GroupVersion { group: group.to_string(), version: version.to_string() }
    }
}

/// Whether `path` may name a document: what an index path is made of, and no more.
pub fn well_formed(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 300
        && path.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
        && path.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b))
}

/// One cluster's index: each path with the hash of its document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Index {
    /// Path → hash.
    pub paths: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Wire {
    paths: BTreeMap<String, WireEntry>,
}

#[derive(Deserialize)]
struct WireEntry {
    #[serde(rename = "serverRelativeURL")]
    url: String,
}

impl Index {
    /// Reads a cluster's `/openapi/v3` answer; paths that are not well-formed are left out.
    pub fn parse(body: &[u8]) -> Result<Self, serde_json::Error> {
        let wire: Wire = serde_json::from_slice(body)?;
        let paths = wire
            .paths
            .into_iter()
            .filter(|(path, _)| well_formed(path))
            .map(|(path, entry)| {
                let hash = entry
                    .url
                    .split_once("hash=")
                    .map(|(_, h)| h.split('&').next().unwrap_or_default().to_string())
                    .unwrap_or_default();
                (path, hash)
            })
            .collect();
        Ok(Index { paths })
    }

    /// The group versions it has documents of.
    pub fn group_versions(&self) -> BTreeSet<GroupVersion> {
        self.paths
            .keys()
            .filter_map(|p| match DocPath::of(p) {
                DocPath::GroupVersion(gv) => Some(gv),
                _ => None,
            })
            .collect()
    }

    /// The `/openapi/v3` answer: each path's URL is `{prefix}/openapi/v3/{path}?hash={hash}`.
    pub fn to_json(&self, prefix: &str) -> Value {
        let paths: serde_json::Map<String, Value> = self
            .paths
            .iter()
            .map(|(path, hash)| (path.clone(), json!({"serverRelativeURL": url(prefix, path, hash)})))
            .collect();
        json!({"paths": paths})
    }
}

/// The URL of a document at `hash`.
pub fn url(prefix: &str, path: &str, hash: &str) -> String {
    format!("{prefix}/openapi/v3/{path}?hash={hash}")
}

/// One cluster as a source of documents: its name, its index, and the kinds it serves per group
/// version (from its discovery).
pub struct Source<'a> {
    /// The cluster's name.
    pub cluster: &'a str,
    /// Its index.
    pub index: &'a Index,
    /// Its kinds, by group version.
    pub kinds: &'a BTreeMap<GroupVersion, BTreeSet<String>>,
}

/// A document of one cluster that goes into an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The cluster.
    pub cluster: String,
    /// Its hash of the document.
    pub hash: String,
}

/// Which clusters' documents of `path` make the answer, in order (`sources` primary first): the
/// first cluster that has the path, then each later one that has kinds of the path's group
/// version that none before it has (a CRD only that member serves).
pub fn plan(path: &str, sources: &[Source<'_>]) -> Vec<Part> {
    let gv = match DocPath::of(path) {
        DocPath::GroupVersion(gv) => Some(gv),
        _ => None,
    };
    let mut parts = Vec::new();
    let mut kinds: BTreeSet<&str> = BTreeSet::new();
    for source in sources {
        let Some(hash) = source.index.paths.get(path) else { continue };
        let theirs = gv.as_ref().and_then(|gv| source.kinds.get(gv));
        let adds = theirs.is_some_and(|k| k.iter().any(|k| !kinds.contains(k.as_str())));
        if parts.is_empty() || adds {
            parts.push(Part { cluster: source.cluster.to_string(), hash: hash.clone() });
            kinds.extend(theirs.into_iter().flatten().map(String::as_str));
        }
    }
    parts
}

/// The hash of an answer made of `parts`: the one part's own hash (the same document as the
/// cluster's), else a hash of every part's.
pub fn hash(parts: &[Part]) -> String {
    match parts {
        [one] => one.hash.clone(),
        _ => {
            let text: String = parts.iter().map(|p| format!("{}={};", p.cluster, p.hash)).collect();
            hex(&text)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn index(paths: &[(&str, &str)]) -> Index {
        Index { paths: paths.iter().map(|(p, h)| (p.to_string(), h.to_string())).collect() }
    }

    #[test]
    fn paths_name_group_versions_groups_or_other_documents() {
        assert_eq!(DocPath::of("api/v1"), DocPath::GroupVersion(GroupVersion::new("", "v1")));
        assert_eq!(DocPath::of("apis/apps/v1"), DocPath::GroupVersion(GroupVersion::new("apps", "v1")));
        assert_eq!(DocPath::of("apis/apps"), DocPath::Group("apps".into()));
        assert_eq!(DocPath::of(".well-known/openid-configuration"), DocPath::Other);
        assert!(well_formed("apis/example.com/v1"));
        assert!(!well_formed("apis/../v1") && !well_formed("apis//v1") && !well_formed("a?b"));
    }

    #[test]
    fn an_index_keeps_each_paths_hash_and_points_at_this_server() {
        let body = br#"{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=AB12"}}}"#;
        let index = Index::parse(body).unwrap();
        assert_eq!(index, self::index(&[("api/v1", "AB12")]));
        assert_eq!(
            index.to_json("/clusters/c1")["paths"]["api/v1"]["serverRelativeURL"],
            "/clusters/c1/openapi/v3/api/v1?hash=AB12"
        );
    }

    #[test]
    fn a_member_joins_a_document_only_with_kinds_the_master_lacks() {
        let gv = GroupVersion::new("example.com", "v1");
        let master = index(&[("apis/example.com/v1", "M"), ("api/v1", "M1")]);
        let member = index(&[("apis/example.com/v1", "X"), ("api/v1", "X1"), ("apis/only.io/v1", "O")]);
        let master_kinds = BTreeMap::from([(gv.clone(), BTreeSet::from(["Widget".to_string()]))]);
        let same = master_kinds.clone();
        let more = BTreeMap::from([(gv, BTreeSet::from(["Widget".to_string(), "Gadget".to_string()]))]);
        let sources = |kinds| {
            vec![
                Source { cluster: "m", index: &master, kinds: &master_kinds },
                Source { cluster: "x", index: &member, kinds },
            ]
        };
        let parts = plan("apis/example.com/v1", &sources(&same));
        assert_eq!(parts, [Part { cluster: "m".into(), hash: "M".into() }]);
        assert_eq!(hash(&parts), "M", "one part: the cluster's own hash");
        let parts = plan("apis/example.com/v1", &sources(&more));
        assert_eq!(parts.len(), 2);
        assert_eq!(hash(&parts).len(), 128);
        assert_eq!(plan("api/v1", &sources(&more)).len(), 1, "no kinds of the member's own: the master's");
        assert_eq!(
            plan("apis/only.io/v1", &sources(&same)),
            [Part { cluster: "x".into(), hash: "O".into() }]
        );
        assert!(plan("apis/nowhere/v1", &sources(&same)).is_empty());
    }
}
