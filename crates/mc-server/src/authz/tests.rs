//! Decisions of whole clusters' RBAC: which bindings apply to whom and where, scopes, a
//! property test against a literal transcription of the member's rule resolution, and loading
//! from a store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn rule(verbs: &[&str], groups: &[&str], resources: &[&str]) -> Value {
    json!({"verbs": verbs, "apiGroups": groups, "resources": resources})
}

fn named_rule(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str]) -> Value {
    json!({"verbs": verbs, "apiGroups": groups, "resources": resources, "resourceNames": names})
}

fn cluster_role(name: &str, rules: Value) -> (RbacKind, Value) {
    (RbacKind::ClusterRole, json!({"metadata": {"name": name}, "rules": rules}))
}

fn role(namespace: &str, name: &str, rules: Value) -> (RbacKind, Value) {
    (RbacKind::Role, json!({"metadata": {"name": name, "namespace": namespace}, "rules": rules}))
}

fn subject(kind: &str, name: &str) -> Value {
    json!({"kind": kind, "name": name})
}

/// A ServiceAccount subject; `""` leaves its namespace out.
fn sa(namespace: &str, name: &str) -> Value {
    if namespace.is_empty() {
        return json!({"kind": "ServiceAccount", "name": name});
    }
    json!({"kind": "ServiceAccount", "name": name, "namespace": namespace})
}

fn cluster_binding(name: &str, role: &str, subjects: Value) -> (RbacKind, Value) {
    (
        RbacKind::ClusterRoleBinding,
        json!({"metadata": {"name": name},
               "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role},
               "subjects": subjects}),
    )
}

fn binding(namespace: &str, name: &str, role_kind: &str, role: &str, subjects: Value) -> (RbacKind, Value) {
    (
        RbacKind::RoleBinding,
        json!({"metadata": {"name": name, "namespace": namespace},
               "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": role},
               "subjects": subjects}),
    )
}

fn user(name: &str, groups: &[&str]) -> User {
    User::new(name, groups.iter().copied())
}

fn get<'a>(resource: &'a str, namespace: &'a str, name: &'a str) -> Request<'a> {
    Request { verb: "get", resource, namespace, name, ..Request::default() }
}

/// `Some("Kind/…")` naming the allowing binding, or `None` when denied.
fn by(rbac: &ClusterRbac, user: &User, req: Request<'_>) -> Option<String> {
    match rbac.authorize(user, &req) {
        Decision::Denied => None,
        allowed => Some(allowed.to_string()),
    }
}

fn pod_reader() -> Value {
    json!([rule(&["get", "list"], &[""], &["pods"])])
}

#[test]
fn a_cluster_role_binding_applies_in_every_namespace_and_cluster_wide() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        cluster_binding("alice-pods", "pods", json!([subject("User", "alice")])),
    ]);
    let alice = user("alice", &[]);
    for namespace in ["", "a", "kube-system"] {
        assert_eq!(
            by(&rbac, &alice, get("pods", namespace, "p")).as_deref(),
            Some("ClusterRoleBinding/alice-pods")
        );
    }
    assert_eq!(by(&rbac, &alice, get("secrets", "a", "p")), None);
    assert_eq!(by(&rbac, &user("bob", &[]), get("pods", "a", "p")), None);
}

#[test]
fn a_role_binding_applies_in_its_own_namespace_only_and_never_cluster_wide() {
    let rbac = ClusterRbac::from_objects([
        role("a", "reader", pod_reader()),
        binding("a", "alice-reads", "Role", "reader", json!([subject("User", "alice")])),
    ]);
    let alice = user("alice", &[]);
    assert_eq!(by(&rbac, &alice, get("pods", "a", "p")).as_deref(), Some("RoleBinding/a/alice-reads"));
    assert_eq!(by(&rbac, &alice, get("pods", "b", "p")), None);
    assert_eq!(by(&rbac, &alice, get("pods", "", "p")), None);
}

