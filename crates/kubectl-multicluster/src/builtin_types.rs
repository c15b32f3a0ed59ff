//! The resource types every cluster serves, known without asking anyone: what the plugin resolves
//! a typed name (`pods`, `deploy`, `HPA`, `mcr`) against when the server cannot (the Go project's
//! server has no `/v1/resources`; see [`crate::go_server::resolve`]), and what completion offers
//! when no server answers.
//!
//! Group, version, kind, plural and scope come from the k8s-openapi types and from the project's
//! own CRDs, so only the short names are written here (kubectl's, as of Kubernetes 1.35).

use k8s_openapi::api::{
    apps, autoscaling, batch, coordination, core, discovery, networking, policy, rbac, scheduling, storage,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionSpec,
};
use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope, Resource};
use mc_types::{ResourceCatalog, ResourceInfo};

/// Whether a k8s-openapi scope is namespaced.
trait Scope {
    const NAMESPACED: bool;
}

impl Scope for NamespaceResourceScope {
    const NAMESPACED: bool = true;
}

impl Scope for ClusterResourceScope {
    const NAMESPACED: bool = false;
}

/// The entry of a k8s-openapi type with kubectl's short names.
fn entry<K>(short_names: &[&str]) -> ResourceInfo
where
    K: Resource,
    K::Scope: Scope,
{
    ResourceInfo {
        group: K::GROUP.to_owned(),
        version: K::VERSION.to_owned(),
        resource: K::URL_PATH_SEGMENT.to_owned(),
        singular: K::KIND.to_ascii_lowercase(),
        kind: K::KIND.to_owned(),
        short_names: short_names.iter().map(|s| (*s).to_owned()).collect(),
        namespaced: <K::Scope as Scope>::NAMESPACED,
        verbs: ["list", "watch"].map(String::from).to_vec(),
        categories: if ALL_CATEGORY.contains(&K::URL_PATH_SEGMENT) {
            vec!["all".to_owned()]
        } else {
            Vec::new()
        },
    }
}

/// The types of the category `all` (what `kubectl get all` lists), as the API server's
/// discovery says; for a server whose discovery data carries no categories.
const ALL_CATEGORY: &[&str] = &[
    "pods",
    "replicationcontrollers",
    "services",
    "daemonsets",
    "deployments",
    "replicasets",
    "statefulsets",
    "horizontalpodautoscalers",
    "cronjobs",
    "jobs",
];

/// The entry of one of the project's CRDs (MultiClusterResource, MultiCluster), in its storage
/// version; `None` for a CRD without versions.
fn from_crd(crd: &CustomResourceDefinition) -> Option<ResourceInfo> {
    let CustomResourceDefinitionSpec { group, names, scope, versions, .. } = &crd.spec;
    let version = versions.iter().find(|v| v.storage).or_else(|| versions.first())?;
    Some(ResourceInfo {
        group: group.clone(),
        version: version.name.clone(),
        resource: names.plural.clone(),
        singular: names.singular.clone().unwrap_or_else(|| names.kind.to_ascii_lowercase()),
        kind: names.kind.clone(),
        short_names: names.short_names.clone().unwrap_or_default(),
        namespaced: scope == "Namespaced",
        verbs: ["list", "watch"].map(String::from).to_vec(),
        categories: names.categories.clone().unwrap_or_default(),
    })
}

