//! An uploaded kubeconfig is data, never code or a path: only inline credentials are accepted.
//! A kubeconfig can name a command to run (`exec`, an `auth-provider`'s `cmd-path`) or files to
//! read (`tokenFile`, `client-certificate`, `certificate-authority`, …); from a network upload
//! either would let a caller run commands as mc-server or send its files to a server of their
//! choice. Clusters from the server's own config file are trusted as the operator wrote them and
//! never pass through here.

use std::net::IpAddr;

use kube::config::Kubeconfig;

use super::transport::is_link_local;

/// Why an uploaded kubeconfig is refused: the field, named as in the kubeconfig (400, not
/// retryable: the kubeconfig must change).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} is not accepted in an uploaded kubeconfig: {why}")]
pub struct Refused {
    /// Where it is, e.g. `users[admin].user.exec`.
    pub field: String,
    /// Why, and what to use instead.
    pub why: &'static str,
}

const INLINE_ONLY: &str = "use inline credentials (token, client-certificate-data, client-key-data, certificate-authority-data, username/password)";
const NO_COMMANDS: &str =
    "mc-server never runs commands from an upload; create a ServiceAccount token and use `token:`";
const NO_PROXY: &str = "the connection goes straight to the API server";
const HTTPS_ONLY: &str = "credentials would travel in clear text; use an https:// server, or join with insecure=true to accept plain HTTP without sending credentials";
const NO_LINK_LOCAL: &str = "it is a link-local address (169.254.0.0/16, fe80::/10), where cloud metadata services answer; the server's config allows it with server.allowLinkLocalJoins: true";

/// What an upload may do beyond inline credentials to an https:// server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allowed {
    /// Plain `http://` servers (the join's `insecure=true`).
    pub http: bool,
    /// Link-local server addresses (`server.allowLinkLocalJoins`). A name that resolves to one
    /// is refused when the connection is made (`super::transport::Addresses`).
    pub link_local: bool,
}

/// Checks every cluster and user entry (not only the context in use: the whole text is kept and
/// restored later).
pub fn check(kubeconfig: &Kubeconfig, allowed: Allowed) -> Result<(), Refused> {
    let refuse = |field: String, why| Err(Refused { field, why });
    for named in &kubeconfig.clusters {
        let Some(c) = &named.cluster else { continue };
        let at = |f: &str| format!("clusters[{}].cluster.{f}", printable(&named.name));
        if c.certificate_authority.as_deref().is_some_and(|p| !p.is_empty()) {
            return refuse(at("certificate-authority"), INLINE_ONLY);
        }
        if c.proxy_url.as_deref().is_some_and(|p| !p.is_empty()) {
            return refuse(at("proxy-url"), NO_PROXY);
        }
        let server = c.server.as_deref().unwrap_or_default();
        let scheme = server.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("https") => {}
            Some("http") if allowed.http => {}
            Some("http") => return refuse(at("server"), HTTPS_ONLY),
            _ => return refuse(at("server"), "the server must be an https:// URL"),
        }
        if !allowed.link_local && literal_ip(server).is_some_and(is_link_local) {
            return refuse(at("server"), NO_LINK_LOCAL);
        }
    }
    for named in &kubeconfig.auth_infos {
        let Some(u) = &named.auth_info else { continue };
        let at = |f: &str| format!("users[{}].user.{f}", printable(&named.name));
        if u.exec.is_some() {
            return refuse(at("exec"), NO_COMMANDS);
        }
        if u.auth_provider.is_some() {
            return refuse(at("auth-provider"), NO_COMMANDS);
        }
        if u.token_file.as_deref().is_some_and(|p| !p.is_empty()) {
            return refuse(at("tokenFile"), INLINE_ONLY);
        }
        if u.client_certificate.as_deref().is_some_and(|p| !p.is_empty()) {
            return refuse(at("client-certificate"), INLINE_ONLY);
        }
        if u.client_key.as_deref().is_some_and(|p| !p.is_empty()) {
            return refuse(at("client-key"), INLINE_ONLY);
        }
    }
    Ok(())
}

/// The IP address a server URL names literally (`https://169.254.169.254`, `https://[fe80::1]`),
/// `None` for a host name (resolved when the connection is made).
fn literal_ip(server: &str) -> Option<IpAddr> {
    let uri: hyper::Uri = server.parse().ok()?;
    let host = uri.host()?;
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    // An IPv6 zone (`fe80::1%eth0`, `%25` in a URL) is not part of the address.
    host.split('%').next()?.parse().ok()
}

/// Removes every credential from the users of plain-HTTP clusters: over `http://` nothing
/// secret is sent (the join asked for `insecure=true`, not for leaking its token).
pub fn strip_credentials_over_http(kubeconfig: &mut Kubeconfig) {
    let plain: Vec<String> = kubeconfig
        .clusters
        .iter()
        .filter(|c| {
            c.cluster
                .as_ref()
                .and_then(|c| c.server.as_deref())
                .is_some_and(|s| s.to_ascii_lowercase().starts_with("http://"))
        })
        .map(|c| c.name.clone())
        .collect();
    if plain.is_empty() {
        return;
    }
    let users: Vec<String> = kubeconfig
        .contexts
        .iter()
        .filter_map(|c| c.context.as_ref())
        .filter(|c| plain.contains(&c.cluster))
        .filter_map(|c| c.user.clone())
        .collect();
    for named in &mut kubeconfig.auth_infos {
        if users.contains(&named.name)
            && let Some(u) = named.auth_info.as_mut()
        {
            u.token = None;
            u.password = None;
            u.username = None;
            u.client_certificate_data = None;
            u.client_key_data = None;
        }
    }
}

