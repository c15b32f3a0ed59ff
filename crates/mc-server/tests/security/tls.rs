//! `tlsCertFile`/`tlsKeyFile` mean HTTPS only, with the configured certificate, reloaded when the
//! files change.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use reqwest::StatusCode;

use crate::certs::issue;
use crate::server::{Launch, McServer, Options};
use crate::testenv::{TestEnv, eventually};

fn client(ca: &Path) -> reqwest::Client {
    let pem = std::fs::read(ca).unwrap();
    reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(&pem).unwrap())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

async fn status(client: &reqwest::Client, url: &str, token: Option<&str>) -> Option<StatusCode> {
    let mut req = client.get(url);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.ok().map(|r| r.status())
}

#[tokio::test]
async fn tls_files_mean_https_only_with_that_certificate_reloaded_on_change() {
    let env = TestEnv::from_env();
    let dir = env.dir.join("security").join("tls");
    let _ = std::fs::remove_dir_all(&dir);
    let (ca1, crt1, key1) = issue(&dir, "first");
    let (cert, key) = (dir.join("serving.crt"), dir.join("serving.key"));
    std::fs::copy(&crt1, &cert).unwrap();
    std::fs::copy(&key1, &key).unwrap();
    let (cert_arg, key_arg) = (cert.display().to_string(), key.display().to_string());
    let launch = Launch {
        args: &["--tls-cert-file", &cert_arg, "--tls-key-file", &key_arg],
        ca: Some(&ca1),
        ..Default::default()
    };
    let server = McServer::spawn_with(&env, "sec-tls", Options::default(), launch);
    let https = server.url.clone();
    let trusted = client(&ca1);
    eventually("HTTPS /readyz", Duration::from_secs(90), || async {
        (status(&trusted, &format!("{https}/readyz"), None).await == Some(StatusCode::OK)).then_some(())
    })
    .await;
    assert_eq!(
        status(&trusted, &format!("{https}/v1/clusters"), Some(server.token())).await,
        Some(StatusCode::OK)
    );
    assert_eq!(status(&trusted, &format!("{https}/v1/clusters"), None).await, Some(StatusCode::UNAUTHORIZED));

    // Plain HTTP on that port gets no HTTP answer.
    let port: u16 = server.url.rsplit(':').next().unwrap().parse().unwrap();
    let plain = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).to_string()
    })
    .await
    .unwrap();
    assert!(!plain.starts_with("HTTP/"), "plain HTTP was answered: {plain:?}");
    assert!(
        reqwest::get(format!("http://127.0.0.1:{port}/healthz")).await.is_err(),
        "plain HTTP client succeeded"
    );
    assert!(!server.data_dir.join("tls").exists(), "no CA of its own beside a configured certificate");

    // A client that does not trust the issuer is refused.
    let (ca2, crt2, key2) = issue(&dir, "second");
    let second = client(&ca2);
    assert_eq!(status(&second, &format!("{https}/healthz"), None).await, None);

    // A renewed certificate is served without a restart.
    std::fs::copy(&key2, &key).unwrap();
    std::fs::copy(&crt2, &cert).unwrap();
    eventually("the renewed certificate", Duration::from_secs(30), || async {
        (status(&second, &format!("{https}/healthz"), None).await == Some(StatusCode::OK)).then_some(())
    })
    .await;
    assert_eq!(
        status(&client(&ca1), &format!("{https}/healthz"), None).await,
        None,
        "the old certificate is gone"
    );
}

#[tokio::test]
async fn an_unusable_certificate_stops_the_start_with_one_line() {
    let env = TestEnv::from_env();
    let dir = env.dir.join("security").join("tls-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let cert = dir.join("tls.crt");
    std::fs::write(&cert, "not a certificate\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mc-server"))
        .args(["--config", &env.dir.join("config.yaml").display().to_string(), "--no-cli-config"])
        .args(["--bind", "127.0.0.1", "--port", &crate::server::free_port().to_string()])
        .args(["--storage", &crate::server::sqlite_url(&env, "sec-tls-bad")])
        .args([
            "--tls-cert-file",
            &cert.display().to_string(),
            "--tls-key-file",
            &dir.join("none.key").display().to_string(),
        ])
        .env("MC_TOKEN", crate::server::TEST_TOKEN)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: ") && last.contains("tls.crt"), "{stderr}");
}
