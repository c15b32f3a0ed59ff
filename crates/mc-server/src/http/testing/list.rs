//! `/v1/list` and `/v1/list_with_cluster`: type names, filters, selectors, pages, order, watch.

use std::collections::BTreeSet;
use std::time::Duration;

use axum::http::StatusCode;
use mc_types::Gvr;
use mc_types::api::CONTINUE_HEADER;
use serde_json::{Value, json};

use super::{Answer, Next, TestApi, encoded, object, stored};
use crate::store::{ApplyOne, Change};

/// Every ConfigMap of the fixture, in the default order (cluster, namespace, name).
const CONFIGMAPS: [&str; 5] = ["alpha/cm-a1", "alpha/cm-a2", "alpha/cm-a3", "beta/cm-b1", "beta/cm-b2"];

fn configmaps() -> Gvr {
    Gvr::new("", "v1", "configmaps")
}

/// `cluster/name` of each item of a `/v1/list_with_cluster` answer.
fn keys(answer: &Answer) -> Vec<String> {
    let item = |i: &Value| {
        format!(
            "{}/{}",
            i["clusterName"].as_str().unwrap(),
            i["Object"]["metadata"]["name"].as_str().unwrap()
        )
    };
    answer.array().iter().map(item).collect()
}

/// `cluster/name` of what `/v1/list_with_cluster?{query}` answers (a 200).
async fn listed(api: &TestApi, query: &str) -> Vec<String> {
    keys(&api.get(&format!("/v1/list_with_cluster?{query}")).await)
}

/// Ten more ConfigMaps in beta's `default` (`cm-c00` … `cm-c09`): fifteen in all.
async fn ten_more(api: &TestApi) {
    for i in 0..10 {
        api.write("beta", object(&configmaps(), Some("default"), &format!("cm-c{i:02}"), json!({}))).await;
    }
}

#[tokio::test]
async fn every_spelling_of_a_type_lists_the_same_objects() {
    let api = TestApi::new().await;
    for gvr in [
        "v1/configmaps",
        "core/v1/configmaps",
        "v1.configmaps",
        "configmaps",
        "configmap",
        "ConfigMap",
        "cm",
        "CM",
    ] {
        assert_eq!(listed(&api, &format!("gvr={gvr}&limit=0")).await, CONFIGMAPS, "{gvr}");
    }
    for gvr in [
        "apps/v1/deployments",
        "apps.v1.deployments",
        "v1/apps/deployments",
        "deployments.apps",
        "Deployment",
        "deploy",
    ] {
        assert_eq!(listed(&api, &format!("gvr={gvr}")).await, ["beta/web"], "{gvr}");
    }
    assert_eq!(listed(&api, "gvr=po").await, ["alpha/p-a1", "alpha/p-a2", "beta/p-b1"]);
}

#[tokio::test]
async fn a_type_that_is_not_served_is_404_with_candidates() {
    let api = TestApi::new().await;
    for (gvr, candidate) in [
        ("v1/confgmaps", "v1/configmaps"),
        ("confgmaps", "v1/configmaps"),
        ("apps/v2/deployments", "apps/v1/deployments"),
        ("deployment.app", "apps/v1/deployments"),
    ] {
        let answer = api.get(&format!("/v1/list?gvr={gvr}")).await;
        let message = answer.error(StatusCode::NOT_FOUND);
        assert!(message.contains("unknown resource type") && message.contains(gvr), "{message}");
        let candidates = answer.json()["candidates"].clone();
        assert!(candidates.as_array().unwrap().contains(&json!(candidate)), "{gvr}: {candidates}");
    }
}

#[tokio::test]
async fn an_ambiguous_name_lists_nothing_and_names_every_meaning() {
    let api = TestApi::new().await;
    let answer = api.get("/v1/list?gvr=widgets").await;
    let message = answer.error(StatusCode::NOT_FOUND);
    assert!(message.contains("ambiguous"), "{message}");
    assert_eq!(answer.json()["candidates"], json!(["a.example.com/v1/widgets", "b.example.com/v1/widgets"]));
    // Either meaning, named in full, is a type like any other (without objects).
    for gvr in ["widgets.a.example.com", "b.example.com/v1/widgets", "Widget.b.example.com"] {
        assert_eq!(api.get(&format!("/v1/list?gvr={gvr}")).await.array(), Vec::<Value>::new(), "{gvr}");
    }
}

