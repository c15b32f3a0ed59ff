//! The column registry: kind → columns. Adding a kind is adding one [`Entry`]; custom resources
//! get their CRD's `additionalPrinterColumns`; anything else `CLUSTER NAME NAMESPACE AGE`.

use serde_json::Value;

use super::Ctx;
use super::cells::{self as c, age};

/// A cell function: object in, text out.
pub type CellFn = fn(&Value, &Ctx) -> String;

/// When a column shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Always.
    Always,
    /// Only with `-o wide`.
    Wide,
}

use Show::{Always, Wide};

/// One built-in table.
pub struct Entry {
    /// API group (`""` for core).
    pub group: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Whether the NAME column shows (events leave it out, as kubectl does).
    pub name: bool,
    /// Columns after CLUSTER, NAME and NAMESPACE.
    pub columns: &'static [(&'static str, Show, CellFn)],
}

/// Every built-in table. Pods, deployments and configmaps keep the original's columns; the
/// others follow `kubectl get`.
pub const REGISTRY: &[Entry] = &[
    Entry {
        group: "",
        kind: "Pod",
        name: true,
        columns: &[
            ("NODE", Always, c::pod_node),
            ("POD IP", Always, c::pod_ip),
            ("STATUS", Always, c::pod_status),
            ("CONTAINER", Always, c::pod_containers),
            ("IMAGE", Always, c::pod_images),
            ("READY", Wide, c::pod_ready),
            ("RESTARTS", Wide, c::pod_restarts),
            ("AGE", Wide, age),
        ],
    },
    Entry {
        group: "apps",
        kind: "Deployment",
        name: true,
        columns: &[
            ("TOTAL", Always, c::spec_replicas),
            ("AVAILABLE", Always, c::available_replicas),
            ("READY", Always, c::ready_replicas),
            ("UP-TO-DATE", Wide, c::updated_replicas),
            ("AGE", Wide, age),
            ("CONTAINERS", Wide, c::template_container_names),
            ("IMAGES", Wide, c::template_images),
            ("SELECTOR", Wide, c::selector),
        ],
    },
    Entry {
        group: "",
        kind: "ConfigMap",
        name: true,
        columns: &[("DATA", Always, c::data_count), ("AGE", Wide, age)],
    },
    Entry {
        group: "",
        kind: "Service",
        name: true,
        columns: &[
            ("TYPE", Always, c::svc_type),
            ("CLUSTER-IP", Always, c::svc_cluster_ip),
            ("EXTERNAL-IP", Always, c::svc_external_ip),
            ("PORT(S)", Always, c::svc_ports),
            ("AGE", Always, age),
            ("SELECTOR", Wide, c::svc_selector),
        ],
    },
    Entry {
        group: "",
        kind: "Node",
        name: true,
        columns: &[
            ("STATUS", Always, c::node_status),
            ("ROLES", Always, c::node_roles),
            ("AGE", Always, age),
            ("VERSION", Always, c::node_version),
            ("INTERNAL-IP", Wide, c::node_internal_ip),
            ("EXTERNAL-IP", Wide, c::node_external_ip),
            ("OS-IMAGE", Wide, c::node_os_image),
            ("KERNEL-VERSION", Wide, c::node_kernel),
            ("CONTAINER-RUNTIME", Wide, c::node_runtime),
        ],
    },
    Entry {
        group: "",
        kind: "Namespace",
        name: true,
        columns: &[("STATUS", Always, c::ns_status), ("AGE", Always, age)],
    },
    Entry {
        group: "batch",
        kind: "Job",
        name: true,
        columns: &[
            ("STATUS", Always, c::job_status),
            ("COMPLETIONS", Always, c::job_completions),
            ("DURATION", Always, c::job_duration),
            ("AGE", Always, age),
            ("CONTAINERS", Wide, c::job_containers),
            ("IMAGES", Wide, c::template_images),
            ("SELECTOR", Wide, c::selector),
        ],
    },
    Entry {
        group: "batch",
        kind: "CronJob",
        name: true,
        columns: &[
            ("SCHEDULE", Always, c::cron_schedule),
            ("TIMEZONE", Always, c::cron_timezone),
            ("SUSPEND", Always, c::cron_suspend),
            ("ACTIVE", Always, c::cron_active),
            ("LAST SCHEDULE", Always, c::cron_last_schedule),
            ("AGE", Always, age),
            ("CONTAINERS", Wide, c::cron_containers),
            ("IMAGES", Wide, c::cron_images),
        ],
    },
    Entry {
        group: "apps",
        kind: "StatefulSet",
        name: true,
        columns: &[
            ("READY", Always, c::ready_of_desired),
            ("AGE", Always, age),
            ("CONTAINERS", Wide, c::template_container_names),
            ("IMAGES", Wide, c::template_images),
        ],
    },
    Entry {
        group: "apps",
        kind: "DaemonSet",
        name: true,
        columns: &[
            ("DESIRED", Always, c::ds_desired),
            ("CURRENT", Always, c::ds_current),
            ("READY", Always, c::ds_ready),
            ("UP-TO-DATE", Always, c::ds_updated),
            ("AVAILABLE", Always, c::ds_available),
            ("NODE SELECTOR", Always, c::ds_node_selector),
            ("AGE", Always, age),
            ("CONTAINERS", Wide, c::template_container_names),
            ("IMAGES", Wide, c::template_images),
            ("SELECTOR", Wide, c::selector),
        ],
    },
    Entry {
        group: "apps",
        kind: "ReplicaSet",
        name: true,
        columns: &[
            ("DESIRED", Always, c::spec_replicas),
            ("CURRENT", Always, c::current_replicas),
            ("READY", Always, c::ready_replicas),
            ("AGE", Always, age),
            ("CONTAINERS", Wide, c::template_container_names),
            ("IMAGES", Wide, c::template_images),
            ("SELECTOR", Wide, c::selector),
        ],
    },
    Entry {
        group: "",
        kind: "Secret",
        name: true,
        columns: &[("TYPE", Always, c::secret_type), ("DATA", Always, c::data_count), ("AGE", Always, age)],
    },
    Entry {
        group: "networking.k8s.io",
        kind: "Ingress",
        name: true,
        columns: &[
            ("CLASS", Always, c::ing_class),
            ("HOSTS", Always, c::ing_hosts),
            ("ADDRESS", Always, c::ing_address),
            ("PORTS", Always, c::ing_ports),
            ("AGE", Always, age),
        ],
    },
    Entry { group: "", kind: "Event", name: false, columns: EVENT_COLUMNS },
    Entry { group: "events.k8s.io", kind: "Event", name: false, columns: EVENT_COLUMNS },
    Entry {
        group: "",
        kind: "PersistentVolumeClaim",
        name: true,
        columns: &[
            ("STATUS", Always, c::pvc_status),
            ("VOLUME", Always, c::pvc_volume),
            ("CAPACITY", Always, c::pvc_capacity),
            ("ACCESS MODES", Always, c::pvc_access_modes),
            ("STORAGECLASS", Always, c::pvc_storage_class),
            ("VOLUMEATTRIBUTESCLASS", Always, c::pvc_attributes_class),
            ("AGE", Always, age),
            ("VOLUMEMODE", Wide, c::pvc_volume_mode),
        ],
    },
    Entry {
        group: "mulitcluster.practice.com",
        kind: "MultiClusterResource",
        name: true,
        columns: &[
            ("TEMPLATE", Always, c::mcr_template),
            ("PLACEMENT", Always, c::mcr_placement),
            ("READY", Always, c::mcr_ready),
            ("SYNCED", Always, c::mcr_synced),
            ("AGE", Always, age),
            ("MESSAGE", Wide, c::mcr_message),
        ],
    },
];