#[test]
fn a_role_binding_to_a_cluster_role_grants_its_rules_in_the_bindings_namespace_only() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        binding("a", "alice-pods", "ClusterRole", "pods", json!([subject("User", "alice")])),
    ]);
    let alice = user("alice", &[]);
    assert!(rbac.authorize(&alice, &get("pods", "a", "p")).is_allowed());
    assert!(!rbac.authorize(&alice, &get("pods", "b", "p")).is_allowed());
    assert!(!rbac.authorize(&alice, &get("pods", "", "p")).is_allowed());
}

#[test]
fn a_role_binding_finds_its_role_in_its_own_namespace_only() {
    let rbac = ClusterRbac::from_objects([
        role("b", "reader", pod_reader()),
        binding("a", "alice-reads", "Role", "reader", json!([subject("User", "alice")])),
    ]);
    let alice = user("alice", &[]);
    assert!(!rbac.authorize(&alice, &get("pods", "a", "p")).is_allowed());
    assert!(!rbac.authorize(&alice, &get("pods", "b", "p")).is_allowed());
}

#[test]
fn a_binding_to_a_missing_role_or_a_role_of_an_unknown_kind_grants_nothing() {
    let rbac = ClusterRbac::from_objects([
        role("a", "reader", pod_reader()),
        cluster_role("pods", pod_reader()),
        cluster_binding("missing", "nope", json!([subject("User", "alice")])),
        binding("a", "missing-role", "Role", "nope", json!([subject("User", "alice")])),
        binding("a", "missing-cluster-role", "ClusterRole", "nope", json!([subject("User", "alice")])),
        binding("a", "lowercase-kind", "role", "reader", json!([subject("User", "alice")])),
        binding("a", "other-kind", "Group", "pods", json!([subject("User", "alice")])),
    ]);
    assert_eq!(rbac.bindings(), 5);
    assert!(!rbac.authorize(&user("alice", &[]), &get("pods", "a", "p")).is_allowed());
}

#[test]
fn a_cluster_role_binding_never_grants_a_role() {
    let mut crb = cluster_binding("alice-reads", "reader", json!([subject("User", "alice")]));
    crb.1["roleRef"]["kind"] = json!("Role");
    // A Role of that name in some namespace, and a ClusterRole of that name: neither is granted
    // (the Role is looked up in the binding's empty namespace).
    let rbac = ClusterRbac::from_objects([role("a", "reader", pod_reader()), crb]);
    let alice = user("alice", &[]);
    assert!(!rbac.authorize(&alice, &get("pods", "a", "p")).is_allowed());
    assert!(!rbac.authorize(&alice, &get("pods", "", "p")).is_allowed());
}

#[test]
fn user_and_group_subjects_match_the_callers_name_and_groups_exactly() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        cluster_binding("users", "pods", json!([subject("User", "alice")])),
        cluster_binding("groups", "pods", json!([subject("Group", "devs")])),
        cluster_binding("lowercase", "pods", json!([subject("user", "carol"), subject("group", "ops")])),
        cluster_binding("unknown", "pods", json!([subject("Robot", "dave")])),
    ]);
    let pods = get("pods", "a", "p");
    assert!(rbac.authorize(&user("alice", &[]), &pods).is_allowed());
    assert!(!rbac.authorize(&user("Alice", &[]), &pods).is_allowed());
    assert!(!rbac.authorize(&user("devs", &[]), &pods).is_allowed(), "a user named as a group is not in it");
    assert!(
        !rbac.authorize(&user("x", &["alice"]), &pods).is_allowed(),
        "a group named as a user is not them"
    );
    assert_eq!(by(&rbac, &user("x", &["y", "devs"]), pods).as_deref(), Some("ClusterRoleBinding/groups"));
    assert!(!rbac.authorize(&user("carol", &["ops"]), &pods).is_allowed(), "kinds are case-sensitive");
    assert!(!rbac.authorize(&user("dave", &[]), &pods).is_allowed());
}

