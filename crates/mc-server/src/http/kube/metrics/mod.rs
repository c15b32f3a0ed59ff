//! `metrics.k8s.io/v1beta1`, so that `kubectl top` works through mc-server: `nodes` and `pods`
//! (`NodeMetrics`, `PodMetrics`) are not stored but read live, at each request, from every
//! member in scope whose discovery has the group (see [`crate::clusters::Cluster::serves_metrics`]),
//! all at once and each bounded ([`fanout`]). The items are merged into one list, each with its
//! cluster in `mulitcluster.practice.com/cluster`; a `Warning` names the clusters left out (no
//! metrics API, the caller may not read there, or their answer failed).
//!
//! - Discovery offers the group only while some cluster in scope serves it; with none, its paths
//!   answer 404 as kube-apiserver answers an unknown group, and `kubectl top` says "Metrics API
//!   not available". It is offered to every caller as Kubernetes' own groups are
//!   ([`crate::http::rights::built_in_group`]): its types' names say nothing, and a caller
//!   without rights is better told 403 than that the API is missing.
//! - Rights per cluster as the member's RBAC decides `list` (`get` for one object) of `pods` or
//!   `nodes` in API group `metrics.k8s.io`: a list across namespaces keeps the namespaces the
//!   caller may list there (see [`crate::http::rights::restrict_in`]); one namespace or one object
//!   allowed nowhere is 403.
//! - One object found in several clusters is a 409 that names them, as the log proxy answers
//!   ([`super::logs`]): the caller asks one cluster under `/clusters/NAME/`.
//! - A member's error body is never read: its failure is said in our words.

mod fanout;
mod params;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mc_types::ResourceInfo;
use mc_types::api::paths::RESOURCE_METRICS;
use mc_types::gvr::{METRICS_GROUP, METRICS_VERSION};
use serde_json::{Value, json};

use self::fanout::Part;
use self::params::MetricsParams;
use super::annotate::annotate;
use super::negotiate::{self, negotiate};
use crate::clusters::Cluster;
use crate::http::status::{KubeError, KubeResult};
use crate::http::warnings::add_warnings;
use crate::http::{AppState, params as checks, rights};
use crate::identity::Caller;
use crate::store::Allowed;

/// The two types of the resource metrics API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `pods`: `PodMetrics`, namespaced.
    Pods,
    /// `nodes`: `NodeMetrics`, cluster-scoped.
    Nodes,
}

impl Kind {
    fn of(resource: &str) -> Option<Kind> {
        match resource {
            "pods" => Some(Kind::Pods),
            "nodes" => Some(Kind::Nodes),
            _ => None,
        }
    }

    /// The type as discovery offers it and as rights are decided for it.
    fn info(self) -> ResourceInfo {
        let (resource, kind, namespaced) = match self {
            Kind::Pods => ("pods", "PodMetrics", true),
            Kind::Nodes => ("nodes", "NodeMetrics", false),
        };
        ResourceInfo {
            group: METRICS_GROUP.into(),
            version: METRICS_VERSION.into(),
            resource: resource.into(),
            kind: kind.into(),
            singular: String::new(),
            short_names: Vec::new(),
            namespaced,
            verbs: vec!["get".into(), "list".into()],
            categories: Vec::new(),
        }
    }

    /// `podmetrics.metrics.k8s.io`, as kube-apiserver names the type in its errors.
    fn errors_name(self) -> String {
        match self {
            Kind::Pods => format!("podmetrics.{METRICS_GROUP}"),
            Kind::Nodes => format!("nodemetrics.{METRICS_GROUP}"),
        }
    }
}

/// The types discovery offers when some cluster in scope serves them.
pub fn types() -> Vec<ResourceInfo> {
    vec![Kind::Nodes.info(), Kind::Pods.info()]
}

/// Whether some cluster in scope (`cluster`, or every one) serves the resource metrics API.
pub fn offered(state: &AppState, cluster: Option<&str>) -> bool {
    match cluster {
        Some(name) => state.registry.get(name).is_some_and(|c| c.serves_metrics()),
        None => state.registry.all().iter().any(|c| c.serves_metrics()),
    }
}