#[tokio::test]
async fn a_missing_or_malformed_type_is_400() {
    let api = TestApi::new().await;
    for query in ["", "gvr=", "namespace=default"] {
        let message = api.get(&format!("/v1/list?{query}")).await.error(StatusCode::BAD_REQUEST);
        assert!(message.contains("missing parameter gvr"), "{query}: {message}");
    }
    let message = api.get("/v1/list?gvr=config%2Amaps").await.error(StatusCode::BAD_REQUEST);
    assert!(message.contains("invalid character"), "{message}");
}

#[tokio::test]
async fn cluster_namespace_and_name_narrow_the_list() {
    let api = TestApi::new().await;
    for (query, expected) in [
        ("cluster=beta", &["beta/cm-b1", "beta/cm-b2"][..]),
        ("clusterName=beta", &["beta/cm-b1", "beta/cm-b2"]),
        ("namespace=team", &["alpha/cm-a3"]),
        ("name=cm-b2", &["beta/cm-b2"]),
        ("cluster=alpha&namespace=default", &["alpha/cm-a1", "alpha/cm-a2"]),
        ("cluster=alpha&name=cm-b1", &[]),
        ("namespace=nowhere", &[]),
    ] {
        assert_eq!(listed(&api, &format!("gvr=configmaps&{query}")).await, expected, "{query}");
    }
    // A cluster-scoped type: every cluster's namespace named `default`.
    assert_eq!(listed(&api, "gvr=namespaces&name=default").await, ["alpha/default", "beta/default"]);
}

#[tokio::test]
async fn an_unknown_cluster_is_404_and_names_the_known_ones() {
    let api = TestApi::new().await;
    let message = api.get("/v1/list?gvr=configmaps&cluster=gamma").await.error(StatusCode::NOT_FOUND);
    assert!(message.contains("\"gamma\"") && message.contains("alpha, beta"), "{message}");
}

#[tokio::test]
async fn labels_parameters_select_by_equality() {
    let api = TestApi::new().await;
    let web = ["alpha/cm-a1", "alpha/cm-a2", "beta/cm-b1"];
    assert_eq!(listed(&api, "gvr=configmaps&labels[app]=web").await, web);
    assert_eq!(listed(&api, "gvr=configmaps&labels%5Bapp%5D=web").await, web, "brackets encoded");
    assert_eq!(listed(&api, "gvr=configmaps&labels[app]=web&labels[tier]=x").await, Vec::<String>::new());
    assert_eq!(listed(&api, "gvr=pods&labels[app]=db").await, ["alpha/p-a2"]);
    let message = api.get("/v1/list?gvr=pods&labels[]=x").await.error(StatusCode::BAD_REQUEST);
    assert!(message.contains("unknown query parameter"), "{message}");
}

#[tokio::test]
async fn label_selectors_select_as_kubernetes_does() {
    let api = TestApi::new().await;
    for (gvr, selector, expected) in [
        ("configmaps", "app=web", &["alpha/cm-a1", "alpha/cm-a2", "beta/cm-b1"][..]),
        ("configmaps", "app==web", &["alpha/cm-a1", "alpha/cm-a2", "beta/cm-b1"]),
        // Objects without the label are not `web` either.
        ("configmaps", "app!=web", &["alpha/cm-a3", "beta/cm-b2"]),
        ("pods", "app in (web,db)", &["alpha/p-a1", "alpha/p-a2"]),
        ("pods", "app notin (web)", &["alpha/p-a2", "beta/p-b1"]),
        ("pods", "app", &["alpha/p-a1", "alpha/p-a2"]),
        ("pods", "!app", &["beta/p-b1"]),
        ("pods", "app,app!=db", &["alpha/p-a1"]),
        ("pods", "app in (nope)", &[]),
    ] {
        let query = format!("gvr={gvr}&labelSelector={}", encoded(selector));
        assert_eq!(listed(&api, &query).await, expected, "{selector}");
    }
    // With `labels[…]`, both hold.
    let query = format!("gvr=pods&labels[app]=web&labelSelector={}", encoded("app in (web,db)"));
    assert_eq!(listed(&api, &query).await, ["alpha/p-a1"]);
    for bad in ["app in web", "=web", "app in (web"] {
        let uri = format!("/v1/list?gvr=pods&labelSelector={}", encoded(bad));
        api.get(&uri).await.error(StatusCode::BAD_REQUEST);
    }
}