#[test]
fn a_service_account_subject_matches_its_user_name_and_defaults_to_the_role_bindings_namespace() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        cluster_binding("robot-a", "pods", json!([sa("a", "robot")])),
        binding("b", "local-robot", "ClusterRole", "pods", json!([subject("ServiceAccount", "local")])),
        binding("b", "remote-robot", "ClusterRole", "pods", json!([sa("c", "remote")])),
    ]);
    let robot = |ns: &str, name: &str| user(&format!("system:serviceaccount:{ns}:{name}"), &[]);
    assert!(rbac.authorize(&robot("a", "robot"), &get("pods", "x", "p")).is_allowed());
    assert!(!rbac.authorize(&robot("b", "robot"), &get("pods", "x", "p")).is_allowed());
    assert!(!rbac.authorize(&user("robot", &[]), &get("pods", "x", "p")).is_allowed());
    assert!(rbac.authorize(&robot("b", "local"), &get("pods", "b", "p")).is_allowed());
    assert!(!rbac.authorize(&robot("a", "local"), &get("pods", "b", "p")).is_allowed());
    assert!(rbac.authorize(&robot("c", "remote"), &get("pods", "b", "p")).is_allowed());
    assert!(!rbac.authorize(&robot("c", "remote"), &get("pods", "c", "p")).is_allowed());
}

#[test]
fn a_service_account_subject_without_a_namespace_in_a_cluster_role_binding_matches_nobody() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        cluster_binding("robot", "pods", json!([subject("ServiceAccount", "robot")])),
    ]);
    for name in ["system:serviceaccount::robot", "robot", "system:serviceaccount:default:robot"] {
        assert!(!rbac.authorize(&user(name, &[]), &get("pods", "a", "p")).is_allowed(), "{name}");
    }
}

#[test]
fn cluster_role_bindings_are_tried_before_role_bindings_each_in_name_order() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        binding("a", "a-first", "ClusterRole", "pods", json!([subject("User", "alice")])),
        cluster_binding("z-last", "pods", json!([subject("Group", "devs")])),
        cluster_binding("m-middle", "pods", json!([subject("User", "alice"), subject("Group", "devs")])),
    ]);
    let alice = user("alice", &["devs"]);
    assert_eq!(by(&rbac, &alice, get("pods", "a", "p")).as_deref(), Some("ClusterRoleBinding/m-middle"));
    assert_eq!(
        by(&rbac, &user("alice", &[]), get("pods", "a", "p")).as_deref(),
        Some("ClusterRoleBinding/m-middle")
    );
    let Decision::Allowed { by } = rbac.authorize(&alice, &get("pods", "a", "p")) else { panic!("allowed") };
    assert_eq!((by.kind(), by.namespace(), by.name()), (BindingKind::ClusterRoleBinding, "", "m-middle"));
    assert_eq!(by.role_ref(), &RoleRef { kind: "ClusterRole".into(), name: "pods".into() });
}

#[test]
fn rules_with_resource_names_through_bindings_never_allow_a_collection() {
    let rbac = ClusterRbac::from_objects([
        cluster_role(
            "one-cm",
            json!([named_rule(&["get", "list", "watch"], &[""], &["configmaps"], &["cm1"])]),
        ),
        cluster_binding("one-cm", "one-cm", json!([subject("User", "alice")])),
    ]);
    let alice = user("alice", &[]);
    assert!(rbac.authorize(&alice, &get("configmaps", "a", "cm1")).is_allowed());
    assert!(!rbac.authorize(&alice, &get("configmaps", "a", "cm2")).is_allowed());
    let list = Request { verb: "list", resource: "configmaps", namespace: "a", ..Request::default() };
    assert!(!rbac.authorize(&alice, &list).is_allowed());
    assert_eq!(rbac.scope(&alice, "list", "", "configmaps"), Scope::None);
}

