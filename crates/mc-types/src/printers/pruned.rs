//! Objects parsed for printing only: the subtrees no built-in printer column reads (a pod's
//! volumes, probes, environment, …) are skipped while parsing instead of being built and
//! dropped.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Keys no cell function reads in a pod spec (`spec`, `spec.template.spec`, …).
const SPEC_SKIPPED: &[&str] = &[
    "volumes",
    "tolerations",
    "affinity",
    "securityContext",
    "dnsConfig",
    "hostAliases",
    "topologySpreadConstraints",
];

/// Keys no cell function reads in a container.
const CONTAINER_SKIPPED: &[&str] = &[
    "env",
    "envFrom",
    "volumeMounts",
    "volumeDevices",
    "securityContext",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "command",
    "args",
    "resizePolicy",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
];

/// Parses `text` like `serde_json::from_str::<Value>`, without the subtrees no built-in printer
/// reads: `metadata.managedFields`, and in `spec` (also a template's) the [`SPEC_SKIPPED`] keys
/// and the containers' [`CONTAINER_SKIPPED`] keys. Only structural keys are skipped, never keys
/// of user maps (labels, selectors, data). Custom resources are parsed whole: their printer
/// columns may read anything.
pub fn parse(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Pruned(Place::Object).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Where in the object a value is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The object, or a template (`metadata` + `spec`).
    Object,
    /// `metadata`.
    Metadata,
    /// A `spec`.
    Spec,
    /// A list of containers.
    Containers,
    /// One container.
    Container,
    /// Anything else: nothing is skipped below it.
    Other,
}

impl Place {
    /// The place of the value under `key` of a map here, or `None` when it is skipped.
    fn child(self, key: &str) -> Option<Place> {
        match (self, key) {
            (Place::Object, "metadata") => Some(Place::Metadata),
            (Place::Object, "spec") => Some(Place::Spec),
            (Place::Metadata, "managedFields") => None,
            (Place::Spec, k) if SPEC_SKIPPED.contains(&k) => None,
            (Place::Spec, "containers" | "initContainers" | "ephemeralContainers") => Some(Place::Containers),
            (Place::Spec, "template" | "jobTemplate") => Some(Place::Object),
            (Place::Container, k) if CONTAINER_SKIPPED.contains(&k) => None,
            _ => Some(Place::Other),
        }
    }

    /// The place of the items of a list here.
    fn item(self) -> Place {
        if self == Place::Containers { Place::Container } else { Place::Other }
    }
}

#[derive(Clone, Copy)]
struct Pruned(Place);

impl<'de> DeserializeSeed<'de> for Pruned {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Pruned {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Pruned(self.0.item()))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match self.0.child(&key) {
                Some(place) => {
                    let value = map.next_value_seed(Pruned(place))?;
                    out.insert(key, value);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn skipped_subtrees_are_left_out_and_the_rest_is_as_parsed() {
        let pod = json!({"metadata": {"name": "a", "managedFields": [{}], "labels": {"x": "y"}},
                         "spec": {"volumes": [{"name": "v"}], "containers": [{"name": "c", "image": "i", "env": [{"name": "E"}], "args": ["-v"]}]},
                         "selector": {"matchLabels": {"env": "prod", "volumes": "x"}},
                         "status": {"phase": "Running", "podIP": "10.0.0.1", "ratio": 0.5, "n": -3, "ok": true, "none": null}});
        let pruned = parse(&pod.to_string()).unwrap();
        let mut want = pod.clone();
        want["metadata"].as_object_mut().unwrap().remove("managedFields");
        want["spec"].as_object_mut().unwrap().remove("volumes");
        for key in ["env", "args"] {
            want["spec"]["containers"][0].as_object_mut().unwrap().remove(key);
        }
        assert_eq!(pruned, want);
        assert!(parse("{\"a\": 1} x").is_err(), "trailing text is an error, as from_str");
        assert_eq!(parse("\"a\\\"b\"").unwrap(), json!("a\"b"), "escaped strings");
    }
}
