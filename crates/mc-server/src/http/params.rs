//! What both APIs check of a request before any work, in one place: its size (URI, headers,
//! number of query parameters), the length of each parameter, the names in its path or its
//! parameters, and continue tokens, which hold the query that made them. Errors answer in the
//! shape of the API the path belongs to ([`answer`]).

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mc_types::ClusterName;

use super::status::KubeError;
use super::{ApiError, ApiResult};
use crate::clusters::Registry;
use crate::store::{Cursor, Query};

/// Longest request target (path and query). Below hyper's own limits, so the answer is ours.
pub const MAX_URI: usize = 16 * 1024;
/// Most header fields one request may carry.
pub const MAX_HEADERS: usize = 100;
/// Most bytes of header fields (names and values) one request may carry.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// Most query parameters one request may carry.
pub const MAX_PARAMETERS: usize = 100;
/// Longest namespace and cluster name (DNS-1123 labels).
pub const MAX_LABEL: usize = 63;
/// Longest object name and API group (DNS-1123 subdomains).
pub const MAX_NAME: usize = 253;
/// Longest selector or continue token.
pub const MAX_TEXT: usize = 4096;
/// Most `labels[key]=value` filters one request may carry.
pub const MAX_LABEL_FILTERS: usize = 16;
/// Longest label key (a DNS-1123 subdomain prefix, `/`, and a name of 63).
pub const MAX_LABEL_KEY: usize = MAX_NAME + 1 + MAX_LABEL;

/// Whether a path belongs to the Kubernetes API (its errors are `Status` objects) rather than
/// to `/v1` and the probes (`{"error": ...}`).
pub fn is_kube(path: &str) -> bool {
    let under = |prefix: &str| path == prefix || path.starts_with(&format!("{prefix}/"));
    under("/api")
        || under("/apis")
        || under("/openapi")
        || path == "/version"
        || path.starts_with("/clusters/")
}

/// An error answered in the shape of the API `path` belongs to.
pub fn answer(path: &str, error: ApiError) -> Response {
    if is_kube(path) { KubeError::from(error).into_response() } else { error.into_response() }
}

/// Refuses a request too large to look at before any other work (authentication included):
/// its URI (414), its header fields (431) or its number of query parameters (400).
pub async fn bounded(req: Request, next: Next) -> Response {
    match check_size(&req) {
        Ok(()) => next.run(req).await,
        Err(e) => answer(req.uri().path(), e),
    }
}

fn check_size(req: &Request) -> ApiResult<()> {
    let uri = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if uri > MAX_URI {
        return Err(ApiError::new(
            StatusCode::URI_TOO_LONG,
            format!("the request URI is {uri} bytes long; at most {MAX_URI} are allowed"),
        ));
    }
    let headers = req.headers();
    if headers.len() > MAX_HEADERS {
        return Err(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("{} header fields; at most {MAX_HEADERS} are allowed", headers.len()),
        ));
    }
    // As HTTP/1.1 sends them: `name: value\r\n`.
    let bytes: usize = headers.iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if bytes > MAX_HEADER_BYTES {
        return Err(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the header fields are {bytes} bytes long; at most {MAX_HEADER_BYTES} are allowed"),
        ));
    }
    let parameters = req.uri().query().map_or(0, |q| q.split('&').filter(|p| !p.is_empty()).count());
    if parameters > MAX_PARAMETERS {
        return Err(ApiError::bad_request(format!(
            "{parameters} query parameters; at most {MAX_PARAMETERS} are allowed"
        )));
    }
    Ok(())
}

/// A value as it may be shown back: at most 64 characters, without control characters.
pub fn shown(s: &str) -> String {
    let head: String = s.chars().take(64).filter(|c| !c.is_control()).collect();
    if s.chars().count() > 64 { format!("{head}…") } else { head }
}

/// Longest value of a query parameter of either API: names as Kubernetes bounds them, short
/// switches short, anything else (selectors, tokens, parameters only a real API server reads)
/// at most [`MAX_TEXT`].
fn max_len(key: &str) -> usize {
    match key {
        "gvr" | "name" => MAX_NAME,
        "cluster" | "clusterName" | "namespace" | "verb" | "subresource" => MAX_LABEL,
        "user" | "group" => MAX_NAME,
        "limit" | "watch" | "order" | "timeoutSeconds" | "allowWatchBookmarks" | "sendInitialEvents" => 20,
        _ if key.starts_with("labels[") => MAX_LABEL,
        _ => MAX_TEXT,
    }
}

