//! Acting as the current kubeconfig context's user (`--kubeconfig-user`): the plugin sends
//! mc-server what kubectl would send for that user on this machine instead of its configured
//! token, and mc-server answers as that user: a bearer token (which it reviews with the master
//! cluster, or checks as its OIDC issuer's), or a client certificate (which it trusts when its
//! `authentication.clientCAFile` signed it).
//!
//! A token is obtained by kube-rs's own credential handling, the one its clients use: an
//! inline `token`, a `tokenFile`, an `exec` credential plugin, an `auth-provider`'s ID token.
//! [`kube::client::ConfigExt::auth_layer`] adds the `Authorization` header to one request that
//! goes nowhere, and the token is read back from it. A client certificate and its key are read
//! from the user's `client-certificate(-data)` and `client-key(-data)`. A user name and password
//! are not sent: that is an error saying so.

use http::HeaderValue;
use http::header::AUTHORIZATION;
use kube::client::{Body, ConfigExt};
use kube::config::{AuthInfo, ExecInteractiveMode, KubeConfigOptions, Kubeconfig};
use tower::{BoxError, Layer, ServiceExt};

pub use crate::client_identity::ClientIdentity;
use crate::config::ServerTarget;

/// Why no token of the kubeconfig's user could be had. None is retryable as it is: the
/// kubeconfig, its context or the credential plugin has to change (or `--kubeconfig-user` go).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No kubeconfig could be read (`$KUBECONFIG`, else `~/.kube/config`).
    #[error("--kubeconfig-user: cannot read the kubeconfig ($KUBECONFIG, else ~/.kube/config): {0}")]
    Read(String),
    /// The current context cannot be used: none is set, or it names nothing.
    #[error("--kubeconfig-user: kubeconfig context {context:?}: {reason}")]
    Context {
        /// The context.
        context: String,
        /// What is wrong.
        reason: String,
    },
    /// The user's exec credential plugin answers with a client certificate, which is not
    /// read back from it.
    #[error(
        "--kubeconfig-user: the exec credential plugin of kubeconfig user {user:?} (context {context:?}) answers with a client certificate, which the plugin cannot send: put the certificate in client-certificate and client-key, or use a plugin that gives a token"
    )]
    ClientCertificate {
        /// The user.
        user: String,
        /// The context.
        context: String,
    },
    /// The user's client certificate or key cannot be read.
    #[error(
        "--kubeconfig-user: the client certificate of kubeconfig user {user:?} (context {context:?}): {reason}"
    )]
    Certificate {
        /// The user.
        user: String,
        /// The context.
        context: String,
        /// What is wrong.
        reason: String,
    },
    /// The user has a user name and password.
    #[error(
        "--kubeconfig-user: kubeconfig user {user:?} (context {context:?}) authenticates with a user name and password, and mc-server needs a bearer token"
    )]
    Basic {
        /// The user.
        user: String,
        /// The context.
        context: String,
    },
    /// The user has no credentials at all.
    #[error(
        "--kubeconfig-user: kubeconfig user {user:?} (context {context:?}) has no credentials, and mc-server needs a bearer token (token, tokenFile or exec)"
    )]
    NoCredentials {
        /// The user.
        user: String,
        /// The context.
        context: String,
    },
    /// The credential could not be obtained: a token file that cannot be read, a credential
    /// plugin that fails or answers nonsense.
    #[error("--kubeconfig-user: the credentials of kubeconfig user {user:?} (context {context:?}): {reason}")]
    Credential {
        /// The user.
        user: String,
        /// The context.
        context: String,
        /// What failed, in kube's words.
        reason: String,
    },
}

/// Result of getting the token.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Whether a credential plugin may ask its user something (a password, a browser login) on
/// this terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prompt {
    /// As the plugin's `interactiveMode` says (a command run by its user).
    AsConfigured,
    /// Never: nothing may land on the terminal (shell completion).
    Never,
}

/// What a kubeconfig user authenticates with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// A bearer token.
    Token(String),
    /// A client certificate (chain) and its private key.
    Certificate(ClientIdentity),
}

/// Puts the current kubeconfig user's credential into `target` (its token, or its client
/// certificate instead of any token) when it asks for it ([`ServerTarget::kubeconfig_user`]);
/// else leaves it as it is.
pub async fn apply(target: &mut ServerTarget, prompt: Prompt) -> Result<()> {
    if target.kubeconfig_user.is_some() {
        let kubeconfig = Kubeconfig::read().map_err(|e| Error::Read(one_line(&e)))?;
        match credential(kubeconfig, prompt).await? {
            Credential::Token(token) => target.token = Some(token),
            Credential::Certificate(identity) => {
                target.token = None;
                target.tls.client_identity = Some(identity);
            }
        }
    }
    Ok(())
}

