//! `GET …/namespaces/{ns}/pods/{name}/log`: a pod's log, read from the member cluster that has
//! the pod and copied through as it arrives (see [`stream`]). Over every cluster the pod is
//! looked up in the store: kubectl wants one stream, so a pod of that name in several clusters
//! is a 409 that names them and says how to ask one. The caller needs `get` on `pods/log` in
//! the pod's namespace of that cluster, as the member would ask.

mod options;
mod stream;

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use mc_types::Gvr;

pub use options::LogParams;

use crate::authz::Request;
use crate::http::params;
use crate::http::status::{KubeError, KubeResult};
use crate::http::{AppState, rights};
use crate::identity::Caller;
use crate::store::Query as StoreQuery;

/// The pod whose log is asked for.
struct Pod {
    namespace: String,
    name: String,
}

impl Pod {
    /// The path's namespace and name, checked: the name is a DNS-1123 subdomain as Kubernetes
    /// names pods, so the path sent to the member needs no escaping.
    fn from_path(p: &HashMap<String, String>) -> KubeResult<Self> {
        let namespace = p.get("namespace").cloned().unwrap_or_default();
        params::namespace(&namespace)?;
        let name = p.get("name").cloned().unwrap_or_default();
        params::subdomain("pod", &name)?;
        Ok(Pod { namespace, name })
    }

    fn log_request(&self) -> Request<'_> {
        Request {
            verb: "get",
            api_group: "",
            resource: "pods",
            subresource: "log",
            namespace: &self.namespace,
            name: &self.name,
        }
    }
}

/// `GET` of a pod's log (the path's `resource` is `pods` and its `subresource` is `log`).
pub async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(path): Path<HashMap<String, String>>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> KubeResult<Response> {
    super::scope::in_scope(&state, Some(&path))?;
    if path.get("version").map(String::as_str) != Some("v1") {
        return Err(KubeError::no_such_resource());
    }
    let pod = Pod::from_path(&path)?;
    let params = LogParams::parse(pairs)?;
    let asked = match path.get("cluster") {
        Some(c) => vec![c.clone()],
        None => state.registry.names(),
    };
    let allowed = rights::allowed_in(&state, &caller, &pod.log_request(), asked.clone()).await?;
    if allowed.is_empty() {
        return Err(rights::forbidden_request(&caller, &pod.log_request(), &asked).into());
    }
    let cluster = match path.get("cluster") {
        Some(c) => c.clone(),
        None => holder(&state, &pod, &allowed, asked.len()).await?,
    };
    let client = state.registry.get(&cluster).and_then(|c| c.client()).ok_or_else(|| {
        KubeError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("cluster \"{cluster}\" is not connected now; try again"),
        )
    })?;
    stream::proxy(client, &cluster, &pod.namespace, &pod.name, &params).await
}

/// The one cluster among `allowed` whose pod of that name the store holds.
async fn holder(state: &AppState, pod: &Pod, allowed: &[String], asked: usize) -> KubeResult<String> {
    let query = StoreQuery {
        gvr: Some(Gvr::new("", "v1", "pods")),
        namespace: Some(pod.namespace.clone()),
        name: Some(pod.name.clone()),
        ..Default::default()
    };
    let page = crate::http::query(state, &query).await?;
    let mut holders: Vec<String> =
        page.items.into_iter().map(|(c, _)| c).filter(|c| allowed.contains(c)).collect();
    holders.dedup();
    match holders.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            let left_out = if allowed.len() < asked {
                format!(" (in the clusters where you may read its log: {})", allowed.join(", "))
            } else {
                String::new()
            };
            Err(KubeError::not_found(format!("pods \"{}\" not found{left_out}", pod.name)))
        }
        several => Err(KubeError::new(
            StatusCode::CONFLICT,
            format!(
                "pod \"{}\" in namespace \"{}\" exists in clusters {}: ask one cluster's log at \
                 /clusters/NAME/api/v1/namespaces/{}/pods/{}/log, or read them all with \
                 kubectl multicluster logs pod/{} -n {}",
                pod.name,
                pod.namespace,
                several.join(", "),
                pod.namespace,
                pod.name,
                pod.name,
                pod.namespace
            ),
        )),
    }
}
