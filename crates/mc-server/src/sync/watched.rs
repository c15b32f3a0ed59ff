//! The object type the sync lists and watches: metadata parsed, everything else kept as the JSON
//! text the API server sent.
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
    /// The object's metadata.
    pub metadata: ObjectMeta,
    /// Every other top-level field, in the order the API server sent them.
    pub fields: Vec<(String, Box<RawValue>)>,
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
                    object.metadata = map.next_value()?;
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
    fn not_an_object_is_an_error() {
        assert!(serde_json::from_str::<WatchedObject>("[1]").is_err());
        assert!(serde_json::from_str::<WatchedObject>(r#"{"metadata":{},"metadata":{}}"#).is_err());
    }
}
