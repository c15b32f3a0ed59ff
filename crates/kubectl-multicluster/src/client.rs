//! The HTTP client of mc-server's API.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use futures::stream::{self, BoxStream, StreamExt};
use mc_types::api::{
    ApiErrorBody, CONTINUE_HEADER, CanIAnswer, ClusterInfo, CountAnswer, ListWithClusterItem, ResResponse,
    WatchEvent, paths,
};
use mc_types::{GvrSpec, ResourceInfo};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tracing::debug;

use crate::config::{Origin, ServerTarget, TOKEN_ENV};

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No connection to the server (refused, DNS, timeout). Retryable once the server is up.
    #[error("cannot reach mc-server at {url} (from {origin}): {reason}")]
    Unreachable {
        /// The server's base URL.
        url: String,
        /// Where the URL came from.
        origin: Origin,
        /// What went wrong, in a few words.
        reason: String,
    },
    /// The server answered with an error. Not retryable, except 503 (not ready yet).
    #[error("{}", api_message(.status, .message, .candidates, .hint.as_deref()))]
    Api {
        /// HTTP status.
        status: StatusCode,
        /// The server's one-line message.
        message: String,
        /// Suggestions for an unknown or ambiguous resource type.
        candidates: Vec<String>,
        /// What the user can do about it.
        hint: Option<String>,
    },
    /// The CA bundle for mc-server's certificate cannot be used (not retryable: fix the file).
    #[error("certificate authority {file} (from {origin}): {reason}")]
    CertificateAuthority {
        /// The file.
        file: String,
        /// Where it was configured.
        origin: Origin,
        /// What is wrong.
        reason: String,
    },
    /// The server's answer could not be understood (a different server on that port?).
    #[error("unexpected answer from {url}: {reason}")]
    Protocol {
        /// The request URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl Error {
    /// The HTTP status when the server answered with an error.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Self::Api { status, .. } => Some(*status),
            Self::Unreachable { .. } | Self::CertificateAuthority { .. } | Self::Protocol { .. } => None,
        }
    }

    /// Whether the server has no such endpoint (404): an earlier server, such as the Go project's,
    /// which has neither `/v1/resources` nor `/v1/clusters`.
    pub fn is_missing_endpoint(&self) -> bool {
        self.status() == Some(StatusCode::NOT_FOUND)
    }
}

fn api_message(status: &StatusCode, message: &str, candidates: &[String], hint: Option<&str>) -> String {
    let mut text = match status.as_u16() {
        400..=499 => message.to_owned(),
        503 => format!("mc-server is not ready: {message}"),
        _ => format!("mc-server failed ({status}): {message}"),
    };
    // The server usually lists candidates in the message already.
    if !candidates.is_empty() && !candidates.iter().all(|c| message.contains(c.as_str())) {
        text.push_str(&format!("; did you mean: {}", candidates.join(", ")));
    }
    if let Some(hint) = hint {
        text.push_str(&format!(" ({hint})"));
    }
    text
}

/// Result of a request.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `GET` → the server's discovery data, a JSON array of [`ResourceInfo`].
const RESOURCES_PATH: &str = "/v1/resources";

/// What to list (the parameters of `/v1/list_with_cluster`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// Resource type in any form of the type syntax (explicit forms as [`canonical_gvr`] writes
    /// them); the server resolves it. (The Go project's server understands only
    /// `group/version/resource`; see [`crate::go_server`].)
    pub gvr: String,
    /// Only this cluster.
    pub cluster: Option<String>,
    /// Only this namespace.
    pub namespace: Option<String>,
    /// Only this name.
    pub name: Option<String>,
    /// Kubernetes label selector.
    pub label_selector: Option<String>,
    /// Field selector.
    pub field_selector: Option<String>,
    /// At most this many objects; `None` (or 0) for all.
    pub limit: Option<u64>,
    /// `TYPE/NAME`: only objects it owns, at any depth.
    pub owner: Option<String>,
}

