//! A listing as the Go project's server takes it: the type resolved here, no selectors sent, and
//! the selectors (and `--limit` after them) applied here to what it answers.

use std::collections::BTreeMap;

use mc_types::ResourceInfo;
use mc_types::selector::{FieldSelector, LabelSelector};
use serde_json::Value;

use super::resolve::Resolver;
use super::{Error, Result};
use crate::client::{ListQuery, RawListItem};

/// A listing as the Go project's server takes it, and what is done here because it cannot.
#[derive(Debug)]
pub struct Query {
    /// What is sent: the type as `group/version/resource`, no selectors.
    pub query: ListQuery,
    /// The type's discovery data, when resolved here (for the table).
    pub info: Option<ResourceInfo>,
    labels: Option<LabelSelector>,
    fields: Option<FieldSelector>,
    /// At most this many objects, counted after the selectors.
    limit: Option<usize>,
}

impl Query {
    /// The Go project's version of `query`: the type resolved here, the selectors parsed.
    ///
    /// The Go project's server would ignore `-l` and `--field-selector` and answer with every
    /// object, so they are applied here, to every object of the type (and `--limit` after
    /// them), rather than refused: the answer is the one our server gives, at the cost of a
    /// larger transfer, and a migration keeps the command lines users have.
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
        Ok(Query { query: sent, info: resolved.info, labels, fields, limit })
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn go_query(query: ListQuery) -> Query {
        let resolver = Resolver::new(Err(crate::config::Error::NoHome));
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(Query::new(&query, resolver)).unwrap()
    }

    #[test]
    fn the_go_projects_server_gets_the_slash_form_and_no_selectors() {
        let query = ListQuery {
            namespace: Some("shop".into()),
            label_selector: Some("app=web".into()),
            field_selector: Some("status.phase=Running".into()),
            limit: Some(2),
            ..ListQuery::all("deploy")
        };
        let sent = go_query(query.clone()).query;
        assert_eq!(
            sent,
            ListQuery {
                namespace: Some("shop".into()),
                limit: None,
                ..ListQuery::all("apps/v1/deployments")
            }
        );
        let plain = ListQuery { limit: Some(2), ..ListQuery::all("core/v1/pods") };
        assert_eq!(go_query(plain).query, ListQuery { limit: Some(2), ..ListQuery::all("v1/pods") });
    }

    #[test]
    fn selectors_are_applied_here() {
        let o = go_query(ListQuery {
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
    fn the_first_request_stands_when_it_already_was_the_go_projects() {
        let first = ListQuery { limit: Some(3), ..ListQuery::all("v1/pods") };
        assert!(go_query(first.clone()).is_same_request(&first));
        let named = ListQuery::all("pods");
        assert!(!go_query(named.clone()).is_same_request(&named));
        let selected = ListQuery { label_selector: Some("a=b".into()), ..ListQuery::all("v1/pods") };
        assert!(!go_query(selected.clone()).is_same_request(&selected));
    }
}
