//! `delete -f FILE` and `delete <gvr> NAME…`: deletes from the master cluster, kubectl style
//! (`configmap "x" deleted from default namespace`), waiting for finalizers by default.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use kube::api::{Api, DeleteParams, DynamicObject};
use mc_types::ResourceInfo;

use crate::cli::DeleteArgs;
use crate::config::Settings;
use crate::master::{self, Master};

/// What to delete.
struct Target<'m> {
    info: &'m ResourceInfo,
    name: String,
    namespace: String,
    /// The manifest file, for messages.
    source: Option<String>,
}

/// Runs `delete`.
pub async fn run<E: Fn(&str) -> Option<String>>(
    settings: &Settings<E>,
    args: DeleteArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let manifests = if args.files.is_empty() { Vec::new() } else { master::read_manifests(&args.files)? };
    if args.files.is_empty() {
        match args.target.len() {
            0 => bail!("you must provide one or more resources by argument or filename (-f)"),
            1 => {
                bail!("resource(s) were provided, but no name was specified: delete {} NAME", args.target[0])
            }
            _ => {}
        }
    } else if manifests.is_empty() {
        bail!("no objects passed to delete");
    }
    let master = Master::connect(settings, &args.master).await?;
    let mut failed = false;
    let mut targets = Vec::new();
    if args.files.is_empty() {
        let info = master.resolve(&args.target[0])?;
        let namespace = args.namespace.clone().unwrap_or_else(|| master.default_namespace.clone());
        for name in &args.target[1..] {
            targets.push(Target { info, name: name.clone(), namespace: namespace.clone(), source: None });
        }
    } else {
        for manifest in &manifests {
            match super::apply::locate(&master, manifest, args.namespace.as_deref()) {
                Ok((info, name, namespace)) => {
                    targets.push(Target { info, name, namespace, source: Some(manifest.source.clone()) })
                }
                Err(message) => {
                    failed = true;
                    eprintln!("{message}");
                }
            }
        }
    }

    let mut waiting: Vec<(Api<DynamicObject>, &Target, Option<String>)> = Vec::new();
    for target in &targets {
        let api = master.api(target.info, &target.namespace);
        let params = DeleteParams::background();
        match api.delete(&target.name, &params).await {
            Ok(result) => {
                let uid = result.left().and_then(|o| o.metadata.uid);
                let place = if target.info.namespaced {
                    format!(" from {} namespace", target.namespace)
                } else {
                    String::new()
                };
                writeln!(out, "{} \"{}\" deleted{place}", master::kind_ref(target.info), target.name)?;
                out.flush()?;
                waiting.push((api, target, uid));
            }
            Err(e) if master::is_not_found(&e) && args.ignore_not_found => {}
            Err(e) => {
                failed = true;
                let mut line = master::server_error(&e);
                if let (Some(source), kube::Error::Api(status)) = (&target.source, &e) {
                    let reason = if status.reason.is_empty() {
                        status.code.to_string()
                    } else {
                        status.reason.clone()
                    };
                    line = format!(
                        "Error from server ({reason}): error when deleting \"{source}\": {}",
                        status.message
                    );
                }
                eprintln!("{line}");
            }
        }
    }
    if args.wait {
        for (api, target, uid) in waiting {
            if !gone(&api, &target.name, uid.as_deref(), args.timeout).await? {
                failed = true;
                eprintln!(
                    "error: timed out after {:?} waiting for {} \"{}\" to be deleted (finalizers: is the controller running?)",
                    args.timeout,
                    master::kind_ref(target.info),
                    target.name
                );
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Waits until the object (with this uid, if known) no longer exists.
async fn gone(api: &Api<DynamicObject>, name: &str, uid: Option<&str>, timeout: Duration) -> Result<bool> {
    let start = Instant::now();
    loop {
        match api.get_opt(name).await {
            Ok(None) => return Ok(true),
            Ok(Some(obj)) if uid.is_some() && obj.metadata.uid.as_deref() != uid => return Ok(true),
            Ok(Some(_)) => {}
            Err(e) => bail!("{}", master::server_error(&e)),
        }
        if start.elapsed() >= timeout {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
