//! The original Go server, which users may still run during a migration. It has only
//! `/v1/list`, `/v1/list_with_cluster`, `/v1/join` and `/v1/unjoin`; it takes resource types only
//! as `group/version/resource` (anything else: 400 `not found gvr`); it knows no label or field
//! selectors, no `continue` tokens and no watch, and checks no token.
//!
//! The plugin notices it by the 404 of `/v1/resources` (or `/v1/clusters`), which it asks for
//! anyway, so our own server pays no extra round trip. Then it speaks the original's dialect:
//! the type resolved here ([`crate::resolve`]), the selectors applied here.

use std::collections::BTreeMap;

use kube::Resource;
use mc_types::ResourceInfo;
use mc_types::crd::MultiCluster;
use mc_types::selector::{FieldSelector, LabelSelector, SelectorError};
use serde_json::Value;

use crate::client::{self, Client, ListPage, ListQuery, RawListItem};
use crate::resolve::{self, Resolver};

/// Namespace of the original's MultiCluster objects (its CLI asks for no other).
pub const MULTICLUSTER_NAMESPACE: &str = "default";

/// Why a listing through the original server failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The typed resource type could not be resolved here; see [`resolve::Error`].
    #[error(transparent)]
    Resolve(#[from] resolve::Error),
    /// `-l` or `--field-selector` does not parse (not retryable: fix the selector).
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// The request failed; see [`client::Error`].
    #[error(transparent)]
    Client(#[from] client::Error),
    /// An object in the answer is not JSON (a different server on that port?).
    #[error("unexpected object from mc-server: {0}")]
    Object(#[source] serde_json::Error),
}

/// Result of a listing through the original server.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `list clusters` as the original CLI asks for it: every MultiCluster object in `default`.
pub fn multiclusters_query() -> ListQuery {
    let gvr = format!("{}/{}", MultiCluster::api_version(&()), MultiCluster::plural(&()));
    ListQuery { namespace: Some(MULTICLUSTER_NAMESPACE.to_owned()), ..ListQuery::all(gvr) }
}

/// A listing as the original server takes it, and what is done here because it cannot.
#[derive(Debug)]
pub struct OriginalQuery {
    /// What is sent: the type as `group/version/resource`, no selectors.
    pub query: ListQuery,
    /// The type's discovery data, when resolved here (for the table).
    pub info: Option<ResourceInfo>,
    labels: Option<LabelSelector>,
    fields: Option<FieldSelector>,
    /// At most this many objects, counted after the selectors.
    limit: Option<usize>,
}

impl OriginalQuery {
    /// The original's version of `query`: the type resolved here, the selectors parsed.
    ///
    /// The original would ignore `-l` and `--field-selector` and answer with every object, so
    /// they are applied here, to every object of the type (and `--limit` after them), rather
    /// than refused: the answer is the one our server gives, at the cost of a larger transfer,
    /// and a migration keeps the command lines users have.
    pub async fn new(query: &ListQuery, resolver: Resolver) -> Result<Self> {
        let resolved = resolver.resolve(&query.gvr).await?;
        let labels = query.label_selector.as_deref().map(LabelSelector::parse).transpose()?;
        let fields = query.field_selector.as_deref().map(FieldSelector::parse).transpose()?;
        let filters = labels.is_some() || fields.is_some();
        let sent = ListQuery {
            gvr: resolved.gvr.to_string(),
            label_selector: None,
            field_selector: None,
            // With selectors here, the server's limit would cut before them.
            limit: if filters { None } else { query.limit },
            ..query.clone()
        };
        let limit = query.limit.filter(|&n| n > 0).and_then(|n| usize::try_from(n).ok());
        Ok(OriginalQuery { query: sent, info: resolved.info, labels, fields, limit })
    }

    /// Whether the first request, sent before the server was known, already was this one, so its
    /// answer (or error) stands.
    pub fn is_same_request(&self, first: &ListQuery) -> bool {
        self.query == *first
    }

    /// Whether an object passes the selectors applied here.
    pub fn selects(&self, object: &Value) -> bool {
        let labels_match = self.labels.as_ref().is_none_or(|selector| {
            let labels: BTreeMap<String, String> = object
                .pointer("/metadata/labels")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                .collect();
            selector.matches(&labels)
        });
        labels_match && self.fields.as_ref().is_none_or(|selector| selector.matches(object))
    }

    /// The items of the answer that pass the selectors, at most `--limit` of them.
    pub fn select<'a>(&self, items: Vec<RawListItem<'a>>) -> Result<Vec<RawListItem<'a>>> {
        let mut kept = Vec::with_capacity(items.len());
        for item in items {
            if self.limit.is_some_and(|n| kept.len() >= n) {
                break;
            }
            if self.labels.is_none() && self.fields.is_none() {
                kept.push(item);
                continue;
            }
            let object: Value = serde_json::from_str(item.object.get()).map_err(Error::Object)?;
            if self.selects(&object) {
                kept.push(item);
            }
        }
        Ok(kept)
    }
}

