//! The query parameters of `/v1/list` and `/v1/list_with_cluster`, parsed and checked, and the
//! store queries they make (one per type asked for).

use mc_types::ResourceInfo;
use mc_types::api::DEFAULT_LIST_LIMIT;
use mc_types::gvr::{GvrSpec, ResourceCatalog};
use mc_types::selector::{FieldSelector, LabelSelector};

use super::{ApiError, ApiResult, AppState, params};
use crate::store::{Order, Query as StoreQuery};

/// The Go project's default page size, as the wire contract states it.
const DEFAULT_LIMIT: u32 = DEFAULT_LIST_LIMIT as u32;

/// A parameter name or value as it may be shown back: bounded, printable and quoted.
fn quoted(text: &str) -> String {
    format!("\"{}\"", params::shown(text))
}

/// Query parameters, parsed and checked.
#[derive(Debug, Default)]
pub struct ListRequest {
    /// The types asked for: `gvr` repeated, or one `gvr` of several separated by commas.
    gvrs: Vec<String>,
    cluster: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    labels: Vec<(String, String)>,
    label_selector: Option<String>,
    field_selector: Option<String>,
    limit: Option<String>,
    continue_token: Option<String>,
    order: Order,
    /// `TYPE/NAME`: only objects that object owns, at any depth (see `super::owned`).
    owner: Option<String>,
    /// Stream changes after the current objects (newline-delimited JSON).
    pub watch: bool,
}