const EVENT_COLUMNS: &[(&str, Show, CellFn)] = &[
    ("LAST SEEN", Always, c::event_last_seen),
    ("TYPE", Always, c::event_type),
    ("REASON", Always, c::event_reason),
    ("OBJECT", Always, c::event_object),
    ("MESSAGE", Always, c::event_message),
    ("SOURCE", Wide, c::event_source),
    ("FIRST SEEN", Wide, c::event_first_seen),
    ("COUNT", Wide, c::event_count),
    ("NAME", Wide, c::event_name),
];

/// How a column computes its cell.
#[derive(Clone, Debug)]
pub enum Cell {
    /// A built-in function.
    Builtin(CellFn),
    /// A CRD printer column (its `<invalid>` cell when the path is not supported).
    Printer(mc_types::printer_columns::PrinterColumn),
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
}

/// How objects of one resource type print as a table.
#[derive(Clone, Debug)]
pub struct TableSpec {
    /// NAME column.
    pub name: bool,
    /// NAMESPACE column (namespaced resources).
    pub namespace: bool,
    /// The columns after CLUSTER, NAME and NAMESPACE.
    pub columns: Vec<Column>,
}

impl TableSpec {
    /// The built-in table of a kind, if there is one.
    pub fn builtin(group: &str, kind: &str, namespaced: bool) -> Option<Self> {
        let entry = REGISTRY.iter().find(|e| e.group == group && e.kind == kind)?;
        Some(TableSpec {
            name: entry.name,
            namespace: namespaced,
            columns: entry
                .columns
                .iter()
                .map(|&(header, show, f)| Column { header: header.into(), show, cell: Cell::Builtin(f) })
                .collect(),
        })
    }