/// The current context's user entry of the kubeconfig (`$KUBECONFIG`, else `~/.kube/config`),
/// as it is there: a kubeconfig for mc-server whose user is this one sends what kubectl sends
/// for it.
pub fn current_user() -> Result<AuthInfo> {
    let kubeconfig = Kubeconfig::read().map_err(|e| Error::Read(one_line(&e)))?;
    let (context, user) = current(&kubeconfig);
    let user =
        user.ok_or_else(|| Error::Context { context: context.clone(), reason: "names no user".into() })?;
    kubeconfig.auth_infos.into_iter().find(|u| u.name == user).and_then(|u| u.auth_info).ok_or_else(|| {
        Error::Context { context, reason: format!("its user {user:?} is not in the kubeconfig") }
    })
}

/// What kubectl would send for the current context's user of `kubeconfig`.
pub async fn credential(kubeconfig: Kubeconfig, prompt: Prompt) -> Result<Credential> {
    let (context, user) = current(&kubeconfig);
    if context.is_empty() {
        return Err(Error::Context { context, reason: "no current-context is set".into() });
    }
    let user = user.unwrap_or_default();
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| Error::Context { context: context.clone(), reason: one_line(&e) })?;
    if prompt == Prompt::Never
        && let Some(exec) = &mut config.auth_info.exec
    {
        exec.interactive_mode = Some(ExecInteractiveMode::Never);
    }
    match Kind::of(&config.auth_info) {
        Kind::ClientCertificate => {
            let identity = identity(&config.auth_info).map_err(|reason| Error::Certificate {
                user: user.clone(),
                context: context.clone(),
                reason,
            })?;
            return Ok(Credential::Certificate(identity));
        }
        Kind::Basic => return Err(Error::Basic { user, context }),
        Kind::Nothing => return Err(Error::NoCredentials { user, context }),
        Kind::Token => {}
    }
    let failed = |e: &dyn std::error::Error| Error::Credential {
        user: user.clone(),
        context: context.clone(),
        reason: one_line(e),
    };
    // A token file is read as client-go reads it, without the whitespace around the token
    // (kube-rs would send a final newline, which no header may hold).
    let auth = &mut config.auth_info;
    if auth.token.is_none()
        && let Some(file) = auth.token_file.take()
    {
        let text = std::fs::read_to_string(&file).map_err(|e| Error::Credential {
            user: user.clone(),
            context: context.clone(),
            reason: format!("cannot read its tokenFile {file}: {e}"),
        })?;
        auth.token = Some(text.trim().to_owned().into());
    }
    // An exec plugin runs here, synchronously: a command line waits for it either way.
    let Some(layer) = config.auth_layer().map_err(|e| failed(&e))? else {
        // The exec plugin answered with a client certificate.
        return Err(Error::ClientCertificate { user, context });
    };
    let echo = tower::service_fn(|req: http::Request<Body>| async move {
        Ok::<_, BoxError>(http::Response::new(req.headers().get(AUTHORIZATION).cloned()))
    });
    let header = layer
        .layer(echo)
        .oneshot(http::Request::new(Body::empty()))
        .await
        .map_err(|e| failed(e.as_ref()))?
        .into_body();
    match header.as_ref().map(HeaderValue::to_str) {
        Some(Ok(value)) => match value.strip_prefix("Bearer ").map(str::trim) {
            Some(token) if !token.is_empty() => Ok(Credential::Token(token.to_owned())),
            Some(_) => Err(Error::NoCredentials { user, context }),
            None => Err(Error::Basic { user, context }),
        },
        _ => Err(Error::NoCredentials { user, context }),
    }
}

