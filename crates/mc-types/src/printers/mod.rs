//! Tables of objects as `kubectl get` prints them, shared by the server's `meta.k8s.io/v1`
//! Table answers and the plugin: one [`registry`] of kinds and their columns, one cell function
//! per column ([`cells`], after kubectl's `pkg/printers/internalversion`), CRD printer columns
//! for custom resources, `NAME AGE` for anything else.
//!
//! Two views of a kind: kubectl's columns (the API, the plugin's `-o wide`) and, where the Go
//! project defined its own `list` columns (pods, deployments, configmaps), those as the plugin's
//! default.

pub mod cells;
pub mod deferred;
pub mod pruned;
pub mod registry;
#[cfg(test)]
mod tests;

use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use crate::printer_columns::{self, PrinterColumn};
use registry::REGISTRY;

/// What every cell function may look at besides the object.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// The time ages are measured from (fixed in tests).
    pub now: Timestamp,
    /// Ages written as [`deferred`] markers instead of text.
    deferred: bool,
}

impl Ctx {
    /// Ages measured from the current time.
    pub fn now() -> Self {
        Ctx::at(Timestamp::now())
    }

    /// Ages measured from `now`.
    pub fn at(now: Timestamp) -> Self {
        Ctx { now, deferred: false }
    }

    /// Ages left as markers, for rows kept and printed later ([`deferred::resolve`]); `now`
    /// only serves cells that compare times with it.
    pub fn deferred(now: Timestamp) -> Self {
        Ctx { now, deferred: true }
    }

    /// The time since `then`, kubectl style (`HumanDuration`).
    pub fn ago(&self, then: Timestamp) -> String {
        if self.deferred {
            deferred::marker(then)
        } else {
            crate::age::human_duration(self.now.duration_since(then).as_secs())
        }
    }

    /// The age of an RFC 3339 timestamp, `<unknown>` without one (`translateTimestampSince`).
    pub fn since(&self, then: Option<&str>) -> String {
        match then.and_then(crate::age::parse) {
            Some(t) => self.ago(t),
            None => "<unknown>".into(),
        }
    }
}

/// A cell function: object in, text out.
pub type CellFn = fn(&Value, &Ctx) -> String;

/// When a column shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Always (Table priority 0).
    Always,
    /// Only with `-o wide` (Table priority 1).
    Wide,
}

/// Which columns of a built-in kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    /// kubectl's own.
    #[default]
    Kubectl,
    /// The Go project's `list` columns where it defined them, else kubectl's.
    GoProject,
}

impl View {
    /// The plugin's choice: kubectl's columns with `-o wide`, else the Go project's defaults.
    pub fn of(wide: bool) -> Self {
        if wide { View::Kubectl } else { View::GoProject }
    }
}

/// How a column computes its cell.
#[derive(Clone, Debug)]
pub enum Cell {
    /// A built-in function.
    Builtin(CellFn),
    /// A CRD printer column (its `<invalid>` cell when the path is not supported).
    Printer(PrinterColumn),
}

/// One column of a table.
#[derive(Clone, Debug)]
pub struct Column {
    /// Header, uppercase.
    pub header: String,
    /// When it shows.
    pub show: Show,
    /// How its cells are computed.
    pub cell: Cell,
    /// The Table column type (`string`, `integer`, `date`, …).
    pub kind: String,
    /// What the column shows, for the Table's column definition.
    pub description: String,
}

impl Column {
    fn builtin(header: &str, show: Show, f: CellFn) -> Self {
        let kind = if header == "CREATED AT" { "date" } else { "string" };
        Column {
            header: header.into(),
            show,
            cell: Cell::Builtin(f),
            kind: kind.into(),
            description: format!("{} column of kubectl get", header.to_lowercase()),
        }
    }

    /// The cell of one object.
    pub fn cell(&self, obj: &Value, ctx: &Ctx) -> String {
        match &self.cell {
            Cell::Builtin(f) => f(obj, ctx),
            Cell::Printer(p) => p.cell(obj, ctx.now),
        }
    }

    /// Table priority: 0 always shown, 1 with `-o wide`.
    pub fn priority(&self) -> i64 {
        if self.show == Show::Always { 0 } else { 1 }
    }
}

/// How objects of one resource type print as a table.
#[derive(Clone, Debug)]
pub struct TableSpec {
    /// API group of the kind (for [`name_cell`]).
    pub group: String,
    /// The kind.
    pub kind: String,
    /// NAME column.
    pub name: bool,
    /// NAMESPACE column (namespaced resources).
    pub namespace: bool,
    /// The columns after CLUSTER, NAME and NAMESPACE.
    pub columns: Vec<Column>,
}

