//! The MultiClusterResource controller: renders the template for every placed cluster,
//! server-side applies it there, removes copies that lost their place, restores copies changed by
//! hand, and cleans up behind a finalizer.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::join_all;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use kube::runtime::controller::Action as Requeue;
use kube::runtime::events::{Event, EventType, Recorder};
use kube::{Client, Resource, ResourceExt};
use mc_types::Gvr;
use mc_types::crd::{
    ClusterResult, ConflictResolution, FIELD_MANAGER, MANAGED_LABEL, MultiCluster, MultiClusterResource,
    MultiClusterResourceStatus, OWNER_ANNOTATION, Phase,
};
use serde_json::{Value, json};
use tracing::{info, instrument, warn};

use super::finalizer;
use super::render::render;
use crate::clusters::Registry;

/// How long one cluster may take to apply or delete one object.
const PER_CLUSTER_TIMEOUT: Duration = Duration::from_secs(10);
/// Periodic re-check of every resource, even without events.
const RESYNC: Duration = Duration::from_secs(300);

/// Errors of a reconcile; all are retried with backoff.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the master cluster failed (retryable).
    #[error("master cluster: {0}")]
    Master(#[from] kube::Error),
    /// Some clusters could not be reached or refused (retryable; the others are done).
    #[error("{0}")]
    Clusters(String),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where a copy lives: (cluster, gvr, namespace, name).
pub type CopyKey = (String, Gvr, String, String);

/// A copy this controller applied.
#[derive(Clone, Debug)]
pub struct AppliedCopy {
    /// Its MultiClusterResource, `namespace/name`.
    pub owner: String,
    /// The resourceVersion our last apply produced: a change notice carrying it is our own
    /// write, not drift.
    pub resource_version: Option<String>,
}

/// What reconcile needs.
pub struct Context {
    /// Client of the master cluster.
    pub master: Client,
    /// Member clusters and their clients.
    pub registry: Arc<Registry>,
    /// Kubernetes Events on the resources.
    pub recorder: Recorder,
    /// Copies by location → what we applied there, for drift triggers.
    pub copies: Mutex<HashMap<CopyKey, AppliedCopy>>,
    /// Namespaces whose resources may write outside their own namespace.
    pub admin_namespaces: Vec<String>,
    /// The server's namespace, which holds the `MultiCluster` objects a selector chooses from.
    pub namespace: String,
    /// Failures in a row per resource, for the wait before the next try.
    pub backoff: super::backoff::Backoff,
}

/// Whether a resource in `mcr_namespace` may write `target` (namespace `None`: cluster-scoped).
/// A tenant writes only into its own namespace; resources in `admin` namespaces write anywhere.
/// `Err` says why not and how to allow it.
pub fn permitted(mcr_namespace: &str, target: Option<&str>, admin: &[String]) -> Result<(), String> {
    if admin.iter().any(|a| a == mcr_namespace) {
        return Ok(());
    }
    match target {
        Some(ns) if ns == mcr_namespace => Ok(()),
        Some(ns) => Err(format!(
            "a MultiClusterResource in namespace {mcr_namespace} may write only into {mcr_namespace}, not into {ns}; \
             list {mcr_namespace} under dispatch.adminNamespaces to allow it"
        )),
        None => Err(format!(
            "a MultiClusterResource in namespace {mcr_namespace} may not write cluster-scoped objects; \
             list {mcr_namespace} under dispatch.adminNamespaces to allow it"
        )),
    }
}

/// [`permitted`] for the copy of `mcr` at `target`; `Err` names the target too.
fn may_write(mcr: &MultiClusterResource, target: &Target, admin: &[String]) -> Result<(), String> {
    let mcr_namespace = mcr.namespace().unwrap_or_else(|| "default".into());
    permitted(&mcr_namespace, target.namespace.as_deref(), admin)
        .map_err(|reason| format!("{}: {reason}", target.describe()))
}

/// One cluster's attempt.
struct Outcome {
    cluster: String,
    phase: Phase,
    message: String,
    copy: Option<(Gvr, String, String)>,
}

/// Reconciles one MultiClusterResource: the finalizer goes on before the first copy is applied
/// and comes off after the last copy is removed.
#[instrument(skip(mcr, ctx), fields(mcr = %mcr.owner_key()))]
pub async fn reconcile(mcr: Arc<MultiClusterResource>, ctx: Arc<Context>) -> Result<Requeue> {
    let ns = mcr.namespace().unwrap_or_else(|| "default".into());
    let api: Api<MultiClusterResource> = Api::namespaced(ctx.master.clone(), &ns);
    if mcr.metadata.deletion_timestamp.is_some() {
        if !finalizer::present(&mcr) {
            return Ok(Requeue::await_change());
        }
        let next = cleanup(&mcr, &ctx).await?;
        finalizer::remove(&api, &mcr).await?;
        return Ok(next);
    }
    finalizer::ensure(&api, &mcr).await?;
    let next = apply(&mcr, &ctx).await?;
    ctx.backoff.succeeded(&mcr.owner_key());
    Ok(next)
}

/// Retries a failure after a wait that grows with each failure in a row (see
/// [`super::backoff`]); a cluster that becomes ready again wakes the resource sooner.
pub fn error_policy(mcr: Arc<MultiClusterResource>, err: &Error, ctx: Arc<Context>) -> Requeue {
    let wait = ctx.backoff.failed(&mcr.owner_key());
    warn!(mcr = %mcr.owner_key(), error = %err, retry_in_s = wait.as_secs(), "reconcile failed; retrying");
    Requeue::requeue(wait)
}

/// The clusters a resource is placed on: names, plus MultiCluster objects matching the selector;
/// neither given → the master only.
async fn placed_clusters(mcr: &MultiClusterResource, ctx: &Context) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let placement = mcr.spec.placement.clone().unwrap_or_default();
    for c in &placement.clusters {
        if !names.contains(&c.name) {
            names.push(c.name.clone());
        }
    }
    if let Some(sel) = &placement.cluster_selector {
        let text = selector_text(sel);
        // Only the registry's own objects: a MultiCluster a tenant writes elsewhere places nothing.
        let api: Api<MultiCluster> = Api::namespaced(ctx.master.clone(), &ctx.namespace);
        for mc in api.list(&ListParams::default().labels(&text)).await? {
            let n = mc.spec.name.clone();
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    if placement.clusters.is_empty()
        && placement.cluster_selector.is_none()
        && let Some(master) = ctx.registry.master()
    {
        names.push(master.name().to_string());
    }
    Ok(names)
}

/// A Kubernetes label selector object as selector text.
fn selector_text(sel: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (k, v) in sel.match_labels.clone().unwrap_or_default() {
        parts.push(format!("{k}={v}"));
    }
    for e in sel.match_expressions.clone().unwrap_or_default() {
        let values = e.values.unwrap_or_default().join(",");
        parts.push(match e.operator.as_str() {
            "In" => format!("{} in ({values})", e.key),
            "NotIn" => format!("{} notin ({values})", e.key),
            "Exists" => e.key.clone(),
            _ => format!("!{}", e.key),
        });
    }
    parts.join(",")
}

async fn apply(mcr: &MultiClusterResource, ctx: &Context) -> Result<Requeue> {
    let placed = placed_clusters(mcr, ctx).await?;
    let previous = mcr.status.clone().unwrap_or_default();
    let generation = mcr.metadata.generation;

    // Copies in clusters that left the placement go first.
    let mut outcomes = Vec::new();
    let mut leftovers = Vec::new();
    for old in &previous.clusters {
        if !placed.contains(&old.name) && old.phase != Phase::Conflict {
            leftovers.push(old.name.clone());
        }
    }
    let removals = join_all(leftovers.iter().map(|c| delete_copy(mcr, ctx, c))).await;
    for (cluster, result) in leftovers.iter().zip(removals) {
        if let Err(message) = result {
            outcomes.push(Outcome { cluster: cluster.clone(), phase: Phase::Deleting, message, copy: None });
        }
    }

    let applied = join_all(placed.iter().map(|c| apply_to(mcr, ctx, c))).await;
    outcomes.extend(applied);

    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| matches!(o.phase, Phase::Failed | Phase::Deleting))
        .map(|o| format!("{}: {}", o.cluster, o.message))
        .collect();
    {
        // apply_to recorded each applied copy; forget the ones that are no longer ours.
        let mut copies = ctx.copies.lock().unwrap_or_else(|e| e.into_inner());
        let key = mcr.owner_key();
        copies.retain(|(cluster, gvr, ns, name), copy| {
            copy.owner != key
                || outcomes.iter().any(|o| {
                    o.phase == Phase::Applied
                        && &o.cluster == cluster
                        && o.copy.as_ref().is_some_and(|(g, n, m)| g == gvr && n == ns && m == name)
                })
        });
    }
    write_status(mcr, ctx, &previous, outcomes, placed.len(), generation, failed.is_empty()).await?;
    if failed.is_empty() { Ok(Requeue::requeue(RESYNC)) } else { Err(Error::Clusters(failed.join("; "))) }
}

/// The customize actions of one cluster (none when it has no entry).
fn actions_for<'a>(mcr: &'a MultiClusterResource, cluster: &str) -> &'a [mc_types::crd::Action] {
    mcr.spec
        .customize
        .as_ref()
        .and_then(|c| c.clusters.iter().find(|cc| cc.name == cluster))
        .map(|cc| cc.action.as_slice())
        .unwrap_or_default()
}