#[tokio::test]
async fn field_selectors_select_by_name_namespace_and_phase() {
    let api = TestApi::new().await;
    for (gvr, selector, expected) in [
        ("configmaps", "metadata.name=cm-a3", &["alpha/cm-a3"][..]),
        ("configmaps", "metadata.namespace=team", &["alpha/cm-a3"]),
        ("configmaps", "metadata.namespace!=default", &["alpha/cm-a3"]),
        (
            "configmaps",
            "metadata.name!=cm-a1,metadata.namespace==default",
            &["alpha/cm-a2", "beta/cm-b1", "beta/cm-b2"],
        ),
        ("pods", "status.phase=Running", &["alpha/p-a1"]),
        ("pods", "status.phase!=Running", &["alpha/p-a2", "beta/p-b1"]),
        ("pods", "metadata.namespace=default,status.phase!=Running", &["beta/p-b1"]),
    ] {
        let query = format!("gvr={gvr}&fieldSelector={}", encoded(selector));
        assert_eq!(listed(&api, &query).await, expected, "{selector}");
    }
    let uri = format!("/v1/list?gvr=pods&fieldSelector={}", encoded("status.phase in (Running)"));
    api.get(&uri).await.error(StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn without_a_limit_ten_objects_answer_and_limit_0_answers_all() {
    let api = TestApi::new().await;
    ten_more(&api).await;
    let first = api.get("/v1/list?gvr=configmaps").await;
    assert_eq!(first.array().len(), 10);
    assert!(first.header(CONTINUE_HEADER).is_some_and(|t| !t.is_empty()), "a next page");
    let all = api.get("/v1/list?gvr=configmaps&limit=0").await;
    assert_eq!(all.array().len(), 15);
    assert_eq!(all.header(CONTINUE_HEADER), None);
    // Exactly what is left: no next page.
    assert_eq!(api.get("/v1/list?gvr=configmaps&limit=15").await.header(CONTINUE_HEADER), None);
    assert!(api.get("/v1/list?gvr=configmaps&limit=14").await.header(CONTINUE_HEADER).is_some());
    for limit in ["-1", "ten", "1.5"] {
        let message =
            api.get(&format!("/v1/list?gvr=configmaps&limit={limit}")).await.error(StatusCode::BAD_REQUEST);
        assert!(message.contains("limit"), "{message}");
    }
}

#[tokio::test]
async fn following_continue_tokens_reads_every_object_once() {
    let api = TestApi::new().await;
    ten_more(&api).await;
    let everything = listed(&api, "gvr=configmaps&limit=0").await;
    for endpoint in ["/v1/list_with_cluster", "/v1/list"] {
        let (mut seen, mut pages, mut token) = (Vec::new(), 0, None::<String>);
        loop {
            let continued = token.as_deref().map(|t| format!("&continue={t}")).unwrap_or_default();
            let page = api.get(&format!("{endpoint}?gvr=configmaps&limit=4{continued}")).await;
            let items = page.array();
            assert!(items.len() <= 4 && !items.is_empty(), "{endpoint}: page {pages}: {}", page.text());
            seen.extend(items.iter().map(|i| {
                let o = if endpoint.ends_with("cluster") { &i["Object"] } else { i };
                o["metadata"]["name"].as_str().unwrap().to_string()
            }));
            pages += 1;
            token = page.header(CONTINUE_HEADER).map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        assert_eq!(pages, 4, "{endpoint}: 15 objects, 4 a page");
        let names: Vec<&str> = everything.iter().map(|k| k.split_once('/').unwrap().1).collect();
        assert_eq!(seen, names, "{endpoint}: every object once, in order");
    }
}

#[tokio::test]
async fn order_newest_answers_the_newest_first_in_one_page() {
    let api = TestApi::new().await;
    let cm = |ns: &str, name: &str, created: &str| {
        let meta = json!({"name": name, "namespace": ns, "uid": format!("uid-{name}"), "creationTimestamp": created});
        stored(&configmaps(), json!({"metadata": meta}))
    };
    api.write("alpha", cm("team", "cm-2024-06", "2024-06-01T00:00:00Z")).await;
    api.write("beta", cm("default", "cm-2025-01", "2025-01-01T00:00:00Z")).await;
    api.write("alpha", cm("default", "cm-2025-06", "2025-06-01T00:00:00Z")).await;
    let answer = api.get("/v1/list_with_cluster?gvr=configmaps&order=newest&limit=3").await;
    assert_eq!(keys(&answer), ["alpha/cm-2025-06", "beta/cm-2025-01", "alpha/cm-2024-06"]);
    assert_eq!(answer.header(CONTINUE_HEADER), None, "newest first is one page");
    assert_eq!(listed(&api, "gvr=configmaps&order=newest&limit=0").await.len(), 8);
    assert_eq!(listed(&api, "gvr=configmaps&order=name&limit=1").await, ["alpha/cm-2025-06"]);
    let message =
        api.get("/v1/list?gvr=configmaps&order=newest&continue=x").await.error(StatusCode::BAD_REQUEST);
    assert!(message.contains("order=newest"), "{message}");
    let message = api.get("/v1/list?gvr=configmaps&order=oldest").await.error(StatusCode::BAD_REQUEST);
    assert!(message.contains("\"oldest\""), "{message}");
}

#[tokio::test]
async fn unknown_parameters_are_400_and_named() {
    let api = TestApi::new().await;
    for (query, named) in [
        ("namespaces=team", "\"namespaces\""),
        ("labelselector=app", "\"labelselector\""),
        ("selector=app%3Dweb", "\"selector\""),
        ("watch=maybe", "\"maybe\""),
    ] {
        let message =
            api.get(&format!("/v1/list?gvr=configmaps&{query}")).await.error(StatusCode::BAD_REQUEST);
        assert!(message.contains(named), "{query}: {message}");
    }
}

#[tokio::test]
async fn list_with_cluster_wraps_each_object_as_list_answers_it() {
    let api = TestApi::new().await;
    let plain = api.get("/v1/list?gvr=secrets&limit=0").await.array();
    let wrapped = api.get("/v1/list_with_cluster?gvr=secrets&limit=0").await.array();
    assert_eq!(plain.len(), 3);
    assert_eq!(wrapped.len(), 3);
    for (object, item) in plain.iter().zip(&wrapped) {
        let fields: BTreeSet<&str> = item.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(fields, BTreeSet::from(["clusterName", "Object"]), "{item}");
        assert_eq!(&item["Object"], object);
    }
    assert_eq!(plain[0]["kind"], "Secret");
    assert_eq!(plain[0]["apiVersion"], "v1");
    assert_eq!(plain[0]["metadata"]["name"], "s-a1");
    assert_eq!(wrapped[2]["clusterName"], "beta");
}

#[tokio::test]
async fn a_watch_streams_the_current_objects_then_each_change() {
    let api = TestApi::new().await;
    let mut watch = api.stream("/v1/list_with_cluster?gvr=configmaps&namespace=default&watch=true").await;
    assert_eq!(watch.status, StatusCode::OK);
    assert_eq!(watch.headers.get("content-type").unwrap(), "application/x-ndjson");
    let added = watch.lines(4, Duration::from_secs(5)).await;
    let seen: Vec<String> = added
        .iter()
        .map(|e| {
            assert_eq!(e["type"], "ADDED", "{e}");
            format!(
                "{}/{}",
                e["clusterName"].as_str().unwrap(),
                e["object"]["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(seen, ["alpha/cm-a1", "alpha/cm-a2", "beta/cm-b1", "beta/cm-b2"]);
    assert_eq!(watch.next(Duration::from_millis(200)).await, Next::Quiet, "no end after the current objects");

    let quick = Duration::from_secs(5);
    let event = |n: Next| match n {
        Next::Line(e) => {
            let name = e["object"]["metadata"]["name"].as_str().unwrap().to_string();
            (
                e["type"].as_str().unwrap().to_string(),
                format!("{}/{name}", e["clusterName"].as_str().unwrap()),
            )
        }
        other => panic!("no event: {other:?}"),
    };
    api.write("alpha", object(&configmaps(), Some("default"), "cm-a1", json!({"app": "db"}))).await;
    assert_eq!(event(watch.next(quick).await), ("MODIFIED".into(), "alpha/cm-a1".into()));
    api.create("beta", object(&configmaps(), Some("default"), "cm-b9", json!({}))).await;
    assert_eq!(event(watch.next(quick).await), ("ADDED".into(), "beta/cm-b9".into()));
    // Another namespace, another type: not this watch's.
    api.write("alpha", object(&configmaps(), Some("team"), "cm-a9", json!({}))).await;
    api.write("beta", object(&Gvr::new("", "v1", "secrets"), Some("default"), "s-b9", json!({}))).await;
    api.delete("beta", &configmaps(), "default", "cm-b2").await;
    assert_eq!(event(watch.next(quick).await), ("DELETED".into(), "beta/cm-b2".into()));
    assert_eq!(watch.next(Duration::from_millis(200)).await, Next::Quiet);
}

#[tokio::test]
async fn a_watch_with_a_selector_deletes_what_leaves_it_and_adds_what_enters_it() {
    let api = TestApi::new().await;
    let mut watch = api.stream("/v1/list?gvr=configmaps&labels[app]=web&watch=true").await;
    assert_eq!(watch.lines(3, Duration::from_secs(5)).await.len(), 3);
    let cm = |name: &str, app: &str| object(&configmaps(), Some("default"), name, json!({"app": app}));
    let kind = |n: Next| match n {
        Next::Line(e) => {
            format!("{} {}", e["type"].as_str().unwrap(), e["object"]["metadata"]["name"].as_str().unwrap())
        }
        other => panic!("no event: {other:?}"),
    };
    let quick = Duration::from_secs(5);
    api.write("alpha", cm("cm-a2", "db")).await;
    assert_eq!(kind(watch.next(quick).await), "DELETED cm-a2");
    api.write("beta", cm("cm-b2", "web")).await;
    assert_eq!(kind(watch.next(quick).await), "ADDED cm-b2");
    api.write("alpha", cm("cm-a2", "web")).await;
    assert_eq!(kind(watch.next(quick).await), "ADDED cm-a2");
}

#[tokio::test]
async fn answers_with_objects_of_a_cluster_not_synced_carry_a_warning() {
    let api = TestApi::new().await;
    assert_eq!(api.get("/v1/list?gvr=configmaps").await.warnings(), Vec::<String>::new());
    api.unsync("beta");
    for uri in
        ["/v1/list?gvr=configmaps", "/v1/list_with_cluster?gvr=configmaps&limit=0", "/api/v1/configmaps"]
    {
        let warnings = api.get(uri).await.warnings();
        assert_eq!(warnings.len(), 1, "{uri}: {warnings:?}");
        assert!(warnings[0].starts_with("299 - \"cluster beta is Syncing"), "{uri}: {warnings:?}");
    }
    // Only beta is behind: answers without its objects are current.
    for uri in ["/v1/list?gvr=configmaps&cluster=alpha", "/v1/list?gvr=configmaps&namespace=team"] {
        assert_eq!(api.get(uri).await.warnings(), Vec::<String>::new(), "{uri}");
    }
}

#[tokio::test]
async fn several_types_in_one_request_list_each_type_in_the_order_given() {
    let api = TestApi::new().await;
    let deploy_pods_cms = ["beta/web", "alpha/p-a1", "alpha/p-a2", "beta/p-b1"]
        .into_iter()
        .chain(CONFIGMAPS)
        .map(String::from)
        .collect::<Vec<_>>();
    assert_eq!(listed(&api, "gvr=deploy,pods,cm&limit=0").await, deploy_pods_cms);
    assert_eq!(listed(&api, "gvr=deploy&gvr=pods&gvr=cm&limit=0").await, deploy_pods_cms, "gvr repeated");
    assert_eq!(listed(&api, "gvr=cm,deploy,configmaps&limit=0").await.len(), 6, "a type named twice once");
    // Filters apply to every type.
    assert_eq!(
        listed(&api, "gvr=pods,cm&cluster=beta&limit=0").await,
        ["beta/p-b1", "beta/cm-b1", "beta/cm-b2"]
    );
    // /v1/list: the bare objects, of both kinds.
    let kinds: Vec<Value> =
        api.get("/v1/list?gvr=deploy,cm&limit=0").await.array().iter().map(|o| o["kind"].clone()).collect();
    assert_eq!(kinds.len(), 6);
    // One type alone is the request it always was, continue token and all.
    let one = api.get("/v1/list_with_cluster?gvr=cm&limit=2").await;
    assert_eq!(keys(&one), ["alpha/cm-a1", "alpha/cm-a2"]);
    assert!(one.header(CONTINUE_HEADER).is_some());
}

#[tokio::test]
async fn a_limit_counts_every_type_and_the_token_continues_where_it_stopped() {
    let api = TestApi::new().await;
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    // Pages of 3 over a deployment, 3 pods and 5 configmaps: 9 in all.
    for _ in 0..5 {
        let continued = token.as_deref().map(|t| format!("&continue={}", encoded(t))).unwrap_or_default();
        let page = api.get(&format!("/v1/list_with_cluster?gvr=deploy,pods,cm&limit=3{continued}")).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text());
        let got = keys(&page);
        assert!(got.len() <= 3, "{got:?}");
        seen.extend(got);
        token = page.header(CONTINUE_HEADER).map(str::to_owned);
        if token.is_none() {
            break;
        }
    }
    let mut expected: Vec<String> =
        ["beta/web", "alpha/p-a1", "alpha/p-a2", "beta/p-b1"].into_iter().map(String::from).collect();
    expected.extend(CONFIGMAPS.map(String::from));
    assert_eq!(seen, expected);
    // The default page of the Go project's server counts the whole answer too.
    ten_more(&api).await;
    assert_eq!(listed(&api, "gvr=deploy,pods,cm").await.len(), 10);
    // A token of one type's own request is taken by a request that lists that type.
    let alone =
        api.get("/v1/list_with_cluster?gvr=pods&limit=1").await.header(CONTINUE_HEADER).unwrap().to_owned();
    let rest = listed(&api, &format!("gvr=deploy,pods&limit=0&continue={}", encoded(&alone))).await;
    assert_eq!(rest, ["alpha/p-a2", "beta/p-b1"]);
    // A token of no type of the request is 400.
    let of_cm =
        api.get("/v1/list_with_cluster?gvr=cm&limit=1").await.header(CONTINUE_HEADER).unwrap().to_owned();
    let other = api
        .get(&format!("/v1/list_with_cluster?gvr=secrets,pods&limit=0&continue={}", encoded(&of_cm)))
        .await;
    assert!(other.error(StatusCode::BAD_REQUEST).contains("made by another query"));
}

#[tokio::test]
async fn several_types_refuse_an_unknown_type_a_watch_and_newest_first() {
    let api = TestApi::new().await;
    let unknown = api.get("/v1/list_with_cluster?gvr=pods,confgmaps").await;
    assert!(unknown.error(StatusCode::NOT_FOUND).contains("unknown resource type \"confgmaps\""));
    let watch = api.get("/v1/list_with_cluster?gvr=pods,cm&watch=true").await;
    assert!(watch.error(StatusCode::BAD_REQUEST).starts_with("watch takes one type"));
    let newest = api.get("/v1/list?gvr=pods,cm&order=newest").await;
    assert!(newest.error(StatusCode::BAD_REQUEST).starts_with("order=newest takes one type"));
}

#[tokio::test]
async fn several_types_without_a_limit_stream_every_page_of_every_type() {
    let api = TestApi::new().await;
    // More ConfigMaps than one page of the stream holds.
    let many: Vec<Change> = (0..1200)
        .map(|i| Change::Upsert(object(&configmaps(), Some("zz"), &format!("many-{i:04}"), json!({}))))
        .collect();
    api.state.store.apply_batch("beta", many).await.unwrap();
    let all = listed(&api, "gvr=pods,cm,deploy&limit=0").await;
    assert_eq!(all.len(), 3 + 5 + 1200 + 1);
    assert_eq!(all[..3], ["alpha/p-a1", "alpha/p-a2", "beta/p-b1"]);
    assert_eq!(all[3..8], CONFIGMAPS[..]);
    assert_eq!(all[8], "beta/many-0000");
    assert_eq!(all[1207], "beta/many-1199");
    assert_eq!(all[1208], "beta/web");
}
