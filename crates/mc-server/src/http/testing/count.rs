//! `/v1/count`: keys, filters, printed columns, errors and access.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use super::{ALICE, Answer, Setup, TestApi, encoded, pod, rbac};
use crate::authz::User;

/// `values… count` of each item, and the total, of a 200.
fn table(answer: &Answer) -> (Vec<String>, u64) {
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let body = answer.json();
    let rows = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let values: Vec<&str> =
                i["values"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            format!("{} {}", values.join(" "), i["count"])
        })
        .collect();
    (rows, body["total"].as_u64().unwrap())
}

async fn counted(api: &TestApi, query: &str) -> (Vec<String>, u64) {
    table(&api.get(&format!("/v1/count?{query}")).await)
}

#[tokio::test]
async fn pods_count_by_cluster_and_phase() {
    let api = TestApi::new().await;
    api.write("beta", pod("default", "p-b2", "Running", json!({"app": "web"}))).await;
    let answer = api.get("/v1/count?gvr=pods&by=cluster,status.phase").await;
    assert_eq!(answer.json()["by"], json!(["cluster", "status.phase"]));
    assert_eq!(
        table(&answer),
        (
            vec![
                "alpha Pending 1".into(),
                "alpha Running 1".into(),
                "beta Failed 1".into(),
                "beta Running 1".into()
            ],
            4
        )
    );
    assert_eq!(
        counted(&api, "gvr=po&by=.status.phase").await,
        (vec!["Failed 1".into(), "Pending 1".into(), "Running 2".into()], 4)
    );
    // The filters of a list.
    assert_eq!(counted(&api, "gvr=v1/pods&by=namespace&cluster=alpha").await.0, ["default 1", "team 1"]);
    assert_eq!(counted(&api, "gvr=pods&by=cluster&namespace=team").await.0, ["alpha 1"]);
    assert_eq!(
        counted(&api, &format!("gvr=pods&by=cluster&labelSelector={}", encoded("app in (web)"))).await.0,
        ["alpha 1", "beta 1"]
    );
    assert_eq!(
        counted(&api, &format!("gvr=pods&by=cluster&fieldSelector={}", encoded("status.phase!=Running")))
            .await
            .0,
        ["alpha 1", "beta 1"]
    );
    // A value nothing has: <none>; nothing matches: no items.
    assert_eq!(counted(&api, "gvr=pods&by=spec.nodeName").await.0, ["<none> 4"]);
    assert_eq!(counted(&api, "gvr=pods&by=cluster&namespace=nope").await, (vec![], 0));
}

