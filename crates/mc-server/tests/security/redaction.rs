//! No secret value reaches an answer: Secrets, Secret-kind MultiClusterResource templates and
//! their last-applied copies are served redacted and marked so.

use std::time::Duration;

use reqwest::StatusCode;

use crate::server::{McServer, Options};
use crate::testenv::{TestEnv, eventually};

const NS: &str = "sec-redaction";

#[tokio::test]
async fn secrets_and_secret_templates_are_served_redacted_and_marked() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let _ = env.kubectl(master, &["create", "namespace", NS]);
    let secret = format!(
        r#"{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"db","namespace":"{NS}","annotations":{{"note":"ANNOTATION-SECRET","kubernetes.io/service-account.name":"builder"}}}},"stringData":{{"password":"STRINGDATA-SECRET"}},"data":{{"key":"REFUQS1TRUNSRVQ="}}}}"#
    );
    let mcr = format!(
        r#"{{"apiVersion":"mulitcluster.practice.com/v1alpha1","kind":"MultiClusterResource","metadata":{{"name":"sec-secret","namespace":"default"}},"spec":{{"template":{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"sec-copy","namespace":"default","annotations":{{"note":"TEMPLATE-ANNOTATION-SECRET"}}}},"stringData":{{"password":"TEMPLATE-SECRET"}}}},"placement":{{"clusters":[{{"name":"{}"}}]}},"customize":{{"clusters":[{{"name":"{}","action":[{{"op":"add","path":"/stringData/extra","value":["CUSTOMIZE-SECRET"]}}]}}]}}}}}}"#,
        master.name, master.name
    );
    for manifest in [&secret, &mcr] {
        let path = env.dir.join("security").join("manifest.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, manifest).unwrap();
        // `kubectl apply` leaves the last-applied annotation with every value in it.
        env.kubectl(master, &["apply", "-f", &path.display().to_string()]).unwrap();
    }
    let server = McServer::start(&env, "sec-redaction", Options::default()).await;
    let queries = [
        format!("/v1/list?gvr=v1/secrets&namespace={NS}&name=db&limit=0"),
        "/v1/list?gvr=multiclusterresources&namespace=default&name=sec-secret&limit=0".to_string(),
        "/v1/list?gvr=v1/secrets&namespace=default&name=sec-copy&limit=0".to_string(),
    ];
    let mut checked = 0;
    for q in &queries {
        let items = eventually(q, Duration::from_secs(60), || async {
            let (status, body) = server.get(q).await;
            (status == StatusCode::OK).then_some(())?;
            let items = body.as_array()?.clone();
            (!items.is_empty()).then_some(items)
        })
        .await;
        for item in items {
            let text = item.to_string();
            for secret in ["SECRET", "REFUQS1TRUNSRVQ"] {
                assert!(!text.contains(secret), "{q}: a secret value is served: {text}");
            }
            assert!(text.contains("<redacted>"), "{text}");
            assert_eq!(
                item["metadata"]["annotations"]["mulitcluster.practice.com/redacted"], "true",
                "{text}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked} objects checked");
    // Allowed annotations stay readable.
    let (_, body) = server.get(&queries[0]).await;
    assert_eq!(body[0]["metadata"]["annotations"]["kubernetes.io/service-account.name"], "builder");
    assert_eq!(body[0]["data"]["key"], "<redacted>");
    let _ = env
        .kubectl(master, &["delete", "multiclusterresource", "sec-secret", "-n", "default", "--wait=false"]);
    let _ = env.kubectl(master, &["delete", "namespace", NS, "--wait=false"]);
}
