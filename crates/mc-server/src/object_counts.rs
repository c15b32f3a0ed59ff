//! Object counts as Prometheus gauges: `mc_objects{cluster,group,resource}` for every type,
//! and `mc_namespace_objects{cluster,group,resource,namespace}` for the types an operator lists
//! in `metrics.namespaceCountsFor`, at most `metrics.maxNamespaceSeries` of those (the largest
//! namespaces; the rest of a cluster and type summed into `namespace="<other>"`), so a fleet of
//! many namespaces cannot flood Prometheus.
//!
//! Counted in the store by the periodic counts task every [`REFRESH_EVERY`] ([`ObjectCounts::refresh`]),
//! never when `/metrics` is scraped: a scrape reads the last counts.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

use mc_types::gvr::{GvrSpec, ResourceCatalog};
use mc_types::{Gvr, ResourceInfo};

use crate::store::{GroupKey, Query, Store};

/// How often the counts are made again.
pub const REFRESH_EVERY: Duration = Duration::from_secs(30);

/// The namespace of the series that sums a cluster and type's namespaces past the bound.
pub const OTHER: &str = "<other>";

/// Namespaces counted of one type before the bound is applied: more is an error of that type's
/// count (logged), not a flood of memory.
const MOST_NAMESPACES_OF_A_TYPE: usize = 1_000_000;

/// Which types are counted per namespace, and how many series that may make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamespaceCounts {
    /// The types, as the operator wrote them.
    pub types: Vec<GvrSpec>,
    /// Most `mc_namespace_objects` series (besides the `<other>` ones).
    pub max_series: usize,
}

impl Default for NamespaceCounts {
    fn default() -> Self {
        NamespaceCounts {
            types: Vec::new(),
            max_series: mc_types::config::DEFAULT_MAX_NAMESPACE_SERIES as usize,
        }
    }
}

/// One series of `mc_namespace_objects`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct NamespaceCount {
    cluster: String,
    group: String,
    resource: String,
    namespace: String,
    count: u64,
}

/// The last counts, as `/metrics` shows them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Snapshot {
    /// `(cluster, group, resource) → objects`, the versions of a type together.
    types: BTreeMap<(String, String, String), u64>,
    namespaces: Vec<NamespaceCount>,
}

/// The last object counts; cheap to read at every scrape.
#[derive(Debug, Default)]
pub struct ObjectCounts {
    snapshot: Mutex<Snapshot>,
}

impl ObjectCounts {
    /// Counts again: every type's objects per cluster, and per namespace the types of `config`
    /// that `catalog` (the discovered types) resolves. The counts are replaced only when every
    /// one was made.
    pub async fn refresh(
        &self,
        store: &Store,
        catalog: Vec<ResourceInfo>,
        config: &NamespaceCounts,
    ) -> crate::store::Result<()> {
        let per_type = store.count_types().await?;
        let mut types: BTreeMap<(String, String, String), u64> = BTreeMap::new();
        for t in &per_type {
            *types.entry((t.cluster.clone(), t.gvr.group.clone(), t.gvr.resource.clone())).or_default() +=
                t.count;
        }
        let catalog = ResourceCatalog::new(catalog);
        let mut namespaces: BTreeMap<(String, String, String, String), u64> = BTreeMap::new();
        for spec in &config.types {
            // Not discovered (yet, or in no cluster): nothing to count.
            let Ok(info) = catalog.resolve(spec) else { continue };
            // Every version stored of the type, as `mc_objects` sums them.
            let mut versions: Vec<Gvr> = per_type
                .iter()
                .filter(|t| t.gvr.group == info.group && t.gvr.resource == info.resource)
                .map(|t| t.gvr.clone())
                .collect();
            versions.dedup();
            for gvr in versions {
                let query = Query { gvr: Some(gvr), ..Query::default() };
                let by = [GroupKey::Cluster, GroupKey::Namespace];
                for c in store.count_by_at_most(&query, &by, MOST_NAMESPACES_OF_A_TYPE).await? {
                    let [cluster, namespace]: [String; 2] = match c.values.try_into() {
                        Ok(pair) => pair,
                        Err(_) => continue,
                    };
                    let key = (cluster, info.group.clone(), info.resource.clone(), namespace);
                    *namespaces.entry(key).or_default() += c.count;
                }
            }
        }
        let namespaces = namespaces
            .into_iter()
            .map(|((cluster, group, resource, namespace), count)| NamespaceCount {
                cluster,
                group,
                resource,
                namespace,
                count,
            })
            .collect();
        let snapshot = Snapshot { types, namespaces: bounded(namespaces, config.max_series) };
        *self.snapshot.lock().unwrap_or_else(|e| e.into_inner()) = snapshot;
        Ok(())
    }

    /// Appends the gauges in the text exposition format.
    pub fn render(&self, out: &mut String) {
        let snapshot = self.snapshot.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let _ = writeln!(
            out,
            "# HELP mc_objects Objects stored, by cluster and type (counted every {} s).\n# TYPE mc_objects gauge",
            REFRESH_EVERY.as_secs()
        );
        for ((cluster, group, resource), n) in &snapshot.types {
            let _ = writeln!(
                out,
                "mc_objects{{cluster=\"{}\",group=\"{}\",resource=\"{}\"}} {n}",
                escape(cluster),
                escape(group),
                escape(resource)
            );
        }
        let _ = writeln!(
            out,
            "# HELP mc_namespace_objects Objects stored, by cluster, type and namespace, of the types in metrics.namespaceCountsFor; past metrics.maxNamespaceSeries the smaller namespaces are summed as {OTHER}.\n# TYPE mc_namespace_objects gauge"
        );
        for c in &snapshot.namespaces {
            let _ = writeln!(
                out,
                "mc_namespace_objects{{cluster=\"{}\",group=\"{}\",resource=\"{}\",namespace=\"{}\"}} {}",
                escape(&c.cluster),
                escape(&c.group),
                escape(&c.resource),
                escape(&c.namespace),
                c.count
            );
        }
    }
}

