//! Paths below an object (`…/{resource}/{name}/{subresource}[/…]`): a pod's `log` is served
//! (see [`super::logs`]); `exec`, `attach`, `portforward` and `proxy` are refused, whatever the
//! method, with the command that does it on the member cluster; any other subresource is not
//! served (404), and writes answer the read-only 405.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::{Method, Uri};
use axum::response::{IntoResponse, Response};
use mc_types::Gvr;

use crate::http::AppState;
use crate::http::params::shown;
use crate::http::status::{KubeError, read_only};
use crate::identity::Caller;
use crate::store::Query as StoreQuery;

/// What reaches into a running container or through to a network endpoint: never done here.
const REFUSED: [&str; 4] = ["exec", "attach", "portforward", "proxy"];

/// Any method on a subresource path.
pub async fn serve(
    method: Method,
    state: State<AppState>,
    caller: Extension<Caller>,
    Path(path): Path<HashMap<String, String>>,
    uri: Uri,
) -> Response {
    let sub = path.get("subresource").map(String::as_str).unwrap_or_default();
    let resource = path.get("resource").map(String::as_str).unwrap_or_default();
    if REFUSED.contains(&sub) {
        return refuse(&state, &path).await.into_response();
    }
    if method != Method::GET {
        return read_only(method).await.into_response();
    }
    let core = !path.contains_key("group") && !path.contains_key("rest");
    if core && resource == "pods" && sub == "log" && path.contains_key("namespace") {
        return match Query::<Vec<(String, String)>>::try_from_uri(&uri) {
            Ok(query) => super::logs::get(state, caller, Path(path), query).await.into_response(),
            Err(e) => KubeError::bad_request(format!("malformed query string: {e}")).into_response(),
        };
    }
    KubeError::no_such_resource().into_response()
}

/// The refusal of `exec`, `attach`, `portforward` or `proxy`, with the kubectl command that
/// does it on the member cluster that has the object (when one does).
async fn refuse(state: &AppState, path: &HashMap<String, String>) -> KubeError {
    let get = |k: &str| path.get(k).map(|v| shown(v)).unwrap_or_default();
    let (resource, name, sub, namespace) =
        (get("resource"), get("name"), get("subresource"), get("namespace"));
    let cluster = match path.get("cluster") {
        Some(c) => shown(c),
        None => holder(state, path).await.unwrap_or_else(|| "<the member>".into()),
    };
    let ns = if namespace.is_empty() { String::new() } else { format!(" -n {namespace}") };
    let command = match (sub.as_str(), resource.as_str()) {
        ("exec", _) => format!("exec{ns} {name} -- COMMAND"),
        ("attach", _) => format!("attach{ns} {name}"),
        ("portforward", _) => format!("port-forward{ns} {resource}/{name} PORT"),
        _ => "proxy".to_string(),
    };
    KubeError::method_not_allowed(format!(
        "{resource} \"{name}\": {sub} is not served by mc-server, whose Kubernetes API only reads; \
         do it on the member cluster: kubectl --context {cluster} {command}"
    ))
}

/// The one cluster whose object of the path the store holds, if exactly one does.
async fn holder(state: &AppState, path: &HashMap<String, String>) -> Option<String> {
    let group = path.get("group").cloned().unwrap_or_default();
    let version = path.get("version").cloned().unwrap_or_default();
    let query = StoreQuery {
        gvr: Some(Gvr::new(&group, &version, path.get("resource")?)),
        namespace: path.get("namespace").cloned(),
        name: path.get("name").cloned(),
        limit: Some(2),
        ..Default::default()
    };
    let page = crate::http::query(state, &query).await.ok()?;
    match page.items.as_slice() {
        [(cluster, _)] => Some(cluster.clone()),
        _ => None,
    }
}
