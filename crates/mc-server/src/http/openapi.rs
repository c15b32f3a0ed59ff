//! `/openapi.json`: the whole API described as OpenAPI 3.0.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use serde_json::{Value, json};

use super::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route(
        "/openapi.json",
        get(|State(state): State<AppState>| async move { Json(document(state.auth.anonymous_read())) }),
    )
}

fn param(name: &str, description: &str, schema: Value) -> Value {
    json!({"name": name, "in": "query", "required": false, "description": description, "schema": schema})
}

fn list_params() -> Value {
    json!([
        {"name": "gvr", "in": "query", "required": true,
         "schema": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": "^[A-Za-z0-9.,/-]+$"},
         "description": "Resource type: v1/pods, core/v1/pods, apps/v1/deployments, v1.pods, apps.v1.deployments, v1/apps/deployments, v1./configmaps and v1.apps/deployments (the original CLI's), or a name resolved through discovery (pods, po, deploy, Deployment, deployments.apps). Several types: comma separated (deploy,svc,cm) or gvr repeated; each type's objects in the order given, limit counting them all, no watch or order=newest."},
        param("cluster", "Only this cluster (clusterName is accepted too).", json!({"type": "string", "maxLength": 63})),
        param("namespace", "Only this namespace.", json!({"type": "string", "maxLength": 63})),
        param("name", "Only objects with this name.", json!({"type": "string", "maxLength": 253})),
        {"name": "labels", "in": "query", "style": "deepObject", "explode": true, "required": false,
         "description": "The original's equality filter: labels[key]=value (repeatable, at most 16; keys and values printable ASCII).",
         "schema": {"type": "object", "maxProperties": 16,
                    "propertyNames": {"type": "string", "minLength": 1, "maxLength": 317, "pattern": "^[ -~]+$"},
                    "additionalProperties": ascii_text(63)}},
        param("labelSelector", "Kubernetes label selector: a=b, a!=b, a in (x,y), a notin (x), a, !a; at most 64 requirements.", ascii_text(4096)),
        param("fieldSelector", "metadata.name, metadata.namespace, status.phase, spec.nodeName or any field path; = == !=; at most 64 requirements.", ascii_text(4096)),
        param("owner", "TYPE/NAME (deploy/web): only objects that object owns at any depth (through owner references: a Deployment's Pods through its ReplicaSets), in each cluster where the caller may get it (in namespace when given, else in every namespace); one type, one page of at most limit objects (no continue, no watch), at most 10,000 objects walked below the owners of a cluster. An owner found nowhere answers [] with a Warning.", json!({"type": "string", "minLength": 3, "maxLength": 512})),
        param("limit", "Page size; default 10 as in the original, 0 means all.", json!({"type": "integer", "minimum": 0, "default": 10})),
        param("continue", "Token from the previous page's X-Continue header (default order only).", ascii_text(4096)),
        param("order", "name (default): cluster, namespace, name, paged with continue tokens; newest: newest object first, as the original answered, one page of at most limit objects.", json!({"type": "string", "enum": ["name", "newest"], "default": "name"})),
        param("watch", "Stream the current objects, then every change, as newline-delimited JSON events (the answer never ends).", json!({"type": "boolean", "default": false}))
    ])
}

