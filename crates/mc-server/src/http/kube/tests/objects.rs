//! List and get on the standard paths: every cluster's objects, or one cluster's under
//! `/clusters/{name}/`; selectors, pages, errors and the read-only 405.

use axum::body::Body;
use axum::http::{Method, StatusCode, header};
use mc_types::crd::CLUSTER_ANNOTATION;

use crate::http::testing::{Answer, TestApi, cluster_and_name, encoded};

/// The `continue` of a list answer (asserting a 200).
#[track_caller]
fn continued(answer: &Answer) -> String {
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    answer.json()["metadata"]["continue"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_list_is_a_kind_list_of_every_clusters_objects_annotated_with_their_cluster() {
    let api = TestApi::new().await;
    let answer = api.get("/api/v1/configmaps").await;
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let list = answer.json();
    assert_eq!(list["kind"], "ConfigMapList");
    assert_eq!(list["apiVersion"], "v1");
    assert_eq!(list["metadata"]["continue"], "");
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap();
    assert!(rv.starts_with("mc."), "{rv}");
    assert_eq!(answer.names(), ["alpha/cm-a1", "alpha/cm-a2", "alpha/cm-a3", "beta/cm-b1", "beta/cm-b2"]);
    let first = &list["items"][0];
    assert_eq!((&first["kind"], &first["apiVersion"]), (&"ConfigMap".into(), &"v1".into()));
    assert_eq!(first["metadata"]["namespace"], "default");
    assert_eq!(first["data"]["k"], "v", "the whole object");

    let deployments = api.get("/apis/apps/v1/deployments").await;
    assert_eq!(deployments.json()["kind"], "DeploymentList");
    assert_eq!(deployments.json()["apiVersion"], "apps/v1");
    assert_eq!(deployments.names(), ["beta/web"]);
    let widgets = api.get("/apis/a.example.com/v1/widgets").await.json();
    assert_eq!((&widgets["kind"], &widgets["items"]), (&"WidgetList".into(), &serde_json::json!([])));
}

#[tokio::test]
async fn a_namespaced_path_lists_that_namespace_and_a_cluster_scoped_type_has_none() {
    let api = TestApi::new().await;
    assert_eq!(api.get("/api/v1/namespaces/team/configmaps").await.names(), ["alpha/cm-a3"]);
    assert_eq!(api.get("/api/v1/namespaces/default/secrets").await.names(), ["alpha/s-a1", "beta/s-b1"]);
    assert_eq!(api.get("/apis/apps/v1/namespaces/team/deployments").await.names(), Vec::<String>::new());
    let namespaces = api.get("/api/v1/namespaces").await;
    assert_eq!(namespaces.json()["kind"], "NamespaceList");
    assert_eq!(namespaces.names(), ["alpha/default", "alpha/team", "beta/default"]);
    // A cluster-scoped type has no namespaced path.
    for path in ["/api/v1/namespaces/default/namespaces", "/api/v1/namespaces/default/namespaces/team"] {
        api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
    }
}

#[tokio::test]
async fn a_get_answers_the_object_with_its_cluster() {
    let api = TestApi::new().await;
    let answer = api.get("/api/v1/namespaces/default/secrets/s-b1").await;
    assert_eq!(answer.status, StatusCode::OK);
    let secret = answer.json();
    assert_eq!(secret["kind"], "Secret");
    assert_eq!(secret["metadata"]["annotations"][CLUSTER_ANNOTATION], "beta");
    assert_eq!(secret["metadata"]["name"], "s-b1");
    assert_eq!(answer.header("cache-control"), Some("no-cache, private"));
    assert_eq!(answer.warnings(), Vec::<String>::new());
    let team = api.get("/api/v1/namespaces/team").await;
    assert_eq!(
        (team.json()["kind"].as_str(), cluster_and_name(&team.json())),
        (Some("Namespace"), "alpha/team".into())
    );
    let web = api.get("/apis/apps/v1/namespaces/default/deployments/web").await.json();
    assert_eq!(cluster_and_name(&web), "beta/web");
}

#[tokio::test]
async fn a_name_in_two_clusters_answers_the_first_and_warns_of_the_other() {
    let api = TestApi::new().await;
    let answer = api.get("/api/v1/namespaces/default").await;
    assert_eq!(cluster_and_name(&answer.json()), "alpha/default");
    let warnings = answer.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("default also exists in beta"), "{warnings:?}");
    assert!(warnings[0].contains("/clusters/NAME/"), "says how to get the other: {warnings:?}");
    let beta = api.get("/clusters/beta/api/v1/namespaces/default").await;
    assert_eq!(cluster_and_name(&beta.json()), "beta/default");
    assert_eq!(beta.warnings(), Vec::<String>::new());
}

#[tokio::test]
async fn a_missing_object_is_404_as_kubectl_says_it() {
    let api = TestApi::new().await;
    for (path, message) in [
        ("/api/v1/namespaces/default/configmaps/nope", "configmaps \"nope\" not found"),
        ("/api/v1/namespaces/team/configmaps/cm-a1", "configmaps \"cm-a1\" not found"),
        ("/api/v1/namespaces/nope", "namespaces \"nope\" not found"),
        ("/apis/apps/v1/namespaces/default/deployments/nope", "deployments.apps \"nope\" not found"),
        (
            "/clusters/alpha/apis/apps/v1/namespaces/default/deployments/web",
            "deployments.apps \"web\" not found",
        ),
    ] {
        assert_eq!(api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound"), message, "{path}");
    }
}

#[tokio::test]
async fn a_cluster_path_serves_only_that_cluster() {
    let api = TestApi::new().await;
    assert_eq!(
        api.get("/clusters/alpha/api/v1/configmaps").await.names(),
        ["alpha/cm-a1", "alpha/cm-a2", "alpha/cm-a3"]
    );
    assert_eq!(
        api.get("/clusters/beta/api/v1/namespaces/default/configmaps").await.names(),
        ["beta/cm-b1", "beta/cm-b2"]
    );
    assert_eq!(api.get("/clusters/beta/api/v1/namespaces").await.names(), ["beta/default"]);
    assert_eq!(api.get("/clusters/alpha/apis/apps/v1/deployments").await.names(), Vec::<String>::new());
    let secret = api.get("/clusters/alpha/api/v1/namespaces/team/secrets/s-a2").await.json();
    assert_eq!(cluster_and_name(&secret), "alpha/s-a2");
    api.get("/clusters/beta/api/v1/namespaces/default/configmaps/cm-a1")
        .await
        .status_object(StatusCode::NOT_FOUND, "NotFound");
}

#[tokio::test]
async fn an_unknown_cluster_or_type_is_a_404_status() {
    let api = TestApi::new().await;
    for path in [
        "/clusters/gamma/api/v1/configmaps",
        "/clusters/gamma/api/v1/namespaces/default/configmaps/cm-a1",
        "/clusters/gamma/apis/apps/v1/deployments",
    ] {
        let message = api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
        assert_eq!(message, "cluster \"gamma\" not found", "{path}");
    }
    for path in [
        "/api/v1/nopes",
        "/api/v1/namespaces/default/nopes",
        "/api/v1/namespaces/default/nopes/x",
        "/apis/apps/v1/configmaps",
        "/apis/apps/v2/deployments",
        "/clusters/alpha/apis/nope.example.com/v1/widgets",
    ] {
        let message = api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
        assert_eq!(message, "the server could not find the requested resource", "{path}");
    }
}

#[tokio::test]
async fn writes_are_405_and_say_where_to_write() {
    let api = TestApi::new().await;
    for (method, path) in [
        (Method::POST, "/api/v1/namespaces/default/configmaps"),
        (Method::PUT, "/api/v1/namespaces/default/configmaps/cm-a1"),
        (Method::PATCH, "/api/v1/namespaces/default/configmaps/cm-a1"),
        (Method::DELETE, "/api/v1/namespaces/default/configmaps/cm-a1"),
        (Method::DELETE, "/api/v1/namespaces/default/configmaps"),
        (Method::POST, "/api/v1/namespaces"),
        (Method::PATCH, "/apis/apps/v1/namespaces/default/deployments/web"),
        (Method::POST, "/clusters/beta/apis/apps/v1/namespaces/default/deployments"),
        (Method::DELETE, "/clusters/alpha/api/v1/namespaces/team"),
    ] {
        let request = TestApi::request(method.clone(), path)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(r#"{"metadata":{"name":"x"}}"#));
        let answer = api.send(request.unwrap()).await;
        let message = answer.status_object(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed");
        assert!(message.starts_with(&format!("{method} is not allowed")), "{message}");
        assert!(message.contains("read-only") && message.contains("MultiClusterResource"), "{message}");
        assert_eq!(answer.header("allow"), Some("GET,HEAD"), "{method} {path}");
    }
    assert_eq!(api.get("/api/v1/configmaps").await.names().len(), 5, "nothing was written");
}

#[tokio::test]
async fn selectors_on_kubernetes_paths_select_as_kubectl_asks() {
    let api = TestApi::new().await;
    for (path, expected) in [
        ("/api/v1/configmaps?labelSelector=app%3Dweb", &["alpha/cm-a1", "alpha/cm-a2", "beta/cm-b1"][..]),
        ("/api/v1/namespaces/default/configmaps?labelSelector=app%21%3Dweb", &["beta/cm-b2"]),
        (&format!("/api/v1/pods?labelSelector={}", encoded("app notin (web)")), &["alpha/p-a2", "beta/p-b1"]),
        (&format!("/api/v1/pods?labelSelector={}", encoded("!app")), &["beta/p-b1"]),
        ("/api/v1/configmaps?fieldSelector=metadata.namespace%3Dteam", &["alpha/cm-a3"]),
        ("/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-b1", &["beta/cm-b1"]),
        ("/api/v1/pods?fieldSelector=status.phase%3DRunning", &["alpha/p-a1"]),
        ("/clusters/alpha/api/v1/pods?fieldSelector=status.phase%21%3DRunning", &["alpha/p-a2"]),
        ("/api/v1/pods?labelSelector=app&fieldSelector=status.phase%3DPending", &["alpha/p-a2"]),
    ] {
        assert_eq!(api.get(path).await.names(), expected, "{path}");
    }
    for path in [
        "/api/v1/configmaps?labelSelector=app%20in%20web",
        "/api/v1/pods?fieldSelector=status.phase%20in%20(Running)",
        "/api/v1/namespaces/default/configmaps/cm-a1?labelSelector=%3D",
    ] {
        api.get(path).await.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    }
}

#[tokio::test]
async fn limit_and_continue_page_through_every_object_once() {
    let api = TestApi::new().await;
    let (mut pages, mut token) = (Vec::new(), String::new());
    loop {
        let page = api.get(&format!("/api/v1/configmaps?limit=2&continue={token}")).await;
        assert!(page.json()["metadata"]["resourceVersion"].as_str().unwrap().starts_with("mc."));
        pages.push(page.names());
        token = continued(&page);
        if token.is_empty() {
            break;
        }
    }
    assert_eq!(
        pages,
        [vec!["alpha/cm-a1", "alpha/cm-a2"], vec!["alpha/cm-a3", "beta/cm-b1"], vec!["beta/cm-b2"]]
    );
    // A limit of what there is: no continue.
    assert_eq!(continued(&api.get("/api/v1/configmaps?limit=5").await), "");
    assert_ne!(continued(&api.get("/clusters/alpha/api/v1/configmaps?limit=2").await), "");
    for limit in ["x", "1.5"] {
        api.get(&format!("/api/v1/configmaps?limit={limit}"))
            .await
            .status_object(StatusCode::BAD_REQUEST, "BadRequest");
    }
    api.get("/api/v1/configmaps?limit=2&continue=not-a-token")
        .await
        .status_object(StatusCode::BAD_REQUEST, "BadRequest");
}

#[tokio::test]
async fn a_watch_of_one_object_is_refused_with_the_way_to_watch_it() {
    let api = TestApi::new().await;
    let message = api
        .get("/api/v1/namespaces/default/configmaps/cm-a1?watch=true")
        .await
        .status_object(StatusCode::BAD_REQUEST, "BadRequest");
    assert!(message.contains("fieldSelector=metadata.name="), "{message}");
}
