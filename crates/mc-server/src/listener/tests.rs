//! The listener against a flood of silent connections, in process on loopback: plain HTTP,
//! HTTPS, and HTTP/2 over HTTPS that stops after its preface and SETTINGS. And client
//! certificates: refused in the handshake or carrying their user to the router.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::routing::get;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
    KeyPair, KeyUsagePurpose,
};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::client::TlsStream;

use super::{Limits, serve};
use crate::http::testing::{TOKEN, TestApi, cluster_and_name, rbac};
use crate::tls::Certificates;

/// More silent connections than the default cap of 1,024.
const SILENT: usize = 1100;

/// A server with the default limits on a free loopback port; it stops when the sender drops.
async fn server(tls: Option<Arc<Certificates>>) -> (u16, tokio::sync::oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    // Behind a bearer token, as every API route is (the flood itself sends nothing).
    let app = Router::new().route(
        "/ok",
        get(|headers: axum::http::HeaderMap| async move {
            let authorized =
                headers.get(axum::http::header::AUTHORIZATION).is_some_and(|v| v == "Bearer t0ken");
            if authorized { axum::http::StatusCode::OK } else { axum::http::StatusCode::UNAUTHORIZED }
        }),
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, app, tls, Limits::default(), async {
        let _ = stopped.await;
    }));
    (port, stop)
}

