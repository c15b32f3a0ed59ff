//! The object type the sync lists and watches: metadata parsed, everything else kept as the JSON
//! text the API server sent.
//!
//! The metadata is parsed without `managedFields`: they are never stored, and their `fieldsV1`
//! trees are often the largest part of an object's metadata (every node a map to allocate and
//! free again).
//!
//! `DynamicObject` parses every field into a `serde_json::Value` tree (through serde's flatten
//! buffering), and the store then serializes that tree back to text. For the tens of thousands
//! of objects of an initial sync that round trip was most of the work; this type parses only
//! what the store indexes and copies the rest through.

use std::borrow::Cow;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::ApiResource;
use kube::core::DynamicResourceScope;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// One listed or watched object of any type.
///
/// Deserializing keeps the top-level fields other than `apiVersion`, `kind` and `metadata` as
/// raw JSON. That needs serde_json's own deserializer, which is what the list and watch
/// responses are read with: the API server writes a watch event's `type` before its `object`,
/// so the event's object is never buffered first.
#[derive(Clone, Debug, Default)]
pub struct WatchedObject {
    /// The object's metadata, without `managedFields`. Boxed: a list page of 2,000 objects is
    /// one `Vec` that grows while it is read, and it then moves pointers, not whole metadata.
    pub metadata: Box<ObjectMeta>,
    /// Every other top-level field, in the order the API server sent them.
    pub fields: Vec<(String, Box<RawValue>)>,
    /// The member's watch told it as `ADDED`: the object is new to the store (set by the
    /// watcher, never read from the object).
    pub added: bool,
}

impl<'de> Deserialize<'de> for WatchedObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ObjectVisitor)
    }
}

struct ObjectVisitor;

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = WatchedObject;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WatchedObject, A::Error> {
        let mut object = WatchedObject::default();
        let mut seen_metadata = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "metadata" if !seen_metadata => {
                    object.metadata = Box::new(map.next_value::<Metadata>()?.0);
                    seen_metadata = true;
                }
                "metadata" => return Err(de::Error::duplicate_field("metadata")),
                // Filled in from the type when the object is stored (list items often lack them).
                "apiVersion" | "kind" => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => object.fields.push((key.into_owned(), map.next_value()?)),
            }
        }
        Ok(object)
    }
}

/// `ObjectMeta` read field by field, `managedFields` (and any field it does not know) skipped.
struct Metadata(ObjectMeta);

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MetadataVisitor)
    }
}

struct MetadataVisitor;

impl<'de> Visitor<'de> for MetadataVisitor {
    type Value = Metadata;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("object metadata")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Metadata, A::Error> {
        let mut m = ObjectMeta::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "annotations" => m.annotations = map.next_value()?,
                "creationTimestamp" => m.creation_timestamp = map.next_value()?,
                "deletionGracePeriodSeconds" => m.deletion_grace_period_seconds = map.next_value()?,
                "deletionTimestamp" => m.deletion_timestamp = map.next_value()?,
                "finalizers" => m.finalizers = map.next_value()?,
                "generateName" => m.generate_name = map.next_value()?,
                "generation" => m.generation = map.next_value()?,
                "labels" => m.labels = map.next_value()?,
                "name" => m.name = map.next_value()?,
                "namespace" => m.namespace = map.next_value()?,
                "ownerReferences" => m.owner_references = map.next_value()?,
                "resourceVersion" => m.resource_version = map.next_value()?,
                "selfLink" => m.self_link = map.next_value()?,
                "uid" => m.uid = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Metadata(m))
    }
}

impl kube::Resource for WatchedObject {
    type DynamicType = ApiResource;
    type Scope = DynamicResourceScope;

    fn group(dt: &ApiResource) -> Cow<'_, str> {
        dt.group.as_str().into()
    }

    fn version(dt: &ApiResource) -> Cow<'_, str> {
        dt.version.as_str().into()
    }

    fn kind(dt: &ApiResource) -> Cow<'_, str> {
        dt.kind.as_str().into()
    }

    fn api_version(dt: &ApiResource) -> Cow<'_, str> {
        dt.api_version.as_str().into()
    }

    fn plural(dt: &ApiResource) -> Cow<'_, str> {
        dt.plural.as_str().into()
    }

    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use kube::core::{ObjectList, WatchEvent};

    const POD: &str = r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","uid":"u"},"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Running"}}"#;

    #[test]
    fn keeps_fields_as_sent_and_parses_metadata() {
        let o: WatchedObject = serde_json::from_str(POD).unwrap();
        assert_eq!(o.metadata.name.as_deref(), Some("p"));
        let fields: Vec<(&str, &str)> = o.fields.iter().map(|(k, v)| (k.as_str(), v.get())).collect();
        assert_eq!(
            fields,
            [
                ("spec", r#"{"containers":[{"name":"c","image":"nginx"}]}"#),
                ("status", r#"{"phase":"Running"}"#)
            ]
        );
    }

    #[test]
    fn reads_list_items_and_watch_events() {
        let list: ObjectList<WatchedObject> = serde_json::from_str(&format!(
            r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"9"}},"items":[{POD},{POD}]}}"#
        ))
        .unwrap();
        assert_eq!(list.items.len(), 2);
        let event: WatchEvent<WatchedObject> =
            serde_json::from_str(&format!(r#"{{"type":"MODIFIED","object":{POD}}}"#)).unwrap();
        assert!(matches!(event, WatchEvent::Modified(o) if o.fields.len() == 2));
    }

    #[test]
    fn metadata_is_read_whole_but_for_managed_fields() {
        let meta = r#"{"name":"p","namespace":"ns","uid":"u","resourceVersion":"7","generation":3,
            "generateName":"p-","selfLink":"/x","creationTimestamp":"2026-01-02T03:04:05Z",
            "deletionTimestamp":"2026-01-02T03:04:06Z","deletionGracePeriodSeconds":30,
            "labels":{"a":"b"},"annotations":{"c":"d"},"finalizers":["f"],
            "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"n","uid":"o","controller":true}],
            "managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}],
            "somethingNew":{"x":1}}"#;
        let o: WatchedObject = serde_json::from_str(&format!(r#"{{"metadata":{meta}}}"#)).unwrap();
        let mut whole: ObjectMeta = serde_json::from_str(meta).unwrap();
        assert!(whole.managed_fields.take().is_some_and(|m| m.len() == 1));
        assert_eq!(*o.metadata, whole);
        assert_eq!(o.metadata.owner_references.as_ref().map(Vec::len), Some(1));
        let nulls: WatchedObject =
            serde_json::from_str(r#"{"metadata":{"name":"p","labels":null}}"#).unwrap();
        assert_eq!(nulls.metadata.labels, None);
    }

    #[test]
    fn not_an_object_is_an_error() {
        assert!(serde_json::from_str::<WatchedObject>("[1]").is_err());
        assert!(serde_json::from_str::<WatchedObject>(r#"{"metadata":{},"metadata":{}}"#).is_err());
    }
}
