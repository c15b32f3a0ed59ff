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

/// Field manager of every apply, as the dispatch controller uses (SPEC §7).
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

/// Applies one object; the line to print, or the error line.
async fn apply_one(
    master: &Master,
    manifest: &Manifest,
    namespace_flag: Option<&str>,
) -> Result<String, String> {
    let Manifest { source, object } = manifest;
    let (info, name, namespace) = locate(master, manifest, namespace_flag)?;
    let mut object = object.clone();
    if info.namespaced {
        if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("namespace".into(), Value::String(namespace.clone()));
        }
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
        Some(b) if b.metadata.resource_version == after.metadata.resource_version => "unchanged",
        Some(_) => "configured",
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
    if let (Some(flag), false) = (namespace_flag, from_object.is_empty()) {
        if flag != from_object && info.namespaced {
            return Err(format!(
                "error: the namespace from the provided object \"{from_object}\" does not match the namespace \"{flag}\". You must pass '--namespace={from_object}' to perform this operation."
            ));
        }
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
