//! From a watched object to the row the store keeps: managed fields stripped, Secrets redacted.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use mc_types::Gvr;
use mc_types::count::Segment;
use mc_types::crd::{GROUP, OWNER_ANNOTATION, REDACTED_ANNOTATION, REDACTED_DATA, REDACTED_VALUE};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::watched_object::WatchedObject;
use crate::store::{Compressors, HistoryRules, IndexedFields, RawObject, StoredObject};

/// Annotation that carries a copy of the applied object, Secret data included.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// How objects are prepared for storage.
#[derive(Clone, Debug)]
pub struct Prepare {
    /// Replace Secret values (and the last-applied copy) before they reach the store.
    pub redact_secrets: bool,
    /// Compress the stored JSON for the history's revision, here rather than in the single
    /// writer (history on).
    pub compress: Option<ForHistory>,
    /// The field each type keeps for counts (`count.indexedFields`), extracted here.
    pub indexed: Arc<IndexedFields>,
    /// Compute what free-text search looks at, here rather than in the single writer (search
    /// on).
    pub search: bool,
}

/// The types the history keeps (the others are not compressed) and the kept compression
/// contexts.
#[derive(Clone, Debug, Default)]
pub struct ForHistory {
    /// Which types get revisions.
    pub rules: Arc<HistoryRules>,
    /// Contexts shared by the clusters' tasks.
    pub contexts: Arc<Compressors>,
}

impl Prepare {
    /// Turns a watched object into a store row. `None` for an object without name or uid.
    ///
    /// The stored JSON is written once, here, in the watcher's task: `apiVersion` and `kind`
    /// from the type, the metadata without managed fields, then every other field as the API
    /// server sent it (only a redacted Secret's `data` and `stringData` are rewritten).
    pub fn stored(&self, gvr: &Gvr, kind: &str, obj: WatchedObject) -> Option<StoredObject> {
        let WatchedObject { metadata, fields, added } = obj;
        let mut meta = *metadata;
        let name = meta.name.clone().filter(|n| !n.is_empty())?;
        let uid = meta.uid.clone().filter(|u| !u.is_empty())?;
        meta.managed_fields = None;
        // Only Secrets and MultiClusterResources pay for redaction; every other object keeps the
        // fast path (its fields are copied as the API server sent them).
        let secret = self.redact_secrets && gvr.group.is_empty() && gvr.resource == "secrets";
        let mcr = self.redact_secrets && gvr.group == GROUP && gvr.resource == "multiclusterresources";
        let mut spec_override: Option<Value> = None;
        if secret {
            redact_annotations(&mut meta.annotations);
        } else if mcr
            && let Some((_, raw)) = fields.iter().find(|(k, _)| k == "spec")
            && let Some(spec) = redacted_secret_template(raw.get())
        {
            spec_override = Some(spec);
            let a = meta.annotations.get_or_insert_with(BTreeMap::new);
            a.remove(LAST_APPLIED);
            a.insert(REDACTED_ANNOTATION.into(), "true".into());
        }
        let labels: BTreeMap<String, String> = meta.labels.clone().unwrap_or_default();
        // Read before the fields are written out; a redacted type keeps no field for counts.
        let indexed = match self.indexed.path(gvr) {
            None => None,
            _ if secret || mcr => None,
            Some(path) if path.segments().first() == Some(&Segment::Key("metadata".into())) => {
                let object = serde_json::json!({ "metadata": &meta });
                self.indexed.value_of(gvr, &object).map(Box::new)
            }
            Some(_) => self.indexed.value_in_fields(gvr, &fields).map(Box::new),
        };
        let owner_uid = meta.owner_references.as_ref().and_then(|refs| {
            let controller = refs.iter().find(|r| r.controller == Some(true));
            controller.or(refs.first()).map(|r| r.uid.clone())
        });
        // Seconds, as the store writes them: no text to format here and parse again there.
        let created_at = meta.creation_timestamp.as_ref().map(|t| t.0.as_second());

        let json = StoredJson {
            api_version: &gvr.api_version(),
            kind,
            meta: &meta,
            fields: &fields,
            secret,
            spec: spec_override.as_ref(),
        };
        // Serialized, not checked again: every part is JSON already (the fields as the API server
        // sent them, read by serde_json).
        let object = RawObject::from_raw(serde_json::value::to_raw_value(&json).ok()?);
        // Hashed (and compressed for the history) here, on the cluster's own task, rather than
        // by the single writer.
        object.hash();
        if let Some(history) = &self.compress
            && history.rules.records(gvr)
        {
            history.contexts.compress(&object);
        }
        if self.search {
            object.search_body();
        }
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
            created: added,
            indexed,
        })
    }
}

