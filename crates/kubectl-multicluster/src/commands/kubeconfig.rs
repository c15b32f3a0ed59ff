//! `kubeconfig`: a kubeconfig for mc-server's read-only Kubernetes API, so that kubectl itself
//! (and k9s, Lens, client-go programs) can read every cluster through the server: context
//! `multicluster` over all clusters, `multicluster-NAME` over one (`<url>/clusters/NAME`). Its
//! user sends the plugin's token, or with `--kubeconfig-user` the current kubeconfig user's
//! credentials, copied as they are.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use k8s_openapi::ByteString;
use serde_json::{Map, Value, json};

use crate::client::Client;
use crate::config::{ServerTarget, Settings};
use crate::kubeconfig_user::{self, Prompt};
use crate::print;

/// Name of the context, cluster and user over every cluster; per-cluster ones add `-NAME`.
pub const NAME: &str = "multicluster";

/// Prints the kubeconfig on `out`; a plain-http server gets a one-line warning on stderr.
pub async fn run<E: Fn(&str) -> Option<String>>(
    settings: &Settings<E>,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let target = settings.server()?;
    let mut asking = target.clone();
    kubeconfig_user::apply(&mut asking, Prompt::AsConfigured).await?;
    let client = Client::new(asking)?;
    let clusters = client.clusters().await.map_err(|err| {
        if err.is_missing_endpoint() {
            anyhow::anyhow!(
                "mc-server at {} has no /v1/clusters: it is an earlier version without the Kubernetes API",
                target.url
            )
        } else {
            err.into()
        }
    })?;
    let names: Vec<&str> = clusters.iter().map(|c| c.name.as_str()).collect();
    let ca_data = match &target.tls.certificate_authority {
        // client-go refuses a cluster with both a CA and insecure-skip-tls-verify.
        Some((file, origin)) if !target.tls.insecure_skip_verify => {
            Some(std::fs::read(file).with_context(|| {
                format!("certificate authority {} (from {origin}): cannot read", file.display())
            })?)
        }
        _ => None,
    };
    if target.url.starts_with("http://") {
        eprintln!(
            "Warning: {} is plain http and kubectl sends no token over http; use the server's https:// URL and its CA (mc-server serves HTTPS unless server.plainHTTP is set)",
            target.url
        );
    }
    let mut document = document(&target, &names, ca_data)?;
    if target.kubeconfig_user.is_some() {
        document["users"][0]["user"] = serde_json::to_value(kubeconfig_user::current_user()?)?;
    }
    print::write_yaml(out, &document)?;
    Ok(ExitCode::SUCCESS)
}

/// The kubeconfig: one cluster and one context per name (all clusters first), one user.
pub fn document(target: &ServerTarget, clusters: &[&str], ca_data: Option<Vec<u8>>) -> Result<Value> {
    let mut tls = Map::new();
    if let Some(bytes) = ca_data {
        tls.insert("certificate-authority-data".into(), serde_json::to_value(ByteString(bytes))?);
    }
    if target.tls.insecure_skip_verify {
        tls.insert("insecure-skip-tls-verify".into(), Value::Bool(true));
    }
    let entries: Vec<(String, String)> = std::iter::once((NAME.to_owned(), target.url.clone()))
        .chain(clusters.iter().map(|c| (format!("{NAME}-{c}"), format!("{}/clusters/{c}", target.url))))
        .collect();
    let cluster_entries: Vec<Value> = entries
        .iter()
        .map(|(name, server)| {
            let mut cluster = tls.clone();
            cluster.insert("server".into(), Value::String(server.clone()));
            json!({"name": name, "cluster": cluster})
        })
        .collect();
    let contexts: Vec<Value> = entries
        .iter()
        .map(|(name, _)| json!({"name": name, "context": {"cluster": name, "user": NAME}}))
        .collect();
    let user = match &target.token {
        Some(token) => json!({"token": token}),
        None => json!({}),
    };
    Ok(json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": cluster_entries,
        "contexts": contexts,
        "users": [{"name": NAME, "user": user}],
        "current-context": NAME,
        "preferences": {},
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::config::{Origin, TlsSettings};

    fn target(url: &str, insecure: bool) -> ServerTarget {
        ServerTarget {
            url: url.into(),
            origin: Origin::Flag("--server"),
            token: Some("t0k3n".into()),
            kubeconfig_user: None,
            tls: TlsSettings {
                certificate_authority: None,
                insecure_skip_verify: insecure,
                client_identity: None,
            },
        }
    }

    #[test]
    fn every_cluster_gets_a_context_under_its_own_path() {
        let doc = document(&target("https://mc:8443", false), &["a", "b"], Some(b"PEM".to_vec())).unwrap();
        let servers: Vec<&str> = doc["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["cluster"]["server"].as_str().unwrap())
            .collect();
        assert_eq!(servers, ["https://mc:8443", "https://mc:8443/clusters/a", "https://mc:8443/clusters/b"]);
        assert_eq!(doc["clusters"][2]["cluster"]["certificate-authority-data"], "UEVN");
        assert_eq!(
            doc["contexts"][1],
            json!({"name": "multicluster-a", "context": {"cluster": "multicluster-a", "user": "multicluster"}})
        );
        assert_eq!(doc["users"][0]["user"]["token"], "t0k3n");
    }

    #[test]
    fn insecure_clusters_carry_no_certificate_authority() {
        let doc = document(&target("https://mc", true), &[], None).unwrap();
        assert_eq!(
            doc["clusters"][0]["cluster"],
            json!({"server": "https://mc", "insecure-skip-tls-verify": true})
        );
    }
}
