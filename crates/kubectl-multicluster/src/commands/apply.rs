//! `apply -f`: server-side apply of manifests to the master cluster, reported as kubectl does
//! (`multiclusterresource.mulitcluster.practice.com/mypod.pod created|configured|unchanged`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use kube::api::{Patch, PatchParams};
use serde_json::Value;

use crate::cli::ApplyArgs;
use crate::config::Settings;
use crate::master::{self, Manifest, Master};

/// Field manager of every apply, as the dispatch controller uses.
pub const FIELD_MANAGER: &str = "kubectl-multicluster";

/// Runs `apply`. Objects are applied in order; a failure is reported and the others still go.
pub async fn run<E: Fn(&str) -> Option<String>>(
    settings: &Settings<E>,
    args: ApplyArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let manifests = master::read_manifests(&args.files)?;
    if manifests.is_empty() {
        anyhow::bail!("no objects passed to apply");
    }
    // Nothing of a file is applied when one of its objects was read back redacted.
    if let Some(reason) = manifests.iter().find_map(redacted) {
        anyhow::bail!(reason);
    }
    let master = Master::connect(settings, &args.master).await?;
    let mut failed = false;
    for manifest in manifests {
        match apply_one(&master, &manifest, args.namespace.as_deref()).await {
            Ok(line) => {
                writeln!(out, "{line}")?;
                out.flush()?;
            }
            Err(message) => {
                failed = true;
                eprintln!("{message}");
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Why an object must not be applied: it (or a MultiClusterResource's template) was read from
/// mc-server with its secret values replaced, and applying it would overwrite the real ones.
/// Known by the redacted annotation, or, where that was removed, by a Secret value that is the
/// redacted one (a redacted `data` value is valid base64: the API server would take it).
pub fn redacted(manifest: &Manifest) -> Option<String> {
    use mc_types::crd::{REDACTED_ANNOTATION, REDACTED_DATA, REDACTED_VALUE};
    let marked = |o: &Value| {
        o.pointer("/metadata/annotations").and_then(|a| a.get(REDACTED_ANNOTATION)).and_then(Value::as_str)
            == Some("true")
    };
    let holds = |o: &Value, field: &str, redacted: &str| {
        o.get(field)
            .and_then(Value::as_object)
            .is_some_and(|values| values.values().any(|v| v.as_str() == Some(redacted)))
    };
    let secret_values = |o: &Value| {
        o["kind"] == "Secret" && (holds(o, "data", REDACTED_DATA) || holds(o, "stringData", REDACTED_VALUE))
    };
    let object = &manifest.object;
    let template = object.pointer("/spec/template");
    if !marked(object) && !secret_values(object) && !template.is_some_and(|t| marked(t) || secret_values(t)) {
        return None;
    }
    let kind = object["kind"].as_str().unwrap_or("object");
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?");
    let name = match object.pointer("/metadata/namespace").and_then(Value::as_str) {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    };
    Some(format!(
        "{kind} {name} in {} was read from mc-server with its secret values redacted (\"{REDACTED_VALUE}\", in data \"{REDACTED_DATA}\"); applying it would overwrite the real values — edit the original manifest instead",
        manifest.source,
    ))
}

/// Applies one object; the line to print, or the error line.
async fn apply_one(
    master: &Master,
    manifest: &Manifest,
    namespace_flag: Option<&str>,
) -> Result<String, String> {
    let Manifest { source, object } = manifest;
    let (info, name, namespace) = locate(master, manifest, namespace_flag)?;
    let mut object = object.clone();
    if info.namespaced
        && let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut)
    {
        meta.insert("namespace".into(), Value::String(namespace.clone()));
    }
    let api = master.api(info, &namespace);
    let before =
        api.get_opt(&name).await.map_err(|e| when(&e, "retrieving current configuration of", source))?;
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let after = api
        .patch(&name, &params, &Patch::Apply(&object))
        .await
        .map_err(|e| when(&e, if before.is_some() { "patching" } else { "creating" }, source))?;
    let verb = match before {
        None => "created",
        Some(before) => {
            let before = serde_json::to_value(&before).unwrap_or_default();
            let after = serde_json::to_value(&after).unwrap_or_default();
            // Controllers write status (and bump resourceVersion) all the time, so compare what
            // the manifest says and what the apply itself changed, not versions.
            if is_subset(&object, &before) && stable(&before) == stable(&after) {
                "unchanged"
            } else {
                "configured"
            }
        }
    };
    Ok(format!("{}/{name} {verb}", master::kind_ref(info)))
}

/// The resource type, name and namespace of a manifest, or kubectl's error line.
pub fn locate<'m>(
    master: &'m Master,
    manifest: &Manifest,
    namespace_flag: Option<&str>,
) -> Result<(&'m mc_types::ResourceInfo, String, String), String> {
    let Manifest { source, object } = manifest;
    let field = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind, name) = (field("/apiVersion"), field("/kind"), field("/metadata/name"));
    if api_version.is_empty() || kind.is_empty() {
        return Err(format!("error: error validating \"{source}\": apiVersion and kind must be set"));
    }
    if name.is_empty() {
        return Err(format!("error: error validating \"{source}\": {kind} has no metadata.name"));
    }
    let Some(info) = master.for_kind(api_version, kind) else {
        return Err(format!(
            "error: resource mapping not found for name: \"{name}\" namespace: \"{}\" from \"{source}\": no matches for kind \"{kind}\" in version \"{api_version}\"\nensure CRDs are installed first",
            field("/metadata/namespace")
        ));
    };
    let from_object = field("/metadata/namespace");
    if let Some(flag) = namespace_flag
        && !from_object.is_empty()
        && flag != from_object
        && info.namespaced
    {
        return Err(format!(
            "error: the namespace from the provided object \"{from_object}\" does not match the namespace \"{flag}\". You must pass '--namespace={from_object}' to perform this operation."
        ));
    }
    let namespace = if !from_object.is_empty() {
        from_object.to_owned()
    } else {
        namespace_flag.map_or_else(|| master.default_namespace.clone(), str::to_owned)
    };
    Ok((info, name.to_owned(), namespace))
}

/// `Error from server (Reason): error when creating "file": message`.
fn when(err: &kube::Error, action: &str, source: &str) -> String {
    match err {
        kube::Error::Api(status) => {
            let reason =
                if status.reason.is_empty() { status.code.to_string() } else { status.reason.clone() };
            format!("Error from server ({reason}): error when {action} \"{source}\": {}", status.message)
        }
        other => format!(
            "error: when {action} \"{source}\": {}",
            master::server_error(other).trim_start_matches("error: ")
        ),
    }
}

/// Whether every field of `wanted` has the same value in `actual` (objects may have more keys).
fn is_subset(wanted: &Value, actual: &Value) -> bool {
    match (wanted, actual) {
        (Value::Object(w), Value::Object(a)) => {
            w.iter().all(|(k, v)| a.get(k).is_some_and(|av| is_subset(v, av)))
        }
        (Value::Array(w), Value::Array(a)) => {
            w.len() == a.len() && w.iter().zip(a).all(|(w, a)| is_subset(w, a))
        }
        (Value::Number(w), Value::Number(a)) => w.as_f64() == a.as_f64(),
        _ => wanted == actual,
    }
}

/// The object without what changes on every write or belongs to controllers.
fn stable(obj: &Value) -> Value {
    let mut obj = obj.clone();
    if let Some(map) = obj.as_object_mut() {
        map.remove("status");
        if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            // Finalizers are the dispatch controller's: it adds its own right after a create,
            // and may do so between the read and the apply (that read as `configured`).
            for volatile in ["resourceVersion", "managedFields", "generation", "finalizers"] {
                meta.remove(volatile);
            }
        }
    }
    obj
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_read_back_redacted_are_refused() {
        let manifest = |object: Value| Manifest { source: "s.yaml".into(), object };
        let secret = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "namespace": "ns", "annotations": {"mulitcluster.practice.com/redacted": "true"}},
            "data": {"password": "PHJlZGFjdGVkPg=="}});
        let reason = redacted(&manifest(secret)).unwrap();
        assert!(
            reason.starts_with(
                "Secret ns/db in s.yaml was read from mc-server with its secret values redacted"
            ),
            "{reason}"
        );
        let mcr = json!({"kind": "MultiClusterResource", "metadata": {"name": "m"},
            "spec": {"template": {"kind": "Secret", "metadata": {"annotations": {"mulitcluster.practice.com/redacted": "true"}}}}});
        assert!(redacted(&manifest(mcr)).is_some());
        let plain = json!({"kind": "Secret", "metadata": {"name": "db"}, "stringData": {"password": "x"}});
        assert!(redacted(&manifest(plain)).is_none());
        // Without the annotation, the redacted values themselves give it away.
        let unmarked = json!({"kind": "Secret", "metadata": {"name": "db"}, "data": {"a": "eA==", "b": "PHJlZGFjdGVkPg=="}});
        assert!(redacted(&manifest(unmarked)).is_some());
        let unmarked =
            json!({"kind": "Secret", "metadata": {"name": "db"}, "stringData": {"a": "<redacted>"}});
        assert!(redacted(&manifest(unmarked)).is_some());
        let template = json!({"kind": "MultiClusterResource", "metadata": {"name": "m"},
            "spec": {"template": {"kind": "Secret", "data": {"a": "PHJlZGFjdGVkPg=="}}}});
        assert!(redacted(&manifest(template)).is_some());
        let config_map = json!({"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "<redacted>"}});
        assert!(redacted(&manifest(config_map)).is_none(), "only Secret values are redacted");
    }

    #[test]
    fn a_manifest_is_a_subset_of_the_object_the_server_filled_in() {
        let manifest =
            json!({"kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}, "n": [1, {"x": 2}]});
        let live = json!({"kind": "ConfigMap", "metadata": {"name": "a", "uid": "u"}, "data": {"k": "v"}, "n": [1.0, {"x": 2, "y": 3}]});
        assert!(is_subset(&manifest, &live));
        assert!(!is_subset(&json!({"data": {"k": "w"}}), &live));
        assert!(!is_subset(&json!({"n": [1]}), &live));
        assert!(!is_subset(&json!({"missing": null}), &live));
    }

    #[test]
    fn status_and_versions_do_not_count_as_changes() {
        let a = json!({"metadata": {"name": "a", "resourceVersion": "1", "managedFields": []}, "status": {"x": 1}});
        let b = json!({"metadata": {"name": "a", "resourceVersion": "2"}, "status": {"x": 2}});
        assert_eq!(stable(&a), stable(&b));
        assert_ne!(stable(&a), stable(&json!({"metadata": {"name": "a", "labels": {"l": "v"}}})));
    }
}
