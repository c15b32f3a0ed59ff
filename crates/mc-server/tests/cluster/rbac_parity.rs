//! mc-server's RBAC authorizer (`mc_server::authz`) decides as each member's own: varied RBAC on
//! every cluster (users, groups, ServiceAccounts, resource names, wildcards, subresources, a
//! RoleBinding to a ClusterRole, an aggregated ClusterRole, a binding to a missing role), the
//! four RBAC types listed from the cluster as its API server answers them, and random requests
//! decided both by `ClusterRbac` and by a `SubjectAccessReview` to that cluster.

use std::fmt;
use std::time::{Duration, Instant};

use futures::{StreamExt, stream};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
    SubjectAccessReviewStatus,
};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, ListParams, PostParams};
use kube::{Client, ResourceExt};
use mc_server::authz::{ClusterRbac, Decision, RBAC_GROUP, RbacKind, Request, User};
use serde_json::{Value, json};

use crate::testenv::{TestEnv, eventually};

/// The name prefix of everything this test creates, so that leftovers of an earlier run are
/// found and removed.
const PREFIX: &str = "rbacp-";
/// The label an aggregated ClusterRole of this test selects its parts by.
const AGGREGATE_LABEL: &str = "rbac-parity.test/aggregate-to";
/// Random resource requests compared (over all clusters).
const REQUESTS: usize = 1_200;
/// Random non-resource requests compared.
const PATHS: usize = 150;
/// Random (user, verb, resource) scopes compared, each in every namespace.
const SCOPES: usize = 60;
/// SubjectAccessReviews in flight at once.
const CONCURRENCY: usize = 16;

/// splitmix64: a seeded generator, so that a failing run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn percent(&mut self, p: u64) -> bool {
        self.next() % 100 < p
    }
}

/// The names of one run: its prefix and the namespaces, users and groups made of it.
struct Names {
    p: String,
}

impl Names {
    /// `PREFIX…-x`: a namespace, user, group or cluster-wide object of this run.
    fn of(&self, x: &str) -> String {
        format!("{}-{x}", self.p)
    }

    fn namespaces(&self) -> [String; 3] {
        [self.of("a"), self.of("b"), self.of("c")]
    }
}

fn api_resource(kind: RbacKind) -> ApiResource {
    ApiResource {
        group: RBAC_GROUP.into(),
        version: "v1".into(),
        api_version: format!("{RBAC_GROUP}/v1"),
        kind: kind.as_str().into(),
        plural: kind.resource().into(),
    }
}

fn rule(verbs: &[&str], groups: &[&str], resources: &[&str]) -> Value {
    json!({"verbs": verbs, "apiGroups": groups, "resources": resources})
}

fn named(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str]) -> Value {
    json!({"verbs": verbs, "apiGroups": groups, "resources": resources, "resourceNames": names})
}

fn object(kind: RbacKind, namespace: Option<&str>, name: &str, body: Value) -> (RbacKind, Value) {
    let mut o =
        json!({"apiVersion": format!("{RBAC_GROUP}/v1"), "kind": kind.as_str(), "metadata": {"name": name}});
    if let Some(ns) = namespace {
        o["metadata"]["namespace"] = json!(ns);
    }
    for (k, v) in body.as_object().unwrap() {
        o[k] = v.clone();
    }
    (kind, o)
}

fn cluster_role(name: &str, rules: Value) -> (RbacKind, Value) {
    object(RbacKind::ClusterRole, None, name, json!({"rules": rules}))
}

fn role(ns: &str, name: &str, rules: Value) -> (RbacKind, Value) {
    object(RbacKind::Role, Some(ns), name, json!({"rules": rules}))
}

fn role_ref(kind: &str, name: &str) -> Value {
    json!({"apiGroup": RBAC_GROUP, "kind": kind, "name": name})
}