/// The user's client certificate (chain) and key, from their inline base64 data or their
/// files, checked to be PEM of the right kinds.
fn identity(auth: &AuthInfo) -> std::result::Result<ClientIdentity, String> {
    use base64::Engine as _;
    use secrecy::ExposeSecret as _;
    let read = |data: Option<&str>,
                file: Option<&String>,
                what: &str|
     -> std::result::Result<Vec<u8>, String> {
        match (data, file) {
            (Some(data), _) => base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| format!("{what}-data is not base64: {e}")),
            (None, Some(file)) => std::fs::read(file).map_err(|e| format!("cannot read {what} {file}: {e}")),
            (None, None) => Err(format!("{what} is missing")),
        }
    };
    let cert = read(
        auth.client_certificate_data.as_deref(),
        auth.client_certificate.as_ref(),
        "client-certificate",
    )?;
    let key_data = auth.client_key_data.as_ref().map(|k| k.expose_secret().to_string());
    let key = read(key_data.as_deref(), auth.client_key.as_ref(), "client-key")?;
    let text = |bytes: &[u8], what: &str| -> std::result::Result<String, String> {
        String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} is not PEM text"))
    };
    let (cert, key) = (text(&cert, "client-certificate")?, text(&key, "client-key")?);
    if !cert.contains("-----BEGIN CERTIFICATE-----") {
        return Err("client-certificate holds no PEM certificate".into());
    }
    if !key.contains("PRIVATE KEY-----") {
        return Err("client-key holds no PEM private key".into());
    }
    Ok(ClientIdentity::from_pem(format!("{}\n{}\n", cert.trim(), key.trim()).into_bytes()))
}

/// The current context's name and the name of its user.
fn current(kubeconfig: &Kubeconfig) -> (String, Option<String>) {
    let context = kubeconfig.current_context.clone().unwrap_or_default();
    let user = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone());
    (context, user)
}

/// What a user authenticates with, as kube-rs chooses (an auth-provider, then a user name and
/// password, then a token, a token file, an exec plugin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A bearer token of some source.
    Token,
    /// A user name and password.
    Basic,
    /// A client certificate only.
    ClientCertificate,
    /// Nothing.
    Nothing,
}

impl Kind {
    fn of(auth: &AuthInfo) -> Kind {
        if auth.auth_provider.is_some() {
            Kind::Token
        } else if auth.username.is_some() && auth.password.is_some() {
            Kind::Basic
        } else if auth.token.is_some() || auth.token_file.is_some() || auth.exec.is_some() {
            Kind::Token
        } else if auth.client_certificate.is_some() || auth.client_certificate_data.is_some() {
            Kind::ClientCertificate
        } else {
            Kind::Nothing
        }
    }
}