/// Checks the length of one query parameter's value.
pub fn check_len(key: &str, value: &str) -> ApiResult<()> {
    if let Some(label) = key.strip_prefix("labels[").and_then(|k| k.strip_suffix(']')) {
        check_label_key(label)?;
    }
    let max = max_len(key);
    if value.len() > max {
        return Err(ApiError::bad_request(format!(
            "parameter \"{}\" is {} characters long; at most {max} are allowed",
            shown(key),
            value.len()
        )));
    }
    if is_ascii_only(key) && !value.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return Err(ApiError::bad_request(format!(
            "parameter \"{}\" may hold printable ASCII characters only",
            shown(key)
        )));
    }
    Ok(())
}

/// Parameters whose every valid value is printable ASCII: selectors (label keys and values,
/// field paths, object names), `labels[…]` values and continue tokens. Refusing the rest keeps
/// the longest allowed URI within what the HTTP layer reads.
fn is_ascii_only(key: &str) -> bool {
    matches!(key, "labelSelector" | "fieldSelector" | "continue") || key.starts_with("labels[")
}

/// The key of a `labels[key]` filter: as long as a label key may be, printable ASCII.
fn check_label_key(key: &str) -> ApiResult<()> {
    if key.len() > MAX_LABEL_KEY {
        return Err(ApiError::bad_request(format!(
            "the label key of a labels[…] filter is {} characters long; at most {MAX_LABEL_KEY} are allowed",
            key.len()
        )));
    }
    if !key.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return Err(ApiError::bad_request(
            "the label key of a labels[…] filter may hold printable ASCII characters only",
        ));
    }
    Ok(())
}

/// A cluster the registry knows (404 naming the known ones otherwise).
pub fn known_cluster(registry: &Registry, name: &str) -> ApiResult<()> {
    if registry.get(name).is_some() {
        return Ok(());
    }
    Err(ApiError::not_found(format!("unknown cluster \"{name}\" (known: {})", registry.names().join(", "))))
}

/// Whether `s` is a DNS-1123 label: lowercase alphanumerics and `-`, alphanumeric at both ends.
fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_LABEL
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// A namespace: a DNS-1123 label, as Kubernetes names namespaces (400 otherwise).
pub fn namespace(ns: &str) -> ApiResult<()> {
    if is_label(ns) {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "namespace \"{}\" is invalid: a namespace is a lowercase RFC 1123 label (lowercase letters, \
         digits and '-', starting and ending with a letter or digit, at most {MAX_LABEL} characters)",
        shown(ns)
    )))
}

/// An object name as kube-apiserver takes it in a path: not empty, `.` or `..`, no `/` or `%`,
/// no control characters, at most [`MAX_NAME`] characters (400 otherwise).
pub fn object_name(name: &str) -> ApiResult<()> {
    let why = if name.is_empty() {
        "may not be empty"
    } else if name == "." || name == ".." {
        "may not be '.' or '..'"
    } else if name.contains(['/', '%']) {
        "may not contain '/' or '%'"
    } else if name.chars().any(char::is_control) {
        "may not contain control characters"
    } else if name.len() > MAX_NAME {
        "may be at most 253 characters long"
    } else {
        return Ok(());
    };
    Err(ApiError::bad_request(format!("name \"{}\" is invalid: a name {why}", shown(name))))
}

/// The name of a `what` (`pod`, `node`) that Kubernetes names as a DNS-1123 subdomain, so that
/// a path sent to a member with it needs no escaping (400 otherwise).
pub fn subdomain(what: &str, name: &str) -> ApiResult<()> {
    object_name(name)?;
    let subdomain = name.len() <= MAX_NAME
        && name.split('.').all(|l| {
            !l.is_empty()
                && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        });
    if subdomain {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "{what} name \"{}\" is invalid: a {what}'s name is a lowercase RFC 1123 subdomain",
        shown(name)
    )))
}

