//! The `Warning` headers of an answer: clusters whose rows may be stale or missing.

use axum::http::HeaderValue;
use axum::response::Response;

use super::AppState;
use crate::store::Query as StoreQuery;

/// The `Warning`s of an answer to `query` that holds objects of `clusters`: one per
/// such cluster that is not `Synced`, and one per cluster in the query's scope that cannot list
/// the query's type (its objects may be missing, so it warns whether or not it has rows here).
pub fn answer_warnings<'a>(
    state: &AppState,
    query: &StoreQuery,
    clusters: impl Iterator<Item = &'a str>,
) -> Vec<String> {
    let present: std::collections::BTreeSet<&str> = clusters.collect();
    let behind = state.sync.health.failing_since();
    let mut warnings = Vec::new();
    for c in state.registry.all() {
        if present.contains(c.name()) {
            warnings.extend(c.info(behind).staleness_warning());
        }
        if let Some(gvr) = &query.gvr
            && query.cluster.as_deref().is_none_or(|q| q == c.name())
        {
            warnings.extend(c.type_warning(gvr));
        }
    }
    warnings
}

/// Adds `Warning: 299 - "…"` headers, as Kubernetes does for its own warnings.
pub fn add_warnings(resp: &mut Response, warnings: Vec<String>) {
    for w in warnings {
        let text = format!("299 - \"{}\"", w.replace(['"', '\\'], "'"));
        if let Ok(v) = HeaderValue::from_str(&text) {
            resp.headers_mut().append(axum::http::header::WARNING, v);
        }
    }
}
