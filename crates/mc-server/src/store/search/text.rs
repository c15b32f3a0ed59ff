//! What free-text search looks at in one object, as one bounded text: the name is a column of
//! its own, and `body` holds every other field a line, `TAG\tTEXT`:
//! `ns` the namespace, `l` a label `key=value`, `a` an annotation `key=value`, `i` a container
//! image (containers, init and ephemeral containers, of the object's own pod spec, a pod
//! template's, or a CronJob's job template's), `o` an owner's name.
//!
//! Only metadata and container images are read: a Secret's data (redacted as stored anyway) or a
//! ConfigMap's never is. Huge texts are bounded: kubectl's last-applied-configuration is left out,
//! an annotation's value is cut at [`MAX_VALUE`] characters, and the whole body at [`MAX_BODY`]
//! bytes (the fields after that are not searchable).

use std::collections::BTreeMap;

use serde::Deserialize;

/// Most characters of one label or annotation value, or image, kept.
pub const MAX_VALUE: usize = 256;
/// Most bytes of an object's body.
pub const MAX_BODY: usize = 4096;
/// Annotations never indexed: a copy of the whole object.
const SKIPPED_ANNOTATIONS: [&str; 1] = ["kubectl.kubernetes.io/last-applied-configuration"];

/// One searchable field of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    /// `metadata.namespace`.
    Namespace,
    /// A label, `key=value`.
    Label,
    /// An annotation, `key=value`.
    Annotation,
    /// A container image.
    Image,
    /// An owner's name.
    Owner,
}

impl Field {
    fn tag(self) -> &'static str {
        match self {
            Field::Namespace => "ns",
            Field::Label => "l",
            Field::Annotation => "a",
            Field::Image => "i",
            Field::Owner => "o",
        }
    }

    fn from_tag(tag: &str) -> Option<Self> {
        Some(match tag {
            "ns" => Field::Namespace,
            "l" => Field::Label,
            "a" => Field::Annotation,
            "i" => Field::Image,
            "o" => Field::Owner,
            _ => return None,
        })
    }
}