/// A verb of an authorization question: `*`, or letters (RBAC compares verbs as given; those of
/// Kubernetes are lowercase words such as `get`, `deletecollection`, `impersonate`), at most
/// [`MAX_LABEL`] characters (400 otherwise).
pub fn verb(verb: &str) -> ApiResult<()> {
    let valid = verb == "*"
        || (!verb.is_empty() && verb.len() <= MAX_LABEL && verb.bytes().all(|b| b.is_ascii_alphabetic()));
    if valid {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "verb \"{}\" is invalid: a verb is * or letters (get, list, watch, create, …), at most {MAX_LABEL} characters",
        shown(verb)
    )))
}

/// A subresource (`status`, `log`, `ephemeralcontainers`, …): a DNS-1123 label (400 otherwise).
pub fn subresource(subresource: &str) -> ApiResult<()> {
    if is_label(subresource) {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "subresource \"{}\" is invalid: a subresource is lowercase letters, digits and '-' (status, log, exec, …), at most {MAX_LABEL} characters",
        shown(subresource)
    )))
}

/// A user or group name as authenticators give them (`alice`, `system:serviceaccount:ns:sa`,
/// `oidc:dev-team`): not empty, no control characters, at most [`MAX_NAME`] characters (400
/// otherwise). `what` is `user` or `group`.
pub fn subject(what: &str, name: &str) -> ApiResult<()> {
    let why = if name.is_empty() {
        "may not be empty"
    } else if name.chars().any(char::is_control) {
        "may not contain control characters"
    } else if name.len() > MAX_NAME {
        "may be at most 253 characters long"
    } else {
        return Ok(());
    };
    Err(ApiError::bad_request(format!("{what} \"{}\" is invalid: a {what} name {why}", shown(name))))
}

/// A cluster name, as the registry names clusters (400 otherwise).
pub fn cluster(name: &str) -> ApiResult<()> {
    ClusterName::parse(name).map(drop).map_err(|e| {
        ApiError::bad_request(format!("cluster name \"{}\" is invalid: it {}", shown(name), e.reason))
    })
}

/// An API group in a path (`/apis/{group}/…`): a DNS-1123 subdomain, never empty (the core
/// group lives under `/api`). Anything else names no type: 404.
pub fn group(group: &str) -> ApiResult<()> {
    let valid = group.len() <= MAX_NAME && group.split('.').all(is_label);
    if valid {
        return Ok(());
    }
    Err(ApiError::not_found("the server could not find the requested resource"))
}

/// The digest of what a query selects, whatever page of it is read: its type, cluster,
/// namespace, name, selectors and order (not its limit or position).
fn digest(q: &Query) -> String {
    let parts = (
        q.gvr.as_ref().map(ToString::to_string),
        &q.cluster,
        &q.namespace,
        &q.name,
        q.labels.as_ref().map(ToString::to_string),
        q.fields.as_ref().map(ToString::to_string),
        format!("{:?}", q.order),
    );
    let text = serde_json::to_vec(&parts).unwrap_or_default();
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&text))
}

/// The continue token of a page of `query` that ends at `cursor`: it continues only `query`.
pub fn continue_token(query: &Query, cursor: &Cursor) -> String {
    cursor.encode_for(&digest(query))
}