/// A name from the upload as it may appear in a message: bounded, no control characters.
fn printable(name: &str) -> String {
    let shown: String = name.chars().filter(|c| !c.is_control()).take(64).collect();
    if shown.len() < name.len() { format!("{shown}…") } else { shown }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn kubeconfig(user: &str, cluster: &str) -> Kubeconfig {
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {{cluster: k, user: u}}\nclusters:\n- name: k\n  cluster:\n{cluster}\nusers:\n- name: u\n  user:\n{user}\n"
        );
        Kubeconfig::from_yaml(&text).unwrap()
    }

    const HTTPS: &str = "    server: https://127.0.0.1:6443\n    certificate-authority-data: AAAA";
    const TOKEN: &str = "    token: abc";
    /// The defaults of a join: https only, no link-local address.
    const HTTPS_ONLY_UPLOAD: Allowed = Allowed { http: false, link_local: false };

    #[test]
    fn inline_credentials_are_accepted() {
        assert_eq!(check(&kubeconfig(TOKEN, HTTPS), HTTPS_ONLY_UPLOAD), Ok(()));
        let certs = "    client-certificate-data: AAAA\n    client-key-data: BBBB";
        assert_eq!(check(&kubeconfig(certs, HTTPS), HTTPS_ONLY_UPLOAD), Ok(()));
        let basic = "    username: admin\n    password: secret";
        assert_eq!(check(&kubeconfig(basic, HTTPS), HTTPS_ONLY_UPLOAD), Ok(()));
    }

    #[test]
    fn commands_and_file_paths_are_refused_by_field() {
        let cases = [
            (
                "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/touch\n      args: [/tmp/pwned]",
                HTTPS,
                "users[u].user.exec",
            ),
            (
                "    auth-provider:\n      name: gcp\n      config: {cmd-path: /bin/touch}",
                HTTPS,
                "users[u].user.auth-provider",
            ),
            (
                "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token",
                HTTPS,
                "users[u].user.tokenFile",
            ),
            (
                "    client-certificate: /etc/passwd\n    client-key-data: AAAA",
                HTTPS,
                "users[u].user.client-certificate",
            ),
            (
                "    client-key: /etc/shadow\n    client-certificate-data: AAAA",
                HTTPS,
                "users[u].user.client-key",
            ),
            (
                TOKEN,
                "    server: https://127.0.0.1:6443\n    certificate-authority: /etc/ssl/ca.pem",
                "clusters[k].cluster.certificate-authority",
            ),
            (
                TOKEN,
                "    server: https://127.0.0.1:6443\n    proxy-url: http://127.0.0.1:1",
                "clusters[k].cluster.proxy-url",
            ),
            (TOKEN, "    server: http://127.0.0.1:8080", "clusters[k].cluster.server"),
            (TOKEN, "    server: file:///etc/passwd", "clusters[k].cluster.server"),
        ];
        for (user, cluster, field) in cases {
            let refused = check(&kubeconfig(user, cluster), HTTPS_ONLY_UPLOAD).unwrap_err();
            assert_eq!(refused.field, field);
            assert!(!refused.to_string().contains('\n'));
        }
    }

    #[test]
    fn plain_http_needs_insecure_and_then_carries_no_credentials() {
        let mut kc = kubeconfig(
            "    token: abc\n    username: a\n    password: b",
            "    server: http://127.0.0.1:8080",
        );
        assert_eq!(check(&kc, Allowed { http: true, ..Default::default() }), Ok(()));
        strip_credentials_over_http(&mut kc);
        let user = kc.auth_infos[0].auth_info.as_ref().unwrap();
        assert!(user.token.is_none() && user.password.is_none() && user.username.is_none());
        // Over https the token stays.
        let mut kc = kubeconfig(TOKEN, HTTPS);
        strip_credentials_over_http(&mut kc);
        assert!(kc.auth_infos[0].auth_info.as_ref().unwrap().token.is_some());
    }

    // Link-local refusals are tested here and in `transport` without a connection: a test that
    // joined such an address through a running server would send packets off the machine
    // whenever the check regressed.
    #[test]
    fn link_local_servers_are_refused_unless_allowed() {
        let servers = [
            "https://169.254.169.254",
            "https://169.254.10.20:6443/k8s",
            "https://[fe80::1]:6443",
            "https://[fe80::1%25eth0]:6443",
            "https://[::ffff:169.254.169.254]",
            "HTTPS://169.254.169.254",
        ];
        for server in servers {
            let kc = kubeconfig(TOKEN, &format!("    server: {server}"));
            let refused = check(&kc, HTTPS_ONLY_UPLOAD).unwrap_err();
            assert_eq!(refused.field, "clusters[k].cluster.server", "{server}");
            assert!(refused.to_string().contains("link-local"), "{refused}");
            assert_eq!(check(&kc, Allowed { http: false, link_local: true }), Ok(()), "{server}");
        }
        for server in
            ["https://127.0.0.1:6443", "https://10.0.0.1", "https://[::1]:6443", "https://metadata.example"]
        {
            let kc = kubeconfig(TOKEN, &format!("    server: {server}"));
            assert_eq!(check(&kc, HTTPS_ONLY_UPLOAD), Ok(()), "{server}");
        }
    }
}