/// Renders and applies the object in one cluster.
async fn apply_to(mcr: &MultiClusterResource, ctx: &Context, cluster: &str) -> Outcome {
    let mut out =
        Outcome { cluster: cluster.to_string(), phase: Phase::Failed, message: String::new(), copy: None };
    let object = match render(&mcr.spec.template, actions_for(mcr, cluster)) {
        Ok(o) => o,
        Err(e) => {
            out.message = e.to_string();
            return out;
        }
    };
    let Some(member) = ctx.registry.get(cluster) else {
        out.message = format!(
            "cluster {cluster} is not a member (not configured or joined); it is applied once it joins"
        );
        return out;
    };
    let Some(client) = member.client() else {
        out.message =
            format!("cluster {cluster} is not ready: {}", member.state().message.unwrap_or_default());
        return out;
    };
    let target = match Target::of(&object, mcr, &member.catalog()) {
        Ok(t) => t,
        Err(e) => {
            out.message = e;
            return out;
        }
    };
    // Checked before any call to the member cluster: a refused resource reads nothing there.
    if let Err(reason) = may_write(mcr, &target, &ctx.admin_namespaces) {
        out.phase = Phase::Forbidden;
        out.message = reason;
        return out;
    }
    out.copy = Some((target.gvr.clone(), target.namespace.clone().unwrap_or_default(), target.name.clone()));
    let owner = mcr.owner_key();
    let result = tokio::time::timeout(PER_CLUSTER_TIMEOUT, async {
        let api = target.api(client);
        // Someone else's object is not taken over silently, and another resource's never: two
        // owners would take it from each other at every reconcile.
        if let Some(existing) = api.get_opt(&target.name).await.map_err(|e| e.to_string())? {
            let by = existing.annotations().get(OWNER_ANNOTATION).cloned();
            let ours = by.as_ref() == Some(&owner);
            let overwrite = mcr.spec.conflict_resolution == Some(ConflictResolution::Overwrite);
            if !ours && (by.is_some() || !overwrite) {
                return Ok(Some(match by {
                    Some(other) => format!(
                        "{} exists and belongs to MultiClusterResource {other}; Overwrite adopts only objects no MultiClusterResource owns",
                        target.describe()
                    ),
                    None => format!(
                        "{} exists and was not created by kubectl-multicluster; set spec.conflictResolution: Overwrite to adopt it",
                        target.describe()
                    ),
                }));
            }
        }
        let mut body = object.clone();
        mark(&mut body, &owner, target.namespace.as_deref());
        let params = PatchParams::apply(FIELD_MANAGER).force();
        let applied =
            api.patch(&target.name, &params, &Patch::Apply(&body)).await.map_err(|e| e.to_string())?;
        // Recorded at once: the change notice of this write may follow within milliseconds.
        ctx.copies.lock().unwrap_or_else(|e| e.into_inner()).insert(
            (cluster.to_string(), target.gvr.clone(), target.namespace.clone().unwrap_or_default(), target.name.clone()),
            AppliedCopy { owner: owner.clone(), resource_version: applied.resource_version() },
        );
        Ok::<_, String>(None)
    })
    .await;
    match result {
        Ok(Ok(None)) => {
            out.phase = Phase::Applied;
        }
        Ok(Ok(Some(conflict))) => {
            out.phase = Phase::Conflict;
            out.message = conflict;
        }
        Ok(Err(e)) => out.message = e,
        Err(_) => out.message = format!("timed out after {PER_CLUSTER_TIMEOUT:?}"),
    }
    out
}

