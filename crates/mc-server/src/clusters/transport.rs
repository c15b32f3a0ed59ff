//! The HTTP transport to API servers. kube's own client speaks HTTP/1.1 only, so every watch
//! holds a TLS connection of its own: one per watched type, tens per cluster, tens of thousands
//! for a thousand clusters (see docs/adr/0015-http2-to-api-servers.md). This one offers HTTP/2
//! through ALPN, as client-go does, and the watches of a cluster share one connection (an API
//! server that answers HTTP/1.1 only gets one connection per request, as before). Auth, base URI
//! and extra headers are kube's own layers.

use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use futures::future::BoxFuture;
use hyper::body::{Body, Buf, Frame, SizeHint};
use hyper::{Request, Response};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::{GaiResolver, Name};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use kube::client::{ClientBuilder, ConfigExt};
use kube::{Client, Config};
use tower::{BoxError, Layer, Service, ServiceBuilder};

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

/// Which addresses a client may connect to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Addresses {
    /// Any address: a cluster of the server's own config file (the operator wrote it), or a
    /// joined one where `server.allowLinkLocalJoins` allows link-local addresses.
    #[default]
    Any,
    /// No link-local address ([`is_link_local`]), whatever the host name resolves to: an
    /// uploaded kubeconfig must not turn mc-server into a client of the cloud's metadata service
    /// (169.254.169.254).
    NoLinkLocal,
}

/// Whether an address is link-local: 169.254.0.0/16 or fe80::/10, also written as an
/// IPv4-mapped IPv6 address (`::ffff:169.254.169.254`).
pub fn is_link_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => {
            v6.is_unicast_link_local() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_link_local())
        }
    }
}

/// A client for `config` speaking `protocols`, connecting to `addresses` only. A kubeconfig
/// with a proxy keeps kube's own transport (it tunnels through the proxy, over HTTP/1.1); only
/// the server's own config file may name one (uploads refuse `proxy-url`), and its discovery
/// answers are bounded all the same.
pub fn client(config: Config, protocols: Protocols, addresses: Addresses) -> kube::Result<Client> {
    if config.proxy_url.is_some() {
        if addresses != Addresses::Any {
            // The proxy resolves the name: the addresses could not be checked.
            return Err(kube::Error::Service("a proxy-url is not accepted for this cluster".into()));
        }
        return Ok(ClientBuilder::try_from(config)?.with_layer(&LimitDiscoveryLayer).build());
    }
    // ALPN (h2, http/1.1) is set by the connector from the protocols enabled below.
    let tls = config.rustls_client_config()?;
    let mut http = HttpConnector::new_with_resolver(Resolver { gai: GaiResolver::new(), addresses });
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
        // Outermost: it sees the request's path as kube wrote it, before the base URI (a
        // kubeconfig server may carry a path of its own) is put in front.
        .layer(LimitDiscoveryLayer)
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .service(transport);
    Ok(Client::new(service, config.default_namespace.clone()))
}

/// The most a `/version` answer may hold. kube-apiserver's is ~300 bytes; the bound leaves room
/// for servers that add fields, and keeps a hostile server from filling mc-server's memory
/// during a join.
pub const MAX_VERSION_ANSWER: usize = 64 * 1024;

/// The most a discovery answer (`/api`, `/apis` and their groups and versions, `/openapi`) may
/// hold. Aggregated discovery lists every resource of every group in one answer, under 1 KiB
/// each: a few MiB for a cluster with thousands of CRDs. The bound must stay above the largest
/// real cluster's answer (a cluster beyond it cannot be joined nor synced) and is what a hostile
/// server can make mc-server hold per request.
pub const MAX_DISCOVERY_ANSWER: usize = 32 * 1024 * 1024;

/// How much an answer may carry, and which answer it is (for the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bound {
    limit: usize,
    what: &'static str,
}

