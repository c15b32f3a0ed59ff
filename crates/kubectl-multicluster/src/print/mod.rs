//! Output: tables through one column [`registry`] and one [`table`] renderer, and objects as
//! JSON, YAML or names.
//!
//! In JSON and YAML every object carries its cluster in the annotation [`CLUSTER_ANNOTATION`],
//! so the output stays a valid Kubernetes `List` that `jq`, `yq` and `kubectl` understand.

pub mod custom_columns;
pub mod delimited;
pub mod events;
/// The JSONPath subset of printer columns (shared with the server).
pub use mc_types::jsonpath;
pub mod label_columns;
pub mod not_found;
pub mod quantity;
pub mod sort;
pub mod table;
pub mod template;
/// Ages as kubectl prints them (shared with the server's Table answers).
pub use mc_types::age as time;

use std::io::{self, Write};

use mc_types::api::ListWithClusterItem;
use serde_json::{Value, json};

/// The printer registry (shared with the server's Table answers).
pub use mc_types::printers::{Ctx, TableSpec, View, cells, registry};

/// Annotation that names an object's cluster in `-o json|yaml` output.
pub use mc_types::crd::CLUSTER_ANNOTATION;

/// Writes a table of objects.
pub fn write_table(
    out: &mut dyn Write,
    spec: &TableSpec,
    items: &[ListWithClusterItem],
    ctx: &Ctx,
    wide: bool,
    headers: bool,
) -> io::Result<()> {
    let rows: Vec<Vec<String>> =
        items.iter().map(|i| spec.row(&i.cluster_name, &i.object, ctx, wide)).collect();
    write_rows(out, spec, &rows, wide, headers)
}

/// Writes rows already computed by [`TableSpec::row`] under the spec's headers.
pub fn write_rows(
    out: &mut dyn Write,
    spec: &TableSpec,
    rows: &[Vec<String>],
    wide: bool,
    headers: bool,
) -> io::Result<()> {
    let headers = headers.then(|| spec.headers(wide));
    table::write(out, headers.as_deref(), rows)
}

/// The object with its cluster in [`CLUSTER_ANNOTATION`].
pub fn with_cluster(item: &ListWithClusterItem) -> Value {
    into_annotated(item.clone())
}

/// [`with_cluster`] without a copy of the object.
pub fn into_annotated(item: ListWithClusterItem) -> Value {
    let mut obj = item.object;
    if let Some(map) = obj.as_object_mut() {
        let meta = map.entry("metadata").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            if !annotations.is_object() {
                *annotations = json!({});
            }
            if let Some(a) = annotations.as_object_mut() {
                a.insert(CLUSTER_ANNOTATION.into(), Value::String(item.cluster_name));
            }
        }
    }
    obj
}

/// `{"apiVersion": "v1", "kind": "List", "items": [...]}`, as `kubectl get -o json` prints.
pub fn list_document(items: &[ListWithClusterItem]) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "List",
        "items": items.iter().map(with_cluster).collect::<Vec<_>>(),
        "metadata": {"resourceVersion": ""},
    })
}

/// Pretty JSON with a final newline.
pub fn write_json(out: &mut dyn Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
    writeln!(out)
}

/// YAML as kubectl writes it (sorted keys, lists not indented under their key).
pub fn to_yaml(value: &Value) -> io::Result<String> {
    let options = serde_saphyr::ser_options! { indent_step: 2, compact_list_indent: true };
    serde_saphyr::to_string_with_options(value, options).map_err(|e| io::Error::other(e.to_string()))
}

/// Writes one YAML document.
pub fn write_yaml(out: &mut dyn Write, value: &Value) -> io::Result<()> {
    let text = to_yaml(value)?;
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        writeln!(out)?;
    }
    Ok(())
}

/// `cluster/kind.group/name` (`tencent1/pod/web-0`, `tencent1/deployment.apps/web`).
pub fn object_ref(cluster: &str, obj: &Value) -> String {
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default().to_ascii_lowercase();
    let group = obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.rsplit_once('/'))
        .map(|(g, _)| g)
        .unwrap_or_default();
    let name = obj.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    if group.is_empty() {
        format!("{cluster}/{kind}/{name}")
    } else {
        format!("{cluster}/{kind}.{group}/{name}")
    }
}

/// `-o name`: one reference per line: `CLUSTER/KIND[.GROUP]/NAME`, or with `one_cluster` (the
/// cluster was named) kubectl's own `KIND[.GROUP]/NAME`, which kubectl takes back
/// (`kubectl --context multicluster-NAME get pod/web-0`).
pub fn write_names(out: &mut dyn Write, items: &[ListWithClusterItem], one_cluster: bool) -> io::Result<()> {
    for item in items {
        let reference = object_ref(&item.cluster_name, &item.object);
        let shown = if one_cluster {
            reference.split_once('/').map_or(reference.as_str(), |(_, rest)| rest)
        } else {
            &reference
        };
        writeln!(out, "{shown}")?;
    }
    Ok(())
}

/// `describe`: one YAML document per object, headed by its cluster.
pub fn write_described(out: &mut dyn Write, items: &[ListWithClusterItem]) -> io::Result<()> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            writeln!(out, "---")?;
        }
        writeln!(out, "# cluster: {}", item.cluster_name)?;
        write_yaml(out, &item.object)?;
    }
    Ok(())
}

/// `No resources found.` / `No resources found in NS namespace.`, as kubectl says it.
pub fn nothing_found(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No resources found in {ns} namespace."),
        None => "No resources found.".into(),
    }
}
