//! `/version`: the master's version as kube-apiserver answers it, and `/livez`.

use axum::http::{Method, StatusCode};
use k8s_openapi::apimachinery::pkg::version::Info;

use crate::http::testing::{Setup, TestApi};

fn probed(api: &TestApi, cluster: &str, git_version: &str) {
    let info = Info {
        git_version: git_version.into(),
        major: "1".into(),
        minor: git_version.split('.').nth(1).unwrap().into(),
        platform: "linux/amd64".into(),
        ..Info::default()
    };
    api.state.registry.get(cluster).unwrap().update(|s| s.server_version = Some(info));
}

#[tokio::test]
async fn version_is_the_masters_in_kubes_shape_and_each_clusters_under_its_path() {
    let api = TestApi::with(Setup { master: true, ..Setup::default() }).await;
    api.get("/version").await.status_object(StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable");
    probed(&api, "alpha", "v1.35.4");
    probed(&api, "beta", "v1.34.2");
    let answer = api.get("/version").await;
    let version = answer.json();
    assert_eq!(version["gitVersion"], "v1.35.4+mc-server", "{version}");
    for field in
        ["major", "minor", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"]
    {
        assert!(version[field].is_string(), "{field} in {version}");
    }
    assert_eq!(
        answer.warnings(),
        ["299 - \"member clusters run Kubernetes v1.34.2 (beta) to v1.35.4 (alpha); this is the master's\""]
    );
    let beta = api.get("/clusters/beta/version").await;
    assert_eq!(beta.json()["gitVersion"], "v1.34.2+mc-server");
    assert!(beta.warnings().is_empty());
    api.get("/clusters/nope/version").await.status_object(StatusCode::NOT_FOUND, "NotFound");
}

#[tokio::test]
async fn version_needs_a_token_and_livez_does_not() {
    let api = TestApi::new().await;
    api.call(Method::GET, "/version", None).await.status_object(StatusCode::UNAUTHORIZED, "Unauthorized");
    let livez = api.call(Method::GET, "/livez", None).await;
    assert_eq!(livez.status, StatusCode::OK, "{}", livez.text());
    // Alive whatever the clusters: none of them is synced here.
    api.forget("alpha");
    assert_eq!(api.call(Method::GET, "/livez", None).await.status, StatusCode::OK);
}