fn crb(name: &str, role: &str, subjects: Value) -> (RbacKind, Value) {
    object(
        RbacKind::ClusterRoleBinding,
        None,
        name,
        json!({"roleRef": role_ref("ClusterRole", role), "subjects": subjects}),
    )
}

fn rb(ns: &str, name: &str, kind: &str, role: &str, subjects: Value) -> (RbacKind, Value) {
    object(
        RbacKind::RoleBinding,
        Some(ns),
        name,
        json!({"roleRef": role_ref(kind, role), "subjects": subjects}),
    )
}

fn user(name: &str) -> Value {
    json!({"apiGroup": RBAC_GROUP, "kind": "User", "name": name})
}

fn group(name: &str) -> Value {
    json!({"apiGroup": RBAC_GROUP, "kind": "Group", "name": name})
}

fn sa(ns: Option<&str>, name: &str) -> Value {
    match ns {
        Some(ns) => json!({"kind": "ServiceAccount", "name": name, "namespace": ns}),
        None => json!({"kind": "ServiceAccount", "name": name}),
    }
}

/// The RBAC of cluster `index`: Roles and ClusterRoles first, so that bindings find them; the
/// last few differ between clusters.
fn fixture(n: &Names, index: usize) -> Vec<(RbacKind, Value)> {
    let [a, b, c] = n.namespaces();
    let (alice, bob, carol, dave, eve) =
        (n.of("alice"), n.of("bob"), n.of("carol"), n.of("dave"), n.of("eve"));
    let (devs, ops) = (n.of("devs"), n.of("ops"));
    let aggregated = n.of("aggregated");
    let part = |name: &str, rules: Value| {
        object(
            RbacKind::ClusterRole,
            None,
            name,
            json!({"metadata": {"name": name, "labels": {AGGREGATE_LABEL: aggregated}}, "rules": rules}),
        )
    };
    let mut objects = vec![
        cluster_role(
            &n.of("pod-reader"),
            json!([rule(&["get", "list", "watch"], &[""], &["pods", "pods/log"])]),
        ),
        cluster_role(
            &n.of("named-cm"),
            json!([named(&["get", "update", "delete", "list"], &[""], &["configmaps"], &["cm1", "cm2"])]),
        ),
        cluster_role(&n.of("wild"), json!([rule(&["get"], &["*"], &["*"]), rule(&["*"], &["apps"], &["*"])])),
        cluster_role(
            &n.of("sub"),
            json!([
                rule(&["get", "create"], &[""], &["*/status", "pods/exec"]),
                rule(&["update"], &["apps"], &["deployments/scale"])
            ]),
        ),
        cluster_role(
            &n.of("nonres"),
            json!([{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/logs/*"]}]),
        ),
        cluster_role(&n.of("star-verbs"), json!([rule(&["*"], &[""], &["services", "endpoints"])])),
        cluster_role(
            &n.of("deploy-editor"),
            json!([rule(&["get", "update", "patch"], &["apps"], &["deployments", "deployments/scale"])]),
        ),
        part(&n.of("agg-jobs"), json!([rule(&["list", "watch"], &["batch"], &["jobs", "cronjobs"])])),
        part(&n.of("agg-secret"), json!([named(&["get"], &[""], &["secrets"], &["s1"])])),
        object(
            RbacKind::ClusterRole,
            None,
            &aggregated,
            json!({"aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {AGGREGATE_LABEL: aggregated}}]}, "rules": []}),
        ),
        role(&a, "reader", json!([rule(&["get", "list"], &[""], &["configmaps", "secrets"])])),
        role(&b, "wild", json!([rule(&["*"], &["*"], &["*"])])),
        role(&a, "named", json!([named(&["get", "patch"], &["apps"], &["deployments"], &["web"])])),
        crb(&n.of("alice-pods"), &n.of("pod-reader"), json!([user(&alice)])),
        crb(&n.of("devs-sub"), &n.of("sub"), json!([group(&devs)])),
        crb(&n.of("robot-agg"), &aggregated, json!([sa(Some(&a), "robot")])),
        crb(&n.of("bob-missing"), &n.of("does-not-exist"), json!([user(&bob)])),
        crb(&n.of("ops-nonres"), &n.of("nonres"), json!([group(&ops)])),
        crb(&n.of("carol-named"), &n.of("named-cm"), json!([user(&carol), user(&dave)])),
        rb(&a, "view-alice", "ClusterRole", "view", json!([user(&alice)])),
        rb(&a, "reader-devs", "Role", "reader", json!([group(&devs)])),
        rb(&b, "wild-bob", "Role", "wild", json!([user(&bob)])),
        rb(&b, "robot-local", "ClusterRole", &n.of("star-verbs"), json!([sa(None, "robot")])),
        rb(&a, "robot-other", "Role", "reader", json!([sa(Some(&b), "robot")])),
        rb(&c, "missing-role", "Role", "nope", json!([user(&dave)])),
        rb(&a, "named-deploy", "Role", "named", json!([group(&ops)])),
        rb(&c, "carol-edit", "ClusterRole", "edit", json!([user(&carol)])),
        rb(&c, "cross-ns", "Role", "reader", json!([user(&alice)])),
        rb(&b, "deploy-editor-sa", "ClusterRole", &n.of("deploy-editor"), json!([sa(Some(&a), "default")])),
    ];
    match index % 3 {
        0 => objects.push(rb(&c, "ops-pods", "ClusterRole", &n.of("pod-reader"), json!([group(&ops)]))),
        1 => objects.push(crb(&n.of("bob-wild"), &n.of("wild"), json!([user(&bob)]))),
        _ => {
            objects.push(rb(&a, "bob-agg", "ClusterRole", &aggregated, json!([user(&bob)])));
            objects.push(crb(&n.of("eve-view"), "view", json!([user(&eve)])));
        }
    }
    objects
}

/// Namespaced objects go to their namespace, the rest are cluster-wide.
fn api_for(client: &Client, kind: RbacKind, object: &Value) -> Api<DynamicObject> {
    match object["metadata"]["namespace"].as_str() {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &api_resource(kind)),
        None => Api::all_with(client.clone(), &api_resource(kind)),
    }
}

/// Removes what this test made in a cluster (this run's, or an earlier run's). With `wait`,
/// returns once the namespaces are gone: their Roles and RoleBindings, deleted by the
/// namespace controller meanwhile, would change the cluster's decisions under the test.
async fn clean(client: &Client, wait: bool) {
    let delete = DeleteParams::default();
    for kind in [RbacKind::ClusterRoleBinding, RbacKind::ClusterRole] {
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &api_resource(kind));
        for o in api.list(&ListParams::default()).await.unwrap() {
            if o.name_any().starts_with(PREFIX) {
                let _ = api.delete(&o.name_any(), &delete).await;
            }
        }
    }
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ours = || async {
        let list = namespaces.list(&ListParams::default()).await.unwrap();
        list.into_iter().map(|ns| ns.name_any()).filter(|n| n.starts_with(PREFIX)).collect::<Vec<_>>()
    };
    for ns in ours().await {
        let _ = namespaces.delete(&ns, &delete).await;
    }
    if wait {
        eventually("earlier runs' namespaces are gone", Duration::from_secs(180), || async {
            ours().await.is_empty().then_some(())
        })
        .await;
    }
}

/// Creates the fixture in one cluster, waits until the aggregated ClusterRole holds its parts'
/// rules and the cluster's authorizer has seen every object, and lists the four RBAC types.
async fn set_up(client: &Client, n: &Names, index: usize) -> Vec<(RbacKind, Value)> {
    let namespaces: Api<Namespace> = Api::all(client.clone());
    for ns in n.namespaces() {
        let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap();
        namespaces.create(&PostParams::default(), &ns).await.unwrap();
    }
    for (kind, o) in fixture(n, index) {
        let name = o["metadata"]["name"].as_str().unwrap().to_string();
        let dynamic: DynamicObject = serde_json::from_value(o.clone()).unwrap();
        api_for(client, kind, &o)
            .create(&PostParams::default(), &dynamic)
            .await
            .unwrap_or_else(|e| panic!("creating {kind} {name}: {e}"));
    }
    let roles: Api<DynamicObject> = Api::all_with(client.clone(), &api_resource(RbacKind::ClusterRole));
    eventually(
        "the controller-manager fills the aggregated ClusterRole",
        Duration::from_secs(60),
        || async {
            let o = roles.get(&n.of("aggregated")).await.ok()?;
            (o.data["rules"].as_array().map_or(0, Vec::len) >= 2).then_some(())
        },
    )
    .await;

    // The authorizer reads each RBAC type from its own informer, in the order of its writes:
    // once it sees an object made after all others of its type, it sees them all.
    let sentinel = n.of("sentinel");
    let [a, ..] = n.namespaces();
    let sentinels = [
        cluster_role(&sentinel, json!([rule(&["get"], &["parity.test"], &["sentinels"])])),
        role(&a, "sentinel", json!([rule(&["get"], &["parity.test"], &["local-sentinels"])])),
        crb(&sentinel, &sentinel, json!([user(&sentinel)])),
        rb(&a, "sentinel", "Role", "sentinel", json!([user(&sentinel)])),
    ];
    for (kind, o) in &sentinels {
        let dynamic: DynamicObject = serde_json::from_value(o.clone()).unwrap();
        api_for(client, *kind, o).create(&PostParams::default(), &dynamic).await.unwrap();
    }
    let who = User::new(sentinel.clone(), ["system:authenticated"]);
    eventually("the authorizer sees the sentinel bindings", Duration::from_secs(60), || async {
        let cluster = Asked {
            verb: "get".into(),
            api_group: "parity.test".into(),
            resource: "sentinels".into(),
            ..Asked::default()
        };
        let local = Asked { resource: "local-sentinels".into(), namespace: a.clone(), ..cluster.clone() };
        let cluster_wide = review(client, &who, &Ask::Resource(cluster)).await.allowed;
        let in_namespace = review(client, &who, &Ask::Resource(local)).await.allowed;
        (cluster_wide && in_namespace).then_some(())
    })
    .await;

    let mut listed = Vec::new();
    for kind in RbacKind::ALL {
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &api_resource(kind));
        for o in api.list(&ListParams::default()).await.unwrap() {
            listed.push((kind, serde_json::to_value(&o).unwrap()));
        }
    }
    listed
}

/// One resource request, owned (its parts may come from listed objects).
#[derive(Clone, Debug, Default)]
struct Asked {
    verb: String,
    api_group: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
}

impl Asked {
    fn request(&self) -> Request<'_> {
        Request {
            verb: &self.verb,
            api_group: &self.api_group,
            resource: &self.resource,
            subresource: &self.subresource,
            namespace: &self.namespace,
            name: &self.name,
        }
    }
}

/// What a review asks: a resource request or a non-resource one.
#[derive(Clone, Debug)]
enum Ask {
    Resource(Asked),
    Path { verb: &'static str, path: &'static str },
}

async fn review(client: &Client, who: &User, ask: &Ask) -> SubjectAccessReviewStatus {
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let mut spec = SubjectAccessReviewSpec {
        user: Some(who.name.clone()),
        groups: Some(who.groups.clone()),
        ..Default::default()
    };
    match ask {
        Ask::Resource(r) => {
            spec.resource_attributes = Some(ResourceAttributes {
                verb: some(&r.verb),
                group: some(&r.api_group),
                resource: some(&r.resource),
                subresource: some(&r.subresource),
                namespace: some(&r.namespace),
                name: some(&r.name),
                ..Default::default()
            })
        }
        Ask::Path { verb, path } => {
            spec.non_resource_attributes = Some(NonResourceAttributes { verb: some(verb), path: some(path) })
        }
    }
    let sar = SubjectAccessReview { spec, ..Default::default() };
    let api: Api<SubjectAccessReview> = Api::all(client.clone());
    let mut last = None;
    for _ in 0..5 {
        match api.create(&PostParams::default(), &sar).await {
            Ok(answer) => return answer.status.expect("a review with a status"),
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("SubjectAccessReview failed: {last:?}")
}

/// One compared decision: what was asked, our answer and the member's.
struct Compared {
    cluster: String,
    user: User,
    ask: String,
    ours: Option<String>,
    theirs: SubjectAccessReviewStatus,
}

impl Compared {
    fn agrees(&self) -> bool {
        self.ours.is_some() == self.theirs.allowed
    }
}

impl fmt::Display for Compared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.theirs;
        write!(
            f,
            "cluster {} user {:?} groups {:?} {}: ours {} / member allowed={} denied={:?} reason={:?} \
             evaluationError={:?}",
            self.cluster,
            self.user.name,
            self.user.groups,
            self.ask,
            self.ours.as_deref().map_or("denied".to_string(), |b| format!("allowed by {b}")),
            t.allowed,
            t.denied,
            t.reason,
            t.evaluation_error
        )
    }
}

fn by(decision: Decision<'_>) -> Option<String> {
    match decision {
        Decision::Denied => None,
        allowed => Some(allowed.to_string()),
    }
}

const VERBS: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "bind",
    "escalate",
    "*",
];
const RESOURCES: &[(&str, &str, &str)] = &[
    ("", "pods", ""),
    ("", "pods", "log"),
    ("", "pods", "exec"),
    ("", "pods", "status"),
    ("", "services", ""),
    ("", "services", "status"),
    ("", "endpoints", ""),
    ("", "configmaps", ""),
    ("", "secrets", ""),
    ("", "namespaces", ""),
    ("", "nodes", ""),
    ("", "nodes", "status"),
    ("", "serviceaccounts", "token"),
    ("apps", "deployments", ""),
    ("apps", "deployments", "scale"),
    ("apps", "deployments", "status"),
    ("batch", "jobs", ""),
    ("batch", "cronjobs", ""),
    ("rbac.authorization.k8s.io", "clusterroles", ""),
    ("rbac.authorization.k8s.io", "rolebindings", ""),
    ("authorization.k8s.io", "selfsubjectaccessreviews", ""),
    ("coordination.k8s.io", "leases", ""),
    ("example.com", "widgets", ""),
    ("parity.test", "sentinels", ""),
];
const NAMES: &[&str] = &["", "", "cm1", "cm2", "web", "s1", "other"];
const PATH_LIST: &[&str] = &[
    "/healthz",
    "/healthz/ready",
    "/logs/",
    "/logs/kube.log",
    "/logs",
    "/metrics",
    "/version",
    "/api",
    "/readyz",
];

/// The users, groups and namespaces requests are drawn from.
struct Pools {
    users: Vec<String>,
    groups: Vec<String>,
    namespaces: Vec<String>,
}

impl Pools {
    fn new(n: &Names) -> Pools {
        let [a, b, c] = n.namespaces();
        let mut users: Vec<String> =
            ["alice", "bob", "carol", "dave", "eve"].iter().map(|u| n.of(u)).collect();
        for (ns, name) in [(&a, "robot"), (&b, "robot"), (&a, "default"), (&c, "robot")] {
            users.push(format!("system:serviceaccount:{ns}:{name}"));
        }
        users.extend(
            ["system:anonymous", "system:kube-controller-manager", "system:kube-scheduler"].map(String::from),
        );
        let mut groups: Vec<String> = ["devs", "ops", "empty"].iter().map(|g| n.of(g)).collect();
        groups.extend(
            ["system:authenticated", "system:unauthenticated", "system:serviceaccounts", "system:monitoring"]
                .map(String::from),
        );
        groups.push(format!("system:serviceaccounts:{a}"));
        let namespaces = vec![String::new(), a, b, c, "default".into(), "kube-system".into()];
        Pools { users, groups, namespaces }
    }

    /// A few groups; `system:masters` now and then (allowed before RBAC on the member, and by
    /// the `cluster-admin` ClusterRoleBinding in RBAC). Never `system:nodes`.
    fn groups(&self, rng: &mut Rng, mut groups: Vec<String>) -> Vec<String> {
        for _ in 0..rng.below(4) {
            let g = rng.pick(&self.groups).clone();
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
        if rng.percent(4) {
            groups.push("system:masters".into());
        }
        groups
    }

    fn user(&self, rng: &mut Rng) -> User {
        let name = rng.pick(&self.users).clone();
        User { name, groups: self.groups(rng, Vec::new()) }
    }

    /// Any request from the lists.
    fn request(&self, rng: &mut Rng) -> Asked {
        let (api_group, resource, subresource) = *rng.pick(RESOURCES);
        Asked {
            verb: rng.pick(VERBS).to_string(),
            api_group: api_group.into(),
            resource: resource.into(),
            subresource: subresource.into(),
            namespace: rng.pick(&self.namespaces).clone(),
            name: rng.pick(NAMES).to_string(),
        }
    }

    /// A request close to what a binding of the cluster grants: one of its subjects, a rule of
    /// its role (where it applies), then often one part changed at random, so that both the
    /// grants and their edges are asked. `None` when the binding drawn has nothing to draw
    /// from (or its subject is a node: the Node authorizer decides for those first).
    fn near_a_grant(&self, rng: &mut Rng, listed: &[(RbacKind, Value)]) -> Option<(User, Asked)> {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        // Ours and the cluster's defaults: other tests' bindings may change meanwhile.
        let stable = |o: &Value| {
            let name = text(&o["metadata"]["name"]);
            name.starts_with(PREFIX) || name.starts_with("system:") || name == "cluster-admin"
        };
        let bindings: Vec<&(RbacKind, Value)> = listed
            .iter()
            .filter(|(k, o)| matches!(k, RbacKind::RoleBinding | RbacKind::ClusterRoleBinding) && stable(o))
            .collect();
        let (kind, binding) = *rng.pick(&bindings);
        let namespace = text(&binding["metadata"]["namespace"]);
        let subject = rng.pick(binding["subjects"].as_array()?.as_slice()).clone();
        let name = text(&subject["name"]);
        let user = match subject["kind"].as_str()? {
            "User" => User { name, groups: self.groups(rng, Vec::new()) },
            "Group" => User { name: rng.pick(&self.users).clone(), groups: self.groups(rng, vec![name]) },
            "ServiceAccount" => {
                let ns = match text(&subject["namespace"]) {
                    ns if ns.is_empty() => namespace.clone(),
                    ns => ns,
                };
                User {
                    name: format!("system:serviceaccount:{ns}:{name}"),
                    groups: self.groups(rng, Vec::new()),
                }
            }
            _ => return None,
        };
        if user.name.starts_with("system:node:") || user.groups.iter().any(|g| g == "system:nodes") {
            return None;
        }
        let role_kind = match binding["roleRef"]["kind"].as_str()? {
            "Role" => RbacKind::Role,
            _ => RbacKind::ClusterRole,
        };
        let role_name = text(&binding["roleRef"]["name"]);
        let role = listed.iter().find(|(k, o)| {
            *k == role_kind
                && text(&o["metadata"]["name"]) == role_name
                && (role_kind == RbacKind::ClusterRole || text(&o["metadata"]["namespace"]) == namespace)
        });
        let rules: Vec<&Value> = role
            .and_then(|(_, o)| o["rules"].as_array())
            .map(|rules| {
                rules.iter().filter(|r| r["resources"].as_array().is_some_and(|a| !a.is_empty())).collect()
            })
            .unwrap_or_default();
        let mut asked = self.request(rng);
        if let Some(rule) = (!rules.is_empty()).then(|| *rng.pick(&rules)) {
            let from = |rng: &mut Rng, field: &str| {
                let list = rule[field]
                    .as_array()
                    .map(|a| a.iter().map(text).collect::<Vec<_>>())
                    .unwrap_or_default();
                (!list.is_empty()).then(|| rng.pick(&list).clone()).filter(|v| v != "*")
            };
            if let Some(verb) = from(rng, "verbs") {
                asked.verb = verb;
            }
            if let Some(group) = from(rng, "apiGroups") {
                asked.api_group = group;
            }
            if let Some(resource) = from(rng, "resources") {
                match resource.split_once('/') {
                    Some(("*", sub)) => asked.subresource = sub.into(),
                    Some((res, sub)) => (asked.resource, asked.subresource) = (res.into(), sub.into()),
                    None => (asked.resource, asked.subresource) = (resource, String::new()),
                }
            }
            asked.name = match from(rng, "resourceNames") {
                Some(name) if !rng.percent(15) => name,
                _ if rng.percent(50) => String::new(),
                _ => asked.name,
            };
        }
        if kind == &RbacKind::RoleBinding && !rng.percent(15) {
            asked.namespace = namespace;
        }
        // One part changed now and then: the edges of the grant.
        if rng.percent(30) {
            let other = self.request(rng);
            match rng.below(5) {
                0 => asked.verb = other.verb,
                1 => asked.api_group = other.api_group,
                2 => asked.subresource = other.subresource,
                3 => asked.namespace = other.namespace,
                _ => asked.name = other.name,
            }
        }
        Some((user, asked))
    }
}

#[tokio::test]
async fn the_rbac_authorizer_decides_as_each_members_own() {
    let env = TestEnv::from_env();
    let seed = std::env::var("MC_RBAC_PARITY_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    println!("rbac parity: seed {seed} (MC_RBAC_PARITY_SEED={seed} repeats the requests)");
    let mut rng = Rng(seed);
    let names = Names { p: format!("{PREFIX}{:06x}", rng.next() & 0xff_ffff) };
    let started = Instant::now();

    let mut clients = Vec::new();
    for cluster in &env.clusters {
        clients.push((cluster.name.clone(), env.client(cluster).await.unwrap()));
    }
    futures::future::join_all(clients.iter().map(|(_, client)| clean(client, true))).await;
    let listed = futures::future::join_all(
        clients.iter().enumerate().map(|(i, (_, client))| set_up(client, &names, i)),
    )
    .await;
    let rbacs: Vec<ClusterRbac> = listed.iter().cloned().map(ClusterRbac::from_objects).collect();
    for ((cluster, _), rbac) in clients.iter().zip(&rbacs) {
        println!(
            "rbac parity: {cluster}: {} roles, {} bindings, {} malformed",
            rbac.roles(),
            rbac.bindings(),
            rbac.malformed()
        );
        assert_eq!(rbac.malformed(), 0, "{cluster}");
    }
    let set_up_time = started.elapsed();

    // Half the requests near a grant of the cluster, half anything; then non-resource requests.
    let pools = Pools::new(&names);
    let mut asks: Vec<(usize, User, Ask)> = Vec::new();
    while asks.len() < REQUESTS {
        let cluster = rng.below(clients.len());
        let drawn = if rng.percent(50) { pools.near_a_grant(&mut rng, &listed[cluster]) } else { None };
        let (who, asked) = drawn.unwrap_or_else(|| (pools.user(&mut rng), pools.request(&mut rng)));
        asks.push((cluster, who, Ask::Resource(asked)));
    }
    for _ in 0..PATHS {
        let cluster = rng.below(clients.len());
        let who = pools.user(&mut rng);
        let verb = if rng.percent(80) { "get" } else { "post" };
        let path = *rng.pick(PATH_LIST);
        asks.push((cluster, who, Ask::Path { verb, path }));
    }
    // Scopes: a list or watch in every namespace against the scope.
    for _ in 0..SCOPES {
        let cluster = rng.below(clients.len());
        let drawn = if rng.percent(50) { pools.near_a_grant(&mut rng, &listed[cluster]) } else { None };
        let (who, mut asked) = drawn.unwrap_or_else(|| (pools.user(&mut rng), pools.request(&mut rng)));
        asked.verb = if rng.percent(70) { "list" } else { "watch" }.into();
        for namespace in &pools.namespaces {
            let scoped = Asked {
                namespace: namespace.clone(),
                subresource: String::new(),
                name: String::new(),
                ..asked.clone()
            };
            asks.push((cluster, who.clone(), Ask::Resource(scoped)));
        }
    }
    let resource_asks = REQUESTS + PATHS;

    let compare_started = Instant::now();
    let compared: Vec<(usize, Compared)> = stream::iter(asks.into_iter().enumerate())
        .map(|(i, (cluster, who, ask))| {
            let (name, client) = &clients[cluster];
            let rbac = &rbacs[cluster];
            async move {
                let (text, ours) = match &ask {
                    Ask::Resource(asked) if i >= resource_asks => {
                        let scope = rbac.scope(&who, &asked.verb, &asked.api_group, &asked.resource);
                        (
                            format!("scope of {:?}", asked.request()),
                            scope.allows(&asked.namespace).then(|| format!("{scope:?}")),
                        )
                    }
                    Ask::Resource(asked) => {
                        (format!("{:?}", asked.request()), by(rbac.authorize(&who, &asked.request())))
                    }
                    Ask::Path { verb, path } => {
                        (format!("{verb} {path}"), by(rbac.authorize_path(&who, verb, path)))
                    }
                };
                let theirs = review(client, &who, &ask).await;
                (i, Compared { cluster: name.clone(), user: who, ask: text, ours, theirs })
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    let compare_time = compare_started.elapsed();

    futures::future::join_all(clients.iter().map(|(_, client)| clean(client, false))).await;

    let mismatches: Vec<&Compared> = compared.iter().map(|(_, c)| c).filter(|c| !c.agrees()).collect();
    for m in &mismatches {
        println!("MISMATCH {m}");
    }
    let count = |range: std::ops::Range<usize>| {
        let of: Vec<&Compared> = compared.iter().filter(|(i, _)| range.contains(i)).map(|(_, c)| c).collect();
        (of.len(), of.iter().filter(|c| c.theirs.allowed).count())
    };
    let (requests, allowed) = count(0..REQUESTS);
    let (paths, paths_allowed) = count(REQUESTS..resource_asks);
    let (scopes, scopes_allowed) = count(resource_asks..usize::MAX);
    println!(
        "rbac parity: seed {seed}: {requests} resource requests ({allowed} allowed), {paths} non-resource \
         ({paths_allowed} allowed), {scopes} scope checks ({scopes_allowed} allowed): {} mismatches; \
         set-up {:.1}s, comparing {:.1}s",
        mismatches.len(),
        set_up_time.as_secs_f64(),
        compare_time.as_secs_f64()
    );
    assert!(
        mismatches.is_empty(),
        "{} of {} decisions differ (seed {seed})",
        mismatches.len(),
        compared.len()
    );
    // The sample must say something both ways.
    assert!(allowed * 5 > requests && (requests - allowed) * 5 > requests, "{allowed} of {requests} allowed");
    assert!(paths_allowed > 0 && scopes_allowed > 0 && scopes_allowed < scopes);
}