/// The bound of the answer to a request for `path`, `None` for an unbounded one: lists and
/// watches are streamed and read as they arrive, never held whole.
fn answer_limit(path: &str) -> Option<Bound> {
    let mut segments = path.trim_matches('/').split('/');
    let first = segments.next().unwrap_or_default();
    match (first, segments.count()) {
        ("version", 0) => Some(Bound { limit: MAX_VERSION_ANSWER, what: "/version" }),
        // /api, /api/{v}, /apis, /apis/{g}, /apis/{g}/{v}: a resource's list has more segments.
        ("api", 0..=1) | ("apis", 0..=2) | ("openapi", _) => {
            Some(Bound { limit: MAX_DISCOVERY_ANSWER, what: "a discovery answer" })
        }
        _ => None,
    }
}

/// An answer that grew past its bound ([`MAX_VERSION_ANSWER`], [`MAX_DISCOVERY_ANSWER`]). Not
/// retryable: the server answers the same way again.
#[derive(Debug, thiserror::Error)]
#[error("answer too large: {what} is limited to {}", in_units(*.limit))]
pub struct TooLarge {
    /// The bound, in bytes.
    pub limit: usize,
    /// Which answer.
    pub what: &'static str,
}

/// A size in MiB, or in KiB below one MiB.
fn in_units(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB { format!("{} MiB", bytes / MIB) } else { format!("{} KiB", bytes / 1024) }
}

/// Bounds the answers to discovery-shaped requests (see [`answer_limit`]): one bounded body
/// reader for every answer read whole, during a join's probe and every discovery.
#[derive(Clone, Copy, Debug, Default)]
pub struct LimitDiscoveryLayer;

impl<S> Layer<S> for LimitDiscoveryLayer {
    type Service = LimitDiscovery<S>;

    fn layer(&self, inner: S) -> Self::Service {
        LimitDiscovery { inner }
    }
}

/// The service of [`LimitDiscoveryLayer`].
#[derive(Clone, Debug)]
pub struct LimitDiscovery<S> {
    inner: S,
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for LimitDiscovery<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    S::Future: Send + 'static,
{
    type Response = Response<Bounded<ResBody>>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let bound = answer_limit(request.uri().path());
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|inner| Bounded { inner, bound, read: 0 }))
        })
    }
}

/// A response body that fails with [`TooLarge`] once it carried more than its bound, or that is
/// read as it is when it has none.
#[derive(Debug)]
pub struct Bounded<B> {
    inner: B,
    bound: Option<Bound>,
    /// Bytes carried so far.
    read: usize,
}

impl<B> Bounded<B> {
    /// How many more bytes it may carry; `None` without a bound.
    fn left(&self) -> Option<usize> {
        self.bound.map(|b| b.limit.saturating_sub(self.read))
    }

    fn too_large(&self) -> BoxError {
        let Bound { limit, what } = self.bound.unwrap_or(Bound { limit: 0, what: "an answer" });
        Box::new(TooLarge { limit, what })
    }
}

