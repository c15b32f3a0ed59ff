//! OIDC ID tokens checked by mc-server itself, through the whole router: tokens signed here,
//! keys from a JWKS file or from an issuer served over HTTPS on a loopback port.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::extract::State;
use axum::http::{Method, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair, RsaKeyPair};
use serde_json::{Value, json};

use super::{TestApi, rbac};
use crate::identity::OidcVerifier;

/// A fixed 2048-bit RSA key (PKCS#8): ring cannot make RSA keys.
const RSA_KEY: &str = include_str!("oidc_rsa_key.pem");

/// A key that signs tokens, and its public JWK.
enum Signer {
    Es256(EcdsaKeyPair, String),
    Rs256(RsaKeyPair, String),
}

impl Signer {
    fn es256(kid: &str) -> Signer {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
        Signer::Es256(pair, kid.into())
    }

    fn rs256(kid: &str) -> Signer {
        use rustls::pki_types::PrivatePkcs8KeyDer;
        use rustls::pki_types::pem::PemObject;
        let der = PrivatePkcs8KeyDer::from_pem_slice(RSA_KEY.as_bytes()).unwrap();
        Signer::Rs256(RsaKeyPair::from_pkcs8(der.secret_pkcs8_der()).unwrap(), kid.into())
    }

    fn jwk(&self) -> Value {
        match self {
            Signer::Es256(pair, kid) => {
                let point = pair.public_key().as_ref();
                json!({"kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "alg": "ES256",
                    "x": b64(&point[1..33]), "y": b64(&point[33..])})
            }
            Signer::Rs256(pair, kid) => {
                let (n, e) = rsa_public(pair.public_key().as_ref());
                json!({"kty": "RSA", "kid": kid, "use": "sig", "n": b64(n), "e": b64(e)})
            }
        }
    }

    fn alg(&self) -> &'static str {
        match self {
            Signer::Es256(..) => "ES256",
            Signer::Rs256(..) => "RS256",
        }
    }

    fn kid(&self) -> &str {
        match self {
            Signer::Es256(_, kid) | Signer::Rs256(_, kid) => kid,
        }
    }

    fn sign(&self, message: &[u8]) -> Vec<u8> {
        let rng = SystemRandom::new();
        match self {
            Signer::Es256(pair, _) => pair.sign(&rng, message).unwrap().as_ref().to_vec(),
            Signer::Rs256(pair, _) => {
                let mut signature = vec![0; pair.public().modulus_len()];
                pair.sign(&ring::signature::RSA_PKCS1_SHA256, &rng, message, &mut signature).unwrap();
                signature
            }
        }
    }

    /// A token of `claims` with this key's `alg` and `kid`.
    fn token(&self, claims: &Value) -> String {
        self.token_with(&json!({"alg": self.alg(), "kid": self.kid(), "typ": "JWT"}), claims)
    }

    fn token_with(&self, header: &Value, claims: &Value) -> String {
        let signed = format!("{}.{}", b64(header.to_string()), b64(claims.to_string()));
        format!("{signed}.{}", b64(self.sign(signed.as_bytes())))
    }
}

fn b64(bytes: impl AsRef<[u8]>) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The modulus and exponent of a DER `RSAPublicKey` (`SEQUENCE { n INTEGER, e INTEGER }`).
fn rsa_public(der: &[u8]) -> (&[u8], &[u8]) {
    fn item(input: &[u8]) -> (&[u8], &[u8]) {
        let (mut len, mut at) = (usize::from(input[1]), 2);
        if len & 0x80 != 0 {
            let n = len & 0x7f;
            len = input[2..2 + n].iter().fold(0, |acc, b| acc << 8 | usize::from(*b));
            at += n;
        }
        (&input[at..at + len], &input[at + len..])
    }
    let (sequence, _) = item(der);
    let (n, rest) = item(sequence);
    let (e, _) = item(rest);
    let unsigned = |i: &[u8]| -> usize { usize::from(i.first() == Some(&0)) };
    (&n[unsigned(n)..], &e[unsigned(e)..])
}

fn now() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs()
}

/// An issuer's HTTPS server on a loopback port: discovery and JWKS, requests counted.
struct Issuer {
    url: String,
    ca_file: std::path::PathBuf,
    jwks: Arc<Mutex<Value>>,
    discovery: Arc<AtomicUsize>,
    fetches: Arc<AtomicUsize>,
    _dir: TempDir,
}

