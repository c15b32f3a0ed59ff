//! `meta.k8s.io/v1` Tables, as `kubectl get` asks for them: kubectl's own columns for built-in
//! kinds and a custom resource's printer columns, from the shared printer registry
//! ([`mc_types::printers`]). Over every cluster a `Cluster` column follows the name; under
//! `/clusters/{name}/` the Table is the one that cluster's API server would answer. kubectl adds
//! the namespace column itself (from each row's object metadata) with `-A`.
//!
//! The plugin asks for its own layout with `view=plugin` (or `plugin-wide`): `Cluster`, `Name`,
//! `Namespace` and the Go project's `list` columns (kubectl's with `-wide`), so it prints
//! the cells as they come.

use std::collections::HashMap;

use mc_types::ResourceInfo;
use mc_types::printers::{self, Column, Ctx, TableSpec, View, deferred};
use serde_json::{Value, json};

use super::layout::Layout;
use super::rows::{Cells, RowCache};
use crate::store::{DigestRow, RawObject};

/// What a row carries besides its cells (`includeObject`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Include {
    /// Nothing.
    None,
    /// The object's metadata (kubectl's default).
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

impl Include {
    /// The `includeObject` query parameter: Kubernetes' `None`, `Metadata` or `Object`
    /// (k9s sends `Metadata`), and `PartialObjectMetadata`, which earlier plugins sent.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "None" => Some(Include::None),
            "" | "Metadata" | "PartialObjectMetadata" => Some(Include::Metadata),
            "Object" => Some(Include::Object),
            _ => None,
        }
    }
}

/// How the rows of one type are made: built once per request.
#[derive(Clone, Debug)]
pub struct Format {
    spec: TableSpec,
    layout: Layout,
    include: Include,
    /// Over every cluster: a `Cluster` column.
    fleet: bool,
}

impl Format {
    /// The Table format of a type; `crd` is its CustomResourceDefinition object when it is a
    /// custom resource, `fleet` whether the answer spans every cluster.
    pub fn new(
        info: &ResourceInfo,
        crd: Option<&Value>,
        fleet: bool,
        layout: Layout,
        include: Include,
    ) -> Self {
        let view = if layout == Layout::Plugin { View::GoProject } else { View::Kubectl };
        let spec = TableSpec::resolve(&info.group, &info.kind, &info.version, info.namespaced, crd, view);
        Format { spec, layout, include, fleet }
    }

    fn wide(&self) -> bool {
        self.layout != Layout::Plugin
    }

    /// The column definitions.
    pub fn columns(&self) -> Vec<Value> {
        let def = |name: &str, kind: &str, format: &str, priority: i64, description: &str| json!({"name": name, "type": kind, "format": format, "priority": priority, "description": description});
        let cluster = def("Cluster", "string", "", 0, "The member cluster the object lives in.");
        let name = def("Name", "string", "name", 0, "Name must be unique within a namespace.");
        let mut columns = Vec::new();
        if self.layout == Layout::Kubectl {
            if self.spec.name {
                columns.push(name);
            }
            if self.fleet {
                columns.push(cluster);
            }
            columns.extend(
                self.spec
                    .columns
                    .iter()
                    .map(|c| def(&title(&c.header), &c.kind, "", c.priority(), &c.description)),
            );
        } else {
            let mut headers = self.spec.headers(self.wide()).into_iter();
            columns.extend(
                headers
                    .by_ref()
                    .take(1 + usize::from(self.spec.name) + usize::from(self.spec.namespace))
                    .map(|h| def(&h, "string", if h == "NAME" { "name" } else { "" }, 0, "")),
            );
            columns.extend(
                self.spec
                    .visible(self.wide())
                    .map(|c: &Column| def(&c.header, &c.kind, "", 0, &c.description)),
            );
        }
        columns
    }

    /// Whether rows may be kept between requests ([`RowCache`]): cells only, of a built-in
    /// kind (its cells depend on the object alone), in the store's order.
    pub fn keepable(&self) -> bool {
        self.include == Include::None
            && !self.spec.kind.is_empty()
            && self.spec.columns.iter().all(|c| matches!(c.cell, printers::Cell::Builtin(_)))
            && printers::row_order(&self.spec.group, &self.spec.kind).is_none()
    }

    /// The layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The cells of an object, without the cluster cell.
    fn object_cells(&self, value: &Value, ctx: &Ctx) -> Vec<String> {
        if self.layout == Layout::Kubectl {
            let mut cells = Vec::with_capacity(self.spec.columns.len() + 2);
            if self.spec.name {
                cells.push(self.spec.name_cell(value));
            }
            cells.extend(self.spec.columns.iter().map(|c| c.cell(value, ctx)));
            cells
        } else {
            let mut cells = self.spec.row("", value, ctx, self.wide());
            cells.remove(0);
            cells
        }
    }