#[tokio::test]
async fn a_printed_column_counts_as_kubectl_prints_it() {
    let api = TestApi::new().await;
    let mut waiting = pod("team", "p-a3", "Pending", json!({}));
    let mut value = waiting.object.value();
    value["status"]["containerStatuses"] = json!([{"name": "main", "ready": false, "restartCount": 3, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]);
    waiting.object = crate::store::RawObject::from_value(&value);
    api.write("alpha", waiting).await;
    let answer = api.get("/v1/count?gvr=pods&by=cluster,status").await;
    assert_eq!(answer.json()["by"], json!(["cluster", "STATUS"]));
    assert_eq!(
        table(&answer).0,
        ["alpha CrashLoopBackOff 1", "alpha Pending 1", "alpha Running 1", "beta Failed 1"]
    );
    // With a field selector too, and a column with spaces written with a dash.
    assert_eq!(
        counted(
            &api,
            &format!("gvr=pods&by=status,nominated-node&fieldSelector={}", encoded("status.phase=Pending"))
        )
        .await
        .0,
        ["CrashLoopBackOff <none> 1", "Pending <none> 1"]
    );
}

#[tokio::test]
async fn a_failed_fill_of_the_kept_field_is_shown_and_counts_stay_exact() {
    let api = TestApi::new().await;
    let store = &api.state.store;
    let kept = crate::store::IndexedFields::new(&std::collections::BTreeMap::from([(
        "pods".to_string(),
        "status.phase".to_string(),
    )]))
    .unwrap();
    let phase = mc_types::count::FieldPath::parse("status.phase").unwrap();
    let pods = mc_types::Gvr::new("", "v1", "pods");
    let want = counted(&api, "gvr=pods&by=cluster,status.phase").await;
    assert_eq!(want.1, 3);
    // The stored pods were written without the field: the fill has rows to write, and fails.
    store.refuse_count_fills(true).await.unwrap();
    assert!(store.fill_count_fields(&kept).await.is_err());
    let why = store.count_fields_problem().unwrap();
    assert!(why.contains("refused by the test") && why.contains("counts of pods read every object"), "{why}");
    let answer = api.get("/v1/count?gvr=pods&by=cluster,status.phase").await;
    assert_eq!(table(&answer), want, "exact, read from the objects");
    assert!(
        answer.warnings().iter().any(|w| w.contains("counts of pods read every object")),
        "{:?}",
        answer.warnings()
    );
    assert!(api.get("/v1/count?gvr=pods&by=cluster").await.warnings().is_empty(), "no field, nothing to say");
    let readyz = api.call(Method::GET, "/readyz", None).await;
    assert_eq!(readyz.status, StatusCode::OK, "answers are exact: ready");
    assert_eq!(readyz.json()["warnings"][0].as_str(), Some(why.as_str()));
    assert!(api.get("/metrics").await.text().contains("\nmc_count_fields_fill_failing 1\n"));
    assert!(!store.counts_read_kept_field(&pods, &phase).await.unwrap());

    // The next try succeeds: nothing shown, the same counts, read from the kept field.
    store.refuse_count_fills(false).await.unwrap();
    assert_eq!(store.fill_count_fields(&kept).await.unwrap(), 3);
    assert_eq!(store.count_fields_problem(), None);
    assert!(store.counts_read_kept_field(&pods, &phase).await.unwrap());
    let answer = api.get("/v1/count?gvr=pods&by=cluster,status.phase").await;
    assert_eq!((table(&answer), answer.warnings()), (want, vec![]));
    assert_eq!(api.call(Method::GET, "/readyz", None).await.json(), json!({"status": "ready"}));
    assert!(api.get("/metrics").await.text().contains("\nmc_count_fields_fill_failing 0\n"));
}

#[tokio::test]
async fn bad_counts_are_400_or_404_with_one_line() {
    let api = TestApi::new().await;
    for (query, status, says) in [
        ("gvr=pods", StatusCode::BAD_REQUEST, "missing parameter by"),
        ("gvr=pods&by=", StatusCode::BAD_REQUEST, "missing parameter by"),
        ("by=cluster", StatusCode::BAD_REQUEST, "missing parameter gvr"),
        ("gvr=pods&by=spec.containers[*].image", StatusCode::BAD_REQUEST, "only an index"),
        (
            "gvr=pods&by=status.phase%27%29%3B%20DROP%20TABLE%20resources",
            StatusCode::BAD_REQUEST,
            "invalid count key",
        ),
        ("gvr=pods&by=cluster,cluster", StatusCode::BAD_REQUEST, "given twice"),
        ("gvr=pods&by=bogus", StatusCode::BAD_REQUEST, "no printed column BOGUS (columns: READY, STATUS"),
        ("gvr=pods&by=cluster&by=namespace", StatusCode::BAD_REQUEST, "by is given twice"),
        ("gvr=pods&by=cluster&limit=5", StatusCode::BAD_REQUEST, "unknown query parameter \"limit\""),
        ("gvr=pods&by=cluster&watch=true", StatusCode::BAD_REQUEST, "unknown query parameter \"watch\""),
        ("gvr=pods&by=cluster&nope=1", StatusCode::BAD_REQUEST, "unknown query parameter \"nope\""),
        ("gvr=pods&by=cluster&labelSelector=a%20in", StatusCode::BAD_REQUEST, ""),
        ("gvr=pods&by=cluster&cluster=gamma", StatusCode::NOT_FOUND, "unknown cluster \"gamma\""),
        ("gvr=pods&by=cluster&namespace=Not_A_Name", StatusCode::BAD_REQUEST, ""),
        ("gvr=podz&by=cluster", StatusCode::NOT_FOUND, ""),
    ] {
        let message = api.get(&format!("/v1/count?{query}")).await.error(status);
        assert!(message.contains(says), "{query}: {message}");
    }
    let long = format!("gvr=pods&by=a.{}", "b".repeat(300));
    let message = api.get(&format!("/v1/count?{long}")).await.error(StatusCode::BAD_REQUEST);
    assert!(message.contains("at most 256 characters"), "{message}");
}

#[tokio::test]
async fn an_identity_counts_only_what_it_may_list() {
    let api = TestApi::with(Setup { master: true, ..Setup::default() }).await;
    let rules =
        json!({"rules": [{"apiGroups": [""], "resources": ["configmaps", "pods"], "verbs": ["list"]}]});
    for cluster in ["alpha", "beta"] {
        api.write(cluster, rbac("clusterroles", "ClusterRole", None, "view", rules.clone())).await;
    }
    let subjects = json!([{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]);
    let role_ref = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"});
    let binding = json!({"roleRef": role_ref, "subjects": subjects});
    api.write("alpha", rbac("rolebindings", "RoleBinding", Some("default"), "alice-view", binding)).await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;
    let answer = api.call(Method::GET, "/v1/count?gvr=configmaps&by=cluster,namespace", Some(ALICE)).await;
    assert_eq!(table(&answer), (vec!["alpha default 2".into()], 2));
    assert!(
        answer.warnings().iter().any(|w| w.contains("alice may not list configmaps") && w.contains("beta")),
        "{:?}",
        answer.warnings()
    );
    // Through a printed column too.
    let answer = api.call(Method::GET, "/v1/count?gvr=pods&by=cluster,status", Some(ALICE)).await;
    assert_eq!(table(&answer).0, ["alpha Running 1"]);
    // A namespace allowed nowhere: 403, as a list.
    let answer =
        api.call(Method::GET, "/v1/count?gvr=configmaps&by=cluster&namespace=team", Some(ALICE)).await;
    let message = answer.error(StatusCode::FORBIDDEN);
    assert!(message.contains("cannot list resource \"configmaps\""), "{message}");
    // Secrets: not in the role anywhere: nothing counted, and said.
    let answer = api.call(Method::GET, "/v1/count?gvr=secrets&by=cluster", Some(ALICE)).await;
    assert_eq!(table(&answer), (vec![], 0));
    assert!(!answer.warnings().is_empty());
}

#[tokio::test]
async fn a_cluster_not_synced_is_warned_about() {
    let api = TestApi::new().await;
    api.unsync("beta");
    let answer = api.get("/v1/count?gvr=configmaps&by=cluster").await;
    assert_eq!(table(&answer).0, ["alpha 3", "beta 2"]);
    let warnings = answer.warnings();
    assert!(warnings.iter().any(|w| w.contains("beta")), "{warnings:?}");
    let answer = api.get("/v1/count?gvr=configmaps&by=cluster&cluster=alpha").await;
    assert!(answer.warnings().is_empty(), "{:?}", answer.warnings());
    let _: Value = answer.json();
}

#[tokio::test]
async fn the_openapi_document_describes_the_count() {
    let api = TestApi::new().await;
    let document = api.call(Method::GET, "/openapi.json", None).await.json();
    let operation = &document["paths"]["/v1/count"]["get"];
    let names: Vec<&str> =
        operation["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["gvr", "by", "cluster", "namespace", "name", "labelSelector", "fieldSelector"]);
    let required: Vec<&str> = operation["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["required"] == true)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(required, ["gvr", "by"]);
    assert_eq!(
        operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/CountAnswer"
    );
    // What the server answers has every property the schema requires.
    let schema = &document["components"]["schemas"]["CountAnswer"];
    let answer = api.get("/v1/count?gvr=pods&by=cluster").await.json();
    for key in schema["required"].as_array().unwrap() {
        assert!(answer.get(key.as_str().unwrap()).is_some(), "{key} in {answer}");
    }
    for key in schema["properties"]["items"]["items"]["required"].as_array().unwrap() {
        assert!(answer["items"][0].get(key.as_str().unwrap()).is_some(), "{key} in {answer}");
    }
}