/// At most `max` series: the largest counts keep theirs (ties by name); the others of each
/// cluster and type are summed into one `<other>` series. Sorted by cluster, type, namespace.
fn bounded(mut all: Vec<NamespaceCount>, max: usize) -> Vec<NamespaceCount> {
    if all.len() > max {
        all.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.cmp(b)));
        let mut other: BTreeMap<(String, String, String), u64> = BTreeMap::new();
        for c in all.drain(max..) {
            *other.entry((c.cluster, c.group, c.resource)).or_default() += c.count;
        }
        all.extend(other.into_iter().map(|((cluster, group, resource), count)| NamespaceCount {
            cluster,
            group,
            resource,
            namespace: OTHER.to_string(),
            count,
        }));
    }
    all.sort();
    all
}

/// A label value as the exposition format writes it.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use mc_types::ResourceInfo;
    use serde_json::json;

    use super::*;
    use crate::store::{ApplyOne, Change, StoredObject};

    fn object(resource: &str, ns: Option<&str>, name: &str) -> Change {
        let mut meta = json!({"name": name, "uid": format!("{resource}-{}-{name}", ns.unwrap_or("")), "resourceVersion": "1"});
        if let Some(ns) = ns {
            meta["namespace"] = json!(ns);
        }
        let gvr = if resource == "deployments" {
            Gvr::new("apps", "v1", resource)
        } else {
            Gvr::new("", "v1", resource)
        };
        Change::Upsert(StoredObject::from_json(gvr, "Kind", json!({"metadata": meta})).unwrap())
    }

    fn info(group: &str, resource: &str, kind: &str) -> ResourceInfo {
        ResourceInfo {
            group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            singular: kind.to_lowercase(),
            kind: kind.into(),
            short_names: vec![],
            namespaced: resource != "nodes",
            verbs: vec!["list".into(), "watch".into()],
            categories: vec![],
        }
    }

    fn series(text: &str, name: &str) -> Vec<String> {
        text.lines().filter(|l| l.starts_with(&format!("{name}{{"))).map(String::from).collect()
    }

    #[tokio::test]
    async fn every_type_is_counted_and_listed_types_per_namespace_within_the_bound() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let mut changes = Vec::new();
        // Namespace a: 3 ConfigMaps, b: 2, c and d: 1 each; a node; a deployment.
        for (ns, n) in [("a", 3), ("b", 2), ("c", 1), ("d", 1)] {
            for i in 0..n {
                changes.push(object("configmaps", Some(ns), &format!("cm{i}")));
            }
        }
        changes.push(object("nodes", None, "n1"));
        changes.push(object("deployments", Some("a"), "web"));
        store.apply_batch("c1", changes).await.unwrap();
        store.apply_batch("c2", vec![object("configmaps", Some("a"), "cm0")]).await.unwrap();
        let catalog = vec![
            info("", "configmaps", "ConfigMap"),
            info("", "nodes", "Node"),
            info("apps", "deployments", "Deployment"),
        ];
        let counts = ObjectCounts::default();
        let config = NamespaceCounts { types: vec![GvrSpec::parse("configmaps").unwrap()], max_series: 3 };
        counts.refresh(&store, catalog, &config).await.unwrap();
        let mut text = String::new();
        counts.render(&mut text);
        assert_eq!(
            series(&text, "mc_objects"),
            [
                "mc_objects{cluster=\"c1\",group=\"\",resource=\"configmaps\"} 7",
                "mc_objects{cluster=\"c1\",group=\"\",resource=\"nodes\"} 1",
                "mc_objects{cluster=\"c1\",group=\"apps\",resource=\"deployments\"} 1",
                "mc_objects{cluster=\"c2\",group=\"\",resource=\"configmaps\"} 1",
            ]
        );
        // Five namespace series, three kept (the largest; ties by name), the rest summed per
        // cluster and type.
        assert_eq!(
            series(&text, "mc_namespace_objects"),
            [
                "mc_namespace_objects{cluster=\"c1\",group=\"\",resource=\"configmaps\",namespace=\"<other>\"} 1",
                "mc_namespace_objects{cluster=\"c1\",group=\"\",resource=\"configmaps\",namespace=\"a\"} 3",
                "mc_namespace_objects{cluster=\"c1\",group=\"\",resource=\"configmaps\",namespace=\"b\"} 2",
                "mc_namespace_objects{cluster=\"c1\",group=\"\",resource=\"configmaps\",namespace=\"c\"} 1",
                "mc_namespace_objects{cluster=\"c2\",group=\"\",resource=\"configmaps\",namespace=\"<other>\"} 1",
            ]
        );
        assert!(
            text.contains("# TYPE mc_objects gauge") && text.contains("# TYPE mc_namespace_objects gauge")
        );
        // Nothing listed: no namespace series; a type not discovered is skipped.
        let none =
            NamespaceCounts { types: vec![GvrSpec::parse("widgets").unwrap()], ..NamespaceCounts::default() };
        counts.refresh(&store, vec![], &none).await.unwrap();
        let mut text = String::new();
        counts.render(&mut text);
        assert!(series(&text, "mc_namespace_objects").is_empty(), "{text}");
        assert_eq!(series(&text, "mc_objects").len(), 4);
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
