//! `/v1/auth/can-i`: each cluster's RBAC answers for a Kubernetes identity, a static token's
//! role for itself, and only a caller that may impersonate may ask for someone else.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use super::{ALICE, READ_TOKEN, TestApi, encoded, rbac};
use crate::authz::User;
use crate::store::StoredObject;

/// A binding of `kind` named `name` of the ClusterRole `role` to these subjects.
fn binding(kind: &str, namespace: Option<&str>, name: &str, role: &str, subjects: Value) -> StoredObject {
    let resource = if kind == "RoleBinding" { "rolebindings" } else { "clusterrolebindings" };
    let role_ref = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role});
    rbac(resource, kind, namespace, name, json!({"roleRef": role_ref, "subjects": subjects}))
}

/// The fixture, with in both clusters a `view` ClusterRole (ConfigMaps and Pods: get, list,
/// watch) and a `cm-a1-editor` one (update of the ConfigMap `cm-a1` and pods' `log`); alpha
/// binds alice to `view` in `default` and to `cm-a1-editor` in `default`; beta binds the group
/// `devs` to `view` everywhere. alice's token is known.
async fn fixture() -> TestApi {
    let api = TestApi::new().await;
    let view = json!({"rules": [
        {"apiGroups": [""], "resources": ["configmaps", "pods"], "verbs": ["get", "list", "watch"]},
    ]});
    let editor = json!({"rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["cm-a1"], "verbs": ["update"]},
        {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
    ]});
    for cluster in ["alpha", "beta"] {
        api.write(cluster, rbac("clusterroles", "ClusterRole", None, "view", view.clone())).await;
        api.write(cluster, rbac("clusterroles", "ClusterRole", None, "cm-a1-editor", editor.clone())).await;
    }
    let alice = json!([{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]);
    api.write("alpha", binding("RoleBinding", Some("default"), "alice-view", "view", alice.clone())).await;
    api.write("alpha", binding("RoleBinding", Some("default"), "alice-edit", "cm-a1-editor", alice)).await;
    let devs = json!([{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"}]);
    api.write("beta", binding("ClusterRoleBinding", None, "devs-view", "view", devs)).await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;
    api
}

/// `(cluster, allowed, reason)` of each answer, asserting a 200.
#[track_caller]
fn answers(answer: &super::Answer) -> Vec<(String, bool, String)> {
    let array = answer.array();
    array
        .iter()
        .map(|a| {
            let cluster = a["cluster"].as_str().unwrap().to_string();
            (cluster, a["allowed"].as_bool().unwrap(), a["reason"].as_str().unwrap().to_string())
        })
        .collect()
}

fn yes(cluster: &str, reason: &str) -> (String, bool, String) {
    (cluster.to_string(), true, reason.to_string())
}

fn no(cluster: &str) -> (String, bool, String) {
    (cluster.to_string(), false, String::new())
}

async fn ask(api: &TestApi, query: &str, token: &str) -> super::Answer {
    api.call(Method::GET, &format!("/v1/auth/can-i?{query}"), Some(token)).await
}

#[tokio::test]
async fn an_identity_is_answered_by_each_clusters_rbac_with_the_binding_that_allows_it() {
    let api = fixture().await;
    let default = ask(&api, "verb=list&gvr=configmaps&namespace=default", ALICE).await;
    assert_eq!(answers(&default), [yes("alpha", "RoleBinding/default/alice-view"), no("beta")]);
    // Another namespace, across every namespace, another verb or a type not in the role: no.
    for query in [
        "verb=list&gvr=configmaps&namespace=team",
        "verb=list&gvr=configmaps",
        "verb=delete&gvr=v1/configmaps&namespace=default",
        "verb=get&gvr=secrets&namespace=default",
    ] {
        assert_eq!(answers(&ask(&api, query, ALICE).await), [no("alpha"), no("beta")], "{query}");
    }
}

#[tokio::test]
async fn resource_names_and_subresources_are_part_of_the_question() {
    let api = fixture().await;
    let ask_alpha = |query: &'static str| {
        let api = &api;
        async move { answers(&ask(api, &format!("{query}&namespace=default&cluster=alpha"), ALICE).await) }
    };
    let edit = || yes("alpha", "RoleBinding/default/alice-edit");
    assert_eq!(ask_alpha("verb=update&gvr=configmaps&name=cm-a1").await, [edit()]);
    assert_eq!(ask_alpha("verb=update&gvr=configmaps&name=cm-a2").await, [no("alpha")]);
    assert_eq!(
        ask_alpha("verb=update&gvr=configmaps").await,
        [no("alpha")],
        "a rule with names needs a name"
    );
    assert_eq!(ask_alpha("verb=get&gvr=pods&name=p-a1&subresource=log").await, [edit()]);
    assert_eq!(ask_alpha("verb=get&gvr=pods&name=p-a1&subresource=exec").await, [no("alpha")]);
}

#[tokio::test]
async fn static_tokens_are_answered_by_their_role() {
    let api = fixture().await;
    let admin = api.get("/v1/auth/can-i?verb=delete&gvr=deployments.apps").await;
    let role = "static token: admin role";
    assert_eq!(answers(&admin), [yes("alpha", role), yes("beta", role)]);
    for verb in ["get", "list", "watch"] {
        let read = ask(&api, &format!("verb={verb}&gvr=secrets&namespace=team"), READ_TOKEN).await;
        let role = "static token: read role";
        assert_eq!(answers(&read), [yes("alpha", role), yes("beta", role)], "{verb}");
    }
    for verb in ["create", "delete", "*"] {
        let read = ask(&api, &format!("verb={}&gvr=secrets", encoded(verb)), READ_TOKEN).await;
        assert_eq!(answers(&read), [no("alpha"), no("beta")], "{verb}");
    }
}

#[tokio::test]
async fn an_admin_token_may_ask_for_another_user_and_its_groups() {
    let api = fixture().await;
    let all_sas = json!([{"kind": "Group", "name": "system:serviceaccounts:team"}]);
    api.write("alpha", binding("ClusterRoleBinding", None, "team-sas", "view", all_sas)).await;
    let alice = api.get("/v1/auth/can-i?verb=get&gvr=pods&namespace=default&user=alice").await;
    assert_eq!(answers(&alice), [yes("alpha", "RoleBinding/default/alice-view"), no("beta")]);
    let bob = api.get("/v1/auth/can-i?verb=watch&gvr=pods&user=bob").await;
    assert_eq!(answers(&bob), [no("alpha"), no("beta")]);
    let dev = api.get("/v1/auth/can-i?verb=watch&gvr=pods&user=bob&group=ops&group=devs").await;
    assert_eq!(answers(&dev), [no("alpha"), yes("beta", "ClusterRoleBinding/devs-view")]);
    // A ServiceAccount asked for without groups is in its ServiceAccount groups, as kube-apiserver
    // makes it when impersonated.
    let sa = format!("user={}", encoded("system:serviceaccount:team:ci"));
    let ci = api.get(&format!("/v1/auth/can-i?verb=list&gvr=pods&{sa}&cluster=alpha")).await;
    assert_eq!(answers(&ci), [yes("alpha", "ClusterRoleBinding/team-sas")]);
    let ci = api.get(&format!("/v1/auth/can-i?verb=list&gvr=pods&{sa}&cluster=alpha&group=other")).await;
    assert_eq!(answers(&ci), [no("alpha")], "groups given are the groups");
}

#[tokio::test]
async fn only_callers_that_may_impersonate_may_ask_for_someone_else() {
    let api = fixture().await;
    for query in ["user=bob", "user=alice", "user=bob&group=devs"] {
        let message =
            ask(&api, &format!("verb=get&gvr=pods&{query}"), ALICE).await.error(StatusCode::FORBIDDEN);
        assert!(
            message.contains("alice may impersonate") && message.contains("right to impersonate"),
            "{message}"
        );
        let message =
            ask(&api, &format!("verb=get&gvr=pods&{query}"), READ_TOKEN).await.error(StatusCode::FORBIDDEN);
        assert!(message.contains("read role"), "{message}");
    }
}

#[tokio::test]
async fn one_cluster_is_answered_when_asked_and_a_namespace_of_a_cluster_scoped_type_is_left_out() {
    let api = fixture().await;
    let beta = ask(&api, "verb=get&gvr=pods&cluster=beta", ALICE).await;
    assert_eq!(answers(&beta), [no("beta")]);
    let nodes = json!({"rules": [{"apiGroups": [""], "resources": ["namespaces"], "verbs": ["list"]}]});
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "ns-reader", nodes)).await;
    let alice = json!([{"kind": "User", "name": "alice"}]);
    api.write("alpha", binding("RoleBinding", Some("default"), "alice-ns", "ns-reader", alice)).await;
    // A RoleBinding never allows a cluster-scoped type, whatever namespace is asked about.
    let ns = ask(&api, "verb=list&gvr=namespaces&namespace=default&cluster=alpha", ALICE).await;
    assert_eq!(answers(&ns), [no("alpha")]);
    assert!(
        ns.warnings()
            .iter()
            .any(|w| w.contains("namespaces is not namespaced: namespace default is left out")),
        "{:?}",
        ns.warnings()
    );
}

#[tokio::test]
async fn a_cluster_not_synced_is_answered_with_a_warning() {
    let api = fixture().await;
    api.unsync("beta");
    let answer = ask(&api, "verb=get&gvr=pods", ALICE).await;
    assert_eq!(answers(&answer).len(), 2);
    assert!(answer.warnings().iter().any(|w| w.contains("beta")), "{:?}", answer.warnings());
    assert!(!answer.warnings().iter().any(|w| w.contains("alpha")), "{:?}", answer.warnings());
}

#[tokio::test]
async fn every_parameter_is_checked_and_errors_have_the_v1_shape() {
    let api = fixture().await;
    let long_user = format!("verb=get&gvr=pods&user={}", "u".repeat(254));
    let long_verb = format!("verb={}&gvr=pods", "a".repeat(64));
    for (query, says) in [
        ("gvr=pods", "missing parameter verb"),
        ("verb=get", "missing parameter gvr"),
        ("verb=ge%20t&gvr=pods", "verb \"ge t\" is invalid"),
        ("verb=get%00&gvr=pods", "verb"),
        ("verb=get&gvr=pods&namespace=Default", "namespace \"Default\" is invalid"),
        ("verb=get&gvr=pods&name=a%2Fb", "name \"a/b\" is invalid"),
        ("verb=get&gvr=pods&subresource=Log", "subresource \"Log\" is invalid"),
        ("verb=get&gvr=pods&cluster=-a", "cluster name \"-a\" is invalid"),
        ("verb=get&gvr=pods&user=a%01", "user \"a\" is invalid"),
        (long_user.as_str(), "at most 253"),
        ("verb=get&gvr=pods&user=a&group=", "group \"\" is invalid"),
        ("verb=get&gvr=pods&group=devs", "group needs user"),
        ("verb=get&gvr=pods&verb=list", "given more than once"),
        ("verb=get&gvr=pods&namespaces=default", "unknown query parameter \"namespaces\""),
        (long_verb.as_str(), "at most 63"),
    ] {
        let message = api.get(&format!("/v1/auth/can-i?{query}")).await.error(StatusCode::BAD_REQUEST);
        assert!(message.contains(says), "{query}: {message}");
    }
    let message = api.get("/v1/auth/can-i?verb=get&gvr=nothings").await.error(StatusCode::NOT_FOUND);
    assert!(message.contains("nothings"), "{message}");
    let message = api.get("/v1/auth/can-i?verb=get&gvr=widgets").await.error(StatusCode::NOT_FOUND);
    assert!(message.contains("a.example.com") && message.contains("b.example.com"), "ambiguous: {message}");
    let message =
        api.get("/v1/auth/can-i?verb=get&gvr=pods&cluster=gamma").await.error(StatusCode::NOT_FOUND);
    assert!(message.contains("unknown cluster \"gamma\" (known: alpha, beta)"), "{message}");
    // Without a token: 401, as every /v1 path.
    api.call(Method::GET, "/v1/auth/can-i?verb=get&gvr=pods", None).await.error(StatusCode::UNAUTHORIZED);
    // A question is asked with GET only.
    api.call(Method::POST, "/v1/auth/can-i?verb=get&gvr=pods", Some(super::TOKEN))
        .await
        .error(StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn the_openapi_document_describes_the_question() {
    let api = TestApi::new().await;
    let document = api.call(Method::GET, "/openapi.json", None).await.json();
    let operation = &document["paths"]["/v1/auth/can-i"]["get"];
    let names: Vec<&str> =
        operation["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["verb", "gvr", "namespace", "name", "subresource", "cluster", "user", "group"]);
    assert_eq!(
        operation["responses"]["200"]["content"]["application/json"]["schema"]["items"]["$ref"],
        "#/components/schemas/CanIAnswer"
    );
    assert!(operation["responses"]["403"].is_object());
}

/// Posts a `SelfSubjectAccessReview` of these `resourceAttributes` (or of a whole `spec`, when
/// it has `nonResourceAttributes`) to `path` as `token`.
async fn review(api: &TestApi, path: &str, token: &str, attributes: Value) -> super::Answer {
    let spec = if attributes.get("nonResourceAttributes").is_some() {
        attributes
    } else {
        json!({"resourceAttributes": attributes})
    };
    let body = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                      "metadata": {"creationTimestamp": null}, "spec": spec});
    let request = TestApi::request_as(Method::POST, path, Some(token))
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    api.send(request).await
}

const SSAR: &str = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

/// `(allowed, reason)` of a review, asserting a `201`.
#[track_caller]
fn reviewed(answer: &super::Answer) -> (bool, String) {
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let review = answer.json();
    assert_eq!(review["kind"], "SelfSubjectAccessReview", "{review}");
    let status = &review["status"];
    (status["allowed"].as_bool().unwrap(), status["reason"].as_str().unwrap_or_default().to_string())
}

#[tokio::test]
async fn a_self_subject_access_review_is_allowed_when_a_cluster_in_scope_allows_it() {
    let api = fixture().await;
    let list_default = json!({"verb": "list", "resource": "configmaps", "namespace": "default"});
    let allowed = review(&api, SSAR, ALICE, list_default.clone()).await;
    assert_eq!(
        reviewed(&allowed),
        (true, "allowed in cluster alpha by RoleBinding/default/alice-view".into())
    );
    // Only in alpha: under /clusters/beta/ it is not, and the spec comes back as sent.
    let in_beta = review(&api, &format!("/clusters/beta{SSAR}"), ALICE, list_default).await;
    assert_eq!(reviewed(&in_beta), (false, String::new()));
    assert_eq!(in_beta.json()["spec"]["resourceAttributes"]["namespace"], "default");
    let secrets = json!({"verb": "list", "resource": "secrets", "namespace": "default"});
    assert_eq!(reviewed(&review(&api, SSAR, ALICE, secrets).await), (false, String::new()));
    // A path, through the member's ClusterRoleBindings (none for alice here).
    let version = json!({"nonResourceAttributes": {"verb": "get", "path": "/version"}});
    assert!(!reviewed(&review(&api, SSAR, ALICE, version.clone()).await).0);
    assert!(reviewed(&review(&api, SSAR, super::TOKEN, version).await).0, "admin token");
}

#[tokio::test]
async fn a_self_subject_access_review_in_protobuf_is_answered_in_json() {
    let api = fixture().await;
    let body = crate::http::kube::protobuf_review(&[(1, "default"), (2, "list"), (3, ""), (5, "configmaps")]);
    let request = TestApi::request_as(Method::POST, SSAR, Some(ALICE))
        .header("content-type", "application/vnd.kubernetes.protobuf")
        .header("accept", "application/vnd.kubernetes.protobuf,application/json")
        .body(axum::body::Body::from(body))
        .unwrap();
    let answer = api.send(request).await;
    assert_eq!(
        reviewed(&answer),
        (true, "allowed in cluster alpha by RoleBinding/default/alice-view".into())
    );
    assert_eq!(answer.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn a_self_subject_access_review_denies_writes_as_this_api_is_read_only() {
    let api = fixture().await;
    for token in [super::TOKEN, ALICE] {
        let update =
            json!({"verb": "update", "resource": "configmaps", "namespace": "default", "name": "cm-a1"});
        let answer = review(&api, SSAR, token, update).await;
        let (allowed, reason) = reviewed(&answer);
        assert!(!allowed && reason.contains("read-only"), "{reason}");
        assert_eq!(answer.json()["status"]["denied"], true);
    }
    let read = json!({"verb": "watch", "group": "apps", "resource": "deployments"});
    assert_eq!(
        reviewed(&review(&api, SSAR, READ_TOKEN, read).await),
        (true, "allowed in cluster alpha by static token: read role".into())
    );
}

#[tokio::test]
async fn a_malformed_self_subject_access_review_is_a_status() {
    let api = fixture().await;
    let both =
        json!({"resourceAttributes": {"verb": "get"}, "nonResourceAttributes": {"verb": "get", "path": "/"}});
    let body =
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": both});
    let post = |body: String, media: &str| {
        TestApi::request_as(Method::POST, SSAR, Some(ALICE))
            .header("content-type", media)
            .body(axum::body::Body::from(body))
            .unwrap()
    };
    api.send(post(body.to_string(), "application/json"))
        .await
        .status_object(StatusCode::UNPROCESSABLE_ENTITY, "Invalid");
    api.send(post("{".into(), "application/json")).await.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    api.send(post("\u{0}".into(), "application/vnd.kubernetes.protobuf"))
        .await
        .status_object(StatusCode::BAD_REQUEST, "BadRequest");
    api.send(post("a: b".into(), "application/yaml"))
        .await
        .status_object(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UnsupportedMediaType");
    api.get(SSAR).await.status_object(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed");
    let unknown = TestApi::request_as(Method::POST, &format!("/clusters/nope{SSAR}"), Some(ALICE))
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    api.send(unknown).await.status_object(StatusCode::NOT_FOUND, "NotFound");
}