/// Sets the owner annotation, the managed label and the namespace on a copy.
fn mark(body: &mut Value, owner: &str, namespace: Option<&str>) {
    if !body["metadata"].is_object() {
        body["metadata"] = json!({});
    }
    let meta = &mut body["metadata"];
    if let Some(ns) = namespace {
        meta["namespace"] = json!(ns);
    }
    if !meta["annotations"].is_object() {
        meta["annotations"] = json!({});
    }
    meta["annotations"][OWNER_ANNOTATION] = json!(owner);
    if !meta["labels"].is_object() {
        meta["labels"] = json!({});
    }
    meta["labels"][MANAGED_LABEL] = json!(FIELD_MANAGER);
    // Server-managed fields must not be applied.
    if let Some(m) = meta.as_object_mut() {
        for f in ["resourceVersion", "uid", "creationTimestamp", "managedFields", "generation"] {
            m.remove(f);
        }
    }
    if let Some(o) = body.as_object_mut() {
        o.remove("status");
    }
}

/// Removes our copy from one cluster (only if it is ours). `Err` keeps it for a retry.
async fn delete_copy(mcr: &MultiClusterResource, ctx: &Context, cluster: &str) -> Result<(), String> {
    let Some(member) = ctx.registry.get(cluster) else { return Ok(()) }; // unjoined: left in place
    let Some(client) = member.client() else {
        return Err(format!("cluster {cluster} is not ready; the copy is removed when it returns"));
    };
    let object =
        render(&mcr.spec.template, actions_for(mcr, cluster)).unwrap_or_else(|_| mcr.spec.template.clone());
    let target = Target::of(&object, mcr, &member.catalog())?;
    // What this resource may not write, it may not delete either: a copy applied while it was
    // allowed (before adminNamespaces changed) stays where it is.
    if let Err(reason) = may_write(mcr, &target, &ctx.admin_namespaces) {
        info!(cluster, %reason, "copy left in place");
        return Ok(());
    }
    let api = target.api(client);
    let owner = mcr.owner_key();
    tokio::time::timeout(PER_CLUSTER_TIMEOUT, async {
        match api.get_opt(&target.name).await.map_err(|e| e.to_string())? {
            Some(existing) if existing.annotations().get(OWNER_ANNOTATION) == Some(&owner) => {
                match api.delete(&target.name, &DeleteParams::background()).await {
                    Ok(_) => Ok(()),
                    Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
                    Err(e) => Err(e.to_string()),
                }
            }
            _ => Ok(()),
        }
    })
    .await
    .map_err(|_| format!("timed out after {PER_CLUSTER_TIMEOUT:?}"))??;
    ctx.copies.lock().unwrap_or_else(|e| e.into_inner()).retain(|k, c| !(c.owner == owner && k.0 == cluster));
    info!(cluster, object = %target.describe(), "copy removed");
    Ok(())
}