fn count_params() -> Value {
    let list = list_params();
    let mut params: Vec<Value> = list
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|p| {
                    matches!(
                        p["name"].as_str(),
                        Some("gvr" | "cluster" | "namespace" | "name" | "labelSelector" | "fieldSelector")
                    )
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    params.insert(1, json!({"name": "by", "in": "query", "required": true,
        "schema": {"type": "string", "minLength": 1, "maxLength": 4096},
        "description": "The keys to count by, separated by commas (at most 8): cluster, namespace, a field path of the objects (status.phase, spec.containers[0].image, metadata.labels[\"app.kubernetes.io/name\"]: keys of A-Za-z0-9_- and indexes, other keys quoted in brackets; at most 256 characters and 16 segments), or a printed column of the type (status, ready, nominated-node), which is computed object by object. A missing value, null, and the namespace of a cluster-scoped object count as <none>; a value other than a string as its JSON text."}));
    Value::Array(params)
}

fn can_i_params() -> Value {
    let text = |max: u32| json!({"type": "string", "maxLength": max});
    json!([
        {"name": "verb", "in": "query", "required": true,
         "schema": {"type": "string", "minLength": 1, "maxLength": 63, "pattern": "^([A-Za-z]+|\\*)$"},
         "description": "The verb asked about: get, list, watch, or any other (create, delete, impersonate, *): it is a question, not a request."},
        {"name": "gvr", "in": "query", "required": true,
         "schema": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": "^[A-Za-z0-9./-]+$"},
         "description": "Resource type, in any form /v1/list takes (v1/pods, apps/v1/deployments, pods, deploy, deployments.apps)."},
        param("namespace", "In this namespace (default: across every namespace, where only ClusterRoleBindings count). Left out for a cluster-scoped type, with a Warning.", text(63)),
        param("name", "Of the object with this name (rules with resourceNames count only then).", text(253)),
        param("subresource", "Of this subresource: status, log, scale, ….", text(63)),
        param("cluster", "Only this cluster (default: every cluster).", text(63)),
        param("user", "Ask for this user instead of the caller (an admin token only, as kubectl auth can-i --as); it is given the groups kube-apiserver gives an impersonated user.", text(253)),
        {"name": "group", "in": "query", "required": false, "style": "form", "explode": true,
         "description": "With user: a group of that user (repeatable, as --as-group).",
         "schema": {"type": "array", "items": {"type": "string", "maxLength": 253}}}
    ])
}

/// A JSON error answer.
fn error(description: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

/// The errors every authenticated operation can answer.
fn errors() -> Value {
    json!({
        "400": error("malformed request: bad parameter, oversize input"),
        "401": error("missing or invalid bearer token"),
        "404": error("unknown cluster, resource type or endpoint"),
        "414": error("the request URI is longer than the server reads"),
        "431": error("the request headers are more or larger than the server reads"),
        "503": error("not ready, or the query did not finish in time")
    })
}

/// `responses` with the errors every authenticated operation can answer.
fn with_errors(mut responses: Value) -> Value {
    if let (Some(r), Some(e)) = (responses.as_object_mut(), errors().as_object()) {
        for (k, v) in e {
            r.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    responses
}

/// The history API's paths: one object's revisions, a type in the past, Events.
fn history_paths(security: &Value) -> Value {
    let text = |max: u32| json!({"type": "string", "maxLength": max});
    let gvr = json!({"name": "gvr", "in": "query", "required": true,
        "schema": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": "^[A-Za-z0-9./-]+$"},
        "description": "Resource type, in any form /v1/list takes (v1/pods, apps/v1/deployments, pods, deploy)."});
    // An empty optional time is its default; a required one must be there.
    let moment = |name: &str, required: bool, what: &str| {
        json!({"name": name, "in": "query", "required": required,
        "description": format!("{what}: an RFC 3339 time (2026-11-28T10:00:00Z) or a duration ago (30m, 2h, 7d)."),
        "schema": {"type": "string", "minLength": usize::from(required), "maxLength": 64}})
    };
    let cluster = param("cluster", "Only this cluster.", text(63));
    let namespace = param("namespace", "Only this namespace.", text(63));
    let name = param("name", "Only objects with this name.", text(253));
    let labels =
        param("labelSelector", "Only objects whose labels (in the state answered) match.", ascii_text(4096));
    let limit = param(
        "limit",
        "At most this many (history: the newest; default 100, at most 1000).",
        json!({"type": "integer", "minimum": 1}),
    );
    let past = json!({"type": "array", "items": {"$ref": "#/components/schemas/PastObject"}});
    json!({
        "/v1/history": {"get": {"security": security, "summary": "The revisions of the objects with a name (every cluster, or one), oldest first: when, what change, which fields changed; needs get on the type",
            "parameters": [gvr, cluster, namespace,
                {"name": "name", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 253}, "description": "The object's name."},
                limit, param("objects", "With each revision's object.", json!({"type": "boolean", "default": false})),
                param("revisions", "Only these revisions (12,15), with their objects.", text(1024))],
            "responses": with_errors(json!({"200": ok("revisions", json!({"type": "array", "items": {"$ref": "#/components/schemas/Revision"}}))}))}},
        "/v1/history/deleted": {"get": {"security": security, "summary": "Objects of a type deleted since a time (default an hour ago), each in its last state, the latest deletion last",
            "parameters": [gvr, cluster, namespace, name, labels, moment("since", false, "Deleted since"), limit],
            "responses": with_errors(json!({"200": ok("deleted objects", past.clone())}))}},
        "/v1/history/at": {"get": {"security": security, "summary": "The objects of a type as they stood at a time, in the order of lists",
            "parameters": [gvr, cluster, namespace, name, labels, moment("at", true, "The time"), limit],
            "responses": with_errors(json!({"200": ok("objects as they stood", past.clone())}))}},
        "/v1/events": {"get": {"security": security, "summary": "Events of every cluster since a time (default an hour ago), kept after their cluster expired them, newest last",
            "parameters": [cluster, namespace, moment("since", false, "Events seen since"),
                param("for", "Only Events about this object: TYPE/NAME (deploy/web) or NAME.", text(320)),
                param("reason", "Only Events with this reason.", text(128)),
                param("type", "Only Events of this type: Normal or Warning (any case).", text(32)), limit],
            "responses": with_errors(json!({"200": ok("Events", past)}))}}
    })
}

/// An error of the Kubernetes API: a `Status` object.
fn status_error(description: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}})
}