#[derive(Clone)]
struct Served {
    url: String,
    jwks: Arc<Mutex<Value>>,
    discovery: Arc<AtomicUsize>,
    fetches: Arc<AtomicUsize>,
    /// What discovery answers instead, when set: (status, body).
    broken: Option<(StatusCode, &'static str)>,
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mc-oidc-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Issuer {
    /// Serves these keys' JWKS.
    async fn start(keys: &[&Signer]) -> Issuer {
        Self::serve(keys, None).await
    }

    async fn serve(keys: &[&Signer], broken: Option<(StatusCode, &'static str)>) -> Issuer {
        use crate::tls::authority::{Authority, Name};
        let dir = TempDir::new("issuer");
        let authority = Authority::new(dir.0.join("tls"), vec![Name::Ip("127.0.0.1".parse().unwrap())]);
        authority.ensure(SystemTime::now()).unwrap();
        let certs =
            crate::tls::Certificates::load(&authority.cert_file(), &authority.key_file(), None).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let served = Served {
            url: url.clone(),
            jwks: Arc::new(Mutex::new(jwks(keys))),
            discovery: Arc::default(),
            fetches: Arc::default(),
            broken,
        };
        let app = axum::Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/keys", get(keys_of))
            .with_state(served.clone());
        tokio::spawn(crate::listener::serve(
            listener,
            app,
            Some(Arc::new(certs)),
            Default::default(),
            std::future::pending(),
        ));
        Issuer {
            url,
            ca_file: authority.ca_file(),
            jwks: served.jwks,
            discovery: served.discovery,
            fetches: served.fetches,
            _dir: dir,
        }
    }

    fn publish(&self, keys: &[&Signer]) {
        *self.jwks.lock().unwrap() = jwks(keys);
    }

    fn fetches(&self) -> (usize, usize) {
        (self.discovery.load(Ordering::SeqCst), self.fetches.load(Ordering::SeqCst))
    }
}

fn jwks(keys: &[&Signer]) -> Value {
    json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()})
}

async fn discovery(State(s): State<Served>) -> axum::response::Response {
    s.discovery.fetch_add(1, Ordering::SeqCst);
    if let Some((status, body)) = s.broken {
        return (status, body).into_response();
    }
    axum::Json(json!({"issuer": s.url, "jwks_uri": format!("{}/keys", s.url)})).into_response()
}

async fn keys_of(State(s): State<Served>) -> axum::Json<Value> {
    s.fetches.fetch_add(1, Ordering::SeqCst);
    axum::Json(s.jwks.lock().unwrap().clone())
}

/// The OIDC settings of these tests: users and groups prefixed `oidc:`.
fn section(issuer: &str, extra: Value) -> mc_types::config::OidcSection {
    let mut s = json!({"issuerURL": issuer, "clientID": "mc", "usernamePrefix": "oidc:",
        "groupsClaim": "groups", "groupsPrefix": "oidc:", "signingAlgs": ["ES256", "RS256"]});
    for (k, v) in extra.as_object().unwrap() {
        s[k] = v.clone();
    }
    serde_json::from_value(s).unwrap()
}

/// The claims of a valid token of `sub` from `issuer`, with these changed (`null` removes).
fn claims(issuer: &str, sub: &str, changes: Value) -> Value {
    let mut c = json!({"iss": issuer, "aud": ["other", "mc"], "sub": sub, "iat": now(),
        "exp": now() + 600, "groups": []});
    for (k, v) in changes.as_object().unwrap() {
        if v.is_null() {
            c.as_object_mut().unwrap().remove(k);
        } else {
            c[k] = v.clone();
        }
    }
    c
}

/// The fixture with a `view` ClusterRole (ConfigMaps) in both clusters, bound in alpha's
/// `default` to the user `oidc:alice` and in beta's `default` to the group `oidc:dev`; the
/// verifier checks the tokens.
async fn api_with(verifier: OidcVerifier) -> TestApi {
    let mut api = TestApi::new().await;
    let rules =
        json!({"rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]});
    for cluster in ["alpha", "beta"] {
        api.write(cluster, rbac("clusterroles", "ClusterRole", None, "view", rules.clone())).await;
    }
    let binding = |name: &str, kind: &str, subject: &str| {
        rbac(
            "rolebindings",
            "RoleBinding",
            Some("default"),
            name,
            json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                "subjects": [{"kind": kind, "apiGroup": "rbac.authorization.k8s.io", "name": subject}],
            }),
        )
    };
    api.write("alpha", binding("alice-view", "User", "oidc:alice")).await;
    api.write("beta", binding("dev-view", "Group", "oidc:dev")).await;
    api.state.oidc = Some(Arc::new(verifier));
    api
}

/// The ConfigMaps the token lists (`cluster/name`), asserting a 200.
async fn configmaps(api: &TestApi, token: &str) -> Vec<String> {
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some(token)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    answer.names()
}

#[track_caller]
fn assert_unauthorized(answer: &super::Answer, case: &str) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{case}: {}", answer.text());
    // Each API's own error shape.
    if answer.json().get("kind").is_some() {
        answer.status_object(StatusCode::UNAUTHORIZED, "Unauthorized");
    } else {
        answer.error(StatusCode::UNAUTHORIZED);
    }
    assert_eq!(answer.header("www-authenticate"), Some("Bearer"), "{case}");
}

