//! Ranking a search's candidates in Rust: each is checked again field by field (the index only
//! proposes), so what matched is said exactly, and one that no field matches is dropped.
//!
//! Order: the name equal to the text, then starting with it, then containing it, then a match in
//! any other field; within a rank by cluster, namespace, name and type. Case is ignored.

use std::cmp::Ordering;

use mc_types::Gvr;

use super::text::{Field, fields};

/// How well an object matched, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// Its name is the text.
    ExactName,
    /// Its name starts with the text.
    NamePrefix,
    /// Its name contains the text.
    NameSubstring,
    /// Another field (namespace, a label, an annotation, an image, an owner) contains it.
    Field,
}

/// One object found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchHit {
    /// Its cluster.
    pub cluster: String,
    /// Its type.
    pub gvr: Gvr,
    /// Its kind.
    pub kind: String,
    /// Its namespace (`""` cluster-scoped).
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// How well it matched.
    pub rank: Rank,
    /// What matched, for people: `name`, `namespace`, `label app=web`, `annotation team=x`,
    /// `image=redis:6.2`, `owner web-7d9`.
    pub matched: Vec<String>,
}

/// Most fields listed in one hit's `matched`.
const MAX_MATCHED: usize = 4;
/// Most characters of a field's text in `matched`.
const MAX_SHOWN: usize = 80;

/// A candidate checked against the lowercased `needle`: `None` when nothing matches.
pub(super) fn check(needle: &str, row: Candidate) -> Option<SearchHit> {
    let name = row.name.to_lowercase();
    let name_rank = if name == needle {
        Some(Rank::ExactName)
    } else if name.starts_with(needle) {
        Some(Rank::NamePrefix)
    } else if name.contains(needle) {
        Some(Rank::NameSubstring)
    } else {
        None
    };
    let mut matched = Vec::new();
    if name_rank.is_some() {
        matched.push("name".to_string());
    }
    for (field, text) in fields(&row.body) {
        if !text.to_lowercase().contains(needle) {
            continue;
        }
        if matched.len() == MAX_MATCHED {
            matched.push("…".to_string());
            break;
        }
        let shown = shorten(text);
        matched.push(match field {
            Field::Namespace => "namespace".to_string(),
            Field::Label => format!("label {shown}"),
            Field::Annotation => format!("annotation {shown}"),
            Field::Image => format!("image={shown}"),
            Field::Owner => format!("owner {shown}"),
        });
    }
    if matched.is_empty() {
        return None;
    }
    Some(SearchHit {
        cluster: row.cluster,
        gvr: row.gvr,
        kind: row.kind,
        namespace: row.namespace,
        name: row.name,
        rank: name_rank.unwrap_or(Rank::Field),
        matched,
    })
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_SHOWN {
        return text.to_string();
    }
    let mut s: String = text.chars().take(MAX_SHOWN).collect();
    s.push('…');
    s
}

/// The order of hits: rank, then cluster, namespace, name, type.
pub(super) fn order(a: &SearchHit, b: &SearchHit) -> Ordering {
    (a.rank, &a.cluster, &a.namespace, &a.name, &a.gvr.group, &a.gvr.resource).cmp(&(
        b.rank,
        &b.cluster,
        &b.namespace,
        &b.name,
        &b.gvr.group,
        &b.gvr.resource,
    ))
}

/// A row the index proposed.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    pub(super) cluster: String,
    pub(super) gvr: Gvr,
    pub(super) kind: String,
    pub(super) namespace: String,
    pub(super) name: String,
    pub(super) body: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn row(name: &str, body: &str) -> Candidate {
        Candidate {
            cluster: "c1".into(),
            gvr: Gvr::new("", "v1", "pods"),
            kind: "Pod".into(),
            namespace: "default".into(),
            name: name.into(),
            body: body.into(),
        }
    }

    #[test]
    fn ranks_names_before_other_fields_and_says_what_matched() {
        let hit = |name: &str, body: &str| check("redis", row(name, body));
        assert_eq!(hit("Redis", "").unwrap().rank, Rank::ExactName);
        assert_eq!(hit("redis-0", "").unwrap().rank, Rank::NamePrefix);
        assert_eq!(hit("my-redis", "").unwrap().rank, Rank::NameSubstring);
        let by_image = hit("cache", "ns\tdefault\ni\tdocker.io/REDIS:6.2\nl\tapp=redis").unwrap();
        assert_eq!(by_image.rank, Rank::Field);
        assert_eq!(by_image.matched, ["image=docker.io/REDIS:6.2", "label app=redis"]);
        assert!(hit("cache", "ns\tdefault\nl\tapp=web").is_none());
        // A tag is no match.
        assert!(check("ns\td", row("x", "ns\tdefault")).is_none());
        let mut hits: Vec<SearchHit> =
            ["my-redis", "cache", "redis", "redis-0"].iter().filter_map(|n| hit(n, "a\tx=redis")).collect();
        hits.sort_by(order);
        let names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["redis", "redis-0", "my-redis", "cache"]);
        assert_eq!(hits[0].matched, ["name", "annotation x=redis"]);
    }
}