/// The answer to a listing from whichever server answered: ours, or the original (asked again in
/// its dialect).
#[derive(Debug)]
pub struct Listing {
    /// The pages as the server sent them.
    pub pages: Vec<ListPage>,
    /// The server's discovery data (ours), or the type resolved here (the original).
    pub resources: Option<Vec<ResourceInfo>>,
    /// How the original was asked, when it was.
    pub original: Option<OriginalQuery>,
}

impl Listing {
    /// Settles a listing from the first request (`first`, sent as to our server) and what
    /// `/v1/resources` said: ours answers it and `first` stands; the original has none (404)
    /// and is asked again in its dialect, unless `first` already was that.
    pub async fn settle(
        client: &Client,
        query: &ListQuery,
        first: client::Result<Vec<ListPage>>,
        resources: client::Result<Option<Vec<ResourceInfo>>>,
        resolver: Resolver,
    ) -> Result<Self> {
        match resources {
            Ok(None) => {
                let original = OriginalQuery::new(query, resolver).await?;
                // The original sends no `continue` header, so `list_pages` asks once.
                let pages = if original.is_same_request(query) {
                    first?
                } else {
                    client.list_pages(&original.query).await?
                };
                let resources = original.info.clone().map(|info| vec![info]);
                Ok(Listing { pages, resources, original: Some(original) })
            }
            resources => Ok(Listing { pages: first?, resources: resources.ok().flatten(), original: None }),
        }
    }

    /// Adds the same listing in more clusters, one request each in the order given, because the
    /// server takes one `cluster=` per request.
    pub async fn add_clusters(
        &mut self,
        client: &Client,
        query: &ListQuery,
        clusters: &[String],
    ) -> Result<()> {
        let sent = self.original.as_ref().map_or(query, |o| &o.query);
        let queries: Vec<ListQuery> =
            clusters.iter().map(|c| ListQuery { cluster: Some(c.clone()), ..sent.clone() }).collect();
        let answers = futures::future::try_join_all(queries.iter().map(|q| client.list_pages(q))).await?;
        self.pages.extend(answers.into_iter().flatten());
        Ok(())
    }

    /// Every item of every page (those the selectors pass, for the original).
    pub fn items(&self) -> Result<Vec<RawListItem<'_>>> {
        let mut raw = Vec::new();
        for page in &self.pages {
            raw.extend(page.parse::<RawListItem<'_>>()?);
        }
        match &self.original {
            Some(original) => original.select(raw),
            None => Ok(raw),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn original(query: ListQuery) -> OriginalQuery {
        let resolver = Resolver::new(Err(crate::config::Error::NoHome));
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(OriginalQuery::new(&query, resolver)).unwrap()
    }

    #[test]
    fn the_original_gets_the_slash_form_and_no_selectors() {
        let query = ListQuery {
            namespace: Some("shop".into()),
            label_selector: Some("app=web".into()),
            field_selector: Some("status.phase=Running".into()),
            limit: Some(2),
            ..ListQuery::all("deploy")
        };
        let sent = original(query.clone()).query;
        assert_eq!(
            sent,
            ListQuery {
                namespace: Some("shop".into()),
                limit: None,
                ..ListQuery::all("apps/v1/deployments")
            }
        );
        let plain = ListQuery { limit: Some(2), ..ListQuery::all("core/v1/pods") };
        assert_eq!(original(plain).query, ListQuery { limit: Some(2), ..ListQuery::all("v1/pods") });
    }

    #[test]
    fn selectors_are_applied_here() {
        let o = original(ListQuery {
            label_selector: Some("app in (web,api),!canary".into()),
            field_selector: Some("status.phase!=Pending".into()),
            ..ListQuery::all("pods")
        });
        let pod =
            |labels: Value, phase: &str| json!({"metadata": {"labels": labels}, "status": {"phase": phase}});
        assert!(o.selects(&pod(json!({"app": "web"}), "Running")));
        assert!(!o.selects(&pod(json!({"app": "web", "canary": "1"}), "Running")));
        assert!(!o.selects(&pod(json!({"app": "db"}), "Running")));
        assert!(!o.selects(&pod(json!({"app": "api"}), "Pending")));
        assert!(!o.selects(&json!({"metadata": {}})));
    }

    #[test]
    fn the_first_request_stands_when_it_already_was_the_originals() {
        let first = ListQuery { limit: Some(3), ..ListQuery::all("v1/pods") };
        assert!(original(first.clone()).is_same_request(&first));
        let named = ListQuery::all("pods");
        assert!(!original(named.clone()).is_same_request(&named));
        let selected = ListQuery { label_selector: Some("a=b".into()), ..ListQuery::all("v1/pods") };
        assert!(!original(selected.clone()).is_same_request(&selected));
    }

    #[test]
    fn multiclusters_are_asked_for_as_the_original_cli_does() {
        let q = multiclusters_query();
        assert_eq!(q.gvr, "mulitcluster.practice.com/v1alpha1/multiclusters");
        assert_eq!(q.namespace.as_deref(), Some("default"));
        assert_eq!(q.limit, None);
    }
}
