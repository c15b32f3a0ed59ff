//! Bearer tokens and their roles, and `server.anonymousRead`.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};

use super::{READ_TOKEN, Setup, TOKEN, TestApi};
use crate::http::params::is_kube;

/// A read of every kind: both APIs, a collection, an object, discovery, one cluster.
const READS: [&str; 7] = [
    "/v1/list?gvr=configmaps",
    "/v1/list_with_cluster?gvr=secrets",
    "/v1/clusters",
    "/api",
    "/apis/apps/v1",
    "/api/v1/namespaces/default/configmaps/cm-a1",
    "/clusters/beta/api/v1/secrets",
];

/// Asserts a 401 in the shape of `path`'s API, with the challenge; returns its message.
#[track_caller]
fn unauthorized(path: &str, answer: &super::Answer) -> String {
    let message = if is_kube(path) {
        answer.status_object(StatusCode::UNAUTHORIZED, "Unauthorized")
    } else {
        answer.error(StatusCode::UNAUTHORIZED)
    };
    assert_eq!(answer.header("www-authenticate"), Some("Bearer"), "{path}");
    message
}

#[tokio::test]
async fn without_a_token_every_read_is_401_with_a_bearer_challenge() {
    let api = TestApi::new().await;
    for path in READS {
        let message = unauthorized(path, &api.call(Method::GET, path, None).await);
        assert!(message.contains("missing bearer token"), "{path}: {message}");
        assert_eq!(api.get(path).await.status, StatusCode::OK, "{path} with the token");
    }
    // Nor does a path that names nothing say so to a caller without a token.
    unauthorized("/v1/nope", &api.call(Method::GET, "/v1/nope", None).await);
}

#[tokio::test]
async fn a_wrong_or_malformed_token_is_401() {
    let api = TestApi::new().await;
    for authorization in [
        "Bearer not-the-token-0123456789".to_string(),
        format!("Bearer {TOKEN}x"),
        format!("Basic {TOKEN}"),
        format!("Bearer{TOKEN}"),
        "Bearer ".to_string(),
        TOKEN.to_string(),
    ] {
        for path in ["/v1/clusters", "/api/v1/configmaps"] {
            let request =
                Request::get(path).header(header::AUTHORIZATION, &authorization).body(Body::empty());
            let message = unauthorized(path, &api.send(request.unwrap()).await);
            assert_eq!(message, "invalid bearer token", "{authorization:?}");
        }
    }
    // The scheme is case-insensitive (RFC 7235); the token is not.
    let request = Request::get("/v1/clusters").header(header::AUTHORIZATION, format!("bearer {TOKEN}"));
    assert_eq!(api.send(request.body(Body::empty()).unwrap()).await.status, StatusCode::OK);
    let request = Request::get("/v1/clusters")
        .header(header::AUTHORIZATION, format!("Bearer {}", TOKEN.to_uppercase()));
    assert_eq!(api.send(request.body(Body::empty()).unwrap()).await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_read_token_may_list_but_not_join_or_unjoin() {
    let api = TestApi::new().await;
    for path in READS {
        let answer = api.call(Method::GET, path, Some(READ_TOKEN)).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text());
    }
    let join = api.call(Method::POST, "/v1/join?cluster=gamma", Some(READ_TOKEN)).await;
    let message = join.error(StatusCode::FORBIDDEN);
    assert!(message.contains("read role") && message.contains("admin token"), "{message}");
    let unjoin = api.call(Method::DELETE, "/v1/unjoin?cluster=alpha", Some(READ_TOKEN)).await;
    unjoin.error(StatusCode::FORBIDDEN);
    assert_eq!(api.get("/v1/clusters").await.array().len(), 2, "alpha is still a member");
    // The admin token gets past the role check to the request's own errors.
    let unjoin = api.call(Method::DELETE, "/v1/unjoin?cluster=gamma", Some(TOKEN)).await;
    unjoin.error(StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn anonymous_read_opens_reads_and_nothing_else() {
    let api = TestApi::with(Setup { anonymous_read: true, ..Setup::default() }).await;
    for path in READS {
        let answer = api.call(Method::GET, path, None).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text());
        // A wrong token is refused still: a typo is not silently downgraded to a read.
        let wrong = api.call(Method::GET, path, Some("not-the-token-0123456789")).await;
        assert_eq!(unauthorized(path, &wrong), "invalid bearer token");
    }
    for (method, path) in [
        (Method::POST, "/v1/join?cluster=gamma"),
        (Method::DELETE, "/v1/unjoin?cluster=alpha"),
        (Method::DELETE, "/api/v1/namespaces/default/configmaps/cm-a1"),
        (Method::POST, "/clusters/alpha/api/v1/namespaces/default/configmaps"),
    ] {
        let message = unauthorized(path, &api.call(method.clone(), path, None).await);
        assert!(message.contains("missing bearer token"), "{method} {path}: {message}");
    }
    // A read token is a read token still.
    api.call(Method::POST, "/v1/join?cluster=gamma", Some(READ_TOKEN)).await.error(StatusCode::FORBIDDEN);
}