/// Where a continue token of `query` continues: 400 for a token that is not one, or that another
/// query made; 410 (`Expired`: clients list again) when the cluster it stopped in is no longer
/// known, its rows are gone and the position means nothing.
pub fn continue_after(token: &str, query: &Query, registry: &Registry) -> ApiResult<Cursor> {
    let (cursor, made_for) = Cursor::decode_for(token)
        .map_err(|e| ApiError::bad_request(format!("invalid continue token: {e}")))?;
    if made_for.as_deref() != Some(digest(query).as_str()) {
        return Err(ApiError::bad_request(
            "the continue token was made by another query (another type, cluster, namespace, name \
             or selector): continue with the query that made it, or list from the start",
        ));
    }
    if registry.get(&cursor.cluster).is_none() {
        return Err(ApiError::new(
            StatusCode::GONE,
            format!(
                "the continue token stops in cluster \"{}\", which is no longer known: list again from the start",
                shown(&cursor.cluster)
            ),
        ));
    }
    Ok(cursor)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use axum::body::Body;
    use axum::http::{Method, StatusCode};

    use crate::http::testing::{Answer, TestApi};
    use crate::store::Cursor;

    /// `n` query parameters, two bytes each.
    fn parameters(n: usize) -> String {
        vec!["a"; n].join("&")
    }

    #[tokio::test]
    async fn every_route_refuses_more_than_100_query_parameters() {
        let api = TestApi::new().await;
        for n in [101, 5000] {
            for path in ["/api/v1/configmaps", "/apis", "/clusters/alpha/api/v1/secrets"] {
                let message = api
                    .get(&format!("{path}?{}", parameters(n)))
                    .await
                    .status_object(StatusCode::BAD_REQUEST, "BadRequest");
                assert!(message.contains("at most 100"), "{path}: {message}");
            }
            for path in ["/v1/clusters", "/v1/resources", "/v1/list"] {
                let message =
                    api.get(&format!("{path}?{}", parameters(n))).await.error(StatusCode::BAD_REQUEST);
                assert!(message.contains("at most 100"), "{path}: {message}");
            }
        }
        for path in ["/api/v1/configmaps", "/apis", "/v1/clusters"] {
            let answer = api.get(&format!("{path}?{}", parameters(100))).await;
            assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text());
        }
    }

    #[tokio::test]
    async fn a_uri_or_headers_too_large_answer_in_the_apis_error_shape() {
        let api = TestApi::new().await;
        let long = format!("labelSelector={}", "a".repeat(super::MAX_URI));
        let message = api
            .get(&format!("/api/v1/configmaps?{long}"))
            .await
            .status_object(StatusCode::URI_TOO_LONG, "RequestURITooLong");
        assert!(message.contains("16384"), "{message}");
        api.get(&format!("/v1/list?{long}")).await.error(StatusCode::URI_TOO_LONG);

        let with_headers = |path: &str, headers: &[(String, String)]| {
            let mut request = TestApi::request(Method::GET, path);
            for (k, v) in headers {
                request = request.header(k, v);
            }
            request.body(Body::empty()).unwrap()
        };
        let many: Vec<(String, String)> = (0..100).map(|i| (format!("x-h{i}"), "v".into())).collect();
        let large = [("x-large".to_string(), "v".repeat(super::MAX_HEADER_BYTES))];
        for headers in [&many[..], &large[..]] {
            let answer = api.send(with_headers("/apis/apps/v1/deployments", headers)).await;
            answer.status_object(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, "RequestHeaderFieldsTooLarge");
            let answer = api.send(with_headers("/v1/clusters", headers)).await;
            answer.error(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
        }
        // At the limits the request is answered.
        let answer = api.send(with_headers("/v1/clusters", &many[..98])).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    }

    #[tokio::test]
    async fn invalid_namespaces_names_and_clusters_in_kubernetes_paths_are_400() {
        let api = TestApi::new().await;
        let long_label = "a".repeat(5000);
        let long_name = "n".repeat(254);
        for path in [
            format!("/api/v1/namespaces/{long_label}/configmaps"),
            "/api/v1/namespaces/%00/configmaps".to_string(),
            "/api/v1/namespaces/Default/configmaps".to_string(),
            "/api/v1/namespaces/-x/configmaps".to_string(),
            "/apis/apps/v1/namespaces/a.b/deployments".to_string(),
            "/api/v1/namespaces/default/configmaps/..".to_string(),
            "/api/v1/namespaces/default/configmaps/%2E".to_string(),
            "/api/v1/namespaces/default/configmaps/a%2Fb".to_string(),
            "/api/v1/namespaces/default/configmaps/a%25b".to_string(),
            "/api/v1/namespaces/default/configmaps/a%01b".to_string(),
            format!("/api/v1/namespaces/default/configmaps/{long_name}"),
            format!("/api/v1/namespaces/{long_name}"),
            "/clusters/Alpha/api/v1/configmaps".to_string(),
            "/clusters/al%00pha/api".to_string(),
            format!("/clusters/{long_label}/apis"),
        ] {
            let message = api.get(&path).await.status_object(StatusCode::BAD_REQUEST, "BadRequest");
            assert!(message.len() < 400 && !message.contains('\0'), "{message}");
        }
        // Valid names that name nothing are 404s, as before.
        for path in [
            "/api/v1/namespaces/default/configmaps/nope",
            "/api/v1/namespaces/nope",
            "/clusters/gamma/api/v1/configmaps",
            "/clusters/gamma/api",
            "/clusters/gamma/apis/apps/v1",
        ] {
            api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
        }
        let answer = api.get("/api/v1/namespaces/default/configmaps/cm-a1.x_y").await;
        answer.status_object(StatusCode::NOT_FOUND, "NotFound");
    }

    #[tokio::test]
    async fn an_empty_group_is_not_the_core_group() {
        let api = TestApi::new().await;
        for path in [
            "/apis//v1/secrets",
            "/apis//v1",
            "/apis//v1/namespaces/default/secrets",
            "/apis//v1/namespaces/default/secrets/s-a1",
            "/clusters/alpha/apis//v1/secrets",
        ] {
            api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
        }
        assert_eq!(api.get("/api/v1/secrets").await.names().len(), 3, "the core group is under /api");
    }

    #[tokio::test]
    async fn invalid_names_in_v1_parameters_are_400() {
        let api = TestApi::new().await;
        for query in
            ["namespace=%00", "namespace=Default", "name=..", "name=a%2Fb", "cluster=Alpha", "cluster=-a"]
        {
            api.get(&format!("/v1/list?gvr=v1/configmaps&{query}")).await.error(StatusCode::BAD_REQUEST);
        }
        let answer = api.get("/v1/list?gvr=v1/configmaps&namespace=default&cluster=beta&name=cm-b1").await;
        assert_eq!(answer.json().as_array().unwrap().len(), 1, "{}", answer.text());
    }

    /// The `continue` of a Kubernetes list answer.
    fn next(answer: &Answer) -> String {
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        answer.json()["metadata"]["continue"].as_str().unwrap().to_string()
    }

    #[tokio::test]
    async fn a_continue_token_continues_only_the_query_that_made_it() {
        let api = TestApi::new().await;
        let secrets = next(&api.get("/api/v1/secrets?limit=2").await);
        assert!(!secrets.is_empty());
        let message = api
            .get(&format!("/api/v1/configmaps?limit=2&continue={secrets}"))
            .await
            .status_object(StatusCode::BAD_REQUEST, "BadRequest");
        assert!(message.contains("another query"), "{message}");
        let beta = next(&api.get("/clusters/beta/api/v1/configmaps?limit=1").await);
        for other in [
            "/api/v1/configmaps?limit=1",
            "/clusters/alpha/api/v1/configmaps?limit=1",
            "/clusters/beta/api/v1/namespaces/default/configmaps?limit=1",
            "/clusters/beta/api/v1/configmaps?limit=1&labelSelector=app%3Dweb",
            "/clusters/beta/api/v1/configmaps?limit=1&fieldSelector=metadata.name%3Dcm-b2",
        ] {
            api.get(&format!("{other}&continue={beta}"))
                .await
                .status_object(StatusCode::BAD_REQUEST, "BadRequest");
        }
        // A token without the query it continues (as tokens were made before) is not taken either.
        let bare = Cursor::decode(&beta).unwrap().encode();
        api.get(&format!("/clusters/beta/api/v1/configmaps?continue={bare}"))
            .await
            .status_object(StatusCode::BAD_REQUEST, "BadRequest");
        // The query that made it continues, whatever its page size.
        let rest = api.get(&format!("/clusters/beta/api/v1/configmaps?limit=5&continue={beta}")).await;
        assert_eq!(rest.names(), ["beta/cm-b2"]);
        // Page by page, every object once, Tables too.
        for accept in ["application/json", "application/json;as=Table;v=v1;g=meta.k8s.io"] {
            let (mut seen, mut token) = (0, String::new());
            loop {
                let page =
                    api.get_accepting(&format!("/api/v1/configmaps?limit=2&continue={token}"), accept).await;
                let body = page.json();
                seen += body["items"].as_array().or(body["rows"].as_array()).unwrap().len();
                token = next(&page);
                if token.is_empty() {
                    break;
                }
            }
            assert_eq!(seen, 5, "{accept}");
        }
    }

    #[tokio::test]
    async fn a_continue_token_of_a_cluster_no_longer_known_is_expired() {
        let api = TestApi::new().await;
        let token = next(&api.get("/api/v1/configmaps?limit=1").await);
        let v1 = api.get("/v1/list?gvr=v1/configmaps&limit=1").await;
        let v1_token = v1.header(mc_types::api::CONTINUE_HEADER).unwrap().to_string();
        api.forget("alpha");
        let message = api
            .get(&format!("/api/v1/configmaps?limit=1&continue={token}"))
            .await
            .status_object(StatusCode::GONE, "Expired");
        assert!(message.contains("alpha") && message.contains("list again"), "{message}");
        let message = api
            .get(&format!("/v1/list?gvr=v1/configmaps&limit=1&continue={v1_token}"))
            .await
            .error(StatusCode::GONE);
        assert!(message.contains("alpha"), "{message}");
    }

    #[tokio::test]
    async fn a_v1_continue_token_continues_only_its_query() {
        let api = TestApi::new().await;
        let first = api.get("/v1/list?gvr=v1/secrets&limit=1").await;
        let token = first.header(mc_types::api::CONTINUE_HEADER).unwrap().to_string();
        for other in [
            "gvr=v1/configmaps",
            "gvr=v1/secrets&cluster=beta",
            "gvr=v1/secrets&namespace=team",
            "gvr=v1/secrets&labels[app]=web",
        ] {
            let message = api
                .get(&format!("/v1/list?{other}&limit=1&continue={token}"))
                .await
                .error(StatusCode::BAD_REQUEST);
            assert!(message.contains("another query"), "{message}");
        }
        // The same query in another spelling of its type, page size or endpoint continues.
        let rest = api.get(&format!("/v1/list_with_cluster?gvr=secrets&limit=0&continue={token}")).await;
        assert_eq!(rest.status, StatusCode::OK, "{}", rest.text());
        assert_eq!(rest.json().as_array().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn label_filters_are_bounded_in_number() {
        let api = TestApi::new().await;
        let filters = |n: usize| (0..n).map(|i| format!("&labels[k{i}]=v")).collect::<String>();
        let sixteen = api.get(&format!("/v1/list?gvr=v1/secrets{}", filters(16))).await;
        assert_eq!(sixteen.status, StatusCode::OK, "{}", sixteen.text());
        let message =
            api.get(&format!("/v1/list?gvr=v1/secrets{}", filters(17))).await.error(StatusCode::BAD_REQUEST);
        assert!(message.contains("more than 16 labels"), "{message}");
    }

    #[test]
    fn lengths_are_bounded_per_parameter() {
        assert!(super::check_len("namespace", &"n".repeat(63)).is_ok());
        assert!(super::check_len("namespace", &"n".repeat(64)).unwrap_err().message.contains("63"));
        assert!(super::check_len("labelSelector", &"a".repeat(4097)).unwrap_err().message.contains("4096"));
        assert!(super::check_len("whatever", &"a".repeat(4097)).is_err());
        assert!(super::check_len("labelSelector", "app=web,tier in (a,b)").is_ok());
        assert!(super::check_len("labelSelector", "app=wéb").unwrap_err().message.contains("ASCII"));
        assert!(super::check_len("fieldSelector", "metadata.name=\u{1f600}").is_err());
        assert!(super::check_len("continue", "abc\n").is_err());
        assert!(super::check_len("name", "wéb").is_ok());
        assert!(super::check_len("labels[app]", "web").is_ok());
        assert!(super::check_len("labels[app]", "wéb").unwrap_err().message.contains("ASCII"));
        assert!(super::check_len("labels[äpp]", "web").unwrap_err().message.contains("ASCII"));
        let long_key = format!("labels[{}]", "k".repeat(318));
        assert!(super::check_len(&long_key, "web").unwrap_err().message.contains("317"));
    }

    #[test]
    fn a_kubernetes_path_is_told_from_a_v1_path() {
        for kube in ["/api", "/api/v1", "/apis", "/apis/apps/v1/deployments", "/clusters/a/api"] {
            assert!(super::is_kube(kube), "{kube}");
        }
        for v1 in ["/v1/clusters", "/v1/list", "/apisx", "/healthz", "/metrics", "/clusters"] {
            assert!(!super::is_kube(v1), "{v1}");
        }
    }
}