    /// The cells with the cluster's where the layout has it: after the name in kubectl's (over
    /// every cluster), first in the plugin's.
    fn with_cluster(&self, cluster: &str, mut cells: Vec<String>) -> Vec<String> {
        let at = match self.layout {
            Layout::Kubectl => self.fleet.then_some(usize::from(self.spec.name)),
            Layout::Plugin | Layout::PluginWide => Some(0),
        };
        if let Some(at) = at {
            cells.insert(at.min(cells.len()), cluster.to_owned());
        }
        cells
    }

    /// One row.
    pub fn row(&self, cluster: &str, mut value: Value, ctx: &Ctx) -> Value {
        let cells = self.with_cluster(cluster, self.object_cells(&value, ctx));
        let object = match self.include {
            Include::None => None,
            Include::Metadata => {
                super::annotate::annotate(cluster, &mut value);
                let meta = value["metadata"].take();
                Some(
                    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta}),
                )
            }
            Include::Object => {
                super::annotate::annotate(cluster, &mut value);
                Some(value)
            }
        };
        match object {
            Some(object) => json!({"cells": cells, "object": object}),
            None => json!({"cells": cells}),
        }
    }

    /// The object as the rows need it: whole when the rows carry it, else without the
    /// subtrees no column reads (see [`printers::pruned`]).
    fn parse(&self, object: &RawObject) -> Value {
        // A custom resource's printer columns may read anything.
        let builtin = !self.spec.kind.is_empty();
        match self.include {
            Include::Object => object.value(),
            _ if !builtin => object.value(),
            // The text was checked when it was read; `Null` keeps it total.
            Include::None | Include::Metadata => {
                printers::pruned::parse(object.text()).unwrap_or(Value::Null)
            }
        }
    }

    /// A Table of `items` (`(cluster, object)`), with `next` as its continue token.
    pub fn table(&self, items: &[(String, RawObject)], next: &str) -> Value {
        let ctx = Ctx::now();
        let rows: Vec<Value> = match printers::row_order(&self.spec.group, &self.spec.kind) {
            // Each object parsed, turned into its row and dropped: memory stays near one object.
            None => {
                items.iter().map(|(cluster, object)| self.row(cluster, self.parse(object), &ctx)).collect()
            }
            Some(order) => {
                // Within each cluster (items come grouped by cluster), stable: names stay in order.
                let mut objects: Vec<(&str, Value)> =
                    items.iter().map(|(c, o)| (c.as_str(), self.parse(o))).collect();
                let mut rank: Vec<&str> = Vec::new();
                for (c, _) in &objects {
                    if rank.last() != Some(c) {
                        rank.push(c);
                    }
                }
                objects.sort_by_key(|(c, o)| (rank.iter().position(|r| r == c), order(o)));
                objects.into_iter().map(|(cluster, object)| self.row(cluster, object, &ctx)).collect()
            }
        };
        self.wrap(rows, next)
    }

    /// A Table of digest rows ([`crate::store::Store::query_digests`]): the rows in `kept` as
    /// they were made (ages at now), the others made from their objects and kept in `cache`.
    pub fn table_of_digests(
        &self,
        rows: Vec<DigestRow>,
        mut kept: HashMap<i64, Cells>,
        cache: &RowCache,
        next: &str,
    ) -> Value {
        let ctx = Ctx::now();
        let mut made = Vec::new();
        let rows: Vec<Value> = rows
            .into_iter()
            .filter_map(|r| {
                let cells: Vec<String> = match (r.object, kept.remove(&r.id)) {
                    (Some(object), _) => {
                        let value = self.parse(&object);
                        // Text of the object is what could look like an age marker; without
                        // any, the row made with markers is the row, and is kept.
                        match r.hash.filter(|_| !object.text().contains("\\u0001")) {
                            Some(hash) => {
                                let cells = self.object_cells(&value, &Ctx::deferred(ctx.now));
                                let shown = cells
                                    .iter()
                                    .map(|c| deferred::resolve(c, ctx.now).into_owned())
                                    .collect();
                                made.push((
                                    r.id,
                                    hash,
                                    cells.into_iter().map(String::into_boxed_str).collect(),
                                ));
                                shown
                            }
                            None => self.object_cells(&value, &ctx),
                        }
                    }
                    (None, Some(cells)) => {
                        cells.iter().map(|c| deferred::resolve(c, ctx.now).into_owned()).collect()
                    }
                    // The store reads the object of every row not kept.
                    (None, None) => return None,
                };
                Some(json!({"cells": self.with_cluster(&r.cluster, cells)}))
            })
            .collect();
        cache.insert(self.layout, made);
        self.wrap(rows, next)
    }

    fn wrap(&self, rows: Vec<Value>, next: &str) -> Value {
        json!({
            "kind": "Table",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"continue": next},
            "columnDefinitions": self.columns(),
            "rows": rows,
        })
    }
}

/// `NOMINATED NODE` → `Nominated Node`, `UP-TO-DATE` → `Up-to-date`: the API server's column
/// names (kubectl uppercases them again).
fn title(header: &str) -> String {
    let mut out = String::with_capacity(header.len());
    let mut start = true;
    for c in header.chars() {
        if start {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        start = c == ' ';
    }
    out
}
