//! Closed by default: every API path needs a token, roles limit join/unjoin, anonymous reads
//! only when asked for, errors always in the JSON shape.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::server::{Launch, McServer, Options, config_with};
use crate::testenv::TestEnv;

const READER: &str = "mc-security-reader-token-0123";

async fn call(
    server: &McServer,
    method: Method,
    path: &str,
    token: Option<&str>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut req = server.http().request(method, format!("{}{path}", server.url));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    let (status, headers) = (resp.status(), resp.headers().clone());
    let text = resp.text().await.unwrap_or_default();
    (status, headers, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[tokio::test]
async fn every_api_path_needs_a_token_and_probes_stay_open() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-closed", Options::default()).await;
    let closed = [
        (Method::GET, "/v1/clusters"),
        (Method::GET, "/v1/resources"),
        (Method::GET, "/v1/list?gvr=v1/pods"),
        (Method::GET, "/v1/list_with_cluster?gvr=v1/pods&limit=0"),
        (Method::GET, "/v1/list?gvr=v1/pods&watch=true"),
        (Method::GET, "/no/such/endpoint"),
        (Method::POST, "/v1/join?cluster=x"),
        (Method::DELETE, "/v1/unjoin?cluster=tencent2"),
    ];
    for (method, path) in &closed {
        for token in [None, Some("not-the-token-not-the-token")] {
            let (status, headers, body) = call(&server, method.clone(), path, token).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path} with {token:?}: {body}");
            assert_eq!(headers["www-authenticate"], "Bearer");
            assert!(body["error"].as_str().is_some_and(|e| e.contains("token")), "{body}");
        }
    }
    // The Kubernetes API's version and access reviews: a Status, as kube-apiserver answers.
    let kube = [
        (Method::GET, "/version"),
        (Method::GET, "/clusters/tencent2/version"),
        (Method::POST, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
    ];
    for (method, path) in &kube {
        for token in [None, Some("not-the-token-not-the-token")] {
            let (status, headers, body) = call(&server, method.clone(), path, token).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path} with {token:?}: {body}");
            assert_eq!(headers["www-authenticate"], "Bearer");
            assert_eq!(body["kind"], "Status", "{body}");
            assert!(body["message"].as_str().is_some_and(|e| e.contains("token")), "{body}");
        }
    }
    for path in ["/livez", "/healthz", "/readyz", "/openapi.json", "/metrics"] {
        let (status, _, _) = call(&server, Method::GET, path, None).await;
        assert_eq!(status, StatusCode::OK, "{path} is open");
    }
    let (status, _, body) = call(&server, Method::GET, "/v1/clusters", Some(server.token())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.as_array().unwrap().len(), env.clusters.len());
    // The unjoin above was refused: the cluster is still there.
    assert!(body.as_array().unwrap().iter().any(|c| c["name"] == "tencent2"));
}

#[tokio::test]
async fn read_tokens_cannot_join_and_metrics_can_be_closed() {
    let env = TestEnv::from_env();
    let extra = format!("server:\n  metricsAuth: true\n  tokens:\n    - {{token: {READER}, role: read}}\n");
    let config = config_with(&env, "sec-roles", &extra);
    let server =
        McServer::start(&env, "sec-roles", Options { config: Some(config), ..Default::default() }).await;
    let (status, _, body) = call(&server, Method::GET, "/v1/clusters", Some(READER)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, body) = call(&server, Method::DELETE, "/v1/unjoin?cluster=tencent2", Some(READER)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body["error"].as_str().unwrap().contains("admin"), "{body}");
    let (status, _, _) = call(&server, Method::POST, "/v1/join?cluster=x", Some(READER)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _, _) = call(&server, Method::GET, "/metrics", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "metricsAuth closes /metrics");
    let (status, _, _) = call(&server, Method::GET, "/metrics", Some(READER)).await;
    assert_eq!(status, StatusCode::OK);
    let (_, _, clusters) = call(&server, Method::GET, "/v1/clusters", Some(server.token())).await;
    assert_eq!(clusters.as_array().unwrap().len(), env.clusters.len(), "nothing was unjoined");
}

