//! One type's listing for `list`: asked as Table rows or as objects, filtered by
//! `--created-since`, sorted by `--sort-by`, and how it is written.

use std::io::Write;

use anyhow::Result;
use mc_types::ResourceInfo;
use mc_types::api::ListWithClusterItem;

use super::list_table::{self, TableAsk};
use super::listed::{Limit, Listed, Rows};
use super::printing::{Format, Layout, Printing};
use super::table_spec::table_spec;
use crate::cli::ListArgs;
use crate::client::{self, Client, ListQuery, RawListItem};
use crate::created_since::Cutoff;
use crate::go_server::{Listing, Resolver};
use crate::print::sort::SortBy;
use crate::print::{self, Ctx, View};

/// The `--created-since` cutoff, from now.
pub(crate) fn cutoff(args: &ListArgs) -> Option<Cutoff> {
    args.created_since.map(|c| c.cutoff(jiff::Timestamp::now()))
}

/// Writes printed columns in the layout of `-o`.
pub(crate) fn write_rows(
    out: &mut dyn Write,
    printing: &Printing,
    args: &ListArgs,
    rows: &Rows,
) -> Result<()> {
    let headers = (!args.no_headers && !rows.headers.is_empty()).then_some(rows.headers.as_slice());
    printing.layout().unwrap_or(Layout::Aligned).write(out, headers, &rows.rows)?;
    Ok(())
}

/// Writes objects as `-o json|yaml|name|jsonpath|custom-columns` asks; `named` (a NAME was
/// given): one object found prints as that object, not as a List, as kubectl does.
pub(crate) fn write_objects(
    out: &mut dyn Write,
    printing: &Printing,
    args: &ListArgs,
    items: &[ListWithClusterItem],
    named: bool,
) -> Result<()> {
    let document = || match items {
        [one] if named => print::with_cluster(one),
        _ => print::list_document(items),
    };
    match &printing.format {
        Format::Json => print::write_json(out, &document())?,
        Format::Yaml => print::write_yaml(out, &document())?,
        Format::Name => print::write_names(out, items, args.filters.clusters.len() == 1)?,
        // kubectl ends a template's output with nothing of its own.
        Format::Template(template) => out.write_all(template.render(&document()).as_bytes())?,
        Format::Columns(columns) => {
            let rows: Vec<Vec<String>> =
                items.iter().map(|i| columns.row(&print::into_annotated(i.clone()))).collect();
            let headers = (!args.no_headers).then(|| columns.headers());
            print::table::write(out, headers.as_deref(), &rows)?;
        }
        // Printed columns are `Listed::Rows`.
        Format::Table { .. } => {}
    }
    Ok(())
}

/// What listing one type needs.
pub(crate) struct Kind<'a> {
    pub(crate) client: &'a Client,
    pub(crate) args: &'a ListArgs,
    pub(crate) printing: &'a Printing,
    pub(crate) cutoff: Option<Cutoff>,
}