#[test]
fn non_resource_requests_are_granted_by_cluster_role_bindings_only() {
    let urls = json!([{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/logs/*"]}]);
    let rbac = ClusterRbac::from_objects([
        cluster_role("urls", urls),
        cluster_binding("health", "urls", json!([subject("Group", "ops")])),
        binding("a", "local-health", "ClusterRole", "urls", json!([subject("User", "alice")])),
    ]);
    assert!(rbac.authorize_path(&user("x", &["ops"]), "get", "/logs/a").is_allowed());
    assert!(!rbac.authorize_path(&user("x", &["ops"]), "get", "/metrics").is_allowed());
    assert!(!rbac.authorize_path(&user("alice", &[]), "get", "/healthz").is_allowed());
}

#[test]
fn malformed_objects_are_skipped_and_counted_and_the_rest_still_decides() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        cluster_binding("alice", "pods", json!([subject("User", "alice")])),
        (RbacKind::ClusterRole, json!("a string")),
        (RbacKind::ClusterRole, json!({"metadata": {"name": "x"}, "rules": [{"verbs": "get"}]})),
        (RbacKind::Role, json!({"metadata": {"name": "no-namespace"}, "rules": []})),
        (RbacKind::RoleBinding, json!({"metadata": {"name": "b", "namespace": "a"}})),
        (
            RbacKind::ClusterRoleBinding,
            json!({"metadata": {}, "roleRef": {"kind": "ClusterRole", "name": "pods"}}),
        ),
        (RbacKind::ClusterRoleBinding, json!({"metadata": {"name": "s"}, "roleRef": {}, "subjects": [1]})),
        (RbacKind::ClusterRoleBinding, Value::Null),
    ]);
    assert_eq!(rbac.malformed(), 7);
    assert_eq!((rbac.roles(), rbac.bindings()), (1, 1));
    assert!(rbac.authorize(&user("alice", &[]), &get("pods", "a", "p")).is_allowed());
}

#[test]
fn nulls_and_missing_lists_read_as_empty_as_the_api_server_writes_them() {
    let rbac = ClusterRbac::from_objects([
        (
            RbacKind::ClusterRole,
            json!({"metadata": {"name": "aggregated"}, "rules": null,
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"x": "y"}}]}}),
        ),
        (
            RbacKind::ClusterRoleBinding,
            json!({"metadata": {"name": "nobody"},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "aggregated"}}),
        ),
        (
            RbacKind::ClusterRoleBinding,
            json!({"metadata": {"name": "null"}, "subjects": null,
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "aggregated"}}),
        ),
    ]);
    assert_eq!((rbac.malformed(), rbac.roles(), rbac.bindings()), (0, 1, 2));
}

#[test]
fn a_later_object_of_the_same_name_replaces_an_earlier_one() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", json!([])),
        cluster_role("pods", pod_reader()),
        cluster_binding("b", "pods", json!([subject("User", "bob")])),
        cluster_binding("b", "pods", json!([subject("User", "alice")])),
    ]);
    assert_eq!((rbac.roles(), rbac.bindings()), (1, 1));
    assert!(rbac.authorize(&user("alice", &[]), &get("pods", "", "p")).is_allowed());
    assert!(!rbac.authorize(&user("bob", &[]), &get("pods", "", "p")).is_allowed());
}

#[test]
fn scope_is_all_for_a_cluster_role_binding_the_role_bindings_namespaces_or_none() {
    let rbac = ClusterRbac::from_objects([
        cluster_role("pods", pod_reader()),
        role("c", "pods", pod_reader()),
        cluster_binding("ops-pods", "pods", json!([subject("Group", "ops")])),
        binding("a", "alice-pods", "ClusterRole", "pods", json!([subject("User", "alice")])),
        binding("b", "devs-pods", "ClusterRole", "pods", json!([subject("Group", "devs")])),
        binding("c", "alice-role", "Role", "pods", json!([subject("User", "alice")])),
        binding("d", "alice-missing", "Role", "pods", json!([subject("User", "alice")])),
    ]);
    let set = |names: &[&str]| Scope::Namespaces(names.iter().map(|s| s.to_string()).collect());
    assert_eq!(rbac.scope(&user("x", &["ops", "devs"]), "list", "", "pods"), Scope::All);
    assert_eq!(rbac.scope(&user("alice", &["devs"]), "list", "", "pods"), set(&["a", "b", "c"]));
    assert_eq!(rbac.scope(&user("alice", &[]), "watch", "", "pods"), Scope::None);
    assert_eq!(rbac.scope(&user("alice", &[]), "list", "apps", "pods"), Scope::None);
    let scope = rbac.scope(&user("alice", &[]), "list", "", "pods");
    assert!(scope.allows("a") && scope.allows("c"));
    assert!(!scope.allows("b") && !scope.allows("d") && !scope.allows(""));
    assert!(Scope::All.allows("") && !Scope::None.allows("a"));
}

#[tokio::test]
async fn load_reads_one_clusters_rbac_objects_from_the_store_across_pages() {
    use crate::store::{Batch, Change, Expect, Store, StoredObject};

    let store = Store::connect("sqlite::memory:").await.unwrap();
    let mut uid = 0;
    let mut change = |(kind, mut object): (RbacKind, Value)| {
        uid += 1;
        object["metadata"]["uid"] = json!(format!("u{uid}"));
        Change::Upsert(StoredObject::from_json(kind.gvr(), kind.as_str(), object).unwrap())
    };
    // More objects of each kind than a page holds.
    let mut c1: Vec<Change> = (0..7)
        .map(|i| {
            change(cluster_binding(&format!("b{i}"), "pods", json!([subject("User", &format!("u{i}"))])))
        })
        .collect();
    c1.extend((0..4).map(|i| change(cluster_role(&format!("r{i}"), json!([])))));
    c1.push(change(cluster_role("pods", pod_reader())));
    c1.push(change(role("a", "reader", pod_reader())));
    c1.push(change(binding("a", "alice", "Role", "reader", json!([subject("User", "alice")]))));
    let pod = StoredObject::from_json(
        mc_types::Gvr::new("", "v1", "pods"),
        "Pod",
        json!({"metadata": {"name": "p", "namespace": "a", "uid": "pod"}}),
    )
    .unwrap();
    c1.push(Change::Upsert(pod));
    let c2 =
        vec![change(cluster_binding("everyone", "pods", json!([subject("Group", "system:authenticated")])))];
    store.apply(&[Batch::new("c1", &c1, Expect::Any), Batch::new("c2", &c2, Expect::Any)]).await.unwrap();

    let rbac = load(&store, "c1").await.unwrap();
    assert_eq!((rbac.roles(), rbac.bindings(), rbac.malformed()), (6, 8, 0));
    assert!(rbac.authorize(&user("u6", &[]), &get("pods", "", "p")).is_allowed());
    assert!(rbac.authorize(&user("alice", &[]), &get("pods", "a", "p")).is_allowed());
    assert!(!rbac.authorize(&user("x", &["system:authenticated"]), &get("pods", "a", "p")).is_allowed());

    let other = load(&store, "c2").await.unwrap();
    assert_eq!((other.roles(), other.bindings()), (0, 1));
    assert!(!other.authorize(&user("x", &["system:authenticated"]), &get("pods", "a", "p")).is_allowed());
    assert_eq!(load(&store, "c3").await.unwrap().bindings(), 0);
}

#[tokio::test]
async fn load_fails_with_a_store_error_naming_the_cluster_and_type() {
    let store = crate::store::Store::connect("sqlite::memory:").await.unwrap();
    store.close().await;
    let err = load(&store, "c1").await.unwrap_err();
    assert!(err.to_string().contains("rbac.authorization.k8s.io/v1/roles of cluster c1"), "{err}");
    assert!(std::error::Error::source(&err).is_some());
}

/// The member's `VisitRulesFor` transcribed literally over the objects' JSON, with no index:
/// every ClusterRoleBinding, then every RoleBinding of the namespace. A cluster holds one
/// object per kind, namespace and name: of several given, the last counts.
fn reference(objects: &[(RbacKind, Value)], user: &User, req: &Request<'_>) -> bool {
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let key =
        |(k, o): &(RbacKind, Value)| (*k, text(&o["metadata"]["namespace"]), text(&o["metadata"]["name"]));
    let objects: Vec<&(RbacKind, Value)> = objects
        .iter()
        .enumerate()
        .filter(|(i, o)| !objects[i + 1..].iter().any(|l| key(l) == key(o)))
        .map(|(_, o)| o)
        .collect();
    let of = |kind: RbacKind| objects.iter().filter(move |(k, _)| *k == kind).map(|(_, o)| o);
    let rules_of = |role_ref: &Value, namespace: &str| -> Vec<Value> {
        let name = text(&role_ref["name"]);
        let found = match role_ref["kind"].as_str() {
            Some("Role") => of(RbacKind::Role).find(|r| {
                !namespace.is_empty()
                    && text(&r["metadata"]["namespace"]) == namespace
                    && text(&r["metadata"]["name"]) == name
            }),
            Some("ClusterRole") => of(RbacKind::ClusterRole).find(|r| text(&r["metadata"]["name"]) == name),
            _ => None,
        };
        found.and_then(|r| r["rules"].as_array().cloned()).unwrap_or_default()
    };
    let applies = |subjects: &Value, namespace: &str| {
        subjects.as_array().into_iter().flatten().any(|s| match s["kind"].as_str() {
            Some("User") => user.name == text(&s["name"]),
            Some("Group") => user.groups.contains(&text(&s["name"])),
            Some("ServiceAccount") => {
                let ns = match text(&s["namespace"]) {
                    ns if ns.is_empty() => namespace.to_string(),
                    ns => ns,
                };
                !ns.is_empty() && user.name == format!("system:serviceaccount:{ns}:{}", text(&s["name"]))
            }
            _ => false,
        })
    };
    let allows = |rules: Vec<Value>| {
        rules.into_iter().any(|r| serde_json::from_value::<super::objects::Rule>(r).unwrap().allows(req))
    };
    let cluster = of(RbacKind::ClusterRoleBinding)
        .any(|b| applies(&b["subjects"], "") && allows(rules_of(&b["roleRef"], "")));
    cluster
        || (!req.namespace.is_empty()
            && of(RbacKind::RoleBinding).filter(|b| text(&b["metadata"]["namespace"]) == req.namespace).any(
                |b| applies(&b["subjects"], req.namespace) && allows(rules_of(&b["roleRef"], req.namespace)),
            ))
}

// Small pools, so that random objects often grant random requests.
const NAMESPACES: &[&str] = &["a", "b"];
const VERBS: &[&str] = &["get", "list"];

fn some_of(from: &'static [&'static str], most: usize) -> impl Strategy<Value = Vec<&'static str>> {
    proptest::sample::subsequence(from, 1..=most)
}

fn one_of(from: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    proptest::sample::select(from)
}

fn rule_strategy() -> impl Strategy<Value = Value> {
    let verbs = some_of(&["get", "list", "*"], 2);
    let groups = some_of(&["", "apps", "*"], 2);
    let resources = some_of(&["pods", "deployments", "pods/log", "*", "*/log"], 3);
    let names = one_of(&["", "", "", "", "x"]);
    (verbs, groups, resources, names)
        .prop_map(|(v, g, r, n)| if n.is_empty() { rule(&v, &g, &r) } else { named_rule(&v, &g, &r, &[n]) })
}

fn subject_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => one_of(&["alice", "bob"]).prop_map(|n| subject("User", n)),
        4 => one_of(&["devs", "devs", "ops"]).prop_map(|n| subject("Group", n)),
        3 => (one_of(&["", "a", "b"]), one_of(&["robot", "robot", "other"])).prop_map(|(ns, n)| sa(ns, n)),
        1 => one_of(&["user", "group", "Robot"]).prop_map(|kind| subject(kind, "alice")),
    ]
}

fn object_strategy() -> impl Strategy<Value = (RbacKind, Value)> {
    use RbacKind::*;
    let kind = proptest::sample::select(RbacKind::ALL.to_vec());
    let namespace = one_of(NAMESPACES);
    let role_name = one_of(&["r1", "r1", "r2"]);
    let rules = proptest::collection::vec(rule_strategy(), 0..4);
    let binding_name = one_of(&["b1", "b2", "b3", "b4"]);
    let role_kind = one_of(&["Role", "ClusterRole", "ClusterRole", "Other"]);
    let role_ref = one_of(&["r1", "r1", "r2", "missing"]);
    let subjects = proptest::collection::vec(subject_strategy(), 1..4);
    (kind, namespace, role_name, rules, binding_name, role_kind, role_ref, subjects).prop_map(
        |(kind, ns, role_name, rules, binding_name, role_kind, role_ref, subjects)| {
            let mut object = match kind {
                Role | ClusterRole => json!({"metadata": {"name": role_name}, "rules": rules}),
                RoleBinding | ClusterRoleBinding => json!({
                    "metadata": {"name": binding_name},
                    "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": role_ref},
                    "subjects": subjects,
                }),
            };
            if matches!(kind, Role | RoleBinding) {
                object["metadata"]["namespace"] = json!(ns);
            }
            (kind, object)
        },
    )
}

