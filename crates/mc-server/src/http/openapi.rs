//! `/openapi.json`: the whole API described as OpenAPI 3.0.

use axum::Json;
use axum::Router;
use axum::routing::get;
use serde_json::{Value, json};

use super::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/openapi.json", get(|| async { Json(document()) }))
}

fn param(name: &str, description: &str, schema: Value) -> Value {
    json!({"name": name, "in": "query", "required": false, "description": description, "schema": schema})
}

fn list_params() -> Value {
    json!([
        {"name": "gvr", "in": "query", "required": true, "schema": {"type": "string"},
         "description": "Resource type: v1/pods, core/v1/pods, apps/v1/deployments, v1.pods, apps.v1.deployments, v1/apps/deployments, or a name resolved through discovery (pods, po, deploy, Deployment, deployments.apps)."},
        param("cluster", "Only this cluster.", json!({"type": "string"})),
        param("namespace", "Only this namespace.", json!({"type": "string"})),
        param("name", "Only objects with this name.", json!({"type": "string"})),
        {"name": "labels", "in": "query", "style": "deepObject", "explode": true, "required": false,
         "description": "The original's equality filter: labels[key]=value (repeatable).",
         "schema": {"type": "object", "additionalProperties": {"type": "string"}}},
        param("labelSelector", "Kubernetes label selector: a=b, a!=b, a in (x,y), a notin (x), a, !a.", json!({"type": "string"})),
        param("fieldSelector", "metadata.name, metadata.namespace, status.phase, spec.nodeName or any field path; = == !=.", json!({"type": "string"})),
        param("limit", "Page size; default 10 as in the original, 0 means all.", json!({"type": "integer", "minimum": 0, "default": 10})),
        param("continue", "Token from the previous page's X-Continue header.", json!({"type": "string"}))
    ])
}

fn errors() -> Value {
    let e = json!({"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    json!({"400": e, "401": e, "404": e, "503": e})
}

fn ok(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": schema}}})
}

/// The OpenAPI document.
pub fn document() -> Value {
    let with_errors = |mut responses: Value| {
        if let (Some(r), Some(e)) = (responses.as_object_mut(), errors().as_object()) {
            r.extend(e.clone());
        }
        responses
    };
    let continue_header = json!({"X-Continue": {"description": "Token for the next page, when there is one.", "schema": {"type": "string"}}});
    json!({
        "openapi": "3.0.3",
        "info": {"title": "mc-server", "version": env!("CARGO_PKG_VERSION"),
                 "description": "Multi-cluster query, join and dispatch API of kubectl-multicluster."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {
                    "error": {"type": "string"},
                    "candidates": {"type": "array", "items": {"type": "string"}}}},
                "Object": {"type": "object", "description": "A Kubernetes object as stored (managedFields stripped, Secret values redacted)."},
                "ObjectWithCluster": {"type": "object", "properties": {
                    "clusterName": {"type": "string"}, "Object": {"$ref": "#/components/schemas/Object"}}},
                "Cluster": {"type": "object", "properties": {
                    "name": {"type": "string"}, "status": {"type": "string", "enum": ["Ready", "NotReady"]},
                    "version": {"type": "string"}, "platform": {"type": "string"}, "host": {"type": "string"},
                    "isMaster": {"type": "boolean"}, "resourceTypes": {"type": "integer"}, "objects": {"type": "integer"},
                    "lastEvent": {"type": "string", "format": "date-time", "nullable": true},
                    "lagSeconds": {"type": "number", "nullable": true}, "message": {"type": "string", "nullable": true}}},
                "Resource": {"type": "object", "properties": {
                    "group": {"type": "string"}, "version": {"type": "string"}, "resource": {"type": "string"},
                    "singular": {"type": "string"}, "kind": {"type": "string"},
                    "shortNames": {"type": "array", "items": {"type": "string"}}, "namespaced": {"type": "boolean"},
                    "verbs": {"type": "array", "items": {"type": "string"}}}},
                "Res": {"type": "object", "properties": {"res": {"type": "string"}}}
            }
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/list": {"get": {"summary": "List objects of one type across clusters",
                "parameters": list_params(),
                "responses": with_errors(json!({"200": {"description": "objects", "headers": continue_header,
                    "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Object"}}}}}}))}},
            "/v1/list_with_cluster": {"get": {"summary": "List objects with the cluster each comes from",
                "parameters": list_params(),
                "responses": with_errors(json!({"200": {"description": "objects", "headers": continue_header,
                    "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/ObjectWithCluster"}}}}}}))}},
            "/v1/clusters": {"get": {"summary": "Clusters and their sync state",
                "responses": with_errors(json!({"200": ok("clusters", json!({"type": "array", "items": {"$ref": "#/components/schemas/Cluster"}}))}))}},
            "/v1/resources": {"get": {"summary": "Resource types discovered in the clusters",
                "responses": with_errors(json!({"200": ok("resource types", json!({"type": "array", "items": {"$ref": "#/components/schemas/Resource"}}))}))}},
            "/v1/join": {"post": {"summary": "Join a cluster at runtime",
                "parameters": [
                    {"name": "cluster", "in": "query", "required": true, "schema": {"type": "string"}},
                    param("insecure", "Skip TLS verification of the cluster's API server.", json!({"type": "boolean", "default": false})),
                    param("context", "Kubeconfig context to use (default: current-context).", json!({"type": "string"}))],
                "requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"type": "object",
                    "properties": {"kubeconfig": {"type": "string", "format": "binary"}}, "required": ["kubeconfig"]}}}},
                "responses": with_errors(json!({"200": ok("joined", json!({"$ref": "#/components/schemas/Res"})),
                    "409": {"description": "name taken"}, "413": {"description": "upload too large"}}))}},
            "/v1/unjoin": {"delete": {"summary": "Remove a joined cluster",
                "parameters": [{"name": "cluster", "in": "query", "required": true, "schema": {"type": "string"}}],
                "responses": with_errors(json!({"200": ok("unjoined", json!({"$ref": "#/components/schemas/Res"}))}))}},
            "/healthz": {"get": {"summary": "Liveness", "security": [], "responses": {"200": {"description": "alive"}}}},
            "/readyz": {"get": {"summary": "Readiness: every reachable cluster finished its initial sync", "security": [],
                "responses": {"200": {"description": "ready"}, "503": {"description": "not ready"}}}},
            "/metrics": {"get": {"summary": "Prometheus metrics", "security": [],
                "responses": {"200": {"description": "text exposition format", "content": {"text/plain": {}}}}}},
            "/openapi.json": {"get": {"summary": "This document", "security": [], "responses": {"200": {"description": "OpenAPI 3.0"}}}}
        }
    })
}