/// Whether a path's group is the resource metrics API's (its list and get are served here).
pub fn is_metrics(path: &HashMap<String, String>) -> bool {
    path.get("group").is_some_and(|g| g == METRICS_GROUP)
}

/// What a path names.
struct Target {
    kind: Kind,
    cluster: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
}

impl Target {
    /// The path's version, type, namespace and name, checked: names are DNS-1123 subdomains
    /// (pods and nodes are named so), so the member's path needs no escaping.
    fn resolve(state: &AppState, p: &HashMap<String, String>) -> KubeResult<Self> {
        super::scope::in_scope(state, Some(p))?;
        let kind = p.get("resource").and_then(|r| Kind::of(r)).ok_or_else(KubeError::no_such_resource)?;
        if p.get("version").map(String::as_str) != Some(METRICS_VERSION) {
            return Err(KubeError::no_such_resource());
        }
        let namespace = p.get("namespace").cloned();
        if namespace.is_some() && kind == Kind::Nodes {
            return Err(KubeError::no_such_resource());
        }
        if let Some(ns) = &namespace {
            checks::namespace(ns)?;
        }
        let name = p.get("name").cloned();
        // A pod is named within its namespace: `/pods/NAME` names nothing.
        if name.is_some() && kind == Kind::Pods && namespace.is_none() {
            return Err(KubeError::no_such_resource());
        }
        if let Some(name) = &name {
            checks::subdomain(if kind == Kind::Pods { "pod" } else { "node" }, name)?;
        }
        Ok(Target { kind, cluster: p.get("cluster").cloned(), namespace, name })
    }

    /// The members' own path of the request, with the checked parameters.
    fn member_path(&self, params: &MetricsParams) -> String {
        let mut path = RESOURCE_METRICS.to_string();
        if let Some(ns) = &self.namespace {
            path.push_str(&format!("/namespaces/{ns}"));
        }
        path.push_str(if self.kind == Kind::Pods { "/pods" } else { "/nodes" });
        if let Some(name) = &self.name {
            path.push_str(&format!("/{name}"));
        }
        let query = params.query();
        if !query.is_empty() {
            path.push('?');
            path.push_str(&query);
        }
        path
    }
}

