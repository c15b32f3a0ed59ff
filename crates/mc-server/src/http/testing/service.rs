//! `/v1/clusters`, `/v1/resources`, the probes, `/metrics` and `/openapi.json`.

use axum::http::{Method, StatusCode};
use serde_json::json;

use super::{Setup, TestApi, types};

#[tokio::test]
async fn clusters_lists_each_cluster_with_its_sync_state() {
    let api = TestApi::new().await;
    let clusters = api.get("/v1/clusters").await.array();
    let names: Vec<&str> = clusters.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha", "beta"]);
    let alpha = &clusters[0];
    assert_eq!(alpha["status"], "Synced", "{alpha}");
    assert_eq!(alpha["resourceTypes"], types().len(), "{alpha}");
    assert_eq!(alpha["typesListed"], types().len(), "{alpha}");
    assert_eq!(alpha["isMaster"], false);
    assert_eq!(alpha["host"], "https://127.0.0.1:1");
    assert!(alpha["objects"].is_u64(), "{alpha}");
    // Optional fields are absent, not null.
    for absent in ["message", "lastError", "syncedBy", "unlistedTypes", "lastEvent"] {
        assert!(alpha.get(absent).is_none(), "{absent} in {alpha}");
    }
    api.unsync("beta");
    let beta = api.get("/v1/clusters").await.array()[1].clone();
    assert_eq!(beta["status"], "Syncing", "{beta}");
}

#[tokio::test]
async fn resources_lists_the_types_discovered_in_any_cluster() {
    let api = TestApi::new().await;
    let resources = api.get("/v1/resources").await.array();
    assert_eq!(resources.len(), types().len(), "{resources:?}");
    let configmaps = resources.iter().find(|r| r["resource"] == "configmaps").unwrap();
    assert_eq!(
        configmaps,
        &json!({"group": "", "version": "v1", "resource": "configmaps", "singular": "configmap",
            "kind": "ConfigMap", "shortNames": ["cm"], "namespaced": true, "verbs": ["get", "list", "watch"]})
    );
    let namespaces = resources.iter().find(|r| r["resource"] == "namespaces").unwrap();
    assert_eq!(namespaces["namespaced"], false);
    // Categories as discovery gives them (what `list all` reads), absent when there are none.
    let in_all: Vec<&str> = resources
        .iter()
        .filter(|r| r["categories"] == json!(["all"]))
        .map(|r| r["resource"].as_str().unwrap())
        .collect();
    assert_eq!(in_all, ["pods", "deployments"]);
}

#[tokio::test]
async fn probes_and_the_api_description_need_no_token() {
    let api = TestApi::new().await;
    let healthz = api.call(Method::GET, "/healthz", None).await;
    assert_eq!((healthz.status, healthz.json()), (StatusCode::OK, json!({"status": "ok"})));
    let readyz = api.call(Method::GET, "/readyz", None).await;
    assert_eq!((readyz.status, readyz.json()), (StatusCode::OK, json!({"status": "ready"})));
    let openapi = api.call(Method::GET, "/openapi.json", None).await;
    assert_eq!(openapi.status, StatusCode::OK);
    assert_eq!(openapi.json()["openapi"], "3.0.3");
    let metrics = api.call(Method::GET, "/metrics", None).await;
    assert_eq!(metrics.status, StatusCode::OK, "open unless server.metricsAuth");
}

#[tokio::test]
async fn readyz_is_503_with_the_reason_while_a_cluster_syncs() {
    let api = TestApi::new().await;
    api.unsync("beta");
    let message = api.call(Method::GET, "/readyz", None).await.error(StatusCode::SERVICE_UNAVAILABLE);
    assert!(message.starts_with("not ready: cluster beta is syncing"), "{message}");
    let healthz = api.call(Method::GET, "/healthz", None).await;
    assert_eq!(healthz.status, StatusCode::OK, "alive all the same");
}

#[tokio::test]
async fn metrics_are_prometheus_text_with_a_line_per_cluster_and_answered_route() {
    let api = TestApi::new().await;
    api.get("/v1/clusters").await;
    api.get("/v1/clusters").await;
    api.get("/v1/list?gvr=nopes").await;
    api.get("/api/v1/namespaces/default/configmaps/cm-a1").await;
    let metrics = api.get("/metrics").await;
    assert_eq!(metrics.header("content-type"), Some("text/plain; version=0.0.4"));
    let text = metrics.text();
    for line in [
        "# TYPE mc_cluster_ready gauge",
        "mc_cluster_ready{cluster=\"alpha\"} 1",
        "mc_cluster_ready{cluster=\"beta\"} 1",
        "mc_cluster_initial_sync_done{cluster=\"beta\"} 1",
        "mc_cluster_resource_types{cluster=\"alpha\"} 7",
        "# TYPE mc_http_requests_total counter",
        "mc_http_requests_total{route=\"/v1/clusters\",code=\"200\"} 2",
        "mc_http_requests_total{route=\"/v1/list\",code=\"404\"} 1",
        "mc_http_requests_total{route=\"/api/{version}/namespaces/{namespace}/{resource}/{name}\",code=\"200\"} 1",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in:\n{text}");
    }
    // Every sample is `name{labels} value` or a comment.
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        let (_, value) = l.rsplit_once(' ').unwrap();
        assert!(value.parse::<f64>().is_ok(), "{l}");
    }
}

#[tokio::test]
async fn openapi_describes_every_route_and_which_reads_need_a_token() {
    let api = TestApi::new().await;
    let document = api.call(Method::GET, "/openapi.json", None).await.json();
    for path in [
        "/v1/list",
        "/v1/list_with_cluster",
        "/v1/clusters",
        "/v1/resources",
        "/livez",
        "/healthz",
        "/readyz",
        "/metrics",
        "/version",
    ] {
        assert!(document["paths"][path].is_object(), "{path}");
    }
    assert_eq!(document["paths"]["/v1/join"]["post"]["requestBody"]["required"], true);
    assert_eq!(
        document["paths"]["/v1/unjoin"]["delete"]["responses"]["403"]["description"],
        "the token has the read role"
    );
    assert_eq!(document["paths"]["/v1/list"]["get"]["security"], json!([{"bearer": []}]));
    assert_eq!(document["paths"]["/version"]["get"]["security"], json!([{"bearer": []}]));
    assert_eq!(document["paths"]["/livez"]["get"]["security"], json!([]));
    let open = TestApi::with(Setup { anonymous_read: true, ..Setup::default() }).await;
    let document = open.call(Method::GET, "/openapi.json", None).await.json();
    assert_eq!(document["paths"]["/v1/list"]["get"]["security"], json!([{}, {"bearer": []}]));
    assert!(document["paths"]["/v1/join"]["post"].get("security").is_none(), "join keeps the token");
}