#[tokio::test]
async fn anonymous_reads_are_opt_in_and_never_write() {
    let env = TestEnv::from_env();
    let config = config_with(&env, "sec-anonymous", "server:\n  anonymousRead: true\n");
    let server =
        McServer::start(&env, "sec-anonymous", Options { config: Some(config), ..Default::default() }).await;
    let (status, _, body) = call(&server, Method::GET, "/v1/list?gvr=v1/namespaces&limit=0", None).await;
    assert_eq!(status, StatusCode::OK, "anonymous read: {body}");
    assert!(!body.as_array().unwrap().is_empty());
    let (status, _, _) = call(&server, Method::DELETE, "/v1/unjoin?cluster=tencent2", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "join/unjoin never go anonymous");
    let (status, _, _) = call(&server, Method::POST, "/v1/join?cluster=x", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // A wrong token is refused even with anonymous reads on.
    let (status, _, _) = call(&server, Method::GET, "/v1/clusters", Some("wrong-token-wrong-token")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (_, _, clusters) = call(&server, Method::GET, "/v1/clusters", None).await;
    assert_eq!(clusters.as_array().unwrap().len(), env.clusters.len(), "nothing was unjoined");
}

#[tokio::test]
async fn a_first_start_without_a_token_generates_a_private_one() {
    let env = TestEnv::from_env();
    let data = env.dir.join("mc-server").join("sec-generated-data");
    let _ = std::fs::remove_dir_all(&data);
    let data_arg = data.display().to_string();
    let home = env.dir.join("mc-server").join("sec-generated-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let home_arg = home.display().to_string();
    let launch = Launch {
        args: &["--data-dir", &data_arg],
        envs: &[("MC_TOKEN", ""), ("HOME", &home_arg)],
        write_cli_config: true,
        ..Default::default()
    };
    let mut server = McServer::spawn_with(&env, "sec-generated", Options::default(), launch);
    server.wait_ready(Duration::from_secs(90)).await;
    let file = data.join("token");
    let token = std::fs::read_to_string(&file).unwrap().trim().to_string();
    assert_eq!(token.len(), 64, "32 random bytes, hex");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    let (status, _, _) = call(&server, Method::GET, "/v1/clusters", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, _) = call(&server, Method::GET, "/v1/clusters", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
    // The CLI config the server writes for a first-time user carries it: nobody types it.
    let cli = mc_types::config::CliConfig::load(&home.join(".multi-cluster-operator/config"))
        .expect("CLI config written");
    assert_eq!(cli.token.as_deref(), Some(token.as_str()), "{cli:?}");
    assert_eq!(Some(cli.server_port.to_string().as_str()), server.url.rsplit(':').next(), "{cli:?}");
    // ... and HTTPS with the CA the server made, so clients verify it (and kubectl sends the
    // token): the CA's key private, the CA itself readable by the user.
    let tls = data.join("tls");
    assert!(cli.server_url().starts_with("https://"), "{cli:?}");
    assert_eq!(cli.certificate_authority.as_deref(), Some(tls.join("ca.crt").to_str().unwrap()), "{cli:?}");
    assert_eq!(std::fs::metadata(&tls).unwrap().permissions().mode() & 0o777, 0o700);
    for key in ["ca.key", "server.key"] {
        assert_eq!(std::fs::metadata(tls.join(key)).unwrap().permissions().mode() & 0o777, 0o600, "{key}");
    }
    let ca = std::fs::read(tls.join("ca.crt")).unwrap();
    // A restart keeps the token and the CA.
    server.stop();
    let mut again = McServer::spawn_with(&env, "sec-generated", Options::default(), launch);
    again.wait_ready(Duration::from_secs(90)).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    assert_eq!(std::fs::read(tls.join("ca.crt")).unwrap(), ca, "clients keep trusting the same CA");
    let (status, _, _) = call(&again, Method::GET, "/v1/clusters", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn wrong_methods_and_malformed_queries_answer_the_json_error_shape() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-methods", Options::default()).await;
    let (status, headers, body) =
        call(&server, Method::PUT, "/v1/list?gvr=v1/pods", Some(server.token())).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{body}");
    assert!(headers["allow"].to_str().unwrap().contains("GET"));
    assert!(body["error"].as_str().unwrap().contains("not allowed"), "{body}");
    assert_eq!(headers["content-type"], "application/json");
    let (status, headers, body) =
        call(&server, Method::GET, "/v1/list?gvr=%FF%FE&x=%", Some(server.token())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(headers["content-type"], "application/json");
    assert!(body["error"].is_string(), "{body}");
}
