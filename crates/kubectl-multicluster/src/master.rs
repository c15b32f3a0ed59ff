//! The master cluster, where `apply` and `delete` act (MultiClusterResources live there): a kube
//! client from its kubeconfig, discovery, and manifests read from files, directories or stdin.

use std::io::Read;
use std::path::Path;

use anyhow::{Context as _, Result, anyhow, bail};
use kube::api::{Api, ApiResource, DynamicObject};
use kube::config::{KubeConfigOptions, Kubeconfig};
use mc_types::{ResourceCatalog, ResourceInfo};
use serde_json::Value;
use tracing::debug;

use crate::cli::MasterArgs;
use crate::config::{Origin, Settings};

/// A connection to the master cluster.
pub struct Master {
    /// The client.
    pub client: kube::Client,
    /// The kubeconfig context's namespace, else `default`.
    pub default_namespace: String,
    /// Every served resource type in every version.
    all: Vec<ResourceInfo>,
    /// The preferred version of each, to resolve names typed by the user.
    preferred: ResourceCatalog,
}

impl Master {
    /// Connects with the kubeconfig from `--kubeconfig` or the CLI config, and runs discovery.
    pub async fn connect<E: Fn(&str) -> Option<String>>(
        settings: &Settings<E>,
        args: &MasterArgs,
    ) -> Result<Self> {
        let (path, origin) = settings.master_kubeconfig(args.kubeconfig.as_deref())?;
        Self::connect_with(&path, &origin, args.context.clone()).await
    }

    /// Connects with this kubeconfig (and context, else its current one), and runs discovery.
    pub async fn connect_with(path: &Path, origin: &Origin, context: Option<String>) -> Result<Self> {
        let kubeconfig = Kubeconfig::read_from(path).map_err(|e| {
            anyhow!("cannot read kubeconfig {} (from {origin}): {}", path.display(), one_line(&e))
        })?;
        let options = KubeConfigOptions { context, ..Default::default() };
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
            .await
            .map_err(|e| anyhow!("kubeconfig {} (from {origin}): {}", path.display(), one_line(&e)))?;
        let default_namespace = config.default_namespace.clone();
        let cluster_url = config.cluster_url.to_string();
        let client =
            kube::Client::try_from(config).context("cannot build a client for the master cluster")?;
        let (core, groups) =
            tokio::try_join!(client.list_core_api_versions_aggregated(), client.list_api_groups_aggregated())
                .map_err(|e| {
                    anyhow!(
                        "cannot reach the master cluster at {cluster_url} (kubeconfig {}): {}",
                        path.display(),
                        one_line(&e)
                    )
                })?;
        let mut all = Vec::new();
        let mut preferred = Vec::new();
        for (info, is_preferred) in [core, groups].into_iter().flat_map(ResourceInfo::from_discovery) {
            if is_preferred {
                preferred.push(info.clone());
            }
            all.push(info);
        }
        debug!(resources = all.len(), "discovered the master cluster");
        Ok(Master { client, default_namespace, all, preferred: ResourceCatalog::new(preferred) })
    }

    /// The resource type of an `apiVersion` and `kind`.
    pub fn for_kind(&self, api_version: &str, kind: &str) -> Option<&ResourceInfo> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.all.iter().find(|r| r.group == group && r.version == version && r.kind == kind)
    }

    /// The preferred version of every served resource type.
    pub fn catalog(&self) -> &ResourceCatalog {
        &self.preferred
    }

    /// The resource type a user typed (`configmaps`, `mcr`, `apps/v1/deployments`).
    pub fn resolve(&self, text: &str) -> Result<&ResourceInfo> {
        self.preferred.resolve_str(text).map_err(|e| anyhow!("the master cluster: {e}"))
    }

    /// A dynamic API for a resource type in a namespace (ignored for cluster-scoped types).
    pub fn api(&self, info: &ResourceInfo, namespace: &str) -> Api<DynamicObject> {
        let ar = api_resource(info);
        if info.namespaced {
            Api::namespaced_with(self.client.clone(), namespace, &ar)
        } else {
            Api::all_with(self.client.clone(), &ar)
        }
    }
}

/// kube's view of a resource type.
pub fn api_resource(info: &ResourceInfo) -> ApiResource {
    ApiResource {
        group: info.group.clone(),
        version: info.version.clone(),
        api_version: info.gvr().api_version(),
        kind: info.kind.clone(),
        plural: info.resource.clone(),
    }
}

/// `kind.group` as kubectl names a type in its messages (`deployment.apps`, `configmap`).
pub fn kind_ref(info: &ResourceInfo) -> String {
    let kind = info.kind.to_ascii_lowercase();
    if info.group.is_empty() { kind } else { format!("{kind}.{}", info.group) }
}