fn ok(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": schema}}})
}

/// The OpenAPI document. It declares what the server enforces: a bearer token on every
/// operation except the probes, `/openapi.json` and `/metrics` (unless `server.metricsAuth`), the
/// `admin` role for join and unjoin, and the size bounds of every parameter.
pub fn document(anonymous_read: bool) -> Value {
    // With anonymous reads, a GET needs no token (an empty requirement), or a bearer token.
    let read_security = if anonymous_read { json!([{}, {"bearer": []}]) } else { json!([{"bearer": []}]) };
    let continue_header = json!({"X-Continue": {"description": "Token for the next page, when there is one.", "schema": {"type": "string"}}});
    let status =
        json!({"type": "object", "required": ["status"], "properties": {"status": {"type": "string"}}});
    let mut doc = json!({
        "openapi": "3.0.3",
        "info": {"title": "mc-server", "version": env!("CARGO_PKG_VERSION"),
                 "description": "Multi-cluster query, join and dispatch API of kubectl-multicluster. Every operation needs `Authorization: Bearer <token>` except /livez, /healthz, /readyz, /openapi.json and /metrics (unless server.metricsAuth). Tokens have the role read or admin; join and unjoin need admin. With server.anonymousRead, GETs are served without a token as read."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                "description": "A token from server.token/server.tokens, --token/MC_TOKEN, or the one generated at first start into <data-dir>/token."}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {
                    "error": {"type": "string"},
                    "candidates": {"type": "array", "items": {"type": "string"}}}},
                "Object": {"type": "object", "description": "A Kubernetes object as stored (managedFields stripped, Secret values redacted, each keeping its type: data values as \"PHJlZGFjdGVkPg==\" (\"<redacted>\" in base64), stringData values and annotations as \"<redacted>\"; the object carries the annotation mulitcluster.practice.com/redacted: \"true\")."},
                "ObjectWithCluster": {"type": "object", "required": ["clusterName", "Object"], "properties": {
                    "clusterName": {"type": "string"}, "Object": {"$ref": "#/components/schemas/Object"}}},
                "Cluster": {"type": "object", "required": ["name", "status"], "properties": {
                    "name": {"type": "string"}, "status": {"type": "string", "enum": ["Connecting", "Syncing", "Synced", "NotReady", "Stale"]},
                    "since": {"type": "string", "format": "date-time"}, "typesListed": {"type": "integer"},
                    "lastError": {"type": "string"},
                    "version": {"type": "string"}, "platform": {"type": "string"}, "host": {"type": "string"},
                    "isMaster": {"type": "boolean"}, "resourceTypes": {"type": "integer"}, "objects": {"type": "integer"},
                    "lastEvent": {"type": "string", "format": "date-time"},
                    "lagSeconds": {"type": "number"}, "message": {"type": "string"},
                    "syncedBy": {"type": "string"},
                    "unlistedTypes": {"type": "array", "description": "Types whose list keeps failing: their objects may be missing or stale, and answers about them carry a Warning.",
                        "items": {"type": "object", "required": ["type", "since", "reason"], "properties": {
                            "type": {"type": "string"}, "since": {"type": "string", "format": "date-time"}, "reason": {"type": "string"}}}},
                    "unwatchedTypes": {"type": "array", "description": "Types that are listed but whose watch keeps failing: their objects are as old as their last list (repeated up to 5 minutes apart), and answers about them carry a Warning.",
                        "items": {"type": "object", "required": ["type", "since", "reason"], "properties": {
                            "type": {"type": "string"}, "since": {"type": "string", "format": "date-time"}, "reason": {"type": "string"}}}}}},
                "Resource": {"type": "object", "required": ["group", "version", "resource", "kind", "namespaced"], "properties": {
                    "group": {"type": "string"}, "version": {"type": "string"}, "resource": {"type": "string"},
                    "singular": {"type": "string"}, "kind": {"type": "string"},
                    "shortNames": {"type": "array", "items": {"type": "string"}}, "namespaced": {"type": "boolean"},
                    "verbs": {"type": "array", "items": {"type": "string"}}}},
                "Revision": {"type": "object", "required": ["revision", "clusterName", "name", "uid", "time", "change", "fields", "fieldsChanged"], "properties": {
                    "revision": {"type": "integer"}, "clusterName": {"type": "string"}, "namespace": {"type": "string"},
                    "name": {"type": "string"}, "uid": {"type": "string"}, "resourceVersion": {"type": "string"},
                    "time": {"type": "string", "format": "date-time"}, "change": {"type": "string", "enum": ["ADDED", "MODIFIED", "DELETED"]},
                    "afterGap": {"type": "boolean", "description": "Found by a list after a time mc-server did not watch: it happened after gapFrom (when known) and at most at time."},
                    "gapFrom": {"type": "string", "format": "date-time"},
                    "unsynced": {"type": "boolean", "description": "A deletion because mc-server stopped syncing the type or the cluster, not a deletion in the cluster."},
                    "fields": {"type": "array", "items": {"type": "string"}, "description": "JSON paths that differ from the previous revision (at most 20)."},
                    "fieldsChanged": {"type": "integer"}, "object": {"$ref": "#/components/schemas/Object"}}},
                "PastObject": {"type": "object", "required": ["clusterName", "Object", "revision", "time"], "properties": {
                    "clusterName": {"type": "string"}, "Object": {"$ref": "#/components/schemas/Object"},
                    "revision": {"type": "integer"}, "time": {"type": "string", "format": "date-time"}, "afterGap": {"type": "boolean"}}},
                "Res": {"type": "object", "required": ["res"], "properties": {"res": {"type": "string"}}},
                "VersionInfo": {"type": "object", "required": ["major", "minor", "gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"],
                    "properties": {"major": {"type": "string"}, "minor": {"type": "string"}, "gitVersion": {"type": "string"},
                        "gitCommit": {"type": "string"}, "gitTreeState": {"type": "string"}, "buildDate": {"type": "string"},
                        "goVersion": {"type": "string"}, "compiler": {"type": "string"}, "platform": {"type": "string"}}},
                "Status": {"type": "object", "required": ["kind", "status", "code"], "description": "A Kubernetes meta.k8s.io/v1 Status: the error shape of the Kubernetes API.",
                    "properties": {"kind": {"type": "string"}, "apiVersion": {"type": "string"}, "status": {"type": "string"},
                        "message": {"type": "string"}, "reason": {"type": "string"}, "code": {"type": "integer"}}},
                "CountAnswer": {"type": "object", "required": ["by", "items", "total"], "properties": {
                    "by": {"type": "array", "items": {"type": "string"}, "description": "The keys as understood: cluster, namespace, the field path, or the column's header."},
                    "items": {"type": "array", "description": "One per combination of values some object has, sorted by the values.", "items": {
                        "type": "object", "required": ["values", "count"], "properties": {
                            "values": {"type": "array", "items": {"type": "string"}},
                            "count": {"type": "integer", "minimum": 1}}}},
                    "total": {"type": "integer", "minimum": 0}}},
                "CanIAnswer": {"type": "object", "required": ["cluster", "allowed", "reason"], "properties": {
                    "cluster": {"type": "string"}, "allowed": {"type": "boolean"},
                    "reason": {"type": "string", "description": "What allows it: RoleBinding/NAMESPACE/NAME, ClusterRoleBinding/NAME, or static token: read role / admin role; empty when denied."}}}
            }
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/list": {"get": { "security": read_security.clone(),"summary": "List objects of one type across clusters (role read)",
                "parameters": list_params(),
                "responses": with_errors(json!({"200": {"description": "objects (a JSON array; with watch=true, newline-delimited events)", "headers": continue_header,
                    "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Object"}}}}}}))}},
            "/v1/list_with_cluster": {"get": { "security": read_security.clone(),"summary": "List objects with the cluster each comes from (role read)",
                "parameters": list_params(),
                "responses": with_errors(json!({"200": {"description": "objects", "headers": continue_header,
                    "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/ObjectWithCluster"}}}}}}))}},
            "/v1/count": {"get": { "security": read_security.clone(), "summary": "Count objects of one type by cluster, namespace, fields or printed columns (role read); only what the caller may list is counted, and a Warning names the clusters left out",
                "parameters": count_params(),
                "responses": with_errors(json!({"200": ok("counts", json!({"$ref": "#/components/schemas/CountAnswer"})),
                    "400": error("malformed request, an invalid key, or more than 10,000 combinations of values"),
                    "403": error("the namespace asked for is one the caller may list in no cluster")}))}},
            "/v1/clusters": {"get": { "security": read_security.clone(),"summary": "Clusters and their sync state (role read)",
                "responses": with_errors(json!({"200": ok("clusters", json!({"type": "array", "items": {"$ref": "#/components/schemas/Cluster"}}))}))}},
            "/v1/resources": {"get": { "security": read_security.clone(),"summary": "Resource types discovered in the clusters (role read)",
                "responses": with_errors(json!({"200": ok("resource types", json!({"type": "array", "items": {"$ref": "#/components/schemas/Resource"}}))}))}},
            "/v1/auth/can-i": {"get": { "security": read_security.clone(), "summary": "May the caller (or, for an admin token, the user asked about) do a verb to a type, cluster by cluster: decided by each member's RBAC as kubectl auth can-i would be answered there; a static token by its role",
                "parameters": can_i_params(),
                "responses": with_errors(json!({"200": ok("one answer per cluster, in name order", json!({"type": "array", "items": {"$ref": "#/components/schemas/CanIAnswer"}})),
                    "403": error("user or group given without an admin token")}))}},
            "/v1/join": {"post": {"summary": "Join a cluster at runtime (role admin). The kubeconfig may carry inline credentials only: exec, auth-provider, tokenFile and file paths are refused; http:// servers need insecure=true and get no credentials.",
                "parameters": [
                    {"name": "cluster", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}},
                    param("insecure", "Skip TLS verification of the cluster's API server; allow an http:// server (no credentials are sent to it).", json!({"type": "boolean", "default": false})),
                    param("context", "Kubeconfig context to use (default: current-context).", json!({"type": "string", "maxLength": 253}))],
                "requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"type": "object",
                    "properties": {"kubeconfig": {"type": "string", "format": "binary", "maxLength": 1048576}}, "required": ["kubeconfig"]}}}},
                "responses": with_errors(json!({"200": ok("joined", json!({"$ref": "#/components/schemas/Res"})),
                    "403": error("the token has the read role"), "409": error("name taken"), "413": error("upload too large")}))}},
            "/v1/unjoin": {"delete": {"summary": "Remove a joined cluster (role admin)",
                "parameters": [{"name": "cluster", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 63}}],
                "responses": with_errors(json!({"200": ok("unjoined", json!({"$ref": "#/components/schemas/Res"})),
                    "403": error("the token has the read role")}))}},
            "/livez": {"get": {"summary": "Liveness (as kube-apiserver names it): the process answers; no cluster is asked", "security": [], "responses": {"200": ok("alive", status.clone())}}},
            "/healthz": {"get": {"summary": "Liveness", "security": [], "responses": {"200": ok("alive", status.clone())}}},
            "/version": {"get": {"summary": "The master cluster's Kubernetes version, as kube-apiserver answers /version (gitVersion marked +mc-server); a Warning gives the members' range when they differ", "security": read_security.clone(),
                "responses": {"200": ok("version.Info", json!({"$ref": "#/components/schemas/VersionInfo"})),
                    "401": status_error("missing or invalid bearer token"),
                    "503": status_error("no cluster's version is known yet")}}},
            "/readyz": {"get": {"summary": "Readiness: every reachable cluster finished its initial sync", "security": [],
                "responses": {"200": ok("ready", status), "503": error("not ready, with the reason")}}},
            "/metrics": {"get": {"summary": "Prometheus metrics (needs a token when server.metricsAuth is on)", "security": [{}, {"bearer": []}],
                "responses": {"200": {"description": "text exposition format", "content": {"text/plain": {"schema": {"type": "string"}}}},
                    "401": error("server.metricsAuth is on and the token is missing or invalid")}}},
            "/openapi.json": {"get": {"summary": "This document", "security": [],
                "responses": {"200": ok("OpenAPI 3.0", json!({"type": "object"}))}}}
        }
    });
    if let (Some(paths), Value::Object(more)) =
        (doc.get_mut("paths").and_then(Value::as_object_mut), history_paths(&read_security))
    {
        paths.extend(more);
    }
    if let (Some(paths), Value::Object(more)) =
        (doc.get_mut("paths").and_then(Value::as_object_mut), tree_paths(&read_security))
    {
        paths.extend(more);
    }
    if let (Some(paths), Value::Object(more)) =
        (doc.get_mut("paths").and_then(Value::as_object_mut), search_paths(&read_security))
    {
        paths.extend(more);
    }
    doc
}

