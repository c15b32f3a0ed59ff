//! Accepting connections: plain HTTP or HTTPS only (never both on one port), caps on open
//! connections (in all and per client address, see [`table`]), deadlines for the TLS handshake,
//! for the first request and for idle connections, and graceful shutdown. A verified client
//! certificate's identity goes with every request of its connection.

mod table;
mod tracked;

#[cfg(test)]
mod tests;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tracing::{debug, warn};

pub use table::Caps;
use table::{Connection, Table};

use crate::identity::PeerIdentity;
use crate::tls::Certificates;

/// Bounds on what clients can hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once, in all and per client address. At a cap, the oldest connection
    /// without a request in flight is closed to make room; a new connection is closed at once
    /// only when every other one is busy.
    pub caps: Caps,
    /// Time a connection has to send its first complete request head, from accept (or from
    /// the end of its TLS handshake). Covers HTTP/1 and HTTP/2 alike.
    pub first_request_timeout: Duration,
    /// Time a client has to finish the TLS handshake.
    pub handshake_timeout: Duration,
    /// How long a connection that has served requests stays open with none in flight.
    pub idle_timeout: Duration,
    /// How long shutdown waits for open requests (watch streams never end by themselves).
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            caps: Caps { total: 1024, per_address: 512 },
            first_request_timeout: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(10),
            // As kube-apiserver's own server (`IdleTimeout`).
            idle_timeout: Duration::from_secs(90),
            drain: Duration::from_secs(5),
        }
    }
}

/// Most headers one request may carry before hyper refuses it without a body; the router
/// refuses far fewer with a JSON error, so hyper's own refusal is only for the absurd.
const HYPER_MAX_HEADERS: usize = 1024;

/// Serves `app` on `listener` until `shutdown` resolves; with `tls`, every connection must
/// complete a TLS handshake first (a plain HTTP request is dropped).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    tls: Option<Arc<Certificates>>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let table = Table::new(limits.caps);
    let graceful = GracefulShutdown::new();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.first_request_timeout)
        .max_headers(HYPER_MAX_HEADERS);
    // Pings find HTTP/2 peers that went away; silent live peers are closed by the deadlines.
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(256)
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(10));
    let builder = Arc::new(builder);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Ok(slot) = table.admit(peer.ip()) else {
            debug!(peer = %peer.ip(), "every connection slot is busy; closing a new connection");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let builder = builder.clone();
        let watcher = graceful.watcher();
        let tls = tls.clone();
        let app = app.clone();
        tokio::spawn(async move {
            let connection = slot.connection().clone();
            let serving = async {
                match tls {
                    None => serve_io(&builder, stream, app, None, &connection, watcher).await,
                    Some(certs) => {
                        let acceptor = tokio_rustls::TlsAcceptor::from(certs.current());
                        let handshake =
                            tokio::time::timeout(limits.handshake_timeout, acceptor.accept(stream));
                        let stream = match handshake.await {
                            Ok(Ok(s)) => s,
                            Ok(Err(e)) => return debug!(error = %e, "TLS handshake failed"),
                            Err(_) => return debug!("TLS handshake timed out"),
                        };
                        connection.restart_clock();
                        let peer = peer_identity(stream.get_ref().1);
                        serve_io(&builder, stream, app, peer, &connection, watcher).await
                    }
                }
            };
            tokio::select! {
                () = serving => {}
                () = idle_out(&connection, &limits) => {}
            }
            drop(slot);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.drain, graceful.shutdown()).await;
}

/// The identity of the client certificate rustls verified in the handshake, if any. A
/// certificate that names no user leaves the connection without one: a bearer token may still
/// identify its requests.
fn peer_identity(tls: &rustls::ServerConnection) -> Option<PeerIdentity> {
    let leaf = tls.peer_certificates()?.first()?;
    PeerIdentity::from_der(leaf)
        .inspect_err(|e| debug!(error = %e, "a client certificate without an identity"))
        .ok()
}

/// Serves HTTP/1 or HTTP/2 on an accepted (and, for HTTPS, decrypted) stream.
async fn serve_io<S>(
    builder: &auto::Builder<TokioExecutor>,
    stream: S,
    app: Router,
    peer: Option<PeerIdentity>,
    connection: &Arc<Connection>,
    watcher: Watcher,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = TowerToHyperService::new(tracked::Tracked::new(app, peer, connection.clone()));
    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    let _ = watcher.watch(conn.into_owned()).await;
}

/// Resolves when the connection is to close: it sent no request in time, it stayed idle too
/// long after its last answer, or its slot was taken for a new connection. Nothing is in
/// flight then, so closing loses no answer.
async fn idle_out(connection: &Connection, limits: &Limits) {
    loop {
        let wake = match connection.deadline(limits.first_request_timeout, limits.idle_timeout) {
            Some(deadline) if deadline <= std::time::Instant::now() => return,
            Some(deadline) => tokio::time::Instant::from_std(deadline),
            // Busy: the deadline can only be later than this once it is idle again.
            None => tokio::time::Instant::now() + limits.idle_timeout.min(limits.first_request_timeout),
        };
        tokio::select! {
            () = tokio::time::sleep_until(wake) => {}
            () = connection.evicted() => return debug!("closing an idle connection to make room"),
        }
    }
}
