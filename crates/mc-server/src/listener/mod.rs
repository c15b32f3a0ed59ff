//! Accepting connections: plain HTTP or HTTPS only (never both on one port), a cap on open
//! connections, a deadline for the TLS handshake and for request headers, and graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tracing::{debug, warn};

use crate::tls::Certificates;

/// Bounds on what one client can hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once; further ones are closed at once.
    pub max_connections: usize,
    /// Time a client has to send a request's headers (HTTP/1).
    pub header_read_timeout: Duration,
    /// Time a client has to finish the TLS handshake.
    pub handshake_timeout: Duration,
    /// How long shutdown waits for open requests (watch streams never end by themselves).
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(10),
            drain: Duration::from_secs(5),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves; with `tls`, every connection must
/// complete a TLS handshake first (a plain HTTP request is dropped).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    tls: Option<Arc<Certificates>>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
    // HTTP/2 has no header deadline: pings find peers that went away, so their connections do
    // not hold a slot of the cap forever.
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(256)
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(10));
    let builder = Arc::new(builder);
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            debug!(max = limits.max_connections, "connection cap reached; closing a new connection");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let builder = builder.clone();
        let watcher = graceful.watcher();
        let tls = tls.clone();
        tokio::spawn(async move {
            let _permit = permit;
            match tls {
                None => {
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
                    let _ = watcher.watch(conn.into_owned()).await;
                }
                Some(certs) => {
                    let acceptor = tokio_rustls::TlsAcceptor::from(certs.current());
                    let stream =
                        match tokio::time::timeout(limits.handshake_timeout, acceptor.accept(stream)).await {
                            Ok(Ok(s)) => s,
                            Ok(Err(e)) => return debug!(error = %e, "TLS handshake failed"),
                            Err(_) => return debug!("TLS handshake timed out"),
                        };
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
                    let _ = watcher.watch(conn.into_owned()).await;
                }
            }
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.drain, graceful.shutdown()).await;
}
