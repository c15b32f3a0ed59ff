//! Requests counted in flight from their head to the end of their answer, so the connection
//! table knows which connections are idle (see [`super::table`]), each carrying its connection's
//! client certificate identity.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Request, Response};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use tower::Service;

use super::table::{Connection, InFlight};
use crate::identity::PeerIdentity;

/// The app, counting each request of one connection while it is answered.
#[derive(Clone)]
pub(crate) struct Tracked {
    app: Router,
    peer: Option<PeerIdentity>,
    connection: Arc<Connection>,
}

impl Tracked {
    pub(crate) fn new(app: Router, peer: Option<PeerIdentity>, connection: Arc<Connection>) -> Self {
        Tracked { app, peer, connection }
    }
}

impl Service<Request<Incoming>> for Tracked {
    type Response = Response<Guarded>;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut req: Request<Incoming>) -> Self::Future {
        let guard = self.connection.begin();
        if let Some(peer) = &self.peer {
            req.extensions_mut().insert(peer.clone());
        }
        let answer = self.app.call(req);
        Box::pin(async move {
            let resp = answer.await?;
            Ok(resp.map(|body| Guarded { body, _guard: guard }))
        })
    }
}

/// An answer's body that keeps its request in flight until it is sent or dropped.
pub(crate) struct Guarded {
    body: Body,
    _guard: InFlight,
}

impl http_body::Body for Guarded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