fn user_strategy() -> impl Strategy<Value = User> {
    let name = one_of(&["alice", "system:serviceaccount:a:robot", "system:serviceaccount:b:robot", "carol"]);
    (name, proptest::sample::subsequence(&["devs", "ops"][..], 0..=2))
        .prop_map(|(name, groups)| user(name, &groups))
}

/// A request with its own strings (drawn from objects).
#[derive(Clone, Debug)]
struct Drawn {
    verb: String,
    api_group: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
}

impl Drawn {
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

/// A caller and request that one of the bindings grants when its role and rule resolve: a
/// subject of a binding, a rule of its role (where the binding applies). `picks` choose the
/// binding, subject, rule and the values among the rule's; what cannot be drawn stays as given.
fn near_a_grant(
    objects: &[(RbacKind, Value)],
    picks: &[proptest::sample::Index; 6],
    mut user: User,
    mut d: Drawn,
) -> (User, Drawn) {
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let bindings: Vec<&(RbacKind, Value)> = objects
        .iter()
        .filter(|(k, _)| matches!(k, RbacKind::RoleBinding | RbacKind::ClusterRoleBinding))
        .collect();
    if bindings.is_empty() {
        return (user, d);
    }
    let (kind, binding) = picks[0].get(&bindings);
    let namespace = text(&binding["metadata"]["namespace"]);
    if *kind == RbacKind::RoleBinding {
        d.namespace = namespace.clone();
    }
    if let Some(subjects) = binding["subjects"].as_array().filter(|s| !s.is_empty()) {
        let subject = picks[1].get(subjects);
        let name = text(&subject["name"]);
        match subject["kind"].as_str() {
            Some("User") => user.name = name,
            Some("Group") => user.groups.push(name),
            Some("ServiceAccount") => {
                let ns = if text(&subject["namespace"]).is_empty() {
                    namespace.clone()
                } else {
                    text(&subject["namespace"])
                };
                user.name = format!("system:serviceaccount:{ns}:{name}");
            }
            _ => {}
        }
    }
    let role_ref = &binding["roleRef"];
    let role_kind = if role_ref["kind"] == "Role" { RbacKind::Role } else { RbacKind::ClusterRole };
    let role = objects.iter().rev().find(|(k, o)| {
        *k == role_kind
            && o["metadata"]["name"] == role_ref["name"]
            && (role_kind == RbacKind::ClusterRole || text(&o["metadata"]["namespace"]) == namespace)
    });
    let Some(rules) = role.and_then(|(_, o)| o["rules"].as_array()).filter(|r| !r.is_empty()) else {
        return (user, d);
    };
    let rule = picks[2].get(rules);
    let from = |field: &str, pick: &proptest::sample::Index| {
        let list = rule[field].as_array().filter(|l| !l.is_empty())?;
        Some(text(pick.get(list))).filter(|v| v != "*")
    };
    if let Some(verb) = from("verbs", &picks[3]) {
        d.verb = verb;
    }
    if let Some(group) = from("apiGroups", &picks[4]) {
        d.api_group = group;
    }
    match from("resources", &picks[5]).as_deref().map(|r| r.split_once('/').unwrap_or((r, ""))) {
        Some(("*", sub)) => d.subresource = sub.to_string(),
        Some((resource, sub)) => (d.resource, d.subresource) = (resource.to_string(), sub.to_string()),
        None => {}
    }
    if let Some(name) = from("resourceNames", &picks[0]) {
        d.name = name;
    }
    (user, d)
}

fn drawn_strategy() -> impl Strategy<Value = Drawn> {
    let verb = one_of(VERBS);
    let api_group = one_of(&["", "apps"]);
    let resource = one_of(&["pods", "deployments"]);
    let subresource = one_of(&["", "", "", "log", "status"]);
    let namespace = one_of(&["", "a", "b", "c"]);
    let name = one_of(&["", "x", "y"]);
    (verb, api_group, resource, subresource, namespace, name).prop_map(|(v, g, r, s, ns, n)| Drawn {
        verb: v.into(),
        api_group: g.into(),
        resource: r.into(),
        subresource: s.into(),
        namespace: ns.into(),
        name: n.into(),
    })
}

/// Half the cases near a grant of the objects (changed in one part now and then: the edges of
/// the grant), half anything.
fn case_strategy() -> impl Strategy<Value = (Vec<(RbacKind, Value)>, User, Drawn)> {
    let objects = proptest::collection::vec(object_strategy(), 0..16);
    let picks = proptest::array::uniform6(any::<proptest::sample::Index>());
    let near = any::<bool>();
    let change = proptest::option::weighted(0.3, (0..5usize, drawn_strategy()));
    (objects, user_strategy(), drawn_strategy(), picks, near, change).prop_map(
        |(objects, user, drawn, picks, near, change)| {
            if !near {
                return (objects, user, drawn);
            }
            let (user, mut d) = near_a_grant(&objects, &picks, user, drawn);
            if let Some((part, other)) = change {
                match part {
                    0 => d.verb = other.verb,
                    1 => d.api_group = other.api_group,
                    2 => d.subresource = other.subresource,
                    3 => d.namespace = other.namespace,
                    _ => d.name = other.name,
                }
            }
            (objects, user, d)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// The indexed decision is the member's literal rule resolution, for any objects and request.
    #[test]
    fn authorize_agrees_with_the_members_rule_resolution((objects, user, drawn) in case_strategy()) {
        let rbac = ClusterRbac::from_objects(objects.clone());
        let req = drawn.request();
        prop_assert_eq!(rbac.authorize(&user, &req).is_allowed(), reference(&objects, &user, &req), "{:?}", req);
    }

    /// A scope holds a namespace exactly when a request in that namespace is allowed, and is
    /// `All` exactly when a cluster-wide one is.
    #[test]
    fn scope_holds_exactly_the_namespaces_where_authorize_allows((objects, user, drawn) in case_strategy()) {
        let rbac = ClusterRbac::from_objects(objects);
        let (verb, api_group, resource) = (drawn.verb.as_str(), drawn.api_group.as_str(), drawn.resource.as_str());
        let scope = rbac.scope(&user, verb, api_group, resource);
        if let Scope::Namespaces(set) = &scope {
            prop_assert!(!set.is_empty());
            prop_assert!(set.iter().all(|n| NAMESPACES.contains(&n.as_str())));
        }
        for namespace in ["", "a", "b", "c"] {
            let req = Request { verb, api_group, resource, namespace, ..Request::default() };
            prop_assert_eq!(scope.allows(namespace), rbac.authorize(&user, &req).is_allowed(), "{} {:?}", namespace, scope);
        }
    }
}

#[test]
fn the_privileged_group_is_allowed_everything_before_rbac_is_asked() {
    // No binding at all: RBAC alone would deny everything.
    let rbac = ClusterRbac::from_objects([]);
    let master = user("root", &["system:masters", "system:authenticated"]);
    assert_eq!(
        by(&rbac, &master, get("secrets", "kube-system", "token")).as_deref(),
        Some("Group/system:masters")
    );
    assert!(rbac.authorize_path(&master, "get", "/metrics").is_allowed());
    assert_eq!(rbac.scope(&master, "list", "", "secrets"), Scope::All);
    let other = user("root", &["system:authenticated"]);
    assert_eq!(by(&rbac, &other, get("secrets", "kube-system", "token")), None);
    assert_eq!(rbac.scope(&other, "list", "", "secrets"), Scope::None);
}