/// The JSON the store keeps of an object: `apiVersion` and `kind` from the type, the metadata,
/// then every other field as the API server sent it (a redacted Secret's `data` and
/// `stringData`, and a redacted MultiClusterResource `spec`, rewritten).
struct StoredJson<'a> {
    api_version: &'a str,
    kind: &'a str,
    meta: &'a ObjectMeta,
    fields: &'a [(String, Box<RawValue>)],
    secret: bool,
    spec: Option<&'a Value>,
}

impl Serialize for StoredJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3 + self.fields.len()))?;
        map.serialize_entry("apiVersion", self.api_version)?;
        map.serialize_entry("kind", self.kind)?;
        map.serialize_entry("metadata", self.meta)?;
        for (key, value) in self.fields {
            if let Some(replacement) = self.secret.then(|| redacted_as(key)).flatten() {
                map.serialize_entry(key, &redacted(value.get(), replacement))?;
            } else if let (Some(spec), "spec") = (self.spec, key.as_str()) {
                map.serialize_entry(key, spec)?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// Annotations of a Secret that say nothing secret, kept as they are; every other value is
/// redacted (an annotation can carry a copy of the data, as last-applied does).
const ALLOWED_ANNOTATIONS: &[&str] = &[
    "kubernetes.io/service-account.name",
    "kubernetes.io/service-account.uid",
    "meta.helm.sh/release-name",
    "meta.helm.sh/release-namespace",
    REDACTED_ANNOTATION,
    // Which MultiClusterResource a dispatched copy belongs to (drift detection reads it).
    OWNER_ANNOTATION,
];

/// A Secret's annotations: last-applied removed, values other than the allow-list redacted, and
/// the redacted mark added.
fn redact_annotations(annotations: &mut Option<BTreeMap<String, String>>) {
    let a = annotations.get_or_insert_with(BTreeMap::new);
    a.remove(LAST_APPLIED);
    for (k, v) in a.iter_mut() {
        if !ALLOWED_ANNOTATIONS.contains(&k.as_str()) {
            *v = REDACTED_VALUE.into();
        }
    }
    a.insert(REDACTED_ANNOTATION.into(), "true".into());
}

/// The `spec` of a MultiClusterResource whose template is a Secret, with the template redacted
/// like a Secret and every customize value redacted; `None` when the template is not a Secret.
fn redacted_secret_template(spec: &str) -> Option<Value> {
    let mut spec: Value = serde_json::from_str(spec).ok()?;
    let template = spec.get_mut("template")?;
    let is_secret =
        template["kind"] == "Secret" && template["apiVersion"].as_str().is_none_or(|v| !v.contains('/'));
    if !is_secret {
        return None;
    }
    for key in ["data", "stringData"] {
        if let (Some(values), Some(replacement)) = (template.get(key), redacted_as(key)) {
            template[key] = redacted(&values.to_string(), replacement);
        }
    }
    if let Some(meta) = template.get_mut("metadata").and_then(Value::as_object_mut)
        && let Some(Value::Object(annotations)) = meta.get_mut("annotations")
    {
        annotations.remove(LAST_APPLIED);
        for (k, v) in annotations.iter_mut() {
            if !ALLOWED_ANNOTATIONS.contains(&k.as_str()) {
                *v = Value::String(REDACTED_VALUE.into());
            }
        }
    }
    // Customize values become the Secret's data in some cluster.
    if let Some(clusters) = spec.pointer_mut("/customize/clusters").and_then(Value::as_array_mut) {
        for cluster in clusters {
            if let Some(actions) = cluster.get_mut("action").and_then(Value::as_array_mut) {
                for action in actions {
                    // A value added under `/data` is base64 like the field it lands in.
                    let data =
                        action["path"].as_str().is_some_and(|p| p == "/data" || p.starts_with("/data/"));
                    if let Some(value) = action.get_mut("value") {
                        *value = Value::String(if data { REDACTED_DATA } else { REDACTED_VALUE }.into());
                    }
                }
            }
        }
    }
    Some(spec)
}

/// What the values of a Secret's field are redacted as, `None` for a field kept as it is. Each
/// keeps its type, so that every client still decodes the object: `data` holds base64 (read as
/// bytes by kubectl, client-go and kube-rs), `stringData` plain text.
fn redacted_as(field: &str) -> Option<&'static str> {
    match field {
        "data" => Some(REDACTED_DATA),
        "stringData" => Some(REDACTED_VALUE),
        _ => None,
    }
}

/// A Secret's `data` or `stringData` with its keys kept (so counts still show) and every value
/// replaced by `replacement` (see [`redacted_as`]).
fn redacted(json: &str, replacement: &str) -> Value {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(mut map)) => {
            for v in map.values_mut() {
                *v = Value::String(replacement.into());
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
        let p = Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        let text = row.object.text().to_string();
        assert!(!text.contains("c2VjcmV0"), "{text}");
        assert_eq!(row.object.value()["data"]["password"], "PHJlZGFjdGVkPg==");
        assert_eq!(row.object.value()["metadata"]["annotations"][REDACTED_ANNOTATION], "true");
        assert_eq!(row.object.value()["type"], "Opaque");
        assert_eq!(row.labels["app"], "x");
    }

    #[test]
    fn the_field_kept_for_counts_is_read_as_the_store_reads_it() {
        let fields = std::collections::BTreeMap::from([
            ("pods".to_string(), "status.phase".to_string()),
            ("configmaps".to_string(), "metadata.labels[\"app\"]".to_string()),
            ("secrets".to_string(), "type".to_string()),
        ]);
        let indexed = Arc::new(IndexedFields::new(&fields).unwrap());
        let p = Prepare { redact_secrets: true, compress: None, indexed: indexed.clone(), search: false };
        let pod = r#"{"metadata":{"name":"p","uid":"u","namespace":"ns"},"spec":{},"status":{"phase":"Running","podIP":"1.2.3.4"}}"#;
        let pods = Gvr::new("", "v1", "pods");
        let row = p.stored(&pods, "Pod", serde_json::from_str(pod).unwrap()).unwrap();
        let kept = row.indexed.clone().unwrap();
        assert_eq!((&*kept.path, kept.value.as_deref()), ("status.phase", Some("\"Running\"")));
        assert_eq!(indexed.value_of(&pods, &row.object.value()), Some(*kept), "as from the stored JSON");
        let cm = r#"{"metadata":{"name":"c","uid":"u","namespace":"ns","labels":{"app":"web"}}}"#;
        let row = p.stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", serde_json::from_str(cm).unwrap());
        assert_eq!(row.unwrap().indexed.unwrap().value.as_deref(), Some("\"web\""));
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        assert_eq!(row.indexed, None, "a redacted type keeps no field");
        let nothing = r#"{"metadata":{"name":"p","uid":"u","namespace":"ns"}}"#;
        let row = p.stored(&pods, "Pod", serde_json::from_str(nothing).unwrap()).unwrap();
        assert_eq!(row.indexed.unwrap().value, None);
    }

    #[test]
    fn redaction_can_be_turned_off() {
        let p = Prepare { redact_secrets: false, compress: None, indexed: Default::default(), search: false };
        let row = p.stored(&Gvr::new("", "v1", "secrets"), "Secret", secret()).unwrap();
        assert_eq!(row.object.value()["data"]["password"], "c2VjcmV0");
    }

    #[test]
    fn managed_fields_are_stripped_and_types_filled_in() {
        let p = Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false };
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
        let row =
            Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false }
                .stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", obj)
                .unwrap();
        assert_eq!(
            row.object.text(),
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"a","uid":"o1"},{"apiVersion":"v1","controller":true,"kind":"Y","name":"b","uid":"o2"}],"uid":"u2"},"data":{"k":"v \u00e9"},"binaryData":{}}"#
        );
        assert_eq!(row.owner_uid.as_deref(), Some("o2"), "the controlling owner wins");
        assert_eq!(row.created_at, None, "no creationTimestamp: the store writes the time of writing");
    }

    #[test]
    fn the_creation_time_is_kept_in_unix_seconds() {
        let text = r#"{"metadata":{"name":"c","uid":"u2","creationTimestamp":"2024-02-29T12:34:56Z"}}"#;
        let obj: WatchedObject = serde_json::from_str(text).unwrap();
        let row =
            Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false }
                .stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", obj)
                .unwrap();
        assert_eq!(row.created_at, Some(1_709_210_096));
        assert_eq!(row.object.value()["metadata"]["creationTimestamp"], "2024-02-29T12:34:56Z");
    }

    /// Every secret value of a text, found anywhere in the stored JSON, counted.
    fn leaks(text: &str, secrets: &[&str]) -> Vec<String> {
        secrets.iter().filter(|s| text.contains(*s)).map(|s| s.to_string()).collect()
    }

    #[test]
    fn no_secret_byte_of_a_secret_is_stored() {
        let text = json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "s", "namespace": "ns", "uid": "u1",
                "annotations": {
                    LAST_APPLIED: "{\"stringData\":{\"password\":\"LAST-APPLIED-SECRET\"}}",
                    "note": "ANNOTATION-SECRET",
                    "kubernetes.io/service-account.name": "builder",
                    OWNER_ANNOTATION: "default/mcr"
                }},
            "data": {"key": "REFUQS1TRUNSRVQ="},
            "stringData": {"password": "STRINGDATA-SECRET"},
            "type": "Opaque"
        })
        .to_string();
        let obj: WatchedObject = serde_json::from_str(&text).unwrap();
        let row =
            Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false }
                .stored(&Gvr::new("", "v1", "secrets"), "Secret", obj)
                .unwrap();
        let stored = row.object.text();
        let secrets = ["LAST-APPLIED-SECRET", "ANNOTATION-SECRET", "REFUQS1TRUNSRVQ=", "STRINGDATA-SECRET"];
        assert_eq!(leaks(stored, &secrets), Vec::<String>::new(), "{stored}");
        let v = row.object.value();
        assert_eq!(v["data"]["key"], REDACTED_DATA);
        assert_eq!(v["stringData"]["password"], REDACTED_VALUE);
        let annotations = &v["metadata"]["annotations"];
        assert_eq!(annotations["note"], REDACTED_VALUE);
        assert_eq!(annotations["kubernetes.io/service-account.name"], "builder");
        assert_eq!(annotations[OWNER_ANNOTATION], "default/mcr", "drift detection reads the owner");
        assert_eq!(annotations[REDACTED_ANNOTATION], "true");
        assert!(annotations.get(LAST_APPLIED).is_none());
    }

    #[test]
    fn redacted_data_values_stay_base64_and_string_data_stays_text() {
        let text = json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "s", "namespace": "ns", "uid": "u1"},
            "data": {"password": "c2VjcmV0", "empty": ""},
            "stringData": {"token": "plain-secret"},
            "type": "Opaque"
        })
        .to_string();
        let obj: WatchedObject = serde_json::from_str(&text).unwrap();
        let row =
            Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false }
                .stored(&Gvr::new("", "v1", "secrets"), "Secret", obj)
                .unwrap();
        // Decoded as every typed client decodes it: `data` values are base64 of bytes.
        let secret: k8s_openapi::api::core::v1::Secret = serde_json::from_str(row.object.text()).unwrap();
        let data = secret.data.unwrap();
        assert_eq!(data.keys().collect::<Vec<_>>(), ["empty", "password"], "keys stay");
        for (key, value) in &data {
            assert_eq!(value.0, b"<redacted>", "data.{key}");
        }
        assert_eq!(row.object.value()["data"]["password"], "PHJlZGFjdGVkPg==");
        let string_data = secret.string_data.unwrap();
        assert_eq!(string_data["token"], "<redacted>", "stringData is text, not base64");
    }

    fn mcr(template: serde_json::Value) -> WatchedObject {
        let text = json!({
            "apiVersion": "mulitcluster.practice.com/v1alpha1", "kind": "MultiClusterResource",
            "metadata": {"name": "m", "namespace": "default", "uid": "u2",
                "annotations": {LAST_APPLIED: format!("{{\"spec\":{{\"template\":{template}}}}}")}},
            "spec": {"template": template,
                     "customize": {"clusters": [{"name": "c1", "action": [
                        {"op": "add", "path": "/stringData/extra", "value": ["CUSTOMIZE-SECRET"]},
                        {"op": "add", "path": "/data/more", "value": "Q1VTVE9NSVpFLURBVEE="}]}]}}
        })
        .to_string();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_secret_template_inside_a_multiclusterresource_is_redacted_everywhere() {
        let template = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "copy", "annotations": {"note": "TEMPLATE-ANNOTATION-SECRET"}},
            "data": {"k": "REFUQS1TRUNSRVQ="}, "stringData": {"password": "TEMPLATE-SECRET"}});
        let gvr = Gvr::new(GROUP, "v1alpha1", "multiclusterresources");
        let row =
            Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false }
                .stored(&gvr, "MultiClusterResource", mcr(template))
                .unwrap();
        let stored = row.object.text();
        let secrets = [
            "TEMPLATE-ANNOTATION-SECRET",
            "REFUQS1TRUNSRVQ=",
            "TEMPLATE-SECRET",
            "CUSTOMIZE-SECRET",
            "Q1VTVE9NSVpFLURBVEE=",
        ];
        assert_eq!(leaks(stored, &secrets), Vec::<String>::new(), "{stored}");
        let v = row.object.value();
        let template: k8s_openapi::api::core::v1::Secret =
            serde_json::from_value(v["spec"]["template"].clone()).unwrap();
        assert_eq!(template.data.unwrap()["k"].0, b"<redacted>", "the template's data stays base64");
        assert_eq!(template.string_data.unwrap()["password"], "<redacted>");
        let actions = &v["spec"]["customize"]["clusters"][0]["action"];
        assert_eq!(actions[0]["value"], REDACTED_VALUE);
        assert_eq!(actions[1]["value"], REDACTED_DATA, "a value added under /data stays base64");
        assert_eq!(v["metadata"]["annotations"][REDACTED_ANNOTATION], "true");
    }

    #[test]
    fn other_multiclusterresources_are_stored_as_sent() {
        let template = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "copy"}, "data": {"k": "v"}});
        let gvr = Gvr::new(GROUP, "v1alpha1", "multiclusterresources");
        let plain =
            Prepare { redact_secrets: false, compress: None, indexed: Default::default(), search: false }
                .stored(&gvr, "MultiClusterResource", mcr(template.clone()))
                .unwrap();
        let row =
            Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false }
                .stored(&gvr, "MultiClusterResource", mcr(template))
                .unwrap();
        assert_eq!(row.object.text(), plain.object.text());
        assert!(row.object.text().contains("CUSTOMIZE-SECRET"), "not a Secret template: unchanged");
    }

    #[test]
    fn objects_without_name_or_uid_are_skipped() {
        let obj: WatchedObject = serde_json::from_str(r#"{"metadata":{"name":"c"}}"#).unwrap();
        assert!(
            Prepare { redact_secrets: true, compress: None, indexed: Default::default(), search: false }
                .stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", obj)
                .is_none()
        );
    }

    #[test]
    fn only_the_types_the_history_keeps_are_compressed() {
        let prepare = Prepare {
            redact_secrets: true,
            compress: Some(ForHistory::default()),
            indexed: Default::default(),
            search: false,
        };
        let watched = |name: &str| -> WatchedObject {
            serde_json::from_value(json!({"metadata": {"name": name, "uid": format!("u-{name}")}})).unwrap()
        };
        let cm = prepare.stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", watched("c")).unwrap();
        assert!(cm.object.compressed_yet(), "a kept type is compressed on the cluster's task");
        // Leases are left out of the history by default: their heartbeats are not compressed.
        let lease =
            prepare.stored(&Gvr::new("coordination.k8s.io", "v1", "leases"), "Lease", watched("l")).unwrap();
        assert!(!lease.object.compressed_yet());
        let off = Prepare { compress: None, ..prepare };
        assert!(
            !off.stored(&Gvr::new("", "v1", "configmaps"), "ConfigMap", watched("c"))
                .unwrap()
                .object
                .compressed_yet()
        );
    }
}