/// A self-signed certificate for 127.0.0.1, made with openssl: (certificate, key) files.
fn certificate() -> (PathBuf, PathBuf) {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("mc-listener-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
    let out = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"])
        .args(["-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"])
        // Its own trust anchor, so not a CA (rustls refuses a CA certificate as a server's).
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(out.status.success(), "openssl: {}", String::from_utf8_lossy(&out.stderr));
    (cert, key)
}

/// A TLS client that trusts `cert` and offers `alpn`.
fn connector(cert: &PathBuf, alpn: &[u8]) -> tokio_rustls::TlsConnector {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(cert).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

/// Reads until the server closes the stream; whether it did by `deadline`.
async fn closed_by<S: AsyncRead + Unpin>(mut stream: S, deadline: Instant) -> bool {
    let read_to_end = async {
        let mut buf = [0u8; 512];
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    };
    tokio::time::timeout_at(deadline.into(), read_to_end).await.is_ok()
}

/// One authenticated request on a new connection; its answer's status line and how long it took.
async fn request<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, began: Instant) -> (String, Duration) {
    let head =
        "GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t0ken\r\nConnection: close\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer);
    (text.lines().next().unwrap_or_default().to_string(), began.elapsed())
}

/// The request behind the silent connections was answered, at once rather than when they time out.
fn answered_at_once((status, took): (String, Duration)) {
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(took < Duration::from_secs(2), "the request behind {SILENT} silent connections took {took:?}");
}

/// An HTTPS server with a certificate of its own, and what a client needs to trust it.
async fn https_server() -> (u16, tokio::sync::oneshot::Sender<()>, PathBuf) {
    let (cert, key) = certificate();
    let (port, stop) = server(Some(Arc::new(Certificates::load(&cert, &key, None).unwrap()))).await;
    (port, stop, cert)
}

/// Every silent stream is closed within 15 s of being opened.
async fn all_closed_within_15s<S: AsyncRead + Unpin + Send + 'static>(silent: Vec<(S, Instant)>) {
    let waits: Vec<_> = silent
        .into_iter()
        .map(|(s, opened)| tokio::spawn(closed_by(s, opened + Duration::from_secs(15))))
        .collect();
    let mut open = 0;
    for w in waits {
        open += usize::from(!w.await.unwrap());
    }
    assert_eq!(open, 0, "{open} of {SILENT} silent connections were still open 15 s after they were opened");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_cannot_keep_a_client_out_and_are_closed() {
    let (port, _stop) = server(None).await;
    let mut silent = Vec::new();
    for _ in 0..SILENT {
        silent.push((TcpStream::connect(("127.0.0.1", port)).await.unwrap(), Instant::now()));
    }
    let began = Instant::now();
    answered_at_once(request(TcpStream::connect(("127.0.0.1", port)).await.unwrap(), began).await);
    all_closed_within_15s(silent).await;
}

/// `SILENT` HTTPS connections offering `alpn` that send `hello` after their handshake, then
/// nothing; a handshake refused for a newer connection counts as closed.
async fn silent_tls(
    port: u16,
    cert: &PathBuf,
    alpn: &[u8],
    hello: &[u8],
) -> Vec<(TlsStream<TcpStream>, Instant)> {
    let tls = connector(cert, alpn);
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let mut silent = Vec::new();
    for _ in 0..SILENT {
        let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let opened = Instant::now();
        let Ok(mut s) = tls.connect(name.clone(), tcp).await else { continue };
        assert_eq!(s.get_ref().1.alpn_protocol(), Some(alpn));
        if hello.is_empty() || (s.write_all(hello).await.is_ok() && s.flush().await.is_ok()) {
            silent.push((s, opened));
        }
    }
    assert!(silent.len() > 1000, "only {} connections were set up", silent.len());
    silent
}

/// One HTTPS request behind the flood answers 200 at once.
async fn https_answered_at_once(port: u16, cert: &PathBuf) {
    let began = Instant::now();
    let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let tls = connector(cert, b"http/1.1");
    answered_at_once(request(tls.connect(name, tcp).await.unwrap(), began).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_tls_connections_cannot_keep_a_client_out_and_are_closed() {
    let (port, _stop, cert) = https_server().await;
    let silent = silent_tls(port, &cert, b"http/1.1", &[]).await;
    https_answered_at_once(port, &cert).await;
    all_closed_within_15s(silent).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_http2_connections_after_their_settings_are_closed() {
    let (port, _stop, cert) = https_server().await;
    // The client preface and an empty SETTINGS frame, then nothing.
    let mut hello = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    hello.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    let silent = silent_tls(port, &cert, b"h2", &hello).await;
    https_answered_at_once(port, &cert).await;
    all_closed_within_15s(silent).await;
}

#[tokio::test]
async fn an_http1_connection_is_closed_when_its_next_request_does_not_come_in_time() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().route("/ok", get(|| async { "ok" }));
    let limits = Limits { first_request_timeout: Duration::from_millis(500), ..Limits::default() };
    tokio::spawn(serve(listener, app, None, limits, std::future::pending()));
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.write_all(b"GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 256];
    let n = s.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    assert!(
        closed_by(s, Instant::now() + Duration::from_secs(5)).await,
        "an idle kept-alive connection stayed open"
    );
}

#[tokio::test]
async fn an_http2_connection_that_served_is_closed_after_its_idle_time_not_before() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().route("/ok", get(|| async { "ok" }));
    let limits = Limits {
        first_request_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(1500),
        ..Limits::default()
    };
    tokio::spawn(serve(listener, app, None, limits, std::future::pending()));
    let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(tcp),
    )
    .await
    .unwrap();
    let closed = tokio::spawn(conn);
    let req = axum::http::Request::get(format!("http://127.0.0.1:{port}/ok"))
        .body(axum::body::Body::empty())
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    drop(resp);
    let served = Instant::now();
    // Open past the first-request deadline (it served), closed after the idle time.
    tokio::time::timeout(Duration::from_secs(5), closed)
        .await
        .expect("the idle connection stayed open")
        .unwrap()
        .ok();
    let open_for = served.elapsed();
    assert!(open_for >= Duration::from_millis(1400), "closed after {open_for:?}, before its idle time");
}

// Client certificates: a CA of the test's own, certificates it signs, and the whole API behind
// the listener, so what a certificate's user may read proves who the router saw.

const DAY: Duration = Duration::from_secs(86_400);

/// A CA that signs client certificates.
struct ClientCa {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

/// What a client certificate is made with besides its subject.
struct Issued {
    valid: std::ops::Range<SystemTime>,
    usage: ExtendedKeyUsagePurpose,
}

impl Default for Issued {
    fn default() -> Self {
        let now = SystemTime::now();
        Issued { valid: now - DAY..now + DAY, usage: ExtendedKeyUsagePurpose::ClientAuth }
    }
}

impl ClientCa {
    fn new(name: &str) -> ClientCa {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, name);
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let pem = params.self_signed(&key).unwrap().pem();
        ClientCa { issuer: Issuer::new(params, key), pem }
    }

    /// A client certificate for `subject` and its key, PEM, as `reqwest::Identity` reads them.
    fn issue(&self, subject: &[(DnType, &str)], how: Issued) -> String {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        for (kind, value) in subject {
            dn.push(kind.clone(), *value);
        }
        params.distinguished_name = dn;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![how.usage];
        params.not_before = how.valid.start.into();
        params.not_after = how.valid.end.into();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        format!("{}{}", cert.pem(), key.serialize_pem())
    }
}

/// The whole API over HTTPS with `ca` as its client CA, and the fixture's RBAC: in alpha, user
/// alice views ConfigMaps in `default` and every authenticated user views Pods in `team`; in
/// beta, group team-a views ConfigMaps in `default`.
struct CertServer {
    port: u16,
    server_cert: PathBuf,
    client_ca: PathBuf,
    certs: Arc<Certificates>,
    _api: TestApi,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl CertServer {
    async fn start(ca: &ClientCa) -> CertServer {
        let api = TestApi::new().await;
        let view = |resource: &str| {
            json!({"rules": [
                {"apiGroups": [""], "resources": [resource], "verbs": ["get", "list", "watch"]},
            ]})
        };
        let bind = |ns: &str, name: &str, role: &str, subject: Value| {
            let role_ref =
                json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role});
            rbac(
                "rolebindings",
                "RoleBinding",
                Some(ns),
                name,
                json!({"roleRef": role_ref, "subjects": [subject]}),
            )
        };
        let subject = |kind: &str, name: &str| json!({"kind": kind, "apiGroup": "rbac.authorization.k8s.io", "name": name});
        for cluster in ["alpha", "beta"] {
            api.write(cluster, rbac("clusterroles", "ClusterRole", None, "cm-view", view("configmaps")))
                .await;
        }
        api.write("alpha", rbac("clusterroles", "ClusterRole", None, "pod-view", view("pods"))).await;
        api.write("alpha", bind("default", "alice", "cm-view", subject("User", "alice"))).await;
        api.write("alpha", bind("team", "everyone", "pod-view", subject("Group", "system:authenticated")))
            .await;
        api.write("beta", bind("default", "team-a", "cm-view", subject("Group", "team-a"))).await;

        let (server_cert, key) = certificate();
        let client_ca = server_cert.with_file_name("client-ca.crt");
        std::fs::write(&client_ca, &ca.pem).unwrap();
        let certs = Arc::new(Certificates::load(&server_cert, &key, Some(&client_ca)).unwrap());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(serve(listener, api.router(), Some(certs.clone()), Limits::default(), async {
            let _ = stopped.await;
        }));
        CertServer { port, server_cert, client_ca, certs, _api: api, _stop: stop }
    }

    /// A client that trusts the server and presents `identity` (certificate and key PEM), if any.
    fn client(&self, identity: Option<&str>) -> reqwest::Client {
        let trusted = reqwest::Certificate::from_pem(&std::fs::read(&self.server_cert).unwrap()).unwrap();
        let mut builder = reqwest::Client::builder()
            .use_rustls_tls()
            .tls_built_in_root_certs(false)
            .add_root_certificate(trusted);
        if let Some(pem) = identity {
            builder = builder.identity(reqwest::Identity::from_pem(pem.as_bytes()).unwrap());
        }
        builder.build().unwrap()
    }

    /// `GET path` with this client and bearer token, if any.
    async fn get(
        &self,
        client: &reqwest::Client,
        path: &str,
        token: Option<&str>,
    ) -> reqwest::Result<reqwest::Response> {
        let mut request = client.get(format!("https://127.0.0.1:{}{path}", self.port));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await
    }

    /// `cluster/name` of every item of a Kubernetes list at `path`, asserting a 200.
    async fn names(&self, client: &reqwest::Client, path: &str, token: Option<&str>) -> Vec<String> {
        let answer = self.get(client, path, token).await.unwrap();
        assert_eq!(answer.status(), 200, "{path}");
        let body: Value = answer.json().await.unwrap();
        body["items"].as_array().unwrap_or_else(|| panic!("{body}")).iter().map(cluster_and_name).collect()
    }
}

#[tokio::test]
async fn a_client_certificate_acts_as_its_common_name_with_its_organizations_as_groups() {
    let ca = ClientCa::new("client CA");
    let server = CertServer::start(&ca).await;
    let alice = server.client(Some(
        &ca.issue(&[(DnType::CommonName, "alice"), (DnType::OrganizationName, "team-a")], Issued::default()),
    ));
    // alice in alpha's default, team-a in beta's default; not alpha's team.
    let configmaps = ["alpha/cm-a1", "alpha/cm-a2", "beta/cm-b1", "beta/cm-b2"];
    assert_eq!(server.names(&alice, "/api/v1/configmaps", None).await, configmaps);
    // system:authenticated in alpha's team.
    assert_eq!(server.names(&alice, "/api/v1/pods", None).await, ["alpha/p-a2"]);
    // The certificate comes before a token, as in kube-apiserver: still alice, not admin.
    assert_eq!(server.names(&alice, "/api/v1/configmaps", Some(TOKEN)).await, configmaps);
    let admin = server.client(None);
    assert_eq!(server.names(&admin, "/api/v1/configmaps", Some(TOKEN)).await.len(), 5, "the admin reads all");
}

#[tokio::test]
async fn certificates_from_another_ca_expired_or_not_for_clients_fail_the_handshake() {
    let ca = ClientCa::new("client CA");
    let server = CertServer::start(&ca).await;
    let alice = [(DnType::CommonName, "alice")];
    let now = SystemTime::now();
    // Each with the TLS alert the server sends, and a token that would have been enough.
    let refused = [
        ("UnknownCA", ClientCa::new("another CA").issue(&alice, Issued::default())),
        (
            "CertificateExpired",
            ca.issue(&alice, Issued { valid: now - 3 * DAY..now - DAY, ..Issued::default() }),
        ),
        (
            "UnsupportedCertificate",
            ca.issue(&alice, Issued { usage: ExtendedKeyUsagePurpose::ServerAuth, ..Issued::default() }),
        ),
    ];
    for (alert, pem) in refused {
        let answer = server.get(&server.client(Some(&pem)), "/api/v1/configmaps", Some(TOKEN)).await;
        let error = answer.err().unwrap_or_else(|| panic!("{alert}: answered"));
        let chain = std::iter::successors(Some(&error as &dyn std::error::Error), |e| e.source())
            .map(ToString::to_string)
            .collect::<Vec<_>>();
        assert!(chain.iter().any(|e| e.contains(&format!("received fatal alert: {alert}"))), "{chain:?}");
    }
    // The same client with a good certificate is served.
    let good = server.client(Some(&ca.issue(&alice, Issued::default())));
    assert_eq!(server.get(&good, "/api/v1/configmaps", None).await.unwrap().status(), 200);
}

#[tokio::test]
async fn without_a_certificate_the_bearer_token_still_works_and_no_token_is_401() {
    let ca = ClientCa::new("client CA");
    let server = CertServer::start(&ca).await;
    let anonymous = server.client(None);
    assert_eq!(server.names(&anonymous, "/api/v1/configmaps", Some(TOKEN)).await.len(), 5);
    let answer = server.get(&anonymous, "/api/v1/configmaps", None).await.unwrap();
    assert_eq!(answer.status(), 401);
}

#[tokio::test]
async fn a_certificate_without_a_common_name_identifies_nobody() {
    let ca = ClientCa::new("client CA");
    let server = CertServer::start(&ca).await;
    let pem = ca.issue(&[(DnType::OrganizationName, "team-a")], Issued::default());
    let nameless = server.client(Some(&pem));
    let answer = server.get(&nameless, "/api/v1/configmaps", None).await.unwrap();
    assert_eq!(answer.status(), 401, "the handshake passes, but nobody is named");
    assert_eq!(
        server.names(&nameless, "/api/v1/configmaps", Some(TOKEN)).await.len(),
        5,
        "a token still works"
    );
}

#[tokio::test]
async fn a_replaced_client_ca_is_trusted_after_a_reload() {
    let (old, new) = (ClientCa::new("old CA"), ClientCa::new("new CA"));
    let server = CertServer::start(&old).await;
    let pem = new.issue(&[(DnType::CommonName, "alice")], Issued::default());
    assert!(server.get(&server.client(Some(&pem)), "/api/v1/configmaps", None).await.is_err());
    std::fs::write(&server.client_ca, &new.pem).unwrap();
    server.certs.reload().unwrap();
    let answer = server.get(&server.client(Some(&pem)), "/api/v1/configmaps", None).await.unwrap();
    assert_eq!(answer.status(), 200);
}