/// Every built-in type: the common Kubernetes types in their preferred versions, then the
/// project's own (`multiclusterresources` `mcr`/`rr`, `multiclusters` `cl`/`mc`). No two entries
/// share a name, so every name resolves to one type.
pub fn builtin_types() -> Vec<ResourceInfo> {
    let mut types = vec![
        entry::<core::v1::Pod>(&["po"]),
        entry::<core::v1::Service>(&["svc"]),
        entry::<core::v1::ConfigMap>(&["cm"]),
        entry::<core::v1::Secret>(&[]),
        entry::<core::v1::Namespace>(&["ns"]),
        entry::<core::v1::Node>(&["no"]),
        entry::<core::v1::Event>(&["ev"]),
        entry::<core::v1::Endpoints>(&["ep"]),
        entry::<core::v1::ServiceAccount>(&["sa"]),
        entry::<core::v1::PersistentVolume>(&["pv"]),
        entry::<core::v1::PersistentVolumeClaim>(&["pvc"]),
        entry::<core::v1::ReplicationController>(&["rc"]),
        entry::<core::v1::ResourceQuota>(&["quota"]),
        entry::<core::v1::LimitRange>(&["limits"]),
        entry::<apps::v1::Deployment>(&["deploy"]),
        entry::<apps::v1::StatefulSet>(&["sts"]),
        entry::<apps::v1::DaemonSet>(&["ds"]),
        entry::<apps::v1::ReplicaSet>(&["rs"]),
        entry::<apps::v1::ControllerRevision>(&[]),
        entry::<batch::v1::Job>(&[]),
        entry::<batch::v1::CronJob>(&["cj"]),
        entry::<networking::v1::Ingress>(&["ing"]),
        entry::<networking::v1::NetworkPolicy>(&["netpol"]),
        entry::<networking::v1::IngressClass>(&[]),
        entry::<storage::v1::StorageClass>(&["sc"]),
        entry::<storage::v1::CSIDriver>(&[]),
        entry::<storage::v1::CSINode>(&[]),
        entry::<storage::v1::VolumeAttachment>(&[]),
        entry::<rbac::v1::Role>(&[]),
        entry::<rbac::v1::RoleBinding>(&[]),
        entry::<rbac::v1::ClusterRole>(&[]),
        entry::<rbac::v1::ClusterRoleBinding>(&[]),
        entry::<autoscaling::v2::HorizontalPodAutoscaler>(&["hpa"]),
        entry::<policy::v1::PodDisruptionBudget>(&["pdb"]),
        entry::<CustomResourceDefinition>(&["crd", "crds"]),
        entry::<coordination::v1::Lease>(&[]),
        entry::<discovery::v1::EndpointSlice>(&[]),
        entry::<scheduling::v1::PriorityClass>(&["pc"]),
    ];
    types.extend(mc_types::crd::crds().iter().filter_map(|(_, crd)| from_crd(crd)));
    types
}