/// `GET` of a list or of one object of `metrics.k8s.io/v1beta1` (routed here by the list and
/// get handlers of [`super::objects`] for the group).
pub async fn serve(
    state: AppState,
    caller: Caller,
    path: HashMap<String, String>,
    pairs: Vec<(String, String)>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    let target = Target::resolve(&state, &path)?;
    let params = MetricsParams::parse(pairs)?;
    negotiate(&headers, negotiate::DISCOVERY)?;
    let in_scope: Vec<Arc<Cluster>> = match &target.cluster {
        Some(name) => state.registry.get(name).into_iter().collect(),
        None => state.registry.all(),
    };
    let (serving, without): (Vec<_>, Vec<_>) = in_scope.into_iter().partition(|c| c.serves_metrics());
    if serving.is_empty() {
        return Err(KubeError::no_such_resource());
    }
    let verb = if target.name.is_some() { "get" } else { "list" };
    let names: Vec<String> = serving.iter().map(|c| c.name().to_string()).collect();
    let info = target.kind.info();
    let (allowed, denied) = rights::restrict_in(
        &state,
        &caller,
        verb,
        &info,
        &names,
        target.namespace.as_deref(),
        target.name.as_deref(),
    )
    .await?;
    let asked: Vec<Arc<Cluster>> = serving
        .into_iter()
        .filter(|c| allowed.as_ref().is_none_or(|a| a.0.iter().any(|(name, _)| name == c.name())))
        .collect();
    let parts = fanout::ask(asked, &target.member_path(&params), fanout::LIMITS).await;
    let mut warnings: Vec<String> = denied.into_iter().collect();
    if !without.is_empty() {
        let names: Vec<&str> = without.iter().map(|c| c.name()).collect();
        warnings.push(format!(
            "cluster(s) {} serve no metrics API ({METRICS_GROUP}/{METRICS_VERSION}): they are left out",
            names.join(", ")
        ));
    }
    let body = match &target.name {
        Some(name) => one(&target, name, parts, &mut warnings)?,
        None => list(&target, parts, allowed.as_ref(), &mut warnings)?,
    };
    let mut resp = Json(body).into_response();
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// The members' lists merged, each item with its cluster, only in the namespaces `allowed`.
fn list(
    target: &Target,
    parts: Vec<Part>,
    allowed: Option<&Allowed>,
    warnings: &mut Vec<String>,
) -> KubeResult<Value> {
    let asked = parts.len();
    let mut items = Vec::new();
    let mut failed = Vec::new();
    for part in parts {
        let answer = match part.answer {
            Ok(answer) => answer,
            Err(e) => {
                failed.push(failure(&part.cluster, &e));
                continue;
            }
        };
        let Some(Value::Array(listed)) = answer.get("items").cloned() else {
            failed.push(format!("cluster \"{}\": its answer is not a list of metrics", part.cluster));
            continue;
        };
        for mut item in listed {
            let namespace = item["metadata"]["namespace"].as_str().unwrap_or_default();
            if allowed.is_some_and(|a| !a.admits(&part.cluster, namespace)) {
                continue;
            }
            annotate(&part.cluster, &mut item);
            items.push(item);
        }
    }
    if asked > 0 && failed.len() == asked {
        return Err(unavailable(&failed));
    }
    warnings.extend(failed.into_iter().map(|f| format!("metrics left out: {f}")));
    let kind = match target.kind {
        Kind::Pods => "PodMetricsList",
        Kind::Nodes => "NodeMetricsList",
    };
    Ok(json!({
        "kind": kind,
        "apiVersion": format!("{METRICS_GROUP}/{METRICS_VERSION}"),
        "metadata": {},
        "items": items,
    }))
}

/// The one object the members found: none is 404 (503 when some could not be asked), several
/// a 409 that names their clusters.
fn one(target: &Target, name: &str, parts: Vec<Part>, warnings: &mut Vec<String>) -> KubeResult<Value> {
    let mut found = Vec::new();
    let mut failed = Vec::new();
    for part in parts {
        match part.answer {
            Ok(object) => found.push((part.cluster, object)),
            Err(fanout::Error::NotFound) => {}
            Err(e) => failed.push(failure(&part.cluster, &e)),
        }
    }
    match found.len() {
        0 if !failed.is_empty() => Err(unavailable(&failed)),
        0 => Err(KubeError::not_found(format!("{} \"{name}\" not found", target.kind.errors_name()))),
        1 => {
            warnings.extend(failed.into_iter().map(|f| format!("metrics left out: {f}")));
            let (cluster, mut object) = found.remove(0);
            annotate(&cluster, &mut object);
            Ok(object)
        }
        _ => {
            let clusters: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
            let namespace =
                target.namespace.as_deref().map(|ns| format!(" in namespace \"{ns}\"")).unwrap_or_default();
            let what = if target.kind == Kind::Pods { "pod" } else { "node" };
            Err(KubeError::new(
                StatusCode::CONFLICT,
                format!(
                    "{what} \"{name}\"{namespace} has metrics in clusters {}: ask one cluster at \
                     /clusters/NAME{}, or read them all with kubectl multicluster top {what}s",
                    clusters.join(", "),
                    target.member_path(&MetricsParams::default()),
                ),
            ))
        }
    }
}

/// One member's failure, in our words.
fn failure(cluster: &str, e: &fanout::Error) -> String {
    match e {
        fanout::Error::NotFound => format!("cluster \"{cluster}\" has no metrics API now"),
        fanout::Error::Read(e) => format!("cluster \"{cluster}\": {e}"),
    }
}

/// 503 when no member in scope could be read.
fn unavailable(failed: &[String]) -> KubeError {
    KubeError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("the metrics cannot be read now ({}); try again", failed.join("; ")),
    )
}
