//! `list deploy,svc,cm` and `list all`: several types in one answer, as kubectl prints them: one
//! table per type, a blank line between, names as `deployment.apps/web`; one List of every
//! object for `-o json|yaml`.
//!
//! `all` is the types whose discovery puts them in the category `all` (pods, services,
//! deployments, …), from the server's `/v1/resources`; a server whose discovery data carries no
//! categories (an earlier mc-server, the Go project's) gets kubectl's list of them.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use mc_types::gvr::GvrError;
use mc_types::{ResourceCatalog, ResourceInfo};

use super::list_kind::{Kind, cutoff, write_objects, write_rows};
use super::listed::{Limit, Listed};
use super::printing::{Format, Printing};
use crate::cli::ListArgs;
use crate::client::Client;
use crate::go_server::Resolver;
use crate::master::kind_ref;
use crate::print::{self, not_found};

/// The category `kubectl get all` lists.
const ALL: &str = "all";

/// Whether RESOURCE names several types (`a,b`) or a category (`all`).
pub fn several(resource: &str) -> bool {
    resource.contains(',') || resource.trim() == ALL
}

/// The types RESOURCE names, resolved through the discovery data, in the order given (a type
/// named twice once), `all` expanded in discovery order. An unknown type is kubectl's error.
pub fn resolve(resource: &str, catalog: &ResourceCatalog) -> Result<Vec<ResourceInfo>> {
    let mut types: Vec<ResourceInfo> = Vec::new();
    let mut add = |info: &ResourceInfo| {
        if !types.iter().any(|t| t.gvr() == info.gvr()) {
            types.push(info.clone());
        }
    };
    for name in resource.split(',').map(str::trim) {
        if name == ALL {
            let in_category: Vec<&ResourceInfo> = catalog.iter().filter(|t| t.in_category(ALL)).collect();
            if in_category.is_empty() && !catalog.iter().any(|t| !t.categories.is_empty()) {
                // Discovery data without categories: kubectl's own list.
                let builtin = crate::builtin_types::catalog();
                for t in builtin.iter().filter(|t| t.in_category(ALL)) {
                    if let Some(info) = catalog.get(&t.gvr()) {
                        add(info);
                    }
                }
            }
            in_category.into_iter().for_each(&mut add);
            continue;
        }
        match catalog.resolve_str(name) {
            Ok(info) => add(info),
            // Several types match: which ones, and how to name one.
            Err(e @ GvrError::Ambiguous { .. }) => return Err(e.into()),
            Err(_) => bail!("the server doesn't have a resource type \"{name}\""),
        }
    }
    Ok(types)
}

/// The requests of several types, each with its type: one per type, or — objects from our
/// server, which takes several types in one request (`gvr=a,b`), when neither a NAME nor
/// `--sort-by` asks for each type's answer on its own — one for all, its objects in the order of
/// the types.
fn requests<'a>(
    types: &'a [ResourceInfo],
    ours: bool,
    args: &ListArgs,
    printing: &Printing,
) -> Vec<(String, Option<&'a ResourceInfo>)> {
    let objects = !matches!(printing.format, Format::Table { .. });
    if ours && objects && args.name().is_none() && printing.sort_by.is_none() {
        let all: Vec<String> = types.iter().map(|t| t.gvr().to_string()).collect();
        return vec![(all.join(","), None)];
    }
    types.iter().map(|t| (t.gvr().to_string(), Some(t))).collect()
}

