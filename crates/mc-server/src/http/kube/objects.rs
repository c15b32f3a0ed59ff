//! List and get on the standard paths: every cluster's objects of one type (or, under
//! `/clusters/{name}/`, one cluster's), each annotated with its cluster, as a Kubernetes `List`,
//! a single object, a `meta.k8s.io/v1` `Table` or `PartialObjectMetadata(List)` as the client's
//! `Accept` asks (see [`super::negotiate`]).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use mc_types::ResourceInfo;
use mc_types::selector::{FieldSelector, LabelSelector};
use serde_json::{Value, json};

use super::annotate::annotated;
use super::layout::Layout;
use super::negotiate::{self, Representation, negotiate};
use super::table;
use crate::http::params::{self, shown};
use crate::http::status::{KubeError, KubeResult};
use crate::http::warnings::{add_warnings, answer_warnings};
use crate::http::{AppState, rights, streamed};
use crate::identity::Caller;
use crate::store::{Query as StoreQuery, RawObject};

/// What a path names.
struct Target {
    info: ResourceInfo,
    cluster: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
}

impl Target {
    /// Reads the path parameters of any of the routes, checks the names they hold and finds the
    /// type among the synced ones.
    fn resolve(state: &AppState, p: &HashMap<String, String>) -> KubeResult<Self> {
        super::scope::in_scope(state, Some(p))?;
        if let Some(group) = p.get("group") {
            params::group(group)?;
        }
        let group = p.get("group").cloned().unwrap_or_default();
        let version = p.get("version").cloned().unwrap_or_default();
        // `/api/v1/namespaces[/{name}]` have routes of their own (the static segment).
        let resource = p.get("resource").cloned().unwrap_or_else(|| "namespaces".into());
        let cluster = p.get("cluster").cloned();
        let info = state
            .registry
            .catalog()
            .into_iter()
            .find(|r| r.group == group && r.version == version && r.resource == resource)
            .ok_or_else(KubeError::no_such_resource)?;
        let namespace = p.get("namespace").cloned();
        if namespace.is_some() && !info.namespaced {
            return Err(KubeError::no_such_resource());
        }
        if let Some(ns) = &namespace {
            params::namespace(ns)?;
        }
        let name = p.get("name").cloned();
        if let Some(name) = &name {
            params::object_name(name)?;
        }
        Ok(Target { info, cluster, namespace, name })
    }

    fn api_version(&self) -> String {
        self.info.gvr().api_version()
    }
}

/// The query parameters Kubernetes list calls carry; the ones that only tune a real API server
/// (`resourceVersion`, `timeoutSeconds`, …) are accepted and have no effect.
#[derive(Default)]
struct Params {
    label_selector: Option<String>,
    field_selector: Option<String>,
    limit: Option<u32>,
    continue_token: Option<String>,
    watch: bool,
    resource_version: Option<String>,
    /// `None`: the server's longest (`timeoutSeconds` absent or 0, as Kubernetes reads 0).
    timeout: Option<std::time::Duration>,
    layout: Layout,
    include: table::Include,
    send_initial_events: Option<bool>,
    allow_bookmarks: bool,
    resource_version_match: Option<String>,
}