/// A question for `/v1/auth/can-i`: may the caller (or `user`) do `verb` to `gvr`?
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CanIQuery {
    /// The verb.
    pub verb: String,
    /// The type, in any form the server resolves.
    pub gvr: String,
    /// In this namespace; `None`: across every namespace.
    pub namespace: Option<String>,
    /// Of this object.
    pub name: Option<String>,
    /// Of this subresource.
    pub subresource: Option<String>,
    /// In this cluster only; `None`: every cluster.
    pub cluster: Option<String>,
    /// For this user instead of the caller (an admin token only).
    pub user: Option<String>,
    /// With `user`: its groups.
    pub groups: Vec<String>,
}

impl CanIQuery {
    fn params(&self) -> Vec<(&'static str, String)> {
        let mut params = vec![("verb", self.verb.clone()), ("gvr", self.gvr.clone())];
        let optional = [
            ("namespace", &self.namespace),
            ("name", &self.name),
            ("subresource", &self.subresource),
            ("cluster", &self.cluster),
            ("user", &self.user),
        ];
        params.extend(optional.into_iter().filter_map(|(k, v)| v.clone().map(|v| (k, v))));
        params.extend(self.groups.iter().map(|g| ("group", g.clone())));
        params
    }
}

/// The canonical `group/version/resource` of an explicit form (`v1.configmaps` → `v1/configmaps`,
/// `core/v1/pods` → `v1/pods`); anything else as typed, for the server to resolve or refuse.
/// Both servers understand the canonical form, and the Go project's server understands no other.
pub fn canonical_gvr(typed: &str) -> Cow<'_, str> {
    match GvrSpec::parse(typed) {
        Ok(GvrSpec::Explicit(gvr)) => Cow::Owned(gvr.to_string()),
        _ => Cow::Borrowed(typed),
    }
}

impl ListQuery {
    /// A query for every object of a type.
    pub fn all(gvr: impl Into<String>) -> Self {
        ListQuery { gvr: gvr.into(), ..Default::default() }
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        let mut params = vec![("gvr", self.gvr.clone())];
        let optional = [
            ("cluster", &self.cluster),
            ("namespace", &self.namespace),
            ("name", &self.name),
            ("labelSelector", &self.label_selector),
            ("fieldSelector", &self.field_selector),
            ("owner", &self.owner),
        ];
        params.extend(optional.into_iter().filter_map(|(k, v)| v.clone().map(|v| (k, v))));
        params
    }
}

/// A client for one mc-server.
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    target: ServerTarget,
}

