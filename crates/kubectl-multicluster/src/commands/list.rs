//! `list <gvr>`: objects of one type in every cluster, as a table, JSON, YAML or names.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use mc_types::api::ListWithClusterItem;
use mc_types::{ResourceCatalog, ResourceInfo};
use serde_json::Value;
use tracing::debug;

use crate::cli::{ListArgs, OutputFormat};
use crate::client::{Client, ListQuery, RawListItem};
use crate::original::Listing;
use crate::print::{self, Ctx, TableSpec};
use crate::resolve::{self, Resolver};

/// Groups whose types are all built in (never CRDs), so no CRD lookup is needed for them.
const BUILTIN_GROUPS: &[&str] =
    &["", "apps", "batch", "autoscaling", "policy", "networking.k8s.io", "rbac.authorization.k8s.io"];

/// Runs `list`. The type goes to the server as typed (explicit forms canonical); only a server
/// without `/v1/resources` — the original — gets it resolved here.
pub async fn run(
    client: &Client,
    resolver: Resolver,
    args: ListArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    if args.resource == "clusters" {
        return super::clusters::run(client, &args, out).await;
    }
    let query = query(&args);
    if args.watch {
        return super::watch::run(client, &args, &query, out).await;
    }
    let (first, resources) = tokio::join!(client.list_pages(&query), client.resources());
    let listing = Listing::settle(client, &query, first, resources, resolver).await?;
    let raw = listing.items()?;
    // Like kubectl: an empty JSON/YAML list is still a list; tables and names say so on stderr.
    let structured = matches!(args.output, Some(OutputFormat::Json | OutputFormat::Yaml));
    if raw.is_empty() && !structured {
        eprintln!("{}", print::nothing_found(args.filters.namespace.as_deref()));
        return Ok(ExitCode::SUCCESS);
    }
    let parsed = || raw.iter().map(parse).collect::<Result<Vec<_>>>();
    match args.output {
        Some(OutputFormat::Json) => print::write_json(out, &print::list_document(&parsed()?))?,
        Some(OutputFormat::Yaml) => print::write_yaml(out, &print::list_document(&parsed()?))?,
        Some(OutputFormat::Name) => print::write_names(out, &parsed()?)?,
        None | Some(OutputFormat::Wide) => {
            let sample = raw.first().map(parse).transpose()?;
            let spec = table_spec(client, &args.resource, listing.resources.clone(), sample.as_ref()).await;
            let (ctx, wide) = (Ctx::now(), args.output == Some(OutputFormat::Wide));
            // One object parsed at a time: memory stays near the size of the response.
            let rows = raw
                .iter()
                .map(|item| parse(item).map(|i| spec.row(&i.cluster_name, &i.object, &ctx, wide)))
                .collect::<Result<Vec<_>>>()?;
            print::write_rows(out, &spec, &rows, wide, !args.no_headers)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// An item with its object parsed.
pub(crate) fn parse(item: &RawListItem<'_>) -> Result<ListWithClusterItem> {
    let object = serde_json::from_str(item.object.get())?;
    Ok(ListWithClusterItem { cluster_name: item.cluster_name.clone().into_owned(), object })
}

/// The server query for `list` arguments.
pub fn query(args: &ListArgs) -> ListQuery {
    ListQuery {
        gvr: resolve::canonical(&args.resource).into_owned(),
        cluster: args.filters.cluster.clone(),
        namespace: args.filters.namespace.clone(),
        name: args.name().map(str::to_owned),
        label_selector: args.filters.selector.clone(),
        field_selector: args.filters.field_selector.clone(),
        limit: args.limit,
    }
}

/// How a type prints: built-in table, CRD printer columns, or the generic table. The type is
/// resolved through the server's discovery data; without it, from an object's own
/// `apiVersion`/`kind`.
pub async fn table_spec(
    client: &Client,
    typed: &str,
    resources: Option<Vec<ResourceInfo>>,
    sample: Option<&ListWithClusterItem>,
) -> TableSpec {
    let info = resources.and_then(|r| ResourceCatalog::new(r).resolve_str(typed).ok().cloned());
    let (group, version, kind, namespaced) = match (&info, sample.map(|s| &s.object)) {
        (Some(i), _) => (i.group.clone(), i.version.clone(), i.kind.clone(), i.namespaced),
        (None, Some(obj)) => {
            let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
            let namespaced =
                obj.pointer("/metadata/namespace").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
            (group.to_owned(), version.to_owned(), kind.to_owned(), namespaced)
        }
        (None, None) => return TableSpec::generic(true),
    };
    if let Some(spec) = TableSpec::builtin(&group, &kind, namespaced) {
        return spec;
    }
    let crd = match info.filter(|i| !BUILTIN_GROUPS.contains(&i.group.as_str())) {
        Some(info) => crd(client, &format!("{}.{}", info.resource, info.group)).await,
        None => None,
    };
    TableSpec::resolve(&group, &kind, &version, namespaced, crd.as_ref())
}

/// The stored CustomResourceDefinition of that name, from any cluster.
async fn crd(client: &Client, name: &str) -> Option<Value> {
    let query = ListQuery {
        name: Some(name.to_owned()),
        ..ListQuery::all("apiextensions.k8s.io/v1/customresourcedefinitions")
    };
    match client.list(&query).await {
        Ok(crds) => crds.into_iter().next().map(|c| c.object),
        Err(e) => {
            debug!(crd = %name, error = %e, "no printer columns");
            None
        }
    }
}