/// `/v1/search`.
fn search_paths(security: &Value) -> Value {
    use mc_types::search::{DEFAULT_LIMIT, MAX_KINDS, MAX_LIMIT, MAX_TEXT, MIN_TEXT};
    let text = |max: u32| json!({"type": "string", "maxLength": max});
    let item = json!({"type": "object",
        "required": ["cluster", "group", "version", "resource", "kind", "namespace", "name", "matched"],
        "properties": {
            "cluster": {"type": "string"}, "group": {"type": "string"}, "version": {"type": "string"},
            "resource": {"type": "string"}, "kind": {"type": "string"},
            "namespace": {"type": "string", "description": "Empty for a cluster-scoped object."},
            "name": {"type": "string"},
            "matched": {"type": "array", "items": {"type": "string"},
                "description": "What matched: name, namespace, label KEY=VALUE, annotation KEY=VALUE, image=IMAGE, owner NAME."}}});
    json!({
        "/v1/search": {"get": {"security": security, "summary": "Free-text search over every object's name, namespace, label and annotation keys and values, container images and owner names; case ignored; ranked: the name equal to the text, then starting with it, then containing it, then a match in another field. Only types the caller may list, in the namespaces it may read. A Warning says when more objects match than the answer holds, or when the index is incomplete or scanned.",
            "parameters": [
                {"name": "q", "in": "query", "required": true,
                 "schema": {"type": "string", "minLength": MIN_TEXT, "maxLength": MAX_TEXT, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"},
                 "description": "The text: 3 to 253 characters (trigrams), no control characters."},
                param("namespace", "Only this namespace (a DNS label; empty: every namespace).", text(63)),
                param("cluster", "Only this cluster (empty: every cluster).", text(63)),
                param("kind", &format!("Only these types, comma separated, in any form /v1/list takes (pods, deploy, configmaps.v1); at most {MAX_KINDS}. A type allowed nowhere in the namespace asked is 403."), text(4096)),
                param("limit", "Most objects answered, the best first.", json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}))],
            "responses": with_errors(json!({
                "200": ok("the objects found, best first", json!({"type": "array", "items": item})),
                "403": error("every type named is allowed nowhere in the namespace asked"),
                "501": error("search is switched off on this server (search.enabled: false)")}))}}
    })
}

