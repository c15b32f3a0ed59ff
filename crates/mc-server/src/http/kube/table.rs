//! `meta.k8s.io/v1` Tables, as `kubectl get` asks for them. For now every type gets the columns
//! kubectl shows for a type without printer columns plus `Cluster`: `Name`, `Cluster`, `Age`;
//! the namespace column kubectl adds itself (from each row's object metadata) with `-A`.

use k8s_openapi::jiff::Timestamp;
use mc_types::ResourceInfo;
use serde_json::{Value, json};

use crate::store::RawObject;

/// A Table of `items` (`(cluster, object)`), with `next` as its continue token.
pub fn generic(info: &ResourceInfo, items: &[(String, RawObject)], next: &str) -> Value {
    let now = Timestamp::now();
    let columns = json!([
        {"name": "Name", "type": "string", "format": "name", "priority": 0,
         "description": format!("Name of the {} (metadata.name).", info.kind)},
        {"name": "Cluster", "type": "string", "format": "", "priority": 0,
         "description": "The member cluster the object lives in."},
        {"name": "Age", "type": "string", "format": "", "priority": 0,
         "description": "Time since the object was created (metadata.creationTimestamp)."},
    ]);
    let rows: Vec<Value> = items
        .iter()
        .map(|(cluster, object)| {
            let value = object.value();
            let mut meta = value.get("metadata").cloned().unwrap_or_else(|| json!({}));
            let name = meta["name"].as_str().unwrap_or_default().to_string();
            let age = mc_types::age::since(meta["creationTimestamp"].as_str(), now);
            if let Some(m) = meta.as_object_mut() {
                let annotations = m.entry("annotations").or_insert_with(|| json!({}));
                if let Some(a) = annotations.as_object_mut() {
                    a.insert(mc_types::crd::CLUSTER_ANNOTATION.into(), cluster.as_str().into());
                }
            }
            json!({
                "cells": [name, cluster, age],
                "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta},
            })
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"continue": next},
        "columnDefinitions": columns,
        "rows": rows,
    })
}