impl Params {
    fn parse(pairs: Vec<(String, String)>) -> KubeResult<Self> {
        let mut p = Params::default();
        for (k, v) in pairs {
            params::check_len(&k, &v)?;
            let non_empty = |v: String| (!v.is_empty()).then_some(v);
            match k.as_str() {
                "labelSelector" => p.label_selector = non_empty(v),
                "fieldSelector" => p.field_selector = non_empty(v),
                "continue" => p.continue_token = non_empty(v),
                "limit" => {
                    p.limit = match v.parse::<i64>() {
                        Ok(n) if n > 0 => Some(u32::try_from(n).unwrap_or(u32::MAX)),
                        Ok(_) => None,
                        Err(_) => {
                            return Err(KubeError::bad_request(format!(
                                "limit must be a number, got \"{}\"",
                                shown(&v)
                            )));
                        }
                    }
                }
                "watch" => p.watch = matches!(v.as_str(), "true" | "1"),
                "view" => {
                    p.layout = Layout::parse(&v).ok_or_else(|| {
                        KubeError::bad_request(format!(
                            "view must be kubectl, plugin or plugin-wide, got \"{}\"",
                            shown(&v)
                        ))
                    })?
                }
                "includeObject" => {
                    p.include = table::Include::parse(&v).ok_or_else(|| {
                        KubeError::bad_request(format!(
                            "includeObject must be None, Metadata or Object, got \"{}\"",
                            shown(&v)
                        ))
                    })?
                }
                "resourceVersion" => p.resource_version = non_empty(v),
                "timeoutSeconds" => {
                    let seconds = v.parse::<u64>().map_err(|_| {
                        KubeError::bad_request(format!(
                            "timeoutSeconds must be a number, got \"{}\"",
                            shown(&v)
                        ))
                    })?;
                    p.timeout = (seconds > 0).then(|| std::time::Duration::from_secs(seconds));
                }
                "sendInitialEvents" => {
                    p.send_initial_events = Some(match v.as_str() {
                        "true" | "1" => true,
                        "false" | "0" => false,
                        _ => {
                            return Err(KubeError::bad_request(format!(
                                "sendInitialEvents must be true or false, got \"{}\"",
                                shown(&v)
                            )));
                        }
                    })
                }
                "allowWatchBookmarks" => p.allow_bookmarks = matches!(v.as_str(), "true" | "1"),
                "resourceVersionMatch" => p.resource_version_match = non_empty(v),
                _ => {}
            }
        }
        p.check_initial_events()?;
        Ok(p)
    }