/// Runs `list` of several types.
pub async fn run(
    client: &Client,
    resolver: &dyn Fn() -> Resolver,
    args: &ListArgs,
    printing: &Printing,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let resources = client.resources().await?;
    // The Go project's server has no discovery: the built-in types stand in.
    let catalog = ResourceCatalog::new(resources.clone().unwrap_or_else(crate::builtin_types::builtin_types));
    let types = resolve(&args.resource, &catalog)?;
    if args.watch {
        bail!(
            "watch is only supported on individual resources and resource collections, but {} resources were found",
            types.len()
        );
    }
    let kind = Kind { client, args, printing, cutoff: cutoff(args) };
    let mut limit = Limit::new(args.limit);
    let mut code = ExitCode::SUCCESS;
    let mut objects = Vec::new();
    let mut printed_tables = 0;
    for (gvr, info) in requests(&types, resources.is_some(), args, printing) {
        if limit.cut {
            break;
        }
        let (mut listed, _) = kind.fetch(resolver(), &gvr, Some(resources.clone()), &limit).await?;
        if listed.is_empty() {
            if let (Some(name), Some(info)) = (args.name(), info) {
                let resource = not_found::resource_name(&gvr, Some(std::slice::from_ref(info)));
                eprintln!("{}", not_found::message(&resource, name));
                code = ExitCode::FAILURE;
            }
            continue;
        }
        limit.apply(&mut listed);
        match listed {
            Listed::Rows(mut rows) => {
                let Some(info) = info else { continue };
                if printed_tables > 0 {
                    writeln!(out)?;
                }
                rows.prefix_names(&kind_ref(info));
                write_rows(out, printing, args, &rows)?;
                printed_tables += 1;
            }
            Listed::Objects(items) => objects.extend(items),
        }
    }
    let lists = matches!(printing.format, Format::Json | Format::Yaml | Format::Template(_));
    if !objects.is_empty() || lists {
        write_objects(out, printing, args, &objects, false)?;
    } else if printed_tables == 0 && code == ExitCode::SUCCESS {
        eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
    }
    if let Some(note) = limit.note() {
        eprintln!("{note}");
    }
    Ok(code)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn info(group: &str, resource: &str, kind: &str, short: &[&str], categories: &[&str]) -> ResourceInfo {
        ResourceInfo {
            group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            singular: kind.to_ascii_lowercase(),
            kind: kind.into(),
            short_names: short.iter().map(|s| s.to_string()).collect(),
            namespaced: true,
            verbs: vec!["list".into(), "watch".into()],
            categories: categories.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn catalog(with_categories: bool) -> ResourceCatalog {
        let all: &[&str] = if with_categories { &["all"] } else { &[] };
        ResourceCatalog::new(vec![
            info("", "configmaps", "ConfigMap", &["cm"], &[]),
            info("", "pods", "Pod", &["po"], all),
            info("", "services", "Service", &["svc"], all),
            info("apps", "deployments", "Deployment", &["deploy"], all),
            info(
                "example.com",
                "widgets",
                "Widget",
                &[],
                if with_categories { &["all", "toys"] } else { &[] },
            ),
        ])
    }

    fn names(resource: &str, catalog: &ResourceCatalog) -> Vec<String> {
        resolve(resource, catalog).unwrap().iter().map(|t| t.gvr().to_string()).collect()
    }

    #[test]
    fn several_types_resolve_in_the_order_given_each_once() {
        assert!(several("deploy,svc") && several("all") && !several("pods") && !several("allx"));
        assert_eq!(
            names("deploy,svc,cm,deployments.apps", &catalog(true)),
            ["apps/v1/deployments", "v1/services", "v1/configmaps"]
        );
    }

    #[test]
    fn all_is_the_types_whose_discovery_puts_them_in_the_category_all() {
        assert_eq!(
            names("all", &catalog(true)),
            ["v1/pods", "v1/services", "apps/v1/deployments", "example.com/v1/widgets"]
        );
        assert_eq!(names("cm,all", &catalog(true))[0], "v1/configmaps");
        // Without any categories in the discovery data: kubectl's list, of the types there are.
        assert_eq!(names("all", &catalog(false)), ["v1/pods", "v1/services", "apps/v1/deployments"]);
    }

    #[test]
    fn an_unknown_type_among_several_is_kubectls_error() {
        let err = resolve("deploy,nope,svc", &catalog(true)).unwrap_err();
        assert_eq!(err.to_string(), "the server doesn't have a resource type \"nope\"");
        let err = resolve("pods,", &catalog(true)).unwrap_err();
        assert_eq!(err.to_string(), "the server doesn't have a resource type \"\"");
    }
}