fn one_line(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let s = inner.to_string();
        if !text.contains(&s) {
            text.push_str(": ");
            text.push_str(&s);
        }
        source = inner.source();
    }
    text.replace('\n', " ")
}

/// One object of a manifest, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The file (or `STDIN`) as kubectl names it in messages.
    pub source: String,
    /// The object.
    pub object: Value,
}

/// Reads every object of `-f` arguments: files, directories (their `.yaml`, `.yml` and `.json`
/// files, sorted, not recursive) and `-` for stdin. `List` objects are unpacked.
pub fn read_manifests(files: &[String]) -> Result<Vec<Manifest>> {
    let mut out = Vec::new();
    for file in files {
        if file == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).context("cannot read stdin")?;
            parse_documents("STDIN", &text, &mut out)?;
            continue;
        }
        let path = Path::new(file);
        if path.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(path)
                .with_context(|| format!("cannot read directory {file}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
                })
                .collect();
            entries.sort();
            if entries.is_empty() {
                bail!("no .yaml, .yml or .json files in directory {file}");
            }
            for entry in entries {
                let text = std::fs::read_to_string(&entry)
                    .with_context(|| format!("cannot read {}", entry.display()))?;
                parse_documents(&entry.display().to_string(), &text, &mut out)?;
            }
        } else {
            let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => anyhow!("the path \"{file}\" does not exist"),
                _ => anyhow!("cannot read {file}: {e}"),
            })?;
            parse_documents(file, &text, &mut out)?;
        }
    }
    Ok(out)
}

/// Parses YAML (several documents) or JSON into objects.
pub fn parse_documents(source: &str, text: &str, out: &mut Vec<Manifest>) -> Result<()> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| {
        anyhow!("error parsing {source}: {}", e.to_string().lines().next().unwrap_or_default())
    })?;
    for doc in docs {
        if doc.is_null() {
            continue;
        }
        if !doc.is_object() {
            bail!("error parsing {source}: a document is not an object");
        }
        let is_list = doc.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List"))
            && doc.get("items").is_some_and(Value::is_array);
        if is_list {
            for item in doc.get("items").and_then(Value::as_array).into_iter().flatten() {
                out.push(Manifest { source: source.to_owned(), object: item.clone() });
            }
        } else {
            out.push(Manifest { source: source.to_owned(), object: doc });
        }
    }
    Ok(())
}

/// kubectl's shape for API errors: `Error from server (NotFound): …`.
pub fn server_error(err: &kube::Error) -> String {
    match err {
        kube::Error::Api(status) => {
            let reason =
                if status.reason.is_empty() { status.code.to_string() } else { status.reason.clone() };
            format!("Error from server ({reason}): {}", status.message)
        }
        other => format!("error: {}", one_line(other)),
    }
}

/// Whether a kube error is a 404.
pub fn is_not_found(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(s) if s.code == 404)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn multi_document_yaml_and_lists_become_objects() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: b}}\n- {apiVersion: v1, kind: Secret, metadata: {name: c}}\n";
        let mut out = Vec::new();
        parse_documents("f.yaml", text, &mut out).unwrap();
        let names: Vec<&str> = out.iter().map(|m| m.object["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(out.iter().all(|m| m.source == "f.yaml"));
    }

    #[test]
    fn json_manifests_parse_too() {
        let mut out = Vec::new();
        parse_documents(
            "f.json",
            r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}"#,
            &mut out,
        )
        .unwrap();
        assert_eq!(out[0].object["kind"], "ConfigMap");
    }

    #[test]
    fn the_go_projects_example_parses() {
        let text = include_str!("../tests/fixtures/multi_cluster_resource_pod_example.yaml");
        let mut out = Vec::new();
        parse_documents("x", text, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].object["kind"], "MultiClusterResource");
        assert_eq!(out[0].object["spec"]["template"]["spec"]["containers"][0]["command"][1], "3600");
    }

    #[test]
    fn a_missing_file_reads_like_kubectl() {
        let err = read_manifests(&["/nonexistent/x.yaml".into()]).unwrap_err();
        assert_eq!(err.to_string(), "the path \"/nonexistent/x.yaml\" does not exist");
    }

    #[test]
    fn kind_refs_follow_kubectl() {
        let info = |group: &str, kind: &str| ResourceInfo {
            group: group.into(),
            version: "v1".into(),
            resource: "x".into(),
            singular: String::new(),
            kind: kind.into(),
            short_names: vec![],
            namespaced: true,
            verbs: vec![],
            categories: Vec::new(),
        };
        assert_eq!(kind_ref(&info("", "ConfigMap")), "configmap");
        assert_eq!(
            kind_ref(&info("mulitcluster.practice.com", "MultiClusterResource")),
            "multiclusterresource.mulitcluster.practice.com"
        );
    }
}