impl<B> Body for Bounded<B>
where
    B: Body + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = B::Data;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, BoxError>>> {
        let this = &mut *self;
        // An answer announced larger than the bound is refused before a byte of it is read.
        if this.left().is_some_and(|left| this.inner.size_hint().lower() > left as u64) {
            return Poll::Ready(Some(Err(this.too_large())));
        }
        let frame = match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => return Poll::Ready(Some(Err(e.into()))),
            None => return Poll::Ready(None),
        };
        if let Some(data) = frame.data_ref() {
            if this.left().is_some_and(|left| data.remaining() > left) {
                return Poll::Ready(Some(Err(this.too_large())));
            }
            this.read = this.read.saturating_add(data.remaining());
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Connected to a link-local address that [`Addresses::NoLinkLocal`] refuses (not retryable:
/// the kubeconfig must change, or the server's config allow it).
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves to {address}, a link-local address")]
pub struct LinkLocal {
    /// The name looked up.
    pub host: String,
    /// The link-local address among its answers.
    pub address: IpAddr,
}

/// Name resolution (the system's, as hyper's own) that refuses a name with a link-local address
/// among its answers where the client's [`Addresses`] say so. A URL's literal IP address never
/// reaches a resolver: uploads check those (`super::uploaded`).
#[derive(Clone, Debug)]
struct Resolver {
    gai: GaiResolver,
    addresses: Addresses,
}

impl Service<Name> for Resolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Self::Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.gai.poll_ready(cx).map_err(BoxError::from)
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let lookup = self.gai.call(name.clone());
        let addresses = self.addresses;
        Box::pin(async move {
            let found: Vec<SocketAddr> = lookup.await?.collect();
            if addresses == Addresses::NoLinkLocal
                && let Some(address) = found.iter().map(SocketAddr::ip).find(|ip| is_link_local(*ip))
            {
                return Err(Box::new(LinkLocal { host: name.as_str().to_string(), address }) as BoxError);
            }
            Ok(found.into_iter())
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn only_discovery_shaped_paths_are_bounded() {
        let bounded = [
            "/version",
            "/version/",
            "/api",
            "/api/v1",
            "/apis",
            "/apis/apps",
            "/apis/apps/v1",
            "/openapi/v3",
        ];
        for path in bounded {
            assert!(answer_limit(path).is_some(), "{path}");
        }
        let streamed = [
            "/api/v1/pods",
            "/api/v1/namespaces/ns/configmaps",
            "/apis/apps/v1/deployments",
            "/apis/apps/v1/namespaces/ns/deployments",
            "/versions",
            "/",
        ];
        for path in streamed {
            assert!(answer_limit(path).is_none(), "{path}");
        }
        assert_eq!(answer_limit("/version").unwrap().limit, MAX_VERSION_ANSWER);
        let discovery = TooLarge { limit: MAX_DISCOVERY_ANSWER, what: "a discovery answer" };
        assert_eq!(discovery.to_string(), "answer too large: a discovery answer is limited to 32 MiB");
        assert_eq!(answer_limit("/apis").unwrap().limit, MAX_DISCOVERY_ANSWER);
    }

    /// A fake API server's answer: frames of bytes, its length announced or not.
    struct Chunks {
        frames: std::collections::VecDeque<hyper::body::Bytes>,
        announced: Option<u64>,
    }

    impl Body for Chunks {
        type Data = hyper::body::Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
            Poll::Ready(self.frames.pop_front().map(|b| Ok(Frame::data(b))))
        }

        fn size_hint(&self) -> SizeHint {
            self.announced.map_or_else(SizeHint::default, SizeHint::with_exact)
        }
    }

    /// `chunks` frames of `size` bytes each, the length not announced (chunked encoding).
    fn chunked(chunks: usize, size: usize) -> Chunks {
        let frame = hyper::body::Bytes::from(vec![b'x'; size]);
        Chunks { frames: std::iter::repeat_n(frame, chunks).collect(), announced: None }
    }

    /// Reads a body to its end: how many bytes it carried, or its error.
    async fn read<B: Body<Data = hyper::body::Bytes> + Unpin>(mut body: B) -> Result<usize, B::Error> {
        let mut read = 0;
        while let Some(frame) = futures::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            read += frame?.into_data().map_or(0, |d| d.len());
        }
        Ok(read)
    }

    /// `LimitDiscovery` in front of a fake API server answering each path with `answer(path)`.
    fn limited(
        answer: fn(&str) -> Chunks,
    ) -> impl Service<
        Request<kube::client::Body>,
        Response = Response<Bounded<Chunks>>,
        Error = BoxError,
        Future: Send + 'static,
    > + Send
    + 'static {
        LimitDiscoveryLayer.layer(tower::service_fn(move |request: Request<kube::client::Body>| async move {
            Ok::<_, BoxError>(Response::new(answer(request.uri().path())))
        }))
    }

    async fn get<S>(service: &mut S, path: &str) -> Result<usize, BoxError>
    where
        S: Service<Request<kube::client::Body>, Response = Response<Bounded<Chunks>>, Error = BoxError>,
    {
        let request = Request::get(path).body(kube::client::Body::empty()).unwrap();
        read(service.call(request).await?.into_body()).await
    }

    #[tokio::test]
    async fn a_version_answer_past_its_bound_fails_as_too_large_in_kubes_client() {
        let service = limited(|_| chunked(MAX_VERSION_ANSWER / 1024 + 1, 1024));
        let client = Client::new(service, "default");
        let error = client.apiserver_version().await.unwrap_err();
        let kube::Error::Service(cause) = &error else { panic!("{error:?}") };
        let too_large = cause.downcast_ref::<TooLarge>().unwrap();
        assert_eq!((too_large.limit, too_large.what), (MAX_VERSION_ANSWER, "/version"));
        assert!(error.to_string().contains("answer too large"), "{error}");
    }

    #[tokio::test]
    async fn an_answer_announced_too_large_is_refused_before_it_is_read() {
        let mut service = limited(|_| {
            let mut answer = chunked(1, 16);
            answer.announced = Some(MAX_DISCOVERY_ANSWER as u64 + 1);
            answer
        });
        let error = get(&mut service, "/apis").await.unwrap_err();
        assert!(error.downcast_ref::<TooLarge>().is_some(), "{error}");
    }

    #[tokio::test]
    async fn answers_within_their_bound_and_lists_of_any_size_are_read_whole() {
        let mut service = limited(|path| match path {
            "/version" => chunked(MAX_VERSION_ANSWER / 1024, 1024),
            _ => chunked(MAX_DISCOVERY_ANSWER / (1024 * 1024) + 1, 1024 * 1024),
        });
        assert_eq!(get(&mut service, "/version").await.unwrap(), MAX_VERSION_ANSWER, "exactly the bound");
        let list = get(&mut service, "/api/v1/configmaps").await.unwrap();
        assert_eq!(list, MAX_DISCOVERY_ANSWER + 1024 * 1024, "lists are not bounded");
        let discovery = get(&mut service, "/apis/apps/v1").await.unwrap_err();
        assert!(discovery.downcast_ref::<TooLarge>().is_some(), "{discovery}");
    }

    #[test]
    fn link_local_addresses_are_known_in_every_spelling() {
        for ip in ["169.254.169.254", "169.254.0.1", "fe80::1", "febf::1", "::ffff:169.254.169.254"] {
            assert!(is_link_local(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["127.0.0.1", "10.0.0.1", "169.255.0.1", "::1", "fd00:ec2::254", "fec0::1"] {
            assert!(!is_link_local(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn names_that_resolve_to_link_local_addresses_are_refused_unless_allowed() {
        use std::str::FromStr;
        // The number form of 169.254.169.254: the system resolver reads it, no DNS is asked.
        let name = Name::from_str("2852039166").unwrap();
        let mut refusing = Resolver { gai: GaiResolver::new(), addresses: Addresses::NoLinkLocal };
        let error = refusing.call(name.clone()).await.unwrap_err();
        let link_local = error.downcast_ref::<LinkLocal>().unwrap();
        assert_eq!(link_local.address, "169.254.169.254".parse::<IpAddr>().unwrap());
        let mut allowing = Resolver { gai: GaiResolver::new(), addresses: Addresses::Any };
        let found: Vec<SocketAddr> = allowing.call(name).await.unwrap().collect();
        assert_eq!(found[0].ip(), "169.254.169.254".parse::<IpAddr>().unwrap());
        let local: Vec<SocketAddr> =
            refusing.call(Name::from_str("localhost").unwrap()).await.unwrap().collect();
        assert!(!local.is_empty(), "other names resolve as before");
    }
}
