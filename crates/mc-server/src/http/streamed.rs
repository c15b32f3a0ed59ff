//! Lists without a limit, streamed: the store is read in pages of [`PAGE`] rows, one after
//! another, and each page is written to the socket as it comes, so the server holds about one
//! page whatever the size of the answer (a `limit=0` list of a million objects included).
//!
//! The answer is the JSON array a single page would be. Pages follow the store's keyset order,
//! so no row is sent twice; a row written behind the cursor while the answer streams is not in
//! it, as with any list that is already under way. A store error after the first page cuts the
//! answer off (the client sees truncated JSON and an aborted transfer, never a short list that
//! looks whole).
//!
//! A limited answer is one page, written whole with its continue token ([`page_response`]).

use std::future::ready;

use axum::body::{Body, Bytes};
use futures::{StreamExt, stream};

use axum::http::HeaderValue;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use mc_types::api::CONTINUE_HEADER;

use super::warnings::{add_warnings, answer_warnings};
use super::{AppState, params};
use crate::store::{Page, Query, RawObject};

/// Rows per page read from the store.
pub const PAGE: u32 = 1000;

/// Writes one item of the array: the object as stored, or wrapped with its cluster.
pub type WriteItem = fn(&mut Vec<u8>, &str, &RawObject);

/// The array of `items`, whole.
pub fn array(items: &[(String, RawObject)], write: WriteItem) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.iter().map(|(_, o)| o.text().len() + 64).sum::<usize>() + 2);
    out.push(b'[');
    append(&mut out, items, false, write);
    out.push(b']');
    out
}

/// Appends items, each after a comma when something came before.
fn append(out: &mut Vec<u8>, items: &[(String, RawObject)], mut any: bool, write: WriteItem) -> bool {
    for (cluster, object) in items {
        if any {
            out.push(b',');
        }
        write(out, cluster, object);
        any = true;
    }
    any
}

/// Every row `query` matches, starting with `first` (its first page, which has a next one), the
/// following pages read as the body is sent; the items between `head` (ending in `[`) and `tail`.
pub fn body(
    state: AppState,
    query: Query,
    first: Page,
    write: WriteItem,
    head: Vec<u8>,
    tail: &'static [u8],
) -> Body {
    body_of(pages(state, query, first), write, head, tail)
}

/// The rows of `pages` between `head` (ending in `[`) and `tail`, written as they are read.
pub fn body_of(pages: Pages, write: WriteItem, head: Vec<u8>, tail: &'static [u8]) -> Body {
    let mut any = false;
    let items = pages.map(move |page| match page {
        Ok(items) => {
            let mut chunk = Vec::new();
            any = append(&mut chunk, &items, any, write);
            Ok(Bytes::from(chunk))
        }
        Err(e) => Err(std::io::Error::other(e.message)),
    });
    let stream = stream::once(ready(Ok::<_, std::io::Error>(Bytes::from(head))))
        .chain(items)
        .chain(stream::once(ready(Ok(Bytes::from_static(tail)))));
    Body::from_stream(stream)
}

/// The pages of every row `query` matches, read one after another as the stream is polled:
/// `first` (already read), then the pages after it. A store error ends the stream with it.
pub fn pages(state: AppState, query: Query, first: Page) -> Pages {
    Box::pin(stream::unfold(Some((Ok(first), state, query)), |st| async move {
        let (page, state, query) = st?;
        let page: Page = match page {
            Ok(page) => page,
            Err(e) => return Some((Err(e), None)),
        };
        let next = match page.next {
            Some(cursor) => {
                let q = Query { limit: Some(PAGE), continue_after: Some(cursor), ..query.clone() };
                Some((super::query(&state, &q).await, state, query))
            }
            None => None,
        };
        Some((Ok(page.items), next))
    }))
}

/// The rows of every query in turn, a page at a time: each query's first page is read when the
/// stream comes to it.
pub fn pages_of_each(state: AppState, queries: Vec<Query>) -> Pages {
    Box::pin(stream::iter(queries).flat_map(move |query| {
        let state = state.clone();
        stream::once(async move {
            let first = super::query(&state, &Query { limit: Some(PAGE), ..query.clone() }).await;
            match first {
                Ok(first) => pages(state, query, first),
                Err(e) => Box::pin(stream::once(ready(Err(e)))) as Pages,
            }
        })
        .flatten()
    }))
}

/// The rows of a query, a page at a time ([`pages`]).
pub type Pages =
    std::pin::Pin<Box<dyn futures::Stream<Item = Result<Vec<(String, RawObject)>, super::ApiError>> + Send>>;

/// `Warning`s of an answer that starts with `first` (see [`super::warnings::answer_warnings`]): for
/// the clusters of its rows or — when more pages follow and the clusters of their rows are known
/// only at the end — for every cluster in the query's scope.
pub fn warnings(state: &AppState, query: &Query, first: &Page) -> Vec<String> {
    if first.next.is_none() {
        return super::warnings::answer_warnings(state, query, first.items.iter().map(|(c, _)| c.as_str()));
    }
    let scope: Vec<String> = match &query.cluster {
        Some(c) => vec![c.clone()],
        None => state.registry.all().iter().map(|c| c.name().to_owned()).collect(),
    };
    super::warnings::answer_warnings(state, query, scope.iter().map(String::as_str))
}

/// One page as a JSON array, with its continue token.
pub fn page_response(state: &AppState, query: &Query, page: Page, write: WriteItem) -> Response {
    let warnings = answer_warnings(state, query, page.items.iter().map(|(c, _)| c.as_str()));
    let mut resp = ([(CONTENT_TYPE, "application/json")], array(&page.items, write)).into_response();
    let token = page.next.and_then(|c| HeaderValue::from_str(&params::continue_token(query, &c)).ok());
    if let Some(token) = token {
        resp.headers_mut().insert(CONTINUE_HEADER, token);
    }
    add_warnings(&mut resp, warnings);
    resp
}