    /// kube-apiserver's rules for `sendInitialEvents`: on a watch only, with
    /// `resourceVersionMatch=NotOlderThan` (422 otherwise).
    fn check_initial_events(&self) -> KubeResult<()> {
        if self.send_initial_events.is_none() {
            return Ok(());
        }
        let invalid = |field: &str, why: &str| {
            KubeError::invalid(format!("ListOptions.meta.k8s.io \"\" is invalid: {field}: Forbidden: {why}"))
        };
        if !self.watch {
            return Err(invalid("sendInitialEvents", "sendInitialEvents is forbidden for list"));
        }
        if self.resource_version_match.as_deref() != Some("NotOlderThan") {
            return Err(invalid(
                "resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        Ok(())
    }

    /// The Table format these parameters ask for.
    async fn format(&self, state: &AppState, target: &Target) -> table::Format {
        let crd = crd(state, &target.info).await;
        table::Format::new(&target.info, crd.as_ref(), target.cluster.is_none(), self.layout, self.include)
    }

    fn to_query(&self, state: &AppState, target: &Target) -> KubeResult<StoreQuery> {
        let labels = match &self.label_selector {
            Some(t) => Some(LabelSelector::parse(t).map_err(|e| KubeError::bad_request(e.to_string()))?),
            None => None,
        };
        let fields = match &self.field_selector {
            Some(t) => Some(FieldSelector::parse(t).map_err(|e| KubeError::bad_request(e.to_string()))?),
            None => None,
        };
        let mut query = StoreQuery {
            gvr: Some(target.info.gvr()),
            cluster: target.cluster.clone(),
            namespace: target.namespace.clone(),
            name: target.name.clone(),
            labels,
            fields,
            limit: self.limit,
            ..Default::default()
        };
        if let Some(token) = &self.continue_token {
            query.continue_after = Some(params::continue_after(token, &query, &state.registry)?);
        }
        Ok(query)
    }
}

/// An object's metadata as `meta.k8s.io/v1` `PartialObjectMetadata`, with its cluster.
fn partial(cluster: &str, object: &RawObject) -> Value {
    let mut value = annotated(cluster, object);
    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": value["metadata"].take()})
}

/// `GET` of a collection: every matching object of the type that the caller may read.
pub async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(path): Path<HashMap<String, String>>,
    Query(pairs): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    if super::metrics::is_metrics(&path) {
        return super::metrics::serve(state, caller, path, pairs, headers).await;
    }
    let target = Target::resolve(&state, &path)?;
    let params = Params::parse(pairs)?;
    let wanted = negotiate(&headers, if params.watch { negotiate::WATCH } else { negotiate::LIST })?;
    let mut query = params.to_query(&state, &target)?;
    let verb = if params.watch { "watch" } else { "list" };
    let denied = rights::restrict(&state, &caller, verb, &target.info, &mut query).await?;
    let rights = (!caller.reads_everything()).then(|| rights::Rights {
        caller: caller.clone(),
        verb: "watch",
        info: target.info.clone(),
    });
    let mut resp = list_answer(&state, &target, params, wanted, query, rights).await?;
    add_warnings(&mut resp, denied.into_iter().collect());
    Ok(resp)
}

/// The answer of a list whose query is restricted to where its caller may read.
async fn list_answer(
    state: &AppState,
    target: &Target,
    params: Params,
    wanted: Representation,
    query: StoreQuery,
    rights: Option<rights::Rights>,
) -> KubeResult<Response> {
    let format = match wanted {
        Representation::Table => Some(params.format(state, target).await),
        _ => None,
    };
    if params.watch {
        let initial_events = params.send_initial_events == Some(true);
        // Periodic bookmarks carry a bare object of the type; a Table watch gets none.
        let bookmark = (params.allow_bookmarks && format.is_none())
            .then(|| json!({"kind": target.info.kind, "apiVersion": target.api_version()}));
        let w = super::watch::Watch {
            query,
            resource_version: params.resource_version.clone(),
            table: format,
            timeout: params.timeout,
            send_initial_events: initial_events,
            rights,
            bookmark,
            initial_events_end: (initial_events && params.allow_bookmarks).then(|| {
                json!({
                    "kind": target.info.kind,
                    "apiVersion": target.api_version(),
                    "metadata": {"annotations": {"k8s.io/initial-events-end": "true"}},
                })
            }),
        };
        return Ok(super::watch::stream(state, w).await?);
    }
    // The version of now, read before the objects: a watch from it misses nothing.
    let rv = state.sync.history.resource_version();
    if let Some(format) = format.as_ref().filter(|f| f.keepable()) {
        let layout = format.layout();
        let mut kept = HashMap::new();
        let known =
            |id: i64, hash: &str| state.rows.get(id, layout, hash).map(|c| kept.insert(id, c)).is_some();
        if let Some(page) = crate::http::query_digests(state, &query, known).await? {
            let warnings = answer_warnings(state, &query, page.rows.iter().map(|r| r.cluster.as_str()));
            let next = page.next.map(|c| params::continue_token(&query, &c)).unwrap_or_default();
            let mut table = format.table_of_digests(page.rows, kept, &state.rows, &next);
            table["metadata"]["resourceVersion"] = rv.into();
            let mut resp = Json(table).into_response();
            add_warnings(&mut resp, warnings);
            return Ok(resp);
        }
    }
    let (kind, api_version, write): (String, String, streamed::WriteItem) = match wanted {
        Representation::Metadata => {
            ("PartialObjectMetadataList".into(), "meta.k8s.io/v1".into(), |out, c, o| {
                let _ = serde_json::to_writer(out, &partial(c, o));
            })
        }
        _ => (format!("{}List", target.info.kind), target.api_version(), |out, c, o| {
            let _ = serde_json::to_writer(out, &annotated(c, o));
        }),
    };
    // Objects without a limit: streamed a page at a time once there is more than one page.
    let unlimited = format.is_none() && query.limit.is_none_or(|l| l == 0);
    let query = if unlimited { StoreQuery { limit: Some(streamed::PAGE), ..query } } else { query };
    let page = crate::http::query(state, &query).await?;
    if unlimited && page.next.is_some() {
        let warnings = streamed::warnings(state, &query, &page);
        let head = json!({
            "kind": kind,
            "apiVersion": api_version,
            "metadata": {"continue": "", "resourceVersion": rv},
        });
        // The list's fields, then `"items":[`: the rows follow as they are read.
        let mut head = serde_json::to_vec(&head).unwrap_or_default();
        head.pop();
        head.extend_from_slice(b",\"items\":[");
        let query = StoreQuery { limit: None, ..query };
        let body = streamed::body(state.clone(), query, page, write, head, b"]}");
        let mut resp = ([(header::CONTENT_TYPE, "application/json")], body).into_response();
        add_warnings(&mut resp, warnings);
        return Ok(resp);
    }
    let warnings = answer_warnings(state, &query, page.items.iter().map(|(c, _)| c.as_str()));
    let next = page.next.as_ref().map(|c| params::continue_token(&query, c)).unwrap_or_default();
    let mut resp = if let Some(format) = format {
        let mut table = format.table(&page.items, &next);
        table["metadata"]["resourceVersion"] = rv.into();
        Json(table).into_response()
    } else {
        let mut items = Vec::new();
        for (cluster, object) in &page.items {
            write(&mut items, cluster, object);
            items.push(b',');
        }
        items.pop();
        let head = json!({
            "kind": kind,
            "apiVersion": api_version,
            "metadata": {"continue": next, "resourceVersion": rv},
        });
        let mut body = serde_json::to_vec(&head).unwrap_or_default();
        body.pop();
        body.extend_from_slice(b",\"items\":[");
        body.extend_from_slice(&items);
        body.extend_from_slice(b"]}");
        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
    };
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// `GET` of one object by name. Over every cluster a name may exist in several: a Table lists
/// them all; a single object is the first in cluster order, with a `Warning` naming the others.
pub async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(path): Path<HashMap<String, String>>,
    Query(pairs): Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    if super::metrics::is_metrics(&path) {
        return super::metrics::serve(state, caller, path, pairs, headers).await;
    }
    let target = Target::resolve(&state, &path)?;
    let mut params = Params::parse(pairs)?;
    if params.watch {
        return Err(KubeError::bad_request(
            "watch one object through its collection with fieldSelector=metadata.name=NAME".into(),
        ));
    }
    let wanted = negotiate(&headers, negotiate::OBJECT)?;
    // One object: nothing to continue.
    params.continue_token = None;
    let mut query = StoreQuery { limit: None, ..params.to_query(&state, &target)? };
    let denied = rights::restrict(&state, &caller, "get", &target.info, &mut query).await?;
    let mut resp = get_answer(&state, &target, params, wanted, query).await?;
    add_warnings(&mut resp, denied.into_iter().collect());
    Ok(resp)
}

/// The answer of a get whose query is restricted to where its caller may read.
async fn get_answer(
    state: &AppState,
    target: &Target,
    params: Params,
    wanted: Representation,
    query: StoreQuery,
) -> KubeResult<Response> {
    let page = crate::http::query(state, &query).await?;
    let Some((cluster, object)) = page.items.first() else {
        let name = target.name.as_deref().unwrap_or_default();
        let what = if target.info.group.is_empty() {
            target.info.resource.clone()
        } else {
            format!("{}.{}", target.info.resource, target.info.group)
        };
        // Not found, perhaps only because a cluster cannot list the type: that is said.
        let mut resp = KubeError::not_found(format!("{what} \"{}\" not found", shown(name))).into_response();
        add_warnings(&mut resp, answer_warnings(state, &query, std::iter::empty()));
        return Ok(resp);
    };
    let mut warnings = answer_warnings(state, &query, page.items.iter().map(|(c, _)| c.as_str()));
    let mut resp = if wanted == Representation::Table {
        Json(params.format(state, target).await.table(&page.items, "")).into_response()
    } else {
        if page.items.len() > 1 {
            let others: Vec<&str> = page.items[1..].iter().map(|(c, _)| c.as_str()).collect();
            warnings.push(format!(
                "{} also exists in {}; this is the one in {cluster}: ask /clusters/NAME/… for another",
                target.name.as_deref().map(shown).unwrap_or_default(),
                others.join(", ")
            ));
        }
        let body = match wanted {
            Representation::Metadata => partial(cluster, object),
            _ => annotated(cluster, object),
        };
        Json(body).into_response()
    };
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// `GET /api/v1/namespaces/{name}`: one Namespace (the path shares its first segments with the
/// namespaced routes, hence a route of its own).
pub async fn get_namespace(
    state: State<AppState>,
    caller: Extension<Caller>,
    Path(mut path): Path<HashMap<String, String>>,
    query: Query<Vec<(String, String)>>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    if let Some(name) = path.remove("namespace") {
        path.insert("name".into(), name);
    }
    get(state, caller, Path(path), query, headers).await
}

/// The CustomResourceDefinition of a type, from any cluster's stored objects; `None` for
/// built-in types (and when no cluster has it stored).
pub(crate) async fn crd(state: &AppState, info: &ResourceInfo) -> Option<Value> {
    if info.group.is_empty() {
        return None;
    }
    let query = StoreQuery {
        gvr: Some(mc_types::Gvr::new("apiextensions.k8s.io", "v1", "customresourcedefinitions")),
        name: Some(format!("{}.{}", info.resource, info.group)),
        limit: Some(1),
        ..Default::default()
    };
    let page = crate::http::query(state, &query).await.ok()?;
    page.items.first().map(|(_, o)| o.value())
}