/// The built-in types as a catalog to resolve names against.
pub fn catalog() -> ResourceCatalog {
    ResourceCatalog::new(builtin_types())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn resolved(name: &str) -> String {
        catalog().resolve_str(name).unwrap_or_else(|e| panic!("{name}: {e}")).gvr().to_string()
    }

    #[test]
    fn every_common_type_resolves_by_plural_to_its_preferred_version() {
        let expected = [
            ("pods", "v1/pods"),
            ("services", "v1/services"),
            ("configmaps", "v1/configmaps"),
            ("secrets", "v1/secrets"),
            ("namespaces", "v1/namespaces"),
            ("nodes", "v1/nodes"),
            ("events", "v1/events"),
            ("endpoints", "v1/endpoints"),
            ("serviceaccounts", "v1/serviceaccounts"),
            ("persistentvolumes", "v1/persistentvolumes"),
            ("persistentvolumeclaims", "v1/persistentvolumeclaims"),
            ("deployments", "apps/v1/deployments"),
            ("statefulsets", "apps/v1/statefulsets"),
            ("daemonsets", "apps/v1/daemonsets"),
            ("replicasets", "apps/v1/replicasets"),
            ("jobs", "batch/v1/jobs"),
            ("cronjobs", "batch/v1/cronjobs"),
            ("ingresses", "networking.k8s.io/v1/ingresses"),
            ("networkpolicies", "networking.k8s.io/v1/networkpolicies"),
            ("ingressclasses", "networking.k8s.io/v1/ingressclasses"),
            ("storageclasses", "storage.k8s.io/v1/storageclasses"),
            ("roles", "rbac.authorization.k8s.io/v1/roles"),
            ("rolebindings", "rbac.authorization.k8s.io/v1/rolebindings"),
            ("clusterroles", "rbac.authorization.k8s.io/v1/clusterroles"),
            ("clusterrolebindings", "rbac.authorization.k8s.io/v1/clusterrolebindings"),
            ("horizontalpodautoscalers", "autoscaling/v2/horizontalpodautoscalers"),
            ("poddisruptionbudgets", "policy/v1/poddisruptionbudgets"),
            ("customresourcedefinitions", "apiextensions.k8s.io/v1/customresourcedefinitions"),
            ("leases", "coordination.k8s.io/v1/leases"),
            ("endpointslices", "discovery.k8s.io/v1/endpointslices"),
            ("priorityclasses", "scheduling.k8s.io/v1/priorityclasses"),
            ("multiclusterresources", "mulitcluster.practice.com/v1alpha1/multiclusterresources"),
            ("multiclusters", "mulitcluster.practice.com/v1alpha1/multiclusters"),
        ];
        for (name, gvr) in expected {
            assert_eq!(resolved(name), gvr, "{name}");
        }
    }

    #[test]
    fn short_names_singulars_and_kinds_resolve_like_kubectl() {
        assert_eq!(resolved("po"), "v1/pods");
        assert_eq!(resolved("pod"), "v1/pods");
        assert_eq!(resolved("Pod"), "v1/pods");
        assert_eq!(resolved("deploy"), "apps/v1/deployments");
        assert_eq!(resolved("Deployment"), "apps/v1/deployments");
        assert_eq!(resolved("deployments.apps"), "apps/v1/deployments");
        assert_eq!(resolved("cm"), "v1/configmaps");
        assert_eq!(resolved("svc"), "v1/services");
        assert_eq!(resolved("hpa"), "autoscaling/v2/horizontalpodautoscalers");
        assert_eq!(resolved("pdb"), "policy/v1/poddisruptionbudgets");
        assert_eq!(resolved("crd"), "apiextensions.k8s.io/v1/customresourcedefinitions");
        assert_eq!(resolved("ing"), "networking.k8s.io/v1/ingresses");
        assert_eq!(resolved("mcr"), "mulitcluster.practice.com/v1alpha1/multiclusterresources");
        assert_eq!(resolved("rr"), "mulitcluster.practice.com/v1alpha1/multiclusterresources");
        assert_eq!(resolved("cl"), "mulitcluster.practice.com/v1alpha1/multiclusters");
        assert_eq!(resolved("mc"), "mulitcluster.practice.com/v1alpha1/multiclusters");
        assert_eq!(resolved("MultiCluster"), "mulitcluster.practice.com/v1alpha1/multiclusters");
    }

    #[test]
    fn scopes_come_from_the_types() {
        let catalog = catalog();
        let namespaced = |name: &str| catalog.resolve_str(name).unwrap().namespaced;
        assert!(namespaced("pods") && namespaced("mcr") && namespaced("multiclusters"));
        assert!(!namespaced("nodes") && !namespaced("clusterroles") && !namespaced("crd"));
    }

    #[test]
    fn no_two_entries_share_a_name() {
        let mut owners: HashMap<String, String> = HashMap::new();
        for info in builtin_types() {
            let names = [info.resource.clone(), info.singular.clone(), info.kind.to_ascii_lowercase()]
                .into_iter()
                .chain(info.short_names.iter().map(|s| s.to_ascii_lowercase()));
            let mut own: Vec<String> = names.collect();
            own.sort();
            own.dedup();
            for name in own {
                let gvr = info.gvr().to_string();
                if let Some(other) = owners.insert(name.clone(), gvr.clone()) {
                    panic!("{name} names both {other} and {gvr}");
                }
            }
        }
    }

    #[test]
    fn a_name_the_table_lacks_is_unknown_with_candidates() {
        let err = catalog().resolve_str("podz").unwrap_err();
        assert_eq!(err.candidates().first().map(String::as_str), Some("v1/pods"));
        assert!(catalog().resolve_str("widgets").is_err());
    }
}
