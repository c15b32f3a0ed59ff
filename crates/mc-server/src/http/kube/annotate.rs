//! The cluster an object came from, put into its [`CLUSTER_ANNOTATION`] as it is served.

use mc_types::crd::CLUSTER_ANNOTATION;
use serde_json::{Value, json};

use crate::store::RawObject;

/// The stored object with its cluster in [`CLUSTER_ANNOTATION`].
pub(crate) fn annotated(cluster: &str, object: &RawObject) -> Value {
    let mut value = object.value();
    annotate(cluster, &mut value);
    value
}

/// Puts the cluster into an object's [`CLUSTER_ANNOTATION`].
pub(crate) fn annotate(cluster: &str, object: &mut Value) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
        if let Some(map) = annotations.as_object_mut() {
            map.insert(CLUSTER_ANNOTATION.into(), cluster.into());
        }
    }
}