#[tokio::test]
async fn a_valid_token_reads_what_rbac_binds_to_its_user_and_its_groups() {
    let key = Signer::es256("k1");
    let issuer = Issuer::start(&[&key]).await;
    let section = section(&issuer.url, json!({"caFile": issuer.ca_file}));
    let api = api_with(OidcVerifier::new(&section).unwrap()).await;
    let alice = key.token(&claims(&issuer.url, "alice", json!({})));
    assert_eq!(configmaps(&api, &alice).await, ["alpha/cm-a1", "alpha/cm-a2"]);
    let bob = key.token(&claims(&issuer.url, "bob", json!({"groups": ["dev"]})));
    assert_eq!(configmaps(&api, &bob).await, ["beta/cm-b1", "beta/cm-b2"], "through the group binding");
    let carol = key.token(&claims(&issuer.url, "carol", json!({"groups": "ops"})));
    assert_eq!(configmaps(&api, &carol).await, Vec::<String>::new());
    // Neither may join, and the admin token still reads everything.
    let join = api.call(Method::POST, "/v1/unjoin?clusterName=beta", Some(&alice)).await;
    assert_eq!(join.status, StatusCode::FORBIDDEN, "{}", join.text());
    assert_eq!(api.get("/api/v1/configmaps").await.names().len(), 5);
    let metrics = api.get("/metrics").await.text();
    assert!(metrics.contains("mc_oidc_tokens_total{result=\"valid\"} 3"), "{metrics}");
    assert!(metrics.contains("mc_oidc_key_fetches_total{result=\"ok\"} 1"), "{metrics}");
    assert!(metrics.contains("mc_http_requests_by_identity_total{identity=\"oidc:alice\"}"), "{metrics}");
}

