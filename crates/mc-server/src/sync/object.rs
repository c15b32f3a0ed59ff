//! From a watched object to the row the store keeps: managed fields stripped, Secrets redacted.

use std::collections::BTreeMap;

use mc_types::Gvr;
use serde_json::Value;

use super::watched::WatchedObject;
use crate::store::{RawObject, StoredObject};

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
    ///
    /// The stored JSON is written once, here, in the watcher's task: `apiVersion` and `kind`
    /// from the type, the metadata without managed fields, then every other field as the API
    /// server sent it (only a redacted Secret's `data` and `stringData` are rewritten).
    pub fn stored(&self, gvr: &Gvr, kind: &str, obj: WatchedObject) -> Option<StoredObject> {
        let WatchedObject { metadata: mut meta, fields } = obj;
        let name = meta.name.clone().filter(|n| !n.is_empty())?;
        let uid = meta.uid.clone().filter(|u| !u.is_empty())?;
        meta.managed_fields = None;
        let redact = self.redact_secrets && gvr.group.is_empty() && gvr.resource == "secrets";
        if redact && let Some(a) = meta.annotations.as_mut() {
            a.remove(LAST_APPLIED);
        }
        let labels: BTreeMap<String, String> = meta.labels.clone().unwrap_or_default();
        let owner_uid = meta.owner_references.as_ref().and_then(|refs| {
            let controller = refs.iter().find(|r| r.controller == Some(true));
            controller.or(refs.first()).map(|r| r.uid.clone())
        });
        let created_at = meta.creation_timestamp.as_ref().map(|t| t.0.to_string());

        let size = fields.iter().map(|(k, v)| k.len() + v.get().len() + 4).sum::<usize>() + 512;
        let mut out: Vec<u8> = Vec::with_capacity(size);
        out.extend_from_slice(b"{\"apiVersion\":");
        serde_json::to_writer(&mut out, &gvr.api_version()).ok()?;
        out.extend_from_slice(b",\"kind\":");
        serde_json::to_writer(&mut out, kind).ok()?;
        out.extend_from_slice(b",\"metadata\":");
        serde_json::to_writer(&mut out, &meta).ok()?;
        for (key, value) in &fields {
            out.push(b',');
            serde_json::to_writer(&mut out, key).ok()?;
            out.push(b':');
            if redact && (key == "data" || key == "stringData") {
                serde_json::to_writer(&mut out, &redacted(value.get())).ok()?;
            } else {
                out.extend_from_slice(value.get().as_bytes());
            }
        }
        out.push(b'}');
        let object = RawObject::from_text(String::from_utf8(out).ok()?).ok()?;
        Some(StoredObject {
            gvr: gvr.clone(),
            kind: kind.to_string(),
            namespace: meta.namespace.unwrap_or_default(),
            name,
            uid,
            resource_version: meta.resource_version.unwrap_or_default(),
            owner_uid,
            labels,
            object,
            created_at,
        })
    }
}

/// A Secret's `data` or `stringData` with its keys kept (so counts still show) and every value
/// dropped.
fn redacted(json: &str) -> Value {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(mut map)) => {
            for v in map.values_mut() {
                *v = Value::String(String::new());
            }
            Value::Object(map)
        }
        // Not a map: nothing of it may show.
        _ => Value::Null,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secret() -> WatchedObject {
        // Read from text, as the watcher does: raw fields need serde_json's own deserializer.
        serde_json::from_str(
            &json!({
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {
                    "name": "s", "namespace": "ns", "uid": "u1", "resourceVersion": "7",
                    "labels": {"app": "x"},
                    "annotations": {LAST_APPLIED: "{\"data\":{\"password\":\"c2VjcmV0\"}}"},
                    "managedFields": [{"manager": "kubectl"}]
                },
                "data": {"password": "c2VjcmV0"},
                "type": "Opaque"
            })
            .to_string(),
        )
        .unwrap()
    }

    #[test]
    fn secret_values_are_redacted_but_keys_kept() {
        let p = Prepare { redact_secrets: true };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        let text = row.object.text().to_string();
        assert!(!text.contains("c2VjcmV0"), "{text}");
        assert_eq!(row.object.value()["data"]["password"], "");
        assert_eq!(row.object.value()["type"], "Opaque");
        assert_eq!(row.labels["app"], "x");
    }

    #[test]
    fn redaction_can_be_turned_off() {
        let p = Prepare { redact_secrets: false };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        assert_eq!(row.object.value()["data"]["password"], "c2VjcmV0");
    }

    #[test]
    fn managed_fields_are_stripped_and_types_filled_in() {
        let p = Prepare { redact_secrets: true };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        assert!(row.object.value()["metadata"].get("managedFields").is_none());
        assert_eq!(row.object.value()["apiVersion"], "v1");
        assert_eq!(row.object.value()["kind"], "Secret");
        assert_eq!((row.namespace.as_str(), row.name.as_str(), row.uid.as_str()), ("ns", "s", "u1"));
    }

    #[test]
    fn other_fields_are_stored_as_sent() {
        let text = r#"{"metadata":{"name":"c","uid":"u2","namespace":"ns","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"a","uid":"o1"},{"apiVersion":"v1","kind":"Y","name":"b","uid":"o2","controller":true}]},"data":{"k":"v \u00e9"},"binaryData":{}}"#;
        let obj: WatchedObject = serde_json::from_str(text).unwrap();
        let row = Prepare { redact_secrets: true }
            .stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", obj)
            .unwrap();
        assert_eq!(
            row.object.text(),
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"a","uid":"o1"},{"apiVersion":"v1","controller":true,"kind":"Y","name":"b","uid":"o2"}],"uid":"u2"},"data":{"k":"v \u00e9"},"binaryData":{}}"#
        );
        assert_eq!(row.owner_uid.as_deref(), Some("o2"), "the controlling owner wins");
    }

    #[test]
    fn objects_without_name_or_uid_are_skipped() {
        let obj: WatchedObject = serde_json::from_str(r#"{"metadata":{"name":"c"}}"#).unwrap();
        assert!(
            Prepare { redact_secrets: true }
                .stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", obj)
                .is_none()
        );
    }
}
