//! `POST /v1/join` and `DELETE /v1/unjoin`: what is refused before any connection is tried.
//! Every kubeconfig here names 127.0.0.1 (port 1), and none of them gets as far as a
//! connection: a test that would reach one is wrong.

use axum::body::Body;
use axum::http::{Method, StatusCode, header};

use super::{Answer, TestApi};

/// A multipart/form-data body with these fields (as files, as `kubectl multicluster join` sends
/// them), and its content type.
fn multipart(fields: &[(&str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "mc-test-boundary-7d1f0c";
    let mut body = Vec::new();
    for (name, value) in fields {
        let head = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"config\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        );
        body.extend_from_slice(head.as_bytes());
        body.extend_from_slice(value);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// `POST /v1/join?{query}` with the admin token and these multipart fields.
async fn join(api: &TestApi, query: &str, fields: &[(&str, &[u8])]) -> Answer {
    let (content_type, body) = multipart(fields);
    let request = TestApi::request(Method::POST, &format!("/v1/join?{query}"))
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body));
    api.send(request.unwrap()).await
}

/// A kubeconfig with one context, its cluster `k` and user `u` given as these YAML lines.
fn kubeconfig(cluster: &str, user: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {{cluster: k, user: u}}\nclusters:\n- name: k\n  cluster:\n{cluster}\nusers:\n- name: u\n  user:\n{user}\n"
    )
}

const SERVER: &str = "    server: https://127.0.0.1:1";
const TOKEN_USER: &str = "    token: abc";

/// The members, as `/v1/clusters` lists them.
async fn members(api: &TestApi) -> Vec<String> {
    let clusters = api.get("/v1/clusters").await.array();
    clusters.iter().map(|c| c["name"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn a_join_without_a_cluster_or_a_kubeconfig_field_is_400() {
    let api = TestApi::new().await;
    let good = kubeconfig(SERVER, TOKEN_USER);
    let message = join(&api, "", &[("kubeconfig", good.as_bytes())]).await.error(StatusCode::BAD_REQUEST);
    assert_eq!(message, "missing parameter cluster");
    let message =
        join(&api, "cluster=gamma", &[("config", good.as_bytes())]).await.error(StatusCode::BAD_REQUEST);
    assert_eq!(message, "missing multipart field \"kubeconfig\"");
    let message = join(&api, "cluster=gamma", &[]).await.error(StatusCode::BAD_REQUEST);
    assert!(message.contains("\"kubeconfig\""), "{message}");
    // Not multipart at all.
    let request = TestApi::request(Method::POST, "/v1/join?cluster=gamma")
        .header(header::CONTENT_TYPE, "application/yaml")
        .body(Body::from(good));
    let message = api.send(request.unwrap()).await.error(StatusCode::BAD_REQUEST);
    assert!(message.starts_with("expected a multipart/form-data body"), "{message}");
    let message = join(&api, "cluster=gamma&insecure=maybe", &[]).await.error(StatusCode::BAD_REQUEST);
    assert!(message.contains("insecure"), "{message}");
    assert_eq!(members(&api).await, ["alpha", "beta"]);
}

#[tokio::test]
async fn a_kubeconfig_over_1_mib_is_413() {
    let api = TestApi::new().await;
    let mut large = kubeconfig(SERVER, TOKEN_USER).into_bytes();
    large.resize(crate::membership::MAX_KUBECONFIG + 1, b'#');
    let message =
        join(&api, "cluster=gamma", &[("kubeconfig", &large)]).await.error(StatusCode::PAYLOAD_TOO_LARGE);
    assert!(message.contains("1048576"), "{message}");
    assert_eq!(members(&api).await, ["alpha", "beta"]);
}

#[tokio::test]
async fn a_kubeconfig_that_runs_commands_or_reads_files_is_refused_by_field() {
    let api = TestApi::new().await;
    for (cluster, user, field) in [
        (
            SERVER,
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/touch\n      args: [/tmp/mc-join-test]",
            "users[u].user.exec",
        ),
        (
            SERVER,
            "    auth-provider:\n      name: gcp\n      config: {cmd-path: /bin/touch}",
            "users[u].user.auth-provider",
        ),
        (
            SERVER,
            "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token",
            "users[u].user.tokenFile",
        ),
        (
            SERVER,
            "    client-certificate: /etc/passwd\n    client-key-data: AAAA",
            "users[u].user.client-certificate",
        ),
        (
            SERVER,
            "    client-key: /etc/shadow\n    client-certificate-data: AAAA",
            "users[u].user.client-key",
        ),
        (
            "    server: https://127.0.0.1:1\n    certificate-authority: /etc/ssl/ca.pem",
            TOKEN_USER,
            "clusters[k].cluster.certificate-authority",
        ),
        (
            "    server: https://127.0.0.1:1\n    proxy-url: http://127.0.0.1:1",
            TOKEN_USER,
            "clusters[k].cluster.proxy-url",
        ),
        ("    server: http://127.0.0.1:1", TOKEN_USER, "clusters[k].cluster.server"),
    ] {
        let text = kubeconfig(cluster, user);
        let message = join(&api, "cluster=gamma", &[("kubeconfig", text.as_bytes())])
            .await
            .error(StatusCode::BAD_REQUEST);
        assert!(message.starts_with(&format!("kubeconfig: {field}")), "{field}: {message}");
        assert!(message.contains("not accepted in an uploaded kubeconfig"), "{message}");
    }
    assert_eq!(members(&api).await, ["alpha", "beta"]);
}

#[tokio::test]
async fn a_kubeconfig_that_is_not_one_is_400() {
    let api = TestApi::new().await;
    let no_cluster = "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n";
    for (body, why) in [
        (&b"\xff\xfe not text"[..], "not UTF-8"),
        (b"clusters: [unclosed", "does not parse"),
        (no_cluster.as_bytes(), "names no cluster"),
    ] {
        let message =
            join(&api, "cluster=gamma", &[("kubeconfig", body)]).await.error(StatusCode::BAD_REQUEST);
        assert!(message.starts_with("kubeconfig: ") && message.contains(why), "{why}: {message}");
    }
    assert_eq!(members(&api).await, ["alpha", "beta"]);
}

#[tokio::test]
async fn a_bad_or_taken_cluster_name_is_refused() {
    let api = TestApi::new().await;
    let good = kubeconfig(SERVER, TOKEN_USER);
    let long = "a".repeat(64);
    for name in ["Gamma", "gamma_1", "-gamma", "gamma.example", long.as_str()] {
        let answer = join(&api, &format!("cluster={name}"), &[("kubeconfig", good.as_bytes())]).await;
        let message = answer.error(StatusCode::BAD_REQUEST);
        assert!(message.starts_with("invalid cluster name"), "{name}: {message}");
    }
    let message =
        join(&api, "cluster=alpha", &[("kubeconfig", good.as_bytes())]).await.error(StatusCode::CONFLICT);
    assert_eq!(message, "cluster \"alpha\" is already a member");
    assert_eq!(members(&api).await, ["alpha", "beta"]);
}

#[tokio::test]
async fn unjoining_an_unknown_cluster_is_404_and_names_the_members() {
    let api = TestApi::new().await;
    let message = api
        .call(Method::DELETE, "/v1/unjoin?cluster=gamma", Some(super::TOKEN))
        .await
        .error(StatusCode::NOT_FOUND);
    assert_eq!(message, "unknown cluster \"gamma\" (members: alpha, beta)");
    let message =
        api.call(Method::DELETE, "/v1/unjoin", Some(super::TOKEN)).await.error(StatusCode::BAD_REQUEST);
    assert_eq!(message, "missing parameter cluster");
}

#[tokio::test]
async fn unjoining_without_a_master_to_record_it_is_503_and_keeps_the_cluster() {
    let api = TestApi::new().await;
    let answer = api.call(Method::DELETE, "/v1/unjoin?cluster=alpha", Some(super::TOKEN)).await;
    let message = answer.error(StatusCode::SERVICE_UNAVAILABLE);
    assert!(message.contains("master cluster"), "{message}");
    assert_eq!(members(&api).await, ["alpha", "beta"]);
    assert_eq!(api.get("/api/v1/configmaps").await.names().len(), 5, "its objects are served still");
}

#[tokio::test]
async fn join_and_unjoin_take_only_their_own_method() {
    let api = TestApi::new().await;
    for (method, path, allowed) in [
        (Method::GET, "/v1/join?cluster=gamma", "POST"),
        (Method::PUT, "/v1/join?cluster=gamma", "POST"),
        (Method::GET, "/v1/unjoin?cluster=alpha", "DELETE"),
        (Method::POST, "/v1/unjoin?cluster=alpha", "DELETE"),
    ] {
        let answer = api.call(method.clone(), path, Some(super::TOKEN)).await;
        let message = answer.error(StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(answer.header("allow"), Some(allowed), "{method} {path}: {message}");
    }
    assert_eq!(members(&api).await, ["alpha", "beta"]);
}
