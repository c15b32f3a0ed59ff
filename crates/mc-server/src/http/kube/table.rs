//! `meta.k8s.io/v1` Tables, as `kubectl get` asks for them: `Name`, `Cluster`, then a custom
//! resource's printer columns (evaluated as the API server does), else `Age` — kubectl's columns
//! of built-in kinds are still to come. kubectl adds the namespace column itself (from each row's
//! object metadata) with `-A`.

use k8s_openapi::jiff::Timestamp;
use mc_types::ResourceInfo;
use mc_types::printer_columns;
use serde_json::{Value, json};

use crate::store::RawObject;

/// A Table of `items` (`(cluster, object)`), with `next` as its continue token; `crd` is the
/// type's CustomResourceDefinition object when it is a custom resource.
pub fn build(info: &ResourceInfo, crd: Option<&Value>, items: &[(String, RawObject)], next: &str) -> Value {
    let now = Timestamp::now();
    let printer = crd.map(|crd| printer_columns::from_crd(crd, &info.version)).unwrap_or_default();
    let mut columns = vec![
        json!({"name": "Name", "type": "string", "format": "name", "priority": 0,
               "description": format!("Name of the {} (metadata.name).", info.kind)}),
        json!({"name": "Cluster", "type": "string", "format": "", "priority": 0,
               "description": "The member cluster the object lives in."}),
    ];
    if printer.is_empty() {
        columns.push(json!({"name": "Age", "type": "date", "format": "", "priority": 0,
                            "description": "Time since the object was created (metadata.creationTimestamp)."}));
    }
    columns.extend(printer.iter().map(|p| {
        json!({"name": p.name, "type": p.kind, "format": p.format, "priority": p.priority, "description": p.description})
    }));
    let rows: Vec<Value> = items
        .iter()
        .map(|(cluster, object)| {
            let mut value = object.value();
            let meta = &value["metadata"];
            let name = meta["name"].as_str().unwrap_or_default().to_string();
            let mut cells = vec![Value::from(name), Value::from(cluster.as_str())];
            if printer.is_empty() {
                cells.push(mc_types::age::since(meta["creationTimestamp"].as_str(), now).into());
            }
            cells.extend(printer.iter().map(|p| Value::from(p.cell(&value, now))));
            super::objects::annotate(cluster, &mut value);
            let meta = value["metadata"].take();
            json!({
                "cells": cells,
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