impl Client {
    /// A client for the server settings resolved from flags, environment and config.
    pub fn new(target: ServerTarget) -> Result<Self> {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("kubectl-multicluster/", env!("CARGO_PKG_VERSION")));
        if let Some((file, origin)) = &target.tls.certificate_authority {
            let bad = |reason: String| Error::CertificateAuthority {
                file: file.display().to_string(),
                origin: origin.clone(),
                reason,
            };
            let pem = std::fs::read(file).map_err(|e| bad(format!("cannot read: {e}")))?;
            let certs =
                reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| bad(format!("not PEM: {e}")))?;
            if certs.is_empty() {
                return Err(bad("holds no PEM certificate".into()));
            }
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        if target.tls.insecure_skip_verify {
            builder = builder.danger_accept_invalid_certs(true);
        }
        if let Some(identity) = &target.tls.client_identity {
            let identity = reqwest::Identity::from_pem(identity.pem()).map_err(|e| Error::Protocol {
                url: target.url.clone(),
                reason: format!("the kubeconfig user's client certificate cannot be used: {e}"),
            })?;
            builder = builder.identity(identity);
        }
        let http = builder
            .build()
            .map_err(|e| Error::Protocol { url: target.url.clone(), reason: e.to_string() })?;
        Ok(Client { http, target })
    }

    /// The server's base URL.
    pub fn url(&self) -> &str {
        &self.target.url
    }

    /// Every object matching the query with its cluster, following `continue` tokens.
    pub async fn list(&self, query: &ListQuery) -> Result<Vec<ListWithClusterItem>> {
        let mut items = Vec::new();
        for page in self.list_pages(query).await? {
            items.extend(page.parse::<ListWithClusterItem>()?);
        }
        Ok(items)
    }

    /// The pages of `/v1/list_with_cluster` as the server sent them, for callers that read the
    /// objects one at a time instead of holding every parsed object at once.
    pub async fn list_pages(&self, query: &ListQuery) -> Result<Vec<ListPage>> {
        let wanted = query.limit.filter(|&n| n > 0);
        let mut pages = Vec::new();
        let mut seen = 0u64;
        let mut token: Option<String> = None;
        loop {
            let mut params = query.params();
            let remaining = wanted.map_or(0, |n| n.saturating_sub(seen));
            params.push(("limit", remaining.to_string()));
            if let Some(t) = token.take() {
                params.push(("continue", t));
            }
            let resp = self.send(self.request(Method::GET, paths::LIST_WITH_CLUSTER).query(&params)).await?;
            token = resp
                .headers()
                .get(CONTINUE_HEADER)
                .and_then(|v| v.to_str().ok())
                .filter(|t| !t.is_empty())
                .map(str::to_owned);
            let page = ListPage { url: resp.url().to_string(), body: self.body(resp).await? };
            if token.is_none() {
                pages.push(page);
                return Ok(pages);
            }
            // Another page may follow: count this one's items (a shallow scan) to know.
            let count = page.parse::<&RawValue>()?.len() as u64;
            seen += count;
            pages.push(page);
            if count == 0 || wanted.is_some_and(|n| seen >= n) {
                return Ok(pages);
            }
        }
    }

    /// Current matching objects as `ADDED` events, then every change, until the server ends the
    /// stream.
    pub async fn watch(&self, query: &ListQuery) -> Result<BoxStream<'static, Result<WatchEvent>>> {
        let mut params = query.params();
        params.push(("watch", "true".into()));
        let resp = self.send(self.request(Method::GET, paths::LIST_WITH_CLUSTER).query(&params)).await?;
        let url = resp.url().to_string();
        let origin = self.target.origin.clone();
        let base = self.target.url.clone();
        let bytes = resp.bytes_stream().boxed();
        let lines =
            stream::unfold((bytes, Vec::<u8>::new(), false), move |(mut bytes, mut buf, mut done)| {
                let (url, origin, base) = (url.clone(), origin.clone(), base.clone());
                async move {
                    loop {
                        if let Some(pos) = buf.iter().position(|&b| b == b'\n') {
                            let line: Vec<u8> = buf.drain(..=pos).collect();
                            if line.iter().all(u8::is_ascii_whitespace) {
                                continue;
                            }
                            let event = serde_json::from_slice::<WatchEvent>(&line).map_err(|e| {
                                Error::Protocol { url: url.clone(), reason: format!("bad watch event: {e}") }
                            });
                            return Some((event, (bytes, buf, done)));
                        }
                        if done {
                            return None;
                        }
                        match bytes.next().await {
                            Some(Ok(chunk)) => buf.extend_from_slice(&chunk),
                            Some(Err(e)) => {
                                let err = Error::Unreachable { url: base, origin, reason: reason(&e) };
                                return Some((Err(err), (bytes, Vec::new(), true)));
                            }
                            None => {
                                // The stream ended; a last line without a newline still counts.
                                done = true;
                                buf.push(b'\n');
                            }
                        }
                    }
                }
            });
        Ok(lines.boxed())
    }

    /// Every cluster the server knows.
    pub async fn clusters(&self) -> Result<Vec<ClusterInfo>> {
        let resp = self.send(self.request(Method::GET, paths::CLUSTERS)).await?;
        self.decode(resp).await
    }

    /// Every resource type the server has discovered (the union over its clusters); `None` when
    /// the server has no `/v1/resources` (404): it is the Go project's server (or an earlier
    /// mc-server), which cannot resolve names either.
    pub async fn resources(&self) -> Result<Option<Vec<ResourceInfo>>> {
        match self.send(self.request(Method::GET, RESOURCES_PATH)).await {
            Ok(resp) => self.decode(resp).await.map(Some),
            Err(e) if e.is_missing_endpoint() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `GET /v1/auth/can-i`: one answer per cluster asked, in name order.
    pub async fn can_i(&self, query: &CanIQuery) -> Result<Vec<CanIAnswer>> {
        let resp = self.send(self.request(Method::GET, paths::CAN_I).query(&query.params())).await?;
        self.decode(resp).await
    }

    /// `GET /v1/count` with these parameters (`gvr`, `by`, and the filters of a list).
    pub async fn count(&self, params: &[(&str, String)]) -> Result<CountAnswer> {
        let resp = self.send(self.request(Method::GET, paths::COUNT).query(params)).await?;
        self.decode(resp).await
    }

    /// `POST /v1/join`: registers a cluster from a kubeconfig.
    pub async fn join(
        &self,
        cluster: &str,
        kubeconfig: Vec<u8>,
        insecure: bool,
        context: Option<&str>,
    ) -> Result<ResResponse> {
        let mut params = vec![("cluster", cluster.to_owned()), ("insecure", insecure.to_string())];
        if let Some(c) = context {
            params.push(("context", c.to_owned()));
        }
        let part = reqwest::multipart::Part::bytes(kubeconfig).file_name("kubeconfig");
        let form = reqwest::multipart::Form::new().part(mc_types::api::JOIN_KUBECONFIG_FIELD, part);
        let resp = self.send(self.request(Method::POST, paths::JOIN).query(&params).multipart(form)).await?;
        self.decode(resp).await
    }

    /// `DELETE /v1/unjoin`: removes a cluster.
    pub async fn unjoin(&self, cluster: &str) -> Result<ResResponse> {
        let resp =
            self.send(self.request(Method::DELETE, paths::UNJOIN).query(&[("cluster", cluster)])).await?;
        self.decode(resp).await
    }

    /// `GET` of a path of the Kubernetes API (`/clusters/NAME/api/v1/…/log`), its answer left
    /// to be read as it streams; an error answer is [`Error::Api`] with the `Status` message.
    pub async fn kube_stream(&self, path: &str, query: &[(&str, String)]) -> Result<Response> {
        self.send(self.request(Method::GET, path).query(query)).await
    }

    /// `GET` of a path of the Kubernetes API (`/apis/metrics.k8s.io/v1beta1/pods`) as JSON; its
    /// `Warning`s are said on stderr, an error answer is [`Error::Api`] with the `Status` message.
    pub async fn kube_json(&self, path: &str, query: &[(&str, String)]) -> Result<serde_json::Value> {
        let resp = self.send(self.request(Method::GET, path).query(query)).await?;
        self.decode(resp).await
    }

    /// `GET` of a path of the `/v1` API as JSON of type `T`; its `Warning`s are said on stderr.
    pub async fn get_json<T: DeserializeOwned>(&self, path: &str, query: &[(&str, String)]) -> Result<T> {
        let resp = self.send(self.request(Method::GET, path).query(query)).await?;
        self.decode(resp).await
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let req = self.http.request(method, format!("{}{path}", self.target.url));
        match &self.target.token {
            Some(token) => req.bearer_auth(token),
            None => req,
        }
    }

    /// Sends a request; a non-2xx answer becomes [`Error::Api`].
    async fn send(&self, req: RequestBuilder) -> Result<Response> {
        let start = Instant::now();
        let req = req
            .build()
            .map_err(|e| Error::Protocol { url: self.target.url.clone(), reason: e.to_string() })?;
        let (method, url) = (req.method().clone(), req.url().clone());
        let resp = self.http.execute(req).await.map_err(|e| {
            debug!(%method, %url, error = ?e, "request failed");
            Error::Unreachable {
                url: self.target.url.clone(),
                origin: self.target.origin.clone(),
                reason: self.transport_reason(&e),
            }
        })?;
        print_warnings(&resp);
        let status = resp.status();
        debug!(%method, %url, status = status.as_u16(), elapsed_ms = start.elapsed().as_millis() as u64, "mc-server answered");
        if status.is_success() {
            return Ok(resp);
        }
        let text = resp.text().await.unwrap_or_default();
        let (message, candidates) = match serde_json::from_str::<ApiErrorBody>(&text) {
            Ok(body) => (body.error, body.candidates.unwrap_or_default()),
            // A `Status` of the Kubernetes API: its message.
            Err(_) if status_message(&text).is_some() => (status_message(&text).unwrap_or_default(), vec![]),
            Err(_) if text.trim().is_empty() => {
                (status.canonical_reason().unwrap_or("error").to_owned(), vec![])
            }
            Err(_) => (text.trim().chars().take(200).collect(), vec![]),
        };
        let hint = match (status, &self.target.kubeconfig_user) {
            (StatusCode::UNAUTHORIZED, Some(asked)) => Some(format!(
                "mc-server did not accept the token of the current kubeconfig context's user ({asked} \
                 asks for it): mc-server has the master cluster review it, so the user must be one \
                 the master cluster accepts; server from {}",
                self.target.origin
            )),
            (StatusCode::UNAUTHORIZED, None) => Some(format!(
                "mc-server needs a token: set token: in the config file, pass --token or set {TOKEN_ENV} \
                 (the server's generated token is in its <data-dir>/token); server from {}",
                self.target.origin
            )),
            // Reads the caller's RBAC does not allow say so themselves, as kube-apiserver does.
            (StatusCode::FORBIDDEN, _) if needs_admin(url.path()) => Some(format!(
                "this needs an admin token: pass one with --token or {TOKEN_ENV}; server from {}",
                self.target.origin
            )),
            _ => None,
        };
        Err(Error::Api { status, message, candidates, hint })
    }

    async fn decode<T: DeserializeOwned>(&self, resp: Response) -> Result<T> {
        let url = resp.url().to_string();
        let bytes = self.body(resp).await?;
        serde_json::from_slice(&bytes)
            .map_err(|e| Error::Protocol { url, reason: format!("invalid JSON: {e}") })
    }

    async fn body(&self, resp: Response) -> Result<Vec<u8>> {
        let bytes = resp.bytes().await.map_err(|e| Error::Unreachable {
            url: self.target.url.clone(),
            origin: self.target.origin.clone(),
            reason: reason(&e),
        })?;
        Ok(bytes.into())
    }
}

/// The `message` of a Kubernetes `Status` answer.
fn status_message(text: &str) -> Option<String> {
    let status: serde_json::Value = serde_json::from_str(text).ok()?;
    (status["kind"] == "Status").then(|| status["message"].as_str().map(String::from)).flatten()
}

/// Whether a path needs an admin token (join and unjoin).
fn needs_admin(path: &str) -> bool {
    // can-i's refusal (asking for another user) says itself what it needs.
    [paths::JOIN, paths::UNJOIN].contains(&path)
}

/// `Accept` of a `meta.k8s.io/v1` Table, as kubectl asks for one.
const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/// One page of a `meta.k8s.io/v1` Table from mc-server's Kubernetes API.
#[derive(Debug, Deserialize)]
pub struct TablePage {
    /// The columns.
    #[serde(rename = "columnDefinitions", default)]
    pub columns: Vec<TableColumn>,
    /// The rows.
    #[serde(default)]
    pub rows: Vec<TableRow>,
    #[serde(default)]
    metadata: TableMeta,
}

/// A Table column.
#[derive(Debug, Deserialize)]
pub struct TableColumn {
    /// Its header.
    pub name: String,
}

/// A Table row.
#[derive(Debug, Deserialize)]
pub struct TableRow {
    /// Cells, in column order.
    pub cells: Vec<serde_json::Value>,
    /// The object's metadata, when asked for (`includeObject`).
    #[serde(default)]
    pub object: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
struct TableMeta {
    #[serde(rename = "continue", default)]
    next: String,
}

impl Client {
    /// Every page of the Table at `path` (a Kubernetes API collection), following `continue`
    /// until `limit` rows (all without one).
    pub async fn table_pages(
        &self,
        path: &str,
        params: &[(&str, String)],
        limit: Option<u64>,
    ) -> Result<Vec<TablePage>> {
        let mut pages = Vec::new();
        let mut seen = 0u64;
        let mut token = String::new();
        loop {
            let mut query: Vec<(&str, String)> = params.to_vec();
            if let Some(n) = limit {
                query.push(("limit", n.saturating_sub(seen).to_string()));
            }
            if !token.is_empty() {
                query.push(("continue", std::mem::take(&mut token)));
            }
            let req =
                self.request(Method::GET, path).header(reqwest::header::ACCEPT, TABLE_ACCEPT).query(&query);
            let page: TablePage = self.decode(self.send(req).await?).await?;
            seen += page.rows.len() as u64;
            token = page.metadata.next.clone();
            let done = token.is_empty() || page.rows.is_empty() || limit.is_some_and(|n| seen >= n);
            pages.push(page);
            if done {
                return Ok(pages);
            }
        }
    }
}

/// One page of `/v1/list_with_cluster`, unparsed.
#[derive(Debug)]
pub struct ListPage {
    url: String,
    body: Vec<u8>,
}

impl ListPage {
    /// The page's items; `T` may borrow from the page (`RawListItem`, `&RawValue`).
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<Vec<T>> {
        serde_json::from_slice(&self.body)
            .map_err(|e| Error::Protocol { url: self.url.clone(), reason: format!("invalid JSON: {e}") })
    }
}

/// An item of a list page whose object is still JSON text.
#[derive(Debug, Deserialize)]
pub struct RawListItem<'a> {
    /// The cluster the object lives in.
    #[serde(rename = "clusterName", borrow)]
    pub cluster_name: Cow<'a, str>,
    /// The object's JSON.
    #[serde(rename = "Object", borrow)]
    pub object: &'a RawValue,
}

impl Client {
    /// A transport error in a few words, with what to do about a TLS problem.
    fn transport_reason(&self, err: &reqwest::Error) -> String {
        let text = reason(err);
        let lower = text.to_ascii_lowercase();
        let https = self.target.url.starts_with("https://");
        if https
            && (lower.contains("certificate")
                || lower.contains("unknownissuer")
                || lower.contains("invalid peer"))
        {
            format!(
                "TLS verification of the server failed ({text}); pass --certificate-authority FILE or set \
                 certificateAuthority in the config file (a server's own CA is its <data-dir>/tls/ca.crt)"
            )
        } else if !https
            && (lower.contains("connection closed")
                || lower.contains("reset")
                || lower.contains("incomplete message"))
        {
            format!("{text}; mc-server speaks HTTPS unless server.plainHTTP is set: use an https:// URL")
        } else {
            text
        }
    }
}

/// Prints the server's `Warning` headers on stderr, as kubectl does (`Warning: text`).
fn print_warnings(resp: &Response) {
    for value in resp.headers().get_all(reqwest::header::WARNING) {
        let Ok(text) = value.to_str() else { continue };
        eprintln!("Warning: {}", warning_text(text));
    }
}

/// The text of a `299 - "text"` warning (the whole header when it has another shape).
pub fn warning_text(header: &str) -> &str {
    let rest = header.trim();
    let Some(rest) = rest.strip_prefix("299 ") else { return rest };
    let rest = rest.split_once(' ').map_or(rest, |(_, r)| r).trim();
    rest.strip_prefix('"').and_then(|r| r.rsplit_once('"')).map_or(rest, |(t, _)| t)
}

/// The innermost cause of a transport error, in a few words: `connection refused`.
fn reason(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return "timed out".into();
    }
    let mut source: &dyn std::error::Error = err;
    while let Some(inner) = source.source() {
        source = inner;
    }
    let text = source.to_string();
    let text = match text.find(" (os error") {
        Some(i) => text[..i].to_owned(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "unknown error".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{canonical_gvr, warning_text};

    #[test]
    fn only_explicit_forms_are_rewritten() {
        assert_eq!(canonical_gvr("apps.v1.deployments"), "apps/v1/deployments");
        assert_eq!(canonical_gvr("core/v1/pods"), "v1/pods");
        assert_eq!(canonical_gvr("deploy"), "deploy");
        assert_eq!(canonical_gvr("deployments.apps"), "deployments.apps");
        assert_eq!(canonical_gvr("not a type"), "not a type");
    }

    #[test]
    fn warnings_print_their_text_like_kubectl() {
        assert_eq!(
            warning_text(
                r#"299 - "cluster tencent4 is NotReady since 2026-11-24T01:02:03Z: its objects may be stale""#
            ),
            "cluster tencent4 is NotReady since 2026-11-24T01:02:03Z: its objects may be stale"
        );
        assert_eq!(warning_text("something else"), "something else");
    }
}