impl Kind<'_> {
    /// How many objects of a type to ask the server for: `--limit` (plus one) only when the
    /// server's order and set are the printed ones, else all (cut here).
    fn server_limit(&self, limit: &Limit) -> Option<u64> {
        if self.printing.sort_by.is_some() || self.cutoff.is_some() { None } else { limit.ask() }
    }

    /// One type's answer, sorted and filtered, with the discovery data it was resolved with.
    /// `resources`: the server's discovery data when already asked for.
    pub(crate) async fn fetch(
        &self,
        resolver: Resolver,
        kind: &str,
        resources: Option<Option<Vec<ResourceInfo>>>,
        limit: &Limit,
    ) -> Result<(Listed, Option<Vec<ResourceInfo>>)> {
        let (client, args, printing) = (self.client, self.args, self.printing);
        let server_limit = self.server_limit(limit);
        let mut query = query(args, kind);
        query.limit = server_limit;
        // Printed columns come as Table rows (types are resolved first); anything else, or a
        // server that cannot answer them, lists objects (asking for types at the same time).
        // What an owner owns is answered as objects only (`/v1/list_with_cluster?owner=`).
        let path_sort = printing.sort_by.as_ref().and_then(SortBy::path).is_some() || args.owner.is_some();
        let (first, resources) = match (&printing.format, resources) {
            (Format::Table { wide, .. }, resources) if !path_sort => {
                let resources = match resources {
                    Some(known) => known,
                    None => client.resources().await?,
                };
                let ask = TableAsk {
                    args,
                    kind,
                    labels: &printing.labels,
                    wide: *wide,
                    cutoff: self.cutoff,
                    limit: server_limit,
                };
                if let Some(mut rows) = list_table::rows(client, &ask, resources.as_deref()).await? {
                    sort_rows(printing, &mut rows)?;
                    return Ok((Listed::Rows(rows), resources));
                }
                (client.list_pages(&query).await, Ok(resources))
            }
            (_, Some(known)) => (client.list_pages(&query).await, Ok(known)),
            (_, None) => tokio::join!(client.list_pages(&query), client.resources()),
        };
        let mut listing = Listing::settle(client, &query, first, resources, resolver).await?;
        listing.add_clusters(client, &query, args.filters.clusters.get(1..).unwrap_or_default()).await?;
        let mut raw = listing.items()?;
        if let Some(cutoff) = self.cutoff {
            let mut kept = Vec::with_capacity(raw.len());
            for item in raw {
                if cutoff.admits(&parse(&item)?.object) {
                    kept.push(item);
                }
            }
            raw = kept;
        }
        if let Some(sort_by) = printing.sort_by.as_ref().filter(|s| s.path().is_some()) {
            let mut keyed = raw
                .into_iter()
                .map(|item| Ok((sort_by.key(&print::into_annotated(parse(&item)?)), item)))
                .collect::<Result<Vec<_>>>()?;
            SortBy::sort(&mut keyed);
            raw = keyed.into_iter().map(|(_, item)| item).collect();
        }
        let Format::Table { wide, .. } = printing.format else {
            let items = raw.iter().map(parse).collect::<Result<Vec<_>>>()?;
            return Ok((Listed::Objects(items), listing.resources));
        };
        if raw.is_empty() {
            return Ok((Listed::Rows(Rows::default()), listing.resources));
        }
        let sample = raw.first().map(parse).transpose()?;
        let spec = table_spec(client, kind, listing.resources.clone(), sample.as_ref(), View::of(wide)).await;
        let ctx = Ctx::now();
        // One object parsed at a time: memory stays near the size of the response.
        let rows = raw
            .iter()
            .map(|item| {
                let i = parse(item)?;
                let mut row = spec.row(&i.cluster_name, &i.object, &ctx, wide);
                row.extend(printing.labels.cells(&i.object));
                Ok(row)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut headers = spec.headers(wide);
        headers.extend(printing.labels.headers());
        let mut rows = Rows { headers, rows };
        sort_rows(printing, &mut rows)?;
        Ok((Listed::Rows(rows), listing.resources))
    }
}

/// `--sort-by COLUMN` on printed rows.
fn sort_rows(printing: &Printing, rows: &mut Rows) -> Result<()> {
    if let Some(sort_by) = &printing.sort_by {
        sort_by.sort_rows(&rows.headers, &mut rows.rows)?;
    }
    Ok(())
}

/// An item with its object parsed.
pub(crate) fn parse(item: &RawListItem<'_>) -> Result<ListWithClusterItem> {
    let object = serde_json::from_str(item.object.get())?;
    Ok(ListWithClusterItem { cluster_name: item.cluster_name.clone().into_owned(), object })
}

/// The server query for `list` arguments, of the type `kind` as typed.
pub fn query(args: &ListArgs, kind: &str) -> ListQuery {
    ListQuery {
        gvr: client::canonical_gvr(kind).into_owned(),
        // One cluster per request: the others are asked by `Listing::add_clusters`.
        cluster: args.filters.clusters.first().cloned(),
        namespace: args.filters.namespace.clone(),
        name: args.name().map(str::to_owned),
        label_selector: args.filters.selector.clone(),
        field_selector: args.filters.field_selector.clone(),
        limit: args.limit,
        owner: args.owner.clone(),
    }
}
