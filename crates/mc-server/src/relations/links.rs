//! The links an object's own fields make to other objects of its cluster, read from its JSON:
//! pure functions, no store.

use std::collections::BTreeSet;

use mc_types::tree::Relation;
use serde_json::Value;

/// A link to objects of `(group, resource)` in `namespace`, found by name or by a label.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Link {
    /// How the target relates to the object.
    pub relation: Relation,
    /// The target's group (`""`: core).
    pub group: String,
    /// The target's resource, or its kind when `by_kind`.
    pub resource: String,
    /// The target's resource is known only by its kind (a scale target).
    pub by_kind: bool,
    /// `""`: cluster-scoped.
    pub namespace: String,
    /// How the targets are found.
    pub target: Target,
}

/// How a link's targets are found.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// The one object of this name.
    Named(String),
    /// Every object whose label has this value.
    Labelled(String, String),
    /// Every object with all these labels (a declared link's selector; never empty).
    Selected(std::collections::BTreeMap<String, String>),
}

fn link(relation: Relation, group: &str, resource: &str, namespace: &str, name: &str) -> Link {
    Link {
        relation,
        group: group.into(),
        resource: resource.into(),
        by_kind: false,
        namespace: namespace.into(),
        target: Target::Named(name.into()),
    }
}

/// The links of an object of `kind` (core and well-known groups), in a stable order without
/// repeats.
pub fn of(group: &str, kind: &str, object: &Value) -> Vec<Link> {
    let ns = object["metadata"]["namespace"].as_str().unwrap_or_default();
    let mut out = BTreeSet::new();
    match (group, kind) {
        ("", "Pod") => pod(ns, object, &mut out),
        ("", "PersistentVolumeClaim") => {
            if let Some(pv) = str_at(object, &["spec", "volumeName"]) {
                out.insert(link(Relation::BoundTo, "", "persistentvolumes", "", pv));
            }
        }
        ("", "Service") => {
            if let Some(name) = str_at(object, &["metadata", "name"]) {
                out.insert(Link {
                    relation: Relation::Endpoints,
                    group: "discovery.k8s.io".into(),
                    resource: "endpointslices".into(),
                    by_kind: false,
                    namespace: ns.into(),
                    target: Target::Labelled("kubernetes.io/service-name".into(), name.into()),
                });
            }
        }
        ("discovery.k8s.io", "EndpointSlice") => {
            for e in object["endpoints"].as_array().into_iter().flatten() {
                let r = &e["targetRef"];
                if r["kind"] == "Pod"
                    && let Some(name) = r["name"].as_str()
                {
                    let target_ns = r["namespace"].as_str().unwrap_or(ns);
                    out.insert(link(Relation::Endpoint, "", "pods", target_ns, name));
                }
            }
        }
        ("networking.k8s.io", "Ingress") => {
            let spec = &object["spec"];
            let mut backends = vec![&spec["defaultBackend"]];
            for rule in spec["rules"].as_array().into_iter().flatten() {
                backends
                    .extend(rule["http"]["paths"].as_array().into_iter().flatten().map(|p| &p["backend"]));
            }
            for b in backends {
                if let Some(name) = b["service"]["name"].as_str() {
                    out.insert(link(Relation::Backend, "", "services", ns, name));
                }
            }
        }
        ("autoscaling", "HorizontalPodAutoscaler") => {
            let r = &object["spec"]["scaleTargetRef"];
            if let (Some(kind), Some(name)) = (r["kind"].as_str(), r["name"].as_str()) {
                let api = r["apiVersion"].as_str().unwrap_or("v1");
                let group = api.rsplit_once('/').map_or("", |(g, _)| g);
                out.insert(Link { by_kind: true, ..link(Relation::ScaleTarget, group, kind, ns, name) });
            }
        }
        _ => {}
    }
    out.into_iter().collect()
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k)).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// A Pod's node, claims, ConfigMaps, Secrets (volumes, projected sources, env and envFrom of
/// every container, image pull secrets) and ServiceAccount.
fn pod(ns: &str, pod: &Value, out: &mut BTreeSet<Link>) {
    let spec = &pod["spec"];
    if let Some(node) = str_at(spec, &["nodeName"]) {
        out.insert(link(Relation::RunsOn, "", "nodes", "", node));
    }
    let sa = str_at(spec, &["serviceAccountName"]).or_else(|| str_at(spec, &["serviceAccount"]));
    if let Some(sa) = sa {
        out.insert(link(Relation::ServiceAccount, "", "serviceaccounts", ns, sa));
    }
    let cm = |out: &mut BTreeSet<Link>, v: &Value, key: &str| {
        if let Some(name) = v[key].as_str().filter(|s| !s.is_empty()) {
            out.insert(link(Relation::ConfigMap, "", "configmaps", ns, name));
        }
    };
    let secret = |out: &mut BTreeSet<Link>, v: &Value, key: &str| {
        if let Some(name) = v[key].as_str().filter(|s| !s.is_empty()) {
            out.insert(link(Relation::Secret, "", "secrets", ns, name));
        }
    };
    for v in spec["volumes"].as_array().into_iter().flatten() {
        cm(out, &v["configMap"], "name");
        secret(out, &v["secret"], "secretName");
        if let Some(claim) = v["persistentVolumeClaim"]["claimName"].as_str() {
            out.insert(link(Relation::Mounts, "", "persistentvolumeclaims", ns, claim));
        }
        for s in v["projected"]["sources"].as_array().into_iter().flatten() {
            cm(out, &s["configMap"], "name");
            secret(out, &s["secret"], "name");
        }
    }
    for s in spec["imagePullSecrets"].as_array().into_iter().flatten() {
        secret(out, s, "name");
    }
    let containers = ["initContainers", "containers", "ephemeralContainers"];
    for c in containers.iter().flat_map(|k| spec[*k].as_array().into_iter().flatten()) {
        for e in c["env"].as_array().into_iter().flatten() {
            cm(out, &e["valueFrom"]["configMapKeyRef"], "name");
            secret(out, &e["valueFrom"]["secretKeyRef"], "name");
        }
        for e in c["envFrom"].as_array().into_iter().flatten() {
            cm(out, &e["configMapRef"], "name");
            secret(out, &e["secretRef"], "name");
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn named(links: &[Link]) -> Vec<String> {
        links
            .iter()
            .map(|l| match &l.target {
                Target::Named(n) => format!("{:?} {}/{}", l.relation, l.resource, n),
                Target::Labelled(k, v) => format!("{:?} {}[{k}={v}]", l.relation, l.resource),
                Target::Selected(m) => format!("{:?} {}{m:?}", l.relation, l.resource),
            })
            .collect()
    }

    #[test]
    fn a_pod_links_its_node_claims_config_maps_secrets_and_service_account() {
        let pod = json!({"metadata": {"namespace": "shop", "name": "web-1"}, "spec": {
            "nodeName": "n1", "serviceAccountName": "web",
            "volumes": [{"configMap": {"name": "conf"}}, {"secret": {"secretName": "tls"}},
                        {"persistentVolumeClaim": {"claimName": "data"}},
                        {"projected": {"sources": [{"configMap": {"name": "extra"}}, {"secret": {"name": "token"}}]}}],
            "containers": [{"env": [{"valueFrom": {"configMapKeyRef": {"name": "env-cm"}}},
                                    {"valueFrom": {"secretKeyRef": {"name": "db"}}}],
                            "envFrom": [{"configMapRef": {"name": "conf"}}, {"secretRef": {"name": "all"}}]}]}});
        assert_eq!(
            named(&of("", "Pod", &pod)),
            [
                "RunsOn nodes/n1",
                "Mounts persistentvolumeclaims/data",
                "ConfigMap configmaps/conf",
                "ConfigMap configmaps/env-cm",
                "ConfigMap configmaps/extra",
                "Secret secrets/all",
                "Secret secrets/db",
                "Secret secrets/tls",
                "Secret secrets/token",
                "ServiceAccount serviceaccounts/web",
            ]
        );
    }

    #[test]
    fn services_ingresses_slices_and_autoscalers_link_their_targets() {
        let svc = json!({"metadata": {"namespace": "shop", "name": "web"}});
        assert_eq!(
            named(&of("", "Service", &svc)),
            ["Endpoints endpointslices[kubernetes.io/service-name=web]"]
        );
        let slice = json!({"metadata": {"namespace": "shop"}, "endpoints": [
            {"targetRef": {"kind": "Pod", "name": "web-1"}}, {"targetRef": {"kind": "Node", "name": "x"}}, {}]});
        assert_eq!(named(&of("discovery.k8s.io", "EndpointSlice", &slice)), ["Endpoint pods/web-1"]);
        let ing = json!({"metadata": {"namespace": "shop"}, "spec": {"defaultBackend": {"service": {"name": "a"}},
            "rules": [{"http": {"paths": [{"backend": {"service": {"name": "b"}}}, {"backend": {"service": {"name": "a"}}}]}}]}});
        assert_eq!(
            named(&of("networking.k8s.io", "Ingress", &ing)),
            ["Backend services/a", "Backend services/b"]
        );
        let hpa = json!({"metadata": {"namespace": "shop"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}});
        let links = of("autoscaling", "HorizontalPodAutoscaler", &hpa);
        assert_eq!(named(&links), ["ScaleTarget Deployment/web"]);
        assert!(links[0].by_kind && links[0].group == "apps");
    }
}