impl ListRequest {
    /// Reads the raw pairs; unknown parameters are errors so typos do not go unnoticed. (How
    /// many there may be is checked for every route, see [`params::bounded`].)
    pub fn from_pairs(pairs: Vec<(String, String)>) -> ApiResult<Self> {
        let mut r = ListRequest::default();
        for (k, v) in pairs {
            params::check_len(&k, &v)?;
            let non_empty = |v: String| (!v.is_empty()).then_some(v);
            match k.as_str() {
                "gvr" => r.gvrs.extend(v.split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())),
                "cluster" | "clusterName" => r.cluster = non_empty(v),
                "namespace" => r.namespace = non_empty(v),
                "name" => r.name = non_empty(v),
                "labelSelector" => r.label_selector = non_empty(v),
                "fieldSelector" => r.field_selector = non_empty(v),
                "limit" => r.limit = Some(v),
                "continue" => r.continue_token = non_empty(v),
                "owner" => r.owner = non_empty(v),
                "order" => {
                    r.order = match v.as_str() {
                        "" | "name" => Order::Name,
                        "newest" => Order::Newest,
                        _ => {
                            return Err(ApiError::bad_request(format!(
                                "order must be name (cluster, namespace, name) or newest (newest first, as the original), got {}",
                                quoted(&v)
                            )));
                        }
                    }
                }
                "watch" => {
                    r.watch = match v.as_str() {
                        "true" | "1" => true,
                        "false" | "0" | "" => false,
                        _ => {
                            return Err(ApiError::bad_request(format!(
                                "watch must be true or false, got {}",
                                quoted(&v)
                            )));
                        }
                    }
                }
                _ => match k.strip_prefix("labels[").and_then(|s| s.strip_suffix(']')) {
                    Some(_) if r.labels.len() == params::MAX_LABEL_FILTERS => {
                        return Err(ApiError::bad_request(format!(
                            "more than {} labels[…] filters; give the rest in labelSelector",
                            params::MAX_LABEL_FILTERS
                        )));
                    }
                    Some(key) if !key.is_empty() => r.labels.push((key.to_string(), v)),
                    _ => {
                        return Err(ApiError::bad_request(format!("unknown query parameter {}", quoted(&k))));
                    }
                },
            }
        }
        Ok(r)
    }

    /// Whether several types are asked for (`super::list_types` answers).
    pub fn several(&self) -> bool {
        self.gvrs.len() > 1
    }

    /// The types asked for, as given.
    pub fn types(&self) -> &[String] {
        &self.gvrs
    }

    /// The owner asked for (`owner=TYPE/NAME`), as given.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// Whether the Go project's newest-first order is asked for.
    pub fn newest_first(&self) -> bool {
        self.order == Order::Newest
    }

    /// Resolves names and selectors against the registry's discovery data: the query, and the
    /// type it reads (the first one asked for).
    pub fn to_query(&self, state: &AppState) -> ApiResult<(StoreQuery, ResourceInfo)> {
        self.to_query_of(state, self.gvrs.first().map(String::as_str))
    }

    /// [`ListRequest::to_query`] of the type `gvr`, without its continue token (a request of
    /// several types continues one of them; see `super::list_types`).
    pub fn to_query_of(&self, state: &AppState, gvr: Option<&str>) -> ApiResult<(StoreQuery, ResourceInfo)> {
        let (query, info) = self.query_without_token(state, gvr)?;
        self.continued(state, query, info)
    }

    /// The query of `gvr` from the start.
    pub fn query_without_token(
        &self,
        state: &AppState,
        gvr: Option<&str>,
    ) -> ApiResult<(StoreQuery, ResourceInfo)> {
        let info = resolve_type(state, gvr)?;
        if let Some(ns) = &self.namespace {
            params::namespace(ns)?;
        }
        if let Some(name) = &self.name {
            params::object_name(name)?;
        }
        if let Some(c) = &self.cluster {
            params::cluster(c)?;
        }
        if let Some(c) = &self.cluster {
            params::known_cluster(&state.registry, c)?;
        }
        let mut labels = if self.labels.is_empty() {
            None
        } else {
            Some(
                LabelSelector::from_equalities(self.labels.iter().cloned())
                    .map_err(|e| ApiError::bad_request(e.to_string()))?,
            )
        };
        if let Some(text) = &self.label_selector {
            let parsed = LabelSelector::parse(text).map_err(|e| ApiError::bad_request(e.to_string()))?;
            labels = Some(match labels {
                Some(mut l) => {
                    l.try_extend(parsed).map_err(|e| ApiError::bad_request(e.to_string()))?;
                    l
                }
                None => parsed,
            });
        }
        let fields = match &self.field_selector {
            Some(text) => Some(FieldSelector::parse(text).map_err(|e| ApiError::bad_request(e.to_string()))?),
            None => None,
        };
        let limit = match self.limit.as_deref() {
            None | Some("") => Some(DEFAULT_LIMIT),
            Some(text) => match text.parse::<i64>() {
                Ok(0) => None,
                Ok(n) if n > 0 => Some(u32::try_from(n).unwrap_or(u32::MAX)),
                Ok(_) => {
                    return Err(ApiError::bad_request(format!(
                        "limit must be 0 (all) or positive, got {text}"
                    )));
                }
                Err(_) => {
                    return Err(ApiError::bad_request(format!("limit must be a number, got \"{text}\"")));
                }
            },
        };
        if self.order == Order::Newest && self.continue_token.is_some() {
            return Err(ApiError::bad_request(
                "continue works only in the default order (order=name); order=newest answers one page",
            ));
        }
        let query = StoreQuery {
            gvr: Some(info.gvr()),
            cluster: self.cluster.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            labels,
            fields,
            limit,
            continue_after: None,
            order: self.order,
            allowed: None,
        };
        Ok((query, info))
    }

    /// The continue token given, if any.
    pub fn continue_token(&self) -> Option<&str> {
        self.continue_token.as_deref()
    }

    fn continued(
        &self,
        state: &AppState,
        mut query: StoreQuery,
        info: ResourceInfo,
    ) -> ApiResult<(StoreQuery, ResourceInfo)> {
        if let Some(token) = &self.continue_token {
            query.continue_after = Some(params::continue_after(token, &query, &state.registry)?);
        }
        Ok((query, info))
    }
}

/// The type a `gvr` parameter names, in any form, resolved through the registry's catalog: 400
/// when it is missing or malformed, 404 with candidates when no type or several match, 503
/// before any cluster was discovered.
pub fn resolve_type(state: &AppState, gvr: Option<&str>) -> ApiResult<ResourceInfo> {
    let gvr_text = gvr.ok_or_else(|| {
        ApiError::bad_request("missing parameter gvr (e.g. gvr=v1/pods, gvr=apps/v1/deployments or gvr=pods)")
    })?;
    let spec = GvrSpec::parse(gvr_text).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let catalog = ResourceCatalog::new(state.registry.catalog());
    if catalog.is_empty() {
        return Err(ApiError::unavailable("no cluster has been discovered yet; try again shortly"));
    }
    let info = catalog.resolve(&spec).map_err(|e| {
        let candidates = e.candidates().to_vec();
        ApiError::not_found(e.to_string()).with_candidates(candidates)
    })?;
    Ok(info.clone())
}