async fn cleanup(mcr: &MultiClusterResource, ctx: &Context) -> Result<Requeue> {
    let mut clusters = placed_clusters(mcr, ctx).await.unwrap_or_default();
    for c in mcr.status.clone().unwrap_or_default().clusters {
        if !clusters.contains(&c.name) {
            clusters.push(c.name);
        }
    }
    let results = join_all(clusters.iter().map(|c| delete_copy(mcr, ctx, c))).await;
    let failed: Vec<String> =
        clusters.iter().zip(results).filter_map(|(c, r)| r.err().map(|e| format!("{c}: {e}"))).collect();
    if failed.is_empty() {
        publish(ctx, mcr, EventType::Normal, "Deleted", "every copy removed".into());
        return Ok(Requeue::await_change());
    }
    // Show which clusters hold the deletion up.
    let previous = mcr.status.clone().unwrap_or_default();
    let outcomes = failed
        .iter()
        .map(|f| {
            let (c, m) = f.split_once(": ").unwrap_or((f, ""));
            Outcome { cluster: c.to_string(), phase: Phase::Deleting, message: m.to_string(), copy: None }
        })
        .collect();
    let _ = write_status(mcr, ctx, &previous, outcomes, clusters.len(), mcr.metadata.generation, false).await;
    Err(Error::Clusters(failed.join("; ")))
}