/// An error and its causes on one line.
fn one_line(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let more = inner.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = inner.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    /// A private temporary directory, removed on drop.
    struct Dir(PathBuf);

    impl Dir {
        fn new(tag: &str) -> Dir {
            let dir = std::env::temp_dir().join(format!("kmc-kubeconfig-user-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Dir(dir)
        }

        fn path(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A kubeconfig whose current context `dev` uses the user `alice` with this `user:` body
    /// (YAML, indented by four spaces).
    fn kubeconfig(user: &str) -> Kubeconfig {
        let text = format!(
            "apiVersion: v1
kind: Config
clusters:
- name: master
  cluster:
    server: https://127.0.0.1:6443
contexts:
- name: dev
  context:
    cluster: master
    user: alice
- name: other
  context:
    cluster: master
    user: bob
current-context: dev
users:
- name: alice
  user:
{user}
- name: bob
  user:
    token: bobs-token
"
        );
        Kubeconfig::from_yaml(&text).unwrap()
    }

    async fn token_of(user: &str) -> Result<String> {
        token(kubeconfig(user), Prompt::AsConfigured).await
    }

    /// The token of `kubeconfig`'s current user; a test failure if it has a certificate.
    async fn token(kubeconfig: Kubeconfig, prompt: Prompt) -> Result<String> {
        credential(kubeconfig, prompt).await.map(|c| match c {
            Credential::Token(token) => token,
            other => panic!("not a token: {other:?}"),
        })
    }

    /// An exec credential plugin: `sh SCRIPT`, the script printing `answer` as its
    /// ExecCredential.
    fn exec_plugin(dir: &Dir, answer: &str, interactive: &str) -> String {
        let script = dir.path("credential.sh");
        std::fs::write(&script, format!("#!/bin/sh\ncat <<'EOF'\n{answer}\nEOF\n")).unwrap();
        format!(
            "    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /bin/sh
      args: [{}]
      interactiveMode: {interactive}",
            quoted(&script)
        )
    }

    fn quoted(path: &Path) -> String {
        format!("\"{}\"", path.display())
    }

    #[tokio::test]
    async fn an_inline_token_is_sent_as_it_is() {
        assert_eq!(token_of("    token: alices-token").await.unwrap(), "alices-token");
    }

    #[tokio::test]
    async fn a_token_file_is_read() {
        let dir = Dir::new("token-file");
        std::fs::write(dir.path("token"), "from-the-file\n").unwrap();
        let user = format!("    tokenFile: {}", quoted(&dir.path("token")));
        assert_eq!(token_of(&user).await.unwrap(), "from-the-file");
        let missing = format!("    tokenFile: {}", quoted(&dir.path("nope")));
        let message = token_of(&missing).await.unwrap_err().to_string();
        assert!(
            message.contains("credentials of kubeconfig user \"alice\"") && message.contains("nope"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn an_exec_credential_plugin_is_run() {
        let dir = Dir::new("exec");
        let answer = r#"{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
            "status": {"token": "from-the-plugin"}}"#;
        let user = exec_plugin(&dir, answer, "Never");
        assert_eq!(token_of(&user).await.unwrap(), "from-the-plugin");
        // A token with an expiry (kube keeps it to refresh it) is sent as well.
        let expiring = r#"{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
            "status": {"token": "expires-later", "expirationTimestamp": "2999-01-01T00:00:00Z"}}"#;
        let user = exec_plugin(&dir, expiring, "IfAvailable");
        assert_eq!(token(kubeconfig(&user), Prompt::Never).await.unwrap(), "expires-later");
        // A plugin that fails is said so, with its user.
        let user = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/false\n      interactiveMode: Never";
        let message = token_of(user).await.unwrap_err().to_string();
        assert!(
            message.starts_with("--kubeconfig-user: the credentials of kubeconfig user \"alice\""),
            "{message}"
        );
        assert!(!message.contains('\n'), "{message}");
    }

    #[tokio::test]
    async fn a_client_certificate_is_sent_as_the_users_identity() {
        let dir = Dir::new("cert");
        let (cert, key) = (
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
            "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
        );
        std::fs::write(dir.path("alice.crt"), cert).unwrap();
        std::fs::write(dir.path("alice.key"), key).unwrap();
        let files = format!(
            "    client-certificate: {}\n    client-key: {}",
            quoted(&dir.path("alice.crt")),
            quoted(&dir.path("alice.key"))
        );
        let inline = {
            use base64::Engine as _;
            let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
            format!("    client-certificate-data: {}\n    client-key-data: {}", b64(cert), b64(key))
        };
        for user in [files, inline] {
            let Credential::Certificate(identity) =
                credential(kubeconfig(&user), Prompt::Never).await.unwrap()
            else {
                panic!("no certificate")
            };
            let pem = String::from_utf8(identity.pem().to_vec()).unwrap();
            assert_eq!(pem, format!("{cert}\n{key}\n"));
            assert!(!format!("{identity:?}").contains("MII"), "never printed");
        }
        // What cannot be a certificate and key is said, with the user.
        let bad = "    client-certificate-data: bm90IHBlbQ==\n    client-key-data: a2V5";
        let message = credential(kubeconfig(bad), Prompt::Never).await.unwrap_err().to_string();
        assert_eq!(
            message,
            "--kubeconfig-user: the client certificate of kubeconfig user \"alice\" (context \"dev\"): client-certificate holds no PEM certificate"
        );
        // A plugin that answers with one: not read back from it, and said so.
        let answer = r#"{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
            "status": {"clientCertificateData": "cert", "clientKeyData": "key"}}"#;
        let message = token_of(&exec_plugin(&dir, answer, "Never")).await.unwrap_err().to_string();
        assert!(message.contains("answers with a client certificate"), "{message}");
    }

    #[tokio::test]
    async fn a_password_or_nothing_is_no_token_either() {
        let message = token_of("    username: alice\n    password: secret").await.unwrap_err().to_string();
        assert!(message.contains("user name and password"), "{message}");
        let message = token_of("    {}").await.unwrap_err().to_string();
        assert!(message.contains("has no credentials"), "{message}");
    }

    #[tokio::test]
    async fn the_current_context_decides_whose_token() {
        let mut other = kubeconfig("    token: alices-token");
        other.current_context = Some("other".into());
        assert_eq!(token(other, Prompt::Never).await.unwrap(), "bobs-token");
        let mut none = kubeconfig("    token: alices-token");
        none.current_context = None;
        let message = token(none, Prompt::Never).await.unwrap_err().to_string();
        assert!(message.contains("no current-context"), "{message}");
        let mut unknown = kubeconfig("    token: alices-token");
        unknown.current_context = Some("gone".into());
        let message = token(unknown, Prompt::Never).await.unwrap_err().to_string();
        assert!(message.contains("\"gone\""), "{message}");
    }
}