impl TableSpec {
    /// The built-in table of a kind, if there is one.
    pub fn builtin(group: &str, kind: &str, namespaced: bool, view: View) -> Option<Self> {
        let entry = REGISTRY.iter().find(|e| e.group == group && e.kind == kind)?;
        let columns = match (view, entry.go_project) {
            (View::GoProject, Some(go_project)) => go_project,
            _ => entry.columns,
        };
        Some(TableSpec {
            group: group.into(),
            kind: kind.into(),
            name: entry.name,
            namespace: namespaced,
            columns: columns.iter().map(|&(header, show, f)| Column::builtin(header, show, f)).collect(),
        })
    }

    /// The table of a type: built in, else from its CRD when there is one, else generic.
    pub fn resolve(
        group: &str,
        kind: &str,
        version: &str,
        namespaced: bool,
        crd: Option<&Value>,
        view: View,
    ) -> Self {
        Self::builtin(group, kind, namespaced, view)
            .or_else(|| crd.map(|crd| Self::from_crd(crd, version, namespaced)))
            .unwrap_or_else(|| Self::generic(namespaced))
    }

    /// `CLUSTER NAME [NAMESPACE] AGE`.
    pub fn generic(namespaced: bool) -> Self {
        TableSpec {
            group: String::new(),
            kind: String::new(),
            name: true,
            namespace: namespaced,
            columns: vec![age_column()],
        }
    }

    /// The table of a custom resource from its CRD's `additionalPrinterColumns` (of `version`,
    /// else of the storage version); AGE alone when it has none, as the API server does.
    pub fn from_crd(crd: &Value, version: &str, namespaced: bool) -> Self {
        let mut columns: Vec<Column> = printer_columns::from_crd(crd, version)
            .into_iter()
            .map(|p| Column {
                header: p.name.to_uppercase(),
                show: if p.priority > 0 { Show::Wide } else { Show::Always },
                kind: p.kind.clone(),
                description: p.description.clone(),
                cell: Cell::Printer(p),
            })
            .collect();
        if columns.is_empty() {
            columns.push(age_column());
        }
        TableSpec { group: String::new(), kind: String::new(), name: true, namespace: namespaced, columns }
    }

    /// Header cells, as the plugin prints them: `CLUSTER [NAME] [NAMESPACE] …`.
    pub fn headers(&self, wide: bool) -> Vec<String> {
        let mut headers = vec!["CLUSTER".to_owned()];
        if self.name {
            headers.push("NAME".into());
        }
        if self.namespace {
            headers.push("NAMESPACE".into());
        }
        headers.extend(self.visible(wide).map(|c| c.header.clone()));
        headers
    }

    /// The cells of one object, in [`TableSpec::headers`] order.
    pub fn row(&self, cluster: &str, obj: &Value, ctx: &Ctx, wide: bool) -> Vec<String> {
        let meta = |key: &str| obj.pointer(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let mut row = vec![cluster.to_owned()];
        if self.name {
            row.push(self.name_cell(obj));
        }
        if self.namespace {
            row.push(meta("/metadata/namespace"));
        }
        row.extend(self.visible(wide).map(|c| c.cell(obj, ctx)));
        row
    }

    /// The NAME cell (see [`name_cell`]).
    pub fn name_cell(&self, obj: &Value) -> String {
        name_cell(&self.group, &self.kind, obj)
    }

    /// The columns shown (all of them with `wide`).
    pub fn visible(&self, wide: bool) -> impl Iterator<Item = &Column> {
        self.columns.iter().filter(move |c| wide || c.show == Show::Always)
    }
}

/// The NAME cell of an object of a kind: the name, and ` (default)` after a default
/// StorageClass's, as kubectl's printer adds it.
pub fn name_cell(group: &str, kind: &str, obj: &Value) -> String {
    if group == "storage.k8s.io" && kind == "StorageClass" {
        return cells::storage_class_name(obj, &Ctx::now());
    }
    obj.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// The order kubectl's printer puts a kind's rows in, when it is not the API server's (name):
/// FlowSchemas by matching precedence, then name.
pub fn row_order(group: &str, kind: &str) -> Option<fn(&Value) -> i64> {
    (group == "flowcontrol.apiserver.k8s.io" && kind == "FlowSchema")
        .then_some(|obj: &Value| obj.pointer("/spec/matchingPrecedence").and_then(Value::as_i64).unwrap_or(0))
}

fn age_column() -> Column {
    Column::builtin("AGE", Show::Always, cells::age)
}