/// `/v1/tree`.
fn tree_paths(security: &Value) -> Value {
    let text = |max: u32| json!({"type": "string", "maxLength": max});
    let node = json!({"type": "object", "required": ["relation", "apiVersion", "kind", "name"], "properties": {
        "relation": {"type": "string", "enum": ["root", "owner", "owned", "endpoints", "endpoint", "backend", "scaleTarget",
            "runsOn", "mounts", "boundTo", "configMap", "secret", "serviceAccount", "applied", "linked"]},
        "cluster": {"type": "string", "description": "The member cluster of an object a MultiClusterResource applied."},
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "namespace": {"type": "string"},
        "name": {"type": "string"}, "ready": {"type": "string"}, "status": {"type": "string"},
        "created": {"type": "string", "format": "date-time"},
        "missing": {"type": "boolean", "description": "Referred to but not stored."},
        "children": {"type": "array", "items": {"type": "object"}}}});
    let tree = json!({"type": "object", "required": ["cluster", "root"], "properties": {
        "cluster": {"type": "string"}, "root": node, "truncated": {"type": "boolean"},
        "hidden": {"type": "integer", "description": "Objects left out: the caller may not list their types."}}});
    json!({
        "/v1/tree": {"get": {"security": security, "summary": "An object and what is related to it, one tree per cluster where it exists: what it owns down to pods (owner references), a Service's EndpointSlices and their Pods, an Ingress's Services, an autoscaler's target, each Pod's Node, claims and volumes, ConfigMaps, Secrets and ServiceAccount, a MultiClusterResource's object in each placed cluster; at most 10,000 objects and 12 levels per cluster; needs get on the root's type, other objects are shown only where the caller may list their types",
            "parameters": [
                {"name": "gvr", "in": "query", "required": true,
                 "schema": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": "^[A-Za-z0-9./-]+$"},
                 "description": "The root's type, in any form /v1/list takes (deploy, apps/v1/deployments, svc)."},
                {"name": "name", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 253}, "description": "The root's name."},
                param("namespace", "The root's namespace (default: default; ignored for a cluster-scoped type).", text(63)),
                param("cluster", "Only this cluster (default: every cluster where the root exists).", text(63)),
                param("neighbours", "Only what is one step away (describe --related): the root's owners (relation owner), what it owns and what it links to.", json!({"type": "boolean", "default": false}))],
            "responses": with_errors(json!({
                "200": ok("one tree per cluster", json!({"type": "array", "items": tree})),
                "403": error("the caller may not get the root in any cluster")}))}}
    })
}

/// A selector or continue token: printable ASCII only (as every label key and value, object name
/// and token is), so that the longest allowed URI stays within what the HTTP layer reads (64 KiB)
/// and is answered by the API's own JSON errors.
fn ascii_text(max: u32) -> Value {
    json!({"type": "string", "maxLength": max, "pattern": "^[ -~]*$"})
}