#[tokio::test]
async fn tokens_that_break_a_rule_are_401_whatever_the_rule() {
    let key = Signer::es256("k1");
    let issuer = Issuer::start(&[&key]).await;
    let section = section(&issuer.url, json!({"caFile": issuer.ca_file}));
    let api = api_with(OidcVerifier::new(&section).unwrap()).await;
    let url = issuer.url.as_str();
    let c = |changes: Value| claims(url, "alice", changes);
    let forger = Signer::es256("k1");
    let header = |alg: &str| json!({"alg": alg, "kid": "k1"});
    let unsigned = format!("{}.{}.", b64(header("none").to_string()), b64(c(json!({})).to_string()));
    let hs256 = {
        let signed = format!("{}.{}", b64(header("HS256").to_string()), b64(c(json!({})).to_string()));
        let secret = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key.jwk().to_string().as_bytes());
        format!("{signed}.{}", b64(ring::hmac::sign(&secret, signed.as_bytes())))
    };
    let bad_signature = {
        let token = key.token(&c(json!({})));
        let (signed, _) = token.rsplit_once('.').unwrap();
        format!("{signed}.{}", b64(forger.sign(signed.as_bytes())))
    };
    let cases: Vec<(&str, String)> = vec![
        ("wrong aud", key.token(&c(json!({"aud": "other"})))),
        ("no aud", key.token(&c(json!({"aud": null})))),
        ("wrong iss", key.token(&c(json!({"iss": format!("{url}/other")})))),
        ("expired", key.token(&c(json!({"exp": now() - 1})))),
        ("no exp", key.token(&c(json!({"exp": null})))),
        ("nbf in the future", key.token(&c(json!({"nbf": now() + 600})))),
        ("signed by another key", bad_signature),
        ("alg none", unsigned),
        ("HS256 with the public key as secret", hs256),
        ("unknown kid", Signer::es256("k9").token(&c(json!({})))),
        ("no sub", key.token(&c(json!({"sub": null})))),
        ("empty sub", key.token(&c(json!({"sub": ""})))),
        ("groups not strings", key.token(&c(json!({"groups": [1, 2]})))),
        ("malformed", format!("{}.not-base64!.x", b64(json!({"alg": "ES256"}).to_string()))),
        ("huge", key.token(&c(json!({"pad": "a".repeat(20_000)})))),
    ];
    for (case, token) in &cases {
        assert_unauthorized(&api.call(Method::GET, "/api/v1/configmaps", Some(token)).await, case);
        // The same token again, from the kept answer.
        assert_unauthorized(&api.call(Method::GET, "/v1/list?gvr=configmaps", Some(token)).await, case);
    }
    let metrics = api.get("/metrics").await.text();
    for result in ["audience", "expired", "not_yet_valid", "signature", "algorithm", "unknown_key", "claims"]
    {
        assert!(
            metrics.contains(&format!("mc_oidc_tokens_total{{result=\"{result}\"}}")),
            "{result}: {metrics}"
        );
    }
    assert!(!metrics.contains("result=\"valid\""), "{metrics}");
    // A valid token still works after all that.
    assert_eq!(configmaps(&api, &key.token(&c(json!({})))).await, ["alpha/cm-a1", "alpha/cm-a2"]);
}

#[tokio::test]
async fn an_email_user_must_be_verified_and_goes_without_a_prefix() {
    let key = Signer::rs256("r1");
    let dir = TempDir::new("jwks");
    let jwks_file = dir.0.join("keys.json");
    std::fs::write(&jwks_file, jwks(&[&key]).to_string()).unwrap();
    // The issuer is never asked: its keys are in the file.
    let issuer = "https://127.0.0.1:1";
    let section = serde_json::from_value(json!({"issuerURL": issuer, "clientID": "mc",
        "usernameClaim": "email", "jwksFile": jwks_file}))
    .unwrap();
    let api = api_with(OidcVerifier::new(&section).unwrap()).await;
    api.write(
        "beta",
        rbac(
            "rolebindings",
            "RoleBinding",
            Some("default"),
            "mail-view",
            json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice@example.com"}],
            }),
        ),
    )
    .await;
    let token = |changes: Value| key.token(&claims(issuer, "alice", changes));
    let verified = token(json!({"email": "alice@example.com", "email_verified": true}));
    assert_eq!(configmaps(&api, &verified).await, ["beta/cm-b1", "beta/cm-b2"], "RS256 from the file");
    let unstated = token(json!({"email": "alice@example.com"}));
    assert_eq!(configmaps(&api, &unstated).await, ["beta/cm-b1", "beta/cm-b2"]);
    for (case, token) in [
        ("email_verified false", token(json!({"email": "alice@example.com", "email_verified": false}))),
        ("no email", token(json!({}))),
        (
            "ES256 not in signingAlgs",
            Signer::es256("r1").token(&claims(issuer, "alice", json!({"email": "a@b"}))),
        ),
    ] {
        assert_unauthorized(&api.call(Method::GET, "/api/v1/configmaps", Some(&token)).await, case);
    }
}

