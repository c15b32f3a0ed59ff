//! From a watched object to the row the store keeps: managed fields stripped, Secrets redacted.

use std::collections::BTreeMap;

use kube::api::DynamicObject;
use mc_types::Gvr;
use serde_json::Value;

use crate::store::StoredObject;

/// Annotation that carries a copy of the applied object, Secret data included.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// How objects are prepared for storage.
#[derive(Clone, Copy, Debug)]
pub struct Prepare {
    /// Replace Secret values (and the last-applied copy) before they reach the store.
    pub redact_secrets: bool,
}

impl Prepare {
    /// Turns a watched object into a store row. `None` for an object without name or uid.
    pub fn stored(&self, gvr: &Gvr, kind: &str, obj: DynamicObject) -> Option<StoredObject> {
        let DynamicObject { metadata: mut meta, data, .. } = obj;
        let name = meta.name.clone()?;
        let uid = meta.uid.clone()?;
        meta.managed_fields = None;
        let is_secret = gvr.group.is_empty() && gvr.resource == "secrets";
        if is_secret
            && self.redact_secrets
            && let Some(a) = meta.annotations.as_mut()
        {
            a.remove(LAST_APPLIED);
        }
        let labels: BTreeMap<String, String> = meta.labels.clone().unwrap_or_default();
        let owner_uid = meta.owner_references.as_ref().and_then(|o| o.first()).map(|o| o.uid.clone());
        let created_at = meta.creation_timestamp.as_ref().map(|t| t.0.to_string());
        let mut object = match data {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        if is_secret && self.redact_secrets {
            redact(&mut object);
        }
        let mut full = serde_json::Map::with_capacity(object.len() + 3);
        full.insert("apiVersion".into(), Value::String(gvr.api_version()));
        full.insert("kind".into(), Value::String(kind.to_string()));
        full.insert("metadata".into(), serde_json::to_value(&meta).ok()?);
        full.extend(object);
        Some(StoredObject {
            gvr: gvr.clone(),
            kind: kind.to_string(),
            namespace: meta.namespace.unwrap_or_default(),
            name,
            uid,
            resource_version: meta.resource_version.unwrap_or_default(),
            owner_uid,
            labels,
            object: Value::Object(full),
            created_at,
        })
    }
}

/// Keeps the keys of `data`/`stringData` (so counts still show) but drops every value.
fn redact(object: &mut serde_json::Map<String, Value>) {
    for field in ["data", "stringData"] {
        if let Some(Value::Object(map)) = object.get_mut(field) {
            for v in map.values_mut() {
                *v = Value::String(String::new());
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secret() -> DynamicObject {
        serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {
                "name": "s", "namespace": "ns", "uid": "u1", "resourceVersion": "7",
                "labels": {"app": "x"},
                "annotations": {LAST_APPLIED: "{\"data\":{\"password\":\"c2VjcmV0\"}}"},
                "managedFields": [{"manager": "kubectl"}]
            },
            "data": {"password": "c2VjcmV0"},
            "type": "Opaque"
        }))
        .unwrap()
    }

    #[test]
    fn secret_values_are_redacted_but_keys_kept() {
        let p = Prepare { redact_secrets: true };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        let text = row.object.to_string();
        assert!(!text.contains("c2VjcmV0"), "{text}");
        assert_eq!(row.object["data"]["password"], "");
        assert_eq!(row.object["type"], "Opaque");
        assert_eq!(row.labels["app"], "x");
    }

    #[test]
    fn redaction_can_be_turned_off() {
        let p = Prepare { redact_secrets: false };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        assert_eq!(row.object["data"]["password"], "c2VjcmV0");
    }

    #[test]
    fn managed_fields_are_stripped_and_types_filled_in() {
        let p = Prepare { redact_secrets: true };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        assert!(row.object["metadata"].get("managedFields").is_none());
        assert_eq!(row.object["apiVersion"], "v1");
        assert_eq!(row.object["kind"], "Secret");
        assert_eq!((row.namespace.as_str(), row.name.as_str(), row.uid.as_str()), ("ns", "s", "u1"));
    }
}