/// Writes status (keeping transition times of unchanged phases) and publishes Events on changes.
async fn write_status(
    mcr: &MultiClusterResource,
    ctx: &Context,
    previous: &MultiClusterResourceStatus,
    outcomes: Vec<Outcome>,
    placed: usize,
    generation: Option<i64>,
    synced: bool,
) -> Result<()> {
    let now = Timestamp::now().to_string();
    let before: BTreeMap<&str, &ClusterResult> =
        previous.clusters.iter().map(|c| (c.name.as_str(), c)).collect();
    let mut clusters = Vec::new();
    for o in &outcomes {
        let old = before.get(o.cluster.as_str());
        let changed = old.is_none_or(|c| c.phase != o.phase || c.message != o.message);
        let since = match old {
            Some(c) if c.phase == o.phase => c.last_transition_time.clone(),
            _ => Some(now.clone()),
        };
        clusters.push(ClusterResult {
            name: o.cluster.clone(),
            phase: o.phase,
            message: o.message.clone(),
            observed_generation: generation,
            last_transition_time: since,
        });
        if changed {
            let (kind, reason) = match o.phase {
                Phase::Applied => (EventType::Normal, "Applied"),
                Phase::Conflict => (EventType::Warning, "Conflict"),
                Phase::Deleting => (EventType::Warning, "DeleteFailed"),
                Phase::Forbidden => (EventType::Warning, "Forbidden"),
                _ => (EventType::Warning, "ApplyFailed"),
            };
            let note = if o.message.is_empty() {
                format!("applied to {}", o.cluster)
            } else {
                format!("{}: {}", o.cluster, o.message)
            };
            publish(ctx, mcr, kind, reason, note);
        }
    }
    let applied = clusters.iter().filter(|c| c.phase == Phase::Applied).count();
    let ready = applied == placed && placed > 0;
    let condition = |type_: &str, ok: bool, reason: &str, message: String| {
        let old = previous.conditions.iter().find(|c| c.type_ == type_);
        let status = if ok { "True" } else { "False" };
        Condition {
            type_: type_.into(),
            status: status.into(),
            reason: reason.into(),
            message,
            observed_generation: generation,
            last_transition_time: match old {
                Some(c) if c.status == status => c.last_transition_time.clone(),
                _ => Time(Timestamp::now()),
            },
        }
    };
    let problems: Vec<String> = clusters
        .iter()
        .filter(|c| c.phase != Phase::Applied)
        .map(|c| format!("{}: {}", c.name, c.phase))
        .collect();
    let status = MultiClusterResourceStatus {
        ready: format!("{applied}/{placed}"),
        observed_generation: generation,
        clusters,
        conditions: vec![
            condition(
                "Ready",
                ready,
                if ready { "AllApplied" } else { "NotAllApplied" },
                if ready { format!("applied to {applied} clusters") } else { problems.join(", ") },
            ),
            condition(
                "Synced",
                synced,
                if synced { "ReconcileSucceeded" } else { "ReconcileFailed" },
                String::new(),
            ),
        ],
    };
    if previous == &status {
        return Ok(());
    }
    let api: Api<MultiClusterResource> =
        Api::namespaced(ctx.master.clone(), &mcr.namespace().unwrap_or_else(|| "default".into()));
    api.patch_status(&mcr.name_any(), &PatchParams::default(), &Patch::Merge(json!({"status": status})))
        .await?;
    Ok(())
}