#[tokio::test]
async fn keys_that_cannot_be_had_answer_503_never_an_open_door() {
    let key = Signer::es256("k1");
    // Nothing listens there.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("https://127.0.0.1:{}", listener.local_addr().unwrap().port())
    };
    let down = OidcVerifier::new(&section(&closed, json!({}))).unwrap();
    let api = api_with(down).await;
    let token = key.token(&claims(&closed, "alice", json!({})));
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some(&token)).await;
    let message = answer.status_object(StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable");
    assert!(message.contains("try again"), "{message}");
    // An issuer that answers an error page: its words are not passed on.
    let failing =
        Issuer::serve(&[&key], Some((StatusCode::INTERNAL_SERVER_ERROR, "db password is hunter2"))).await;
    let section = section(&failing.url, json!({"caFile": failing.ca_file}));
    let api = api_with(OidcVerifier::new(&section).unwrap()).await;
    let token = key.token(&claims(&failing.url, "alice", json!({})));
    let answer = api.call(Method::GET, "/v1/list?gvr=configmaps", Some(&token)).await;
    let message = answer.error(StatusCode::SERVICE_UNAVAILABLE);
    assert!(!message.contains("hunter2") && !message.contains("500"), "{message}");
    // A certificate the CA file does not vouch for is as unreachable.
    let other_ca = Issuer::start(&[&key]).await;
    let section = self::section(&failing.url, json!({"caFile": other_ca.ca_file}));
    let api = api_with(OidcVerifier::new(&section).unwrap()).await;
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some(&token)).await;
    answer.status_object(StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable");
    let metrics = api.get("/metrics").await.text();
    assert!(metrics.contains("mc_oidc_tokens_total{result=\"unavailable\"} 1"), "{metrics}");
    assert!(metrics.contains("mc_oidc_key_fetches_total{result=\"failed\"} 1"), "{metrics}");
}

#[tokio::test]
async fn a_hundred_requests_with_one_token_fetch_the_keys_once() {
    let key = Signer::es256("k1");
    let issuer = Issuer::start(&[&key]).await;
    let section = section(&issuer.url, json!({"caFile": issuer.ca_file}));
    let api = api_with(OidcVerifier::new(&section).unwrap()).await;
    assert_eq!(issuer.fetches(), (0, 0), "nothing is fetched before a token needs it");
    let token = key.token(&claims(&issuer.url, "alice", json!({})));
    let answers = futures::future::join_all(
        (0..100).map(|_| api.call(Method::GET, "/api/v1/configmaps", Some(&token))),
    )
    .await;
    assert!(answers.iter().all(|a| a.status == StatusCode::OK));
    assert_eq!(issuer.fetches(), (1, 1));
    let metrics = api.get("/metrics").await.text();
    assert!(metrics.contains("mc_oidc_tokens_total{result=\"valid\"} 1"), "kept: {metrics}");
}

#[tokio::test]
async fn made_up_key_ids_refetch_the_keys_at_most_once_per_period() {
    let key = Signer::es256("k1");
    let issuer = Issuer::start(&[&key]).await;
    let section = section(&issuer.url, json!({"caFile": issuer.ca_file}));
    let period = Duration::from_secs(2);
    let api = api_with(OidcVerifier::with_periods(&section, period, period).unwrap()).await;
    let valid = |sub: &str| key.token(&claims(&issuer.url, sub, json!({})));
    assert_eq!(configmaps(&api, &valid("alice")).await.len(), 2);
    assert_eq!(issuer.fetches(), (1, 1));
    tokio::time::sleep(period + Duration::from_millis(100)).await;
    let flood = |round: usize| {
        let tokens: Vec<String> = (0..50)
            .map(|i| {
                Signer::es256(&format!("forged-{round}-{i}")).token(&claims(&issuer.url, "alice", json!({})))
            })
            .collect();
        let api = &api;
        async move {
            let calls = tokens.iter().map(|t| api.call(Method::GET, "/api/v1/configmaps", Some(t)));
            for answer in futures::future::join_all(calls).await {
                assert_unauthorized(&answer, "a made-up kid");
            }
        }
    };
    flood(1).await;
    flood(2).await;
    assert_eq!(issuer.fetches(), (2, 2), "one refetch for both floods");
    // A real rotation is picked up once the period is over.
    let rotated = Signer::es256("k2");
    issuer.publish(&[&key, &rotated]);
    tokio::time::sleep(period + Duration::from_millis(100)).await;
    let token = rotated.token(&claims(&issuer.url, "alice", json!({})));
    assert_eq!(configmaps(&api, &token).await.len(), 2);
    assert_eq!(issuer.fetches(), (3, 3));
    // The old key still verifies, without a fetch.
    assert_eq!(configmaps(&api, &valid("alice-again")).await.len(), 0, "another user");
    assert_eq!(issuer.fetches(), (3, 3));
}
