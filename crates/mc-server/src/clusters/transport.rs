//! The HTTP transport to API servers. kube's own client speaks HTTP/1.1 only, so every watch
//! holds a TLS connection of its own: ~59 per cluster, 59,000 for a thousand clusters. This one
//! offers HTTP/2 through ALPN, as client-go does, and the watches of a cluster share one
//! connection (an API server that answers HTTP/1.1 only gets one connection per request, as
//! before). Auth, base URI and extra headers are kube's own layers.

use std::time::Duration;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use kube::client::ConfigExt;
use kube::{Client, Config};
use tower::{BoxError, ServiceBuilder};

/// The most watches one connection carries. kube-apiserver allows 100 concurrent streams per
/// connection unless `--http2-max-streams-per-connection` says otherwise (k8s.io/apiserver
/// `secure_serving.go`), and a request beyond that waits for a free stream: half of them leaves
/// room for probes, discovery and dispatch on the first connection.
pub const WATCHES_PER_CONNECTION: usize = 50;

/// How often an idle HTTP/2 connection is pinged, and how long the answer may take: a peer that
/// went away is noticed within both, even while every watch on it is quiet.
const PING_EVERY: Duration = Duration::from_secs(30);
const PING_TIMEOUT: Duration = Duration::from_secs(10);

/// Which HTTP versions a client offers the API server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocols {
    /// HTTP/2 when the API server offers it, else HTTP/1.1: for syncing (watches share a
    /// connection).
    Http2Offered,
    /// HTTP/1.1 only: for a probe of a few requests. kube-apiserver answers a failed
    /// authentication with `Connection: close`, which on HTTP/2 becomes a GOAWAY sent ahead of
    /// the 401 and a close that can cut the 401 off (k8s.io/apiserver `filters/authentication.go`):
    /// the caller then sees a closed connection instead of "401". On HTTP/1.1 the 401 comes
    /// whole, then the close.
    Http1Only,
}

/// A client for `config` speaking `protocols`. A kubeconfig with a proxy keeps kube's own
/// transport (it tunnels through the proxy, over HTTP/1.1).
pub fn client(config: Config, protocols: Protocols) -> kube::Result<Client> {
    if config.proxy_url.is_some() {
        return Client::try_from(config);
    }
    // ALPN (h2, http/1.1) is set by the connector from the protocols enabled below.
    let tls = config.rustls_client_config()?;
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_connect_timeout(config.connect_timeout);
    let builder = hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http();
    let builder = match config.tls_server_name.as_ref() {
        Some(name) => {
            let name = rustls::pki_types::ServerName::try_from(name.clone())
                .map_err(|e| kube::Error::Service(Box::new(e)))?;
            builder.with_server_name_resolver(hyper_rustls::FixedServerNameResolver::new(name))
        }
        None => builder,
    };
    let https = match protocols {
        Protocols::Http2Offered => builder.enable_http1().enable_http2().wrap_connector(http),
        Protocols::Http1Only => builder.enable_http1().wrap_connector(http),
    };
    let transport: hyper_util::client::legacy::Client<_, kube::client::Body> =
        hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .timer(TokioTimer::new())
            .pool_timer(TokioTimer::new())
            .http2_keep_alive_interval(PING_EVERY)
            .http2_keep_alive_timeout(PING_TIMEOUT)
            .http2_keep_alive_while_idle(true)
            .build(https);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .service(transport);
    Ok(Client::new(service, config.default_namespace.clone()))
}