/// Publishes an Event in the background: Events are for people, not on the dispatch path.
fn publish(ctx: &Context, mcr: &MultiClusterResource, type_: EventType, reason: &str, note: String) {
    let ev =
        Event { type_, reason: reason.into(), note: Some(note), action: "Dispatch".into(), secondary: None };
    let recorder = ctx.recorder.clone();
    let reference = mcr.object_ref(&());
    tokio::spawn(async move {
        if let Err(e) = recorder.publish(&ev, &reference).await {
            warn!(error = %e, "publishing an event failed");
        }
    });
}

/// The API coordinates of a rendered object in one cluster.
struct Target {
    ar: ApiResource,
    gvr: Gvr,
    namespace: Option<String>,
    name: String,
}

impl Target {
    fn of(
        object: &Value,
        mcr: &MultiClusterResource,
        catalog: &[mc_types::ResourceInfo],
    ) -> Result<Target, String> {
        let api_version = object["apiVersion"].as_str().ok_or("the template has no apiVersion")?;
        let kind = object["kind"].as_str().ok_or("the template has no kind")?;
        let name = object["metadata"]["name"].as_str().ok_or("the template has no metadata.name")?;
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let info = catalog
            .iter()
            .find(|r| r.group == group && r.kind == kind && r.version == version)
            .or_else(|| catalog.iter().find(|r| r.group == group && r.kind == kind))
            .ok_or_else(|| format!("the cluster does not serve {kind} in {api_version}"))?;
        let namespace = info.namespaced.then(|| {
            object["metadata"]["namespace"]
                .as_str()
                .map(String::from)
                .or_else(|| mcr.namespace())
                .unwrap_or_else(|| "default".into())
        });
        let ar = ApiResource {
            group: group.into(),
            version: version.into(),
            api_version: api_version.into(),
            kind: kind.into(),
            plural: info.resource.clone(),
        };
        Ok(Target { gvr: Gvr::new(group, version, &info.resource), ar, namespace, name: name.into() })
    }

    fn api(&self, client: Client) -> Api<DynamicObject> {
        match &self.namespace {
            Some(ns) => Api::namespaced_with(client, ns, &self.ar),
            None => Api::all_with(client, &self.ar),
        }
    }

    fn describe(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.ar.kind, self.name),
            None => format!("{} {}", self.ar.kind, self.name),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use mc_types::ResourceInfo;
    use serde_json::json;

    use super::*;

