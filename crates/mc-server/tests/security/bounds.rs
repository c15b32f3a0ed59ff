//! Unbounded input is refused before any work: oversize selectors and names are 400s, a client
//! that never finishes its headers is cut off, silent connections give way to new ones, and the
//! connection cap holds against connections that are busy.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use reqwest::StatusCode;

use crate::server::{Launch, McServer, Options};
use crate::testenv::TestEnv;

#[tokio::test]
async fn oversize_selectors_names_and_types_are_400_before_any_work() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-bounds", Options::default()).await;
    let many = (0..1000).map(|i| format!("k{i}!=v")).collect::<Vec<_>>().join(",");
    let hundred = (0..100).map(|i| format!("!k{i}")).collect::<Vec<_>>().join(",");
    let sixty_four = (0..64).map(|i| format!("k{i}!=v")).collect::<Vec<_>>().join(",");
    // Below the 16 KiB bound of a whole URI (that is a 414).
    let long_gvr = "x".repeat(8 * 1024);
    let cases = [
        (format!("/v1/list?gvr=v1/pods&labelSelector={many}"), "4096"),
        (format!("/v1/list?gvr=v1/pods&labelSelector={hundred}"), "64"),
        (format!("/v1/list?gvr=v1/pods&fieldSelector=metadata.name!={}", "n".repeat(5000)), ""),
        (format!("/v1/list?gvr={long_gvr}"), "253"),
        (format!("/v1/list?gvr=v1/pods&namespace={}", "n".repeat(64)), "63"),
        (format!("/v1/list?gvr=v1/pods&name={}", "n".repeat(254)), "253"),
        (format!("/v1/list?gvr=v1/pods&labels[{}]=v", "k".repeat(400)), ""),
        (format!("/v1/list?gvr=v1/pods&labelSelector=a={}", "v".repeat(64)), "63"),
    ];
    for (path, limit) in &cases {
        let (status, body) = server.get(path).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{}: {body}", &path[..80.min(path.len())]);
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(limit) && !error.contains('\n') && error.len() < 400, "{error}");
    }
    // At the limit the query runs (no "expression tree too large").
    let (status, body) =
        server.get(&format!("/v1/list?gvr=v1/namespaces&limit=0&labelSelector={sixty_four}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(!body.as_array().unwrap().is_empty());
}

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s
}

/// Reads until the server closes; `None` when our own 30 s read timeout expired first.
fn read_until_closed(s: &mut TcpStream) -> Option<String> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&out).to_string()),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return None;
            }
            Err(_) => return Some(String::from_utf8_lossy(&out).to_string()),
        }
    }
}

#[tokio::test]
async fn slow_headers_are_cut_off_and_the_connection_cap_holds() {
    let env = TestEnv::from_env();
    // Raw sockets speak plain http; the listener's header timeout and connection cap are the
    // same behind TLS (its unit tests flood both).
    let launch = Launch { args: &["--max-connections", "3"], plain_http: true, ..Default::default() };
    let server = McServer::start_with(&env, "sec-conns", Options::default(), launch).await;
    let port: u16 = server.url.rsplit(':').next().unwrap().parse().unwrap();
    let token = server.token().to_string();
    tokio::task::spawn_blocking(move || {
        // A request whose headers never end is closed by the server.
        let mut slow = connect(port);
        slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n").unwrap();
        let answer = read_until_closed(&mut slow).expect("the server closed the slow connection");
        assert!(!answer.contains("200 OK"), "{answer}");
        // The server closes a connection a moment before its task ends and frees the slot: a
        // connection opened in that moment is refused (seen once in CI, where the fourth below
        // then took the slot). Let the slot come free first.
        std::thread::sleep(Duration::from_millis(500));
        // Three silent connections fill the cap; a fourth takes the slot of the oldest.
        let mut silent: Vec<TcpStream> = (0..3).map(|_| connect(port)).collect();
        std::thread::sleep(Duration::from_millis(500));
        let mut fourth = connect(port);
        fourth.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
        let answer = read_until_closed(&mut fourth).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        let oldest = read_until_closed(&mut silent[0]).expect("the oldest silent connection was closed");
        assert!(oldest.is_empty(), "{oldest}");
        drop(silent);
        std::thread::sleep(Duration::from_millis(500));
        // Three connections with a request in flight (watches) fill the cap for good: a fourth
        // is closed without an answer.
        let watch = format!(
            "GET /api/v1/namespaces?watch=true HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n"
        );
        let held: Vec<TcpStream> = (0..3)
            .map(|_| {
                let mut s = connect(port);
                s.write_all(watch.as_bytes()).unwrap();
                let mut head = [0u8; 12];
                s.read_exact(&mut head).unwrap();
                assert_eq!(&head, b"HTTP/1.1 200", "the watch started");
                s
            })
            .collect();
        let mut fourth = connect(port);
        let _ = fourth.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        let answer = read_until_closed(&mut fourth).expect("the fourth connection was closed");
        assert!(!answer.contains("200 OK"), "{answer}");
        drop(held);
        std::thread::sleep(Duration::from_millis(500));
        let mut fifth = connect(port);
        fifth.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
        let answer = read_until_closed(&mut fifth).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    })
    .await
    .unwrap();
}

/// A request target or header block too large is answered by mc-server in the API's error shape
/// (a `Status` on the Kubernetes paths), not by the HTTP server's bare status line: its limits
/// are below the HTTP server's.
#[tokio::test]
async fn oversize_uris_and_headers_answer_in_the_apis_error_shape() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-oversize", Options::default()).await;
    let http = server.http();
    let long = format!("labelSelector={}", "a".repeat(20 * 1024));
    for (path, kube) in [("/api/v1/configmaps", true), ("/v1/list", false)] {
        let resp = http
            .get(format!("{}{path}?{long}", server.url))
            .bearer_auth(server.token())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::URI_TOO_LONG);
        let body: serde_json::Value = resp.json().await.unwrap();
        if kube {
            assert_eq!(body["kind"], "Status", "{body}");
            assert_eq!(body["code"], 414, "{body}");
        } else {
            assert!(body["error"].as_str().unwrap().contains("16384"), "{body}");
        }
    }
    let mut many = reqwest::header::HeaderMap::new();
    for i in 0..150 {
        many.insert(reqwest::header::HeaderName::try_from(format!("x-h{i}")).unwrap(), "v".parse().unwrap());
    }
    let resp = http
        .get(format!("{}/apis/apps/v1/deployments", server.url))
        .bearer_auth(server.token())
        .headers(many)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["reason"], "RequestHeaderFieldsTooLarge", "{body}");
}