    /// The table of a type: built in, else from its CRD when there is one, else generic.
    pub fn resolve(group: &str, kind: &str, version: &str, namespaced: bool, crd: Option<&Value>) -> Self {
        Self::builtin(group, kind, namespaced)
            .or_else(|| crd.map(|crd| Self::from_crd(crd, version, namespaced)))
            .unwrap_or_else(|| Self::generic(namespaced))
    }

    /// `CLUSTER NAME [NAMESPACE] AGE`.
    pub fn generic(namespaced: bool) -> Self {
        TableSpec {
            name: true,
            namespace: namespaced,
            columns: vec![Column { header: "AGE".into(), show: Always, cell: Cell::Builtin(age) }],
        }
    }

    /// The table of a custom resource from its CRD's `additionalPrinterColumns` (of `version`,
    /// else of the storage version); AGE alone when it has none.
    pub fn from_crd(crd: &Value, version: &str, namespaced: bool) -> Self {
        let mut columns: Vec<Column> = mc_types::printer_columns::from_crd(crd, version)
            .into_iter()
            .map(|p| Column {
                header: p.name.to_uppercase(),
                show: if p.priority > 0 { Wide } else { Always },
                cell: Cell::Printer(p),
            })
            .collect();
        // The API server does the same: without columns of its own, a CRD gets an AGE column.
        if columns.is_empty() {
            columns.push(Column { header: "AGE".into(), show: Always, cell: Cell::Builtin(age) });
        }
        TableSpec { name: true, namespace: namespaced, columns }
    }

    /// Header cells.
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

    /// The cells of one object.
    pub fn row(&self, cluster: &str, obj: &Value, ctx: &Ctx, wide: bool) -> Vec<String> {
        let meta = |key: &str| obj.pointer(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let mut row = vec![cluster.to_owned()];
        if self.name {
            row.push(meta("/metadata/name"));
        }
        if self.namespace {
            row.push(meta("/metadata/namespace"));
        }
        row.extend(self.visible(wide).map(|c| match &c.cell {
            Cell::Builtin(f) => f(obj, ctx),
            Cell::Printer(p) => p.cell(obj, ctx.now),
        }));
        row
    }

    fn visible(&self, wide: bool) -> impl Iterator<Item = &Column> {
        self.columns.iter().filter(move |c| wide || c.show == Always)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_registered_once() {
        for (i, a) in REGISTRY.iter().enumerate() {
            for b in &REGISTRY[i + 1..] {
                assert!(!(a.group == b.group && a.kind == b.kind), "{}/{} twice", a.group, a.kind);
            }
            assert!(a.columns.iter().all(|(h, _, _)| *h == h.to_uppercase()), "{}: headers in CAPS", a.kind);
        }
    }

    #[test]
    fn the_original_tables_keep_their_columns() {
        let headers =
            |group: &str, kind: &str| TableSpec::builtin(group, kind, true).unwrap().headers(false).join(" ");
        assert_eq!(headers("", "Pod"), "CLUSTER NAME NAMESPACE NODE POD IP STATUS CONTAINER IMAGE");
        assert_eq!(headers("apps", "Deployment"), "CLUSTER NAME NAMESPACE TOTAL AVAILABLE READY");
        assert_eq!(headers("", "ConfigMap"), "CLUSTER NAME NAMESPACE DATA");
        let wide = TableSpec::builtin("", "Pod", true).unwrap().headers(true).join(" ");
        assert!(wide.ends_with("IMAGE READY RESTARTS AGE"), "{wide}");
    }

    #[test]
    fn cluster_scoped_kinds_have_no_namespace_column() {
        assert_eq!(
            TableSpec::builtin("", "Node", false).unwrap().headers(false)[..3],
            ["CLUSTER", "NAME", "STATUS"]
        );
        assert_eq!(TableSpec::generic(false).headers(false), ["CLUSTER", "NAME", "AGE"]);
    }
}