    fn info(group: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceInfo {
        ResourceInfo {
            group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            singular: String::new(),
            kind: kind.into(),
            short_names: Vec::new(),
            namespaced,
            verbs: Vec::new(),
            categories: Vec::new(),
        }
    }

    fn catalog() -> Vec<ResourceInfo> {
        vec![
            info("", "configmaps", "ConfigMap", true),
            info("rbac.authorization.k8s.io", "clusterroles", "ClusterRole", false),
        ]
    }

    fn mcr(namespace: &str, template: Value, customize: Value) -> MultiClusterResource {
        serde_json::from_value(json!({
            "apiVersion": "mulitcluster.practice.com/v1alpha1",
            "kind": "MultiClusterResource",
            "metadata": {"name": "r", "namespace": namespace},
            "spec": {"template": template, "customize": {"clusters": customize}},
        }))
        .unwrap()
    }

    /// The target of the copy for `cluster` and whether the resource may write it.
    fn check(
        mcr: &MultiClusterResource,
        cluster: &str,
        admin: &[&str],
    ) -> (Option<String>, Result<(), String>) {
        let object = render(&mcr.spec.template, actions_for(mcr, cluster)).unwrap();
        let target = Target::of(&object, mcr, &catalog()).unwrap();
        let admin: Vec<String> = admin.iter().map(|a| a.to_string()).collect();
        (target.namespace.clone(), may_write(mcr, &target, &admin))
    }

    #[test]
    fn a_tenant_writes_only_into_its_own_namespace() {
        let admin = vec!["mc-system".to_string()];
        assert_eq!(permitted("tenant-a", Some("tenant-a"), &admin), Ok(()));
        let other = permitted("tenant-a", Some("kube-public"), &admin).unwrap_err();
        assert!(
            other.contains("not into kube-public") && other.contains("dispatch.adminNamespaces"),
            "{other}"
        );
        let cluster = permitted("tenant-a", None, &admin).unwrap_err();
        assert!(cluster.contains("cluster-scoped"), "{cluster}");
    }

    #[test]
    fn admin_namespaces_write_anywhere() {
        let admin = vec!["mc-system".to_string(), "default".to_string()];
        assert_eq!(permitted("mc-system", Some("kube-public"), &admin), Ok(()));
        assert_eq!(permitted("default", None, &admin), Ok(()));
    }

    #[test]
    fn an_empty_template_namespace_is_the_resources_own() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}});
        let r = mcr("tenant-a", cm, json!([]));
        assert_eq!(check(&r, "c1", &["default"]), (Some("tenant-a".to_string()), Ok(())));
    }

    #[test]
    fn another_namespace_is_refused_also_when_a_customize_action_moves_the_copy() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "tenant-a"}});
        let moved = json!([{"name": "c2", "action": [{"op": "replace", "path": "/metadata/namespace", "value": ["kube-public"]}]}]);
        let r = mcr("tenant-a", cm, moved.clone());
        assert_eq!(check(&r, "c1", &["default"]), (Some("tenant-a".to_string()), Ok(())));
        let (namespace, refused) = check(&r, "c2", &["default"]);
        assert_eq!(namespace.as_deref(), Some("kube-public"));
        let reason = refused.unwrap_err();
        assert!(
            reason.starts_with("ConfigMap kube-public/cm: ")
                && reason.contains("namespace tenant-a")
                && reason.contains("list tenant-a under dispatch.adminNamespaces"),
            "{reason}"
        );
        // The same resource in an admin namespace may write there.
        let admin = mcr("ops", r.spec.template.clone(), moved);
        assert_eq!(check(&admin, "c2", &["ops"]), (Some("kube-public".to_string()), Ok(())));
    }

    #[test]
    fn a_cluster_scoped_kind_is_refused_whatever_namespace_the_template_names() {
        // The catalog decides what is cluster-scoped, not the template's metadata.namespace.
        let role = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "escalate", "namespace": "tenant-a"}, "rules": [],
        });
        let r = mcr("tenant-a", role.clone(), json!([]));
        let (namespace, refused) = check(&r, "c1", &["default"]);
        assert_eq!(namespace, None);
        let reason = refused.unwrap_err();
        assert!(
            reason.starts_with("ClusterRole escalate: ") && reason.contains("cluster-scoped"),
            "{reason}"
        );
        assert_eq!(check(&mcr("default", role, json!([])), "c1", &["default"]), (None, Ok(())));
    }
}