/// The fields of a stored body, in order.
pub fn fields(body: &str) -> impl Iterator<Item = (Field, &str)> {
    body.lines().filter_map(|line| {
        let (tag, text) = line.split_once('\t')?;
        Some((Field::from_tag(tag)?, text))
    })
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Object {
    metadata: Meta,
    spec: Option<Spec>,
    template: Option<Template>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Meta {
    namespace: Option<String>,
    labels: Option<BTreeMap<String, Option<String>>>,
    annotations: Option<BTreeMap<String, Option<String>>>,
    #[serde(rename = "ownerReferences")]
    owner_references: Option<Vec<Owner>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Owner {
    name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Spec {
    containers: Option<Vec<Container>>,
    #[serde(rename = "initContainers")]
    init_containers: Option<Vec<Container>>,
    #[serde(rename = "ephemeralContainers")]
    ephemeral_containers: Option<Vec<Container>>,
    template: Option<Template>,
    #[serde(rename = "jobTemplate")]
    job_template: Option<JobTemplate>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Template {
    spec: Option<Box<Spec>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct JobTemplate {
    spec: Option<Box<Spec>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Container {
    image: Option<String>,
}

impl Spec {
    /// Images of this pod spec, then of the templates below it (at most three levels: a
    /// CronJob's job template's pod template).
    fn images<'a>(&'a self, out: &mut Vec<&'a str>, depth: usize) {
        for list in [&self.containers, &self.init_containers, &self.ephemeral_containers] {
            for c in list.iter().flatten() {
                if let Some(image) = c.image.as_deref().filter(|i| !i.is_empty())
                    && !out.contains(&image)
                {
                    out.push(image);
                }
            }
        }
        if depth == 0 {
            return;
        }
        if let Some(spec) = self.template.as_ref().and_then(|t| t.spec.as_deref()) {
            spec.images(out, depth - 1);
        }
        if let Some(spec) = self.job_template.as_ref().and_then(|t| t.spec.as_deref()) {
            spec.images(out, depth - 1);
        }
    }
}

/// The search body of an object's JSON text; empty when it is not an object.
pub fn body_of(json: &str) -> String {
    let Ok(o) = serde_json::from_str::<Object>(json) else { return String::new() };
    let mut body = Body::default();
    if let Some(ns) = o.metadata.namespace.as_deref().filter(|n| !n.is_empty()) {
        body.line(Field::Namespace, ns, "");
    }
    for (k, v) in o.metadata.labels.iter().flatten() {
        body.line(Field::Label, k, v.as_deref().unwrap_or_default());
    }
    for (k, v) in o.metadata.annotations.iter().flatten() {
        if !SKIPPED_ANNOTATIONS.contains(&k.as_str()) {
            body.line(Field::Annotation, k, v.as_deref().unwrap_or_default());
        }
    }
    let mut images = Vec::new();
    if let Some(spec) = &o.spec {
        spec.images(&mut images, 3);
    }
    // A PodTemplate: `template.spec` at the top.
    if let Some(spec) = o.template.as_ref().and_then(|t| t.spec.as_deref()) {
        spec.images(&mut images, 0);
    }
    for image in images {
        body.line(Field::Image, image, "");
    }
    for name in o.metadata.owner_references.iter().flatten().filter_map(|r| r.name.as_deref()) {
        body.line(Field::Owner, name, "");
    }
    body.text
}

/// A body being written, bounded.
#[derive(Default)]
struct Body {
    text: String,
    full: bool,
}

impl Body {
    /// Adds `TAG\tkey` or `TAG\tkey=value` (with a value), unless the body is full.
    fn line(&mut self, field: Field, key: &str, value: &str) {
        if self.full {
            return;
        }
        let mut line = String::with_capacity(key.len() + value.len() + 4);
        line.push_str(field.tag());
        line.push('\t');
        push_clean(&mut line, key);
        if matches!(field, Field::Label | Field::Annotation) {
            line.push('=');
            push_clean(&mut line, value);
        }
        if self.text.len() + line.len() + 1 > MAX_BODY {
            self.full = true;
            return;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(&line);
    }
}

/// `s`, at most [`MAX_VALUE`] characters, control characters (line ends, tabs) as spaces.
fn push_clean(out: &mut String, s: &str) {
    out.extend(s.chars().take(MAX_VALUE).map(|c| if c.is_control() { ' ' } else { c }));
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: serde_json::Value) -> String {
        body_of(&v.to_string())
    }

    #[test]
    fn reads_metadata_and_images_of_every_pod_spec() {
        let pod = body(json!({"metadata": {"name": "web-1", "namespace": "shop",
            "labels": {"app": "web"}, "annotations": {"team": "x", "kubectl.kubernetes.io/last-applied-configuration": "{}"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d9"}]},
            "spec": {"containers": [{"image": "nginx:1.25"}, {"image": "nginx:1.25"}],
                     "initContainers": [{"image": "busybox"}], "ephemeralContainers": [{"image": "debug:1"}]}}));
        assert_eq!(pod, "ns\tshop\nl\tapp=web\na\tteam=x\ni\tnginx:1.25\ni\tbusybox\ni\tdebug:1\no\tweb-7d9");
        let cron = body(json!({"metadata": {"name": "c"}, "spec": {"jobTemplate": {"spec": {"template":
            {"spec": {"containers": [{"image": "redis:6.2"}]}}}}}}));
        assert_eq!(cron, "i\tredis:6.2");
        let deploy = body(
            json!({"metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [{"image": "app:2"}]}}}}),
        );
        assert_eq!(deploy, "i\tapp:2");
        let template = body(
            json!({"metadata": {"name": "t"}, "template": {"spec": {"containers": [{"image": "pt:1"}]}}}),
        );
        assert_eq!(template, "i\tpt:1");
    }

    #[test]
    fn never_reads_data_and_bounds_the_text() {
        let secret = body(
            json!({"metadata": {"name": "s"}, "data": {"password": "aHVudGVyMg=="}, "stringData": {"x": "y"}}),
        );
        assert_eq!(secret, "");
        let huge = "v".repeat(10_000);
        let many: serde_json::Map<String, serde_json::Value> =
            (0..100).map(|i| (format!("k{i:03}"), json!(huge.clone()))).collect();
        let b = body(json!({"metadata": {"name": "n", "annotations": many, "labels": {"multi": "a\nb\tc"}}}));
        assert!(b.len() <= MAX_BODY, "{}", b.len());
        assert!(b.starts_with("l\tmulti=a b c\na\tk000="), "{b}");
        assert!(fields(&b).all(|(_, t)| t.chars().count() <= MAX_VALUE * 2 + 1));
        assert_eq!(fields(&b).next(), Some((Field::Label, "multi=a b c")));
        assert_eq!(body_of("[1]"), "");
        assert_eq!(body_of("{\"metadata\": 3}"), "");
    }
}
