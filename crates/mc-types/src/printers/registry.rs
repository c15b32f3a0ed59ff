//! The column registry: kind → kubectl's columns (and the Go project's `list` columns where it
//! defined its own). Adding a kind is adding one [`Entry`].

use super::cells::{self as c, age};
use super::{CellFn, Show};

use Show::{Always, Wide};

/// A column: header, when it shows, how its cell is computed.
pub type Col = (&'static str, Show, CellFn);

/// One built-in table.
pub struct Entry {
    /// API group (`""` for core).
    pub group: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Whether the NAME column shows (events leave it out, as kubectl does).
    pub name: bool,
    /// kubectl's columns after NAME (`Wide` ones are priority 1: `-o wide`).
    pub columns: &'static [Col],
    /// The Go project's `list` columns, where it defined them (pods, deployments, configmaps):
    /// the plugin's default view.
    pub go_project: Option<&'static [Col]>,
}

/// Every built-in table, as `kubectl get` prints it: the columns of the API server's Table
/// answers (`pkg/printers/internalversion/printers.go` of Kubernetes v1.35), or `CREATED AT`
/// for the kinds the API server serves with its default table convertor.
pub const REGISTRY: &[Entry] = &[
    // --- core ------------------------------------------------------------------------------------
    Entry {
        group: "",
        kind: "Pod",
        name: true,
        columns: &[
            ("READY", Always, c::pod_ready),
            ("STATUS", Always, c::pod_status),
            ("RESTARTS", Always, c::pod_restarts),
            ("AGE", Always, age),
            ("IP", Wide, c::pod_ip),
            ("NODE", Wide, c::pod_node),
            ("NOMINATED NODE", Wide, c::pod_nominated_node),
            ("READINESS GATES", Wide, c::pod_readiness_gates),
        ],
        go_project: Some(&[
            ("NODE", Always, c::pod_node),
            ("POD IP", Always, c::pod_ip),
            ("STATUS", Always, c::pod_status),
            ("CONTAINER", Always, c::pod_containers),
            ("IMAGE", Always, c::pod_images),
        ]),
    },
    Entry {
        group: "",
        kind: "PodTemplate",
        name: true,
        columns: &[
            ("CONTAINERS", Always, c::podtemplate_containers),
            ("IMAGES", Always, c::podtemplate_images),
            ("POD LABELS", Always, c::podtemplate_labels),
        ],
        go_project: None,
    },
    Entry {
        group: "",
        kind: "ConfigMap",
        name: true,
        columns: &[("DATA", Always, c::data_count), ("AGE", Always, age)],
        go_project: Some(&[("DATA", Always, c::data_count)]),
    },
    Entry {
        group: "",
        kind: "Secret",
        name: true,
        columns: &[("TYPE", Always, c::secret_type), ("DATA", Always, c::secret_data), ("AGE", Always, age)],
        go_project: None,
    },
    Entry { group: "", kind: "ServiceAccount", name: true, columns: AGE_ONLY, go_project: None },
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
        go_project: None,
    },
    Entry {
        group: "",
        kind: "Endpoints",
        name: true,
        columns: &[("ENDPOINTS", Always, c::endpoints), ("AGE", Always, age)],
        go_project: None,
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
        go_project: None,
    },
    Entry {
        group: "",
        kind: "Namespace",
        name: true,
        columns: &[("STATUS", Always, c::ns_status), ("AGE", Always, age)],
        go_project: None,
    },
    Entry { group: "", kind: "Event", name: false, columns: EVENT_COLUMNS, go_project: None },
    Entry {
        group: "",
        kind: "PersistentVolume",
        name: true,
        columns: &[
            ("CAPACITY", Always, c::pv_capacity),
            ("ACCESS MODES", Always, c::pv_access_modes),
            ("RECLAIM POLICY", Always, c::pv_reclaim_policy),
            ("STATUS", Always, c::volume_phase),
            ("CLAIM", Always, c::pv_claim),
            ("STORAGECLASS", Always, c::pv_storage_class),
            ("VOLUMEATTRIBUTESCLASS", Always, c::pvc_attributes_class),
            ("REASON", Always, c::pv_reason),
            ("AGE", Always, age),
            ("VOLUMEMODE", Wide, c::pvc_volume_mode),
        ],
        go_project: None,
    },
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
        go_project: None,
    },
    Entry {
        group: "",
        kind: "ResourceQuota",
        name: true,
        columns: &[
            ("REQUEST", Always, c::quota_request),
            ("LIMIT", Always, c::quota_limit),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry { group: "", kind: "LimitRange", name: true, columns: CREATED_AT, go_project: None },
    Entry {
        group: "",
        kind: "ReplicationController",
        name: true,
        columns: &[
            ("DESIRED", Always, c::spec_replicas),
            ("CURRENT", Always, c::current_replicas),
            ("READY", Always, c::ready_replicas),
            ("AGE", Always, age),
            ("CONTAINERS", Wide, c::template_container_names),
            ("IMAGES", Wide, c::template_images),
            ("SELECTOR", Wide, c::rc_selector),
        ],
        go_project: None,
    },
    Entry {
        group: "",
        kind: "ComponentStatus",
        name: true,
        columns: &[
            ("STATUS", Always, c::component_status),
            ("MESSAGE", Always, c::component_message),
            ("ERROR", Always, c::component_error),
        ],
        go_project: None,
    },
    // --- apps ------------------------------------------------------------------------------------
    Entry {
        group: "apps",
        kind: "Deployment",
        name: true,
        columns: &[
            ("READY", Always, c::ready_of_desired),
            ("UP-TO-DATE", Always, c::updated_replicas),
            ("AVAILABLE", Always, c::available_replicas),
            ("AGE", Always, age),
            ("CONTAINERS", Wide, c::template_container_names),
            ("IMAGES", Wide, c::template_images),
            ("SELECTOR", Wide, c::deployment_selector),
        ],
        go_project: Some(&[
            ("TOTAL", Always, c::spec_replicas),
            ("AVAILABLE", Always, c::available_replicas),
            ("READY", Always, c::ready_replicas),
        ]),
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
        go_project: None,
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
        go_project: None,
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
        go_project: None,
    },
    Entry {
        group: "apps",
        kind: "ControllerRevision",
        name: true,
        columns: &[
            ("CONTROLLER", Always, c::revision_controller),
            ("REVISION", Always, c::revision_number),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    // --- batch -----------------------------------------------------------------------------------
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
        go_project: None,
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
            ("SELECTOR", Wide, c::cron_selector),
        ],
        go_project: None,
    },
    // --- autoscaling, policy, scheduling, coordination, node -------------------------------------
    Entry {
        group: "autoscaling",
        kind: "HorizontalPodAutoscaler",
        name: true,
        columns: &[
            ("REFERENCE", Always, c::hpa_reference),
            ("TARGETS", Always, c::hpa_targets),
            ("MINPODS", Always, c::hpa_min_pods),
            ("MAXPODS", Always, c::hpa_max_pods),
            ("REPLICAS", Always, c::hpa_replicas),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "policy",
        kind: "PodDisruptionBudget",
        name: true,
        columns: &[
            ("MIN AVAILABLE", Always, c::pdb_min_available),
            ("MAX UNAVAILABLE", Always, c::pdb_max_unavailable),
            ("ALLOWED DISRUPTIONS", Always, c::pdb_allowed_disruptions),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "scheduling.k8s.io",
        kind: "PriorityClass",
        name: true,
        // PreemptionPolicy has priority 0 in printers.go although printPriorityClass only
        // fills it when wide (the API server always is).
        columns: &[
            ("VALUE", Always, c::pc_value),
            ("GLOBAL-DEFAULT", Always, c::pc_global_default),
            ("AGE", Always, age),
            ("PREEMPTIONPOLICY", Always, c::pc_preemption_policy),
        ],
        go_project: None,
    },
    Entry {
        group: "coordination.k8s.io",
        kind: "Lease",
        name: true,
        columns: &[("HOLDER", Always, c::lease_holder), ("AGE", Always, age)],
        go_project: None,
    },
    Entry {
        group: "node.k8s.io",
        kind: "RuntimeClass",
        name: true,
        columns: &[("HANDLER", Always, c::runtimeclass_handler), ("AGE", Always, age)],
        go_project: None,
    },
    // --- networking, discovery -------------------------------------------------------------------
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
        go_project: None,
    },
    Entry {
        group: "networking.k8s.io",
        kind: "IngressClass",
        name: true,
        columns: &[
            ("CONTROLLER", Always, c::ingclass_controller),
            ("PARAMETERS", Always, c::ingclass_parameters),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "networking.k8s.io",
        kind: "NetworkPolicy",
        name: true,
        columns: &[("POD-SELECTOR", Always, c::netpol_pod_selector), ("AGE", Always, age)],
        go_project: None,
    },
    Entry {
        group: "networking.k8s.io",
        kind: "ServiceCIDR",
        name: true,
        columns: &[("CIDRS", Always, c::servicecidr_cidrs), ("AGE", Always, age)],
        go_project: None,
    },
    // printIPAddress also fills an age, but its table defines no column for it: kubectl drops
    // the extra cell.
    Entry {
        group: "networking.k8s.io",
        kind: "IPAddress",
        name: true,
        columns: &[("PARENTREF", Always, c::ipaddress_parent)],
        go_project: None,
    },
    Entry {
        group: "discovery.k8s.io",
        kind: "EndpointSlice",
        name: true,
        columns: &[
            ("ADDRESSTYPE", Always, c::eps_address_type),
            ("PORTS", Always, c::eps_ports),
            ("ENDPOINTS", Always, c::eps_endpoints),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    // --- rbac ------------------------------------------------------------------------------------
    Entry {
        group: "rbac.authorization.k8s.io",
        kind: "Role",
        name: true,
        columns: CREATED_AT,
        go_project: None,
    },
    Entry {
        group: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: true,
        columns: CREATED_AT,
        go_project: None,
    },
    Entry {
        group: "rbac.authorization.k8s.io",
        kind: "RoleBinding",
        name: true,
        columns: BINDING_COLUMNS,
        go_project: None,
    },
    Entry {
        group: "rbac.authorization.k8s.io",
        kind: "ClusterRoleBinding",
        name: true,
        columns: BINDING_COLUMNS,
        go_project: None,
    },
    // --- storage ---------------------------------------------------------------------------------
    Entry {
        group: "storage.k8s.io",
        kind: "StorageClass",
        name: true,
        columns: &[
            ("PROVISIONER", Always, c::sc_provisioner),
            ("RECLAIMPOLICY", Always, c::sc_reclaim_policy),
            ("VOLUMEBINDINGMODE", Always, c::sc_binding_mode),
            ("ALLOWVOLUMEEXPANSION", Always, c::sc_allow_expansion),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "storage.k8s.io",
        kind: "CSIDriver",
        name: true,
        columns: &[
            ("ATTACHREQUIRED", Always, c::csidriver_attach_required),
            ("PODINFOONMOUNT", Always, c::csidriver_pod_info),
            ("STORAGECAPACITY", Always, c::csidriver_storage_capacity),
            ("TOKENREQUESTS", Always, c::csidriver_token_requests),
            ("REQUIRESREPUBLISH", Always, c::csidriver_requires_republish),
            ("MODES", Always, c::csidriver_modes),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "storage.k8s.io",
        kind: "CSINode",
        name: true,
        columns: &[("DRIVERS", Always, c::csinode_drivers), ("AGE", Always, age)],
        go_project: None,
    },
    Entry {
        group: "storage.k8s.io",
        kind: "CSIStorageCapacity",
        name: true,
        columns: CREATED_AT,
        go_project: None,
    },
    Entry {
        group: "storage.k8s.io",
        kind: "VolumeAttachment",
        name: true,
        columns: &[
            ("ATTACHER", Always, c::va_attacher),
            ("PV", Always, c::va_pv),
            ("NODE", Always, c::va_node),
            ("ATTACHED", Always, c::va_attached),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "storage.k8s.io",
        kind: "VolumeAttributesClass",
        name: true,
        columns: &[("DRIVERNAME", Always, c::vac_driver), ("AGE", Always, age)],
        go_project: None,
    },
    // --- admission, certificates, flow control, API extensions -----------------------------------
    Entry {
        group: "admissionregistration.k8s.io",
        kind: "ValidatingWebhookConfiguration",
        name: true,
        columns: WEBHOOK_COLUMNS,
        go_project: None,
    },
    Entry {
        group: "admissionregistration.k8s.io",
        kind: "MutatingWebhookConfiguration",
        name: true,
        columns: WEBHOOK_COLUMNS,
        go_project: None,
    },
    Entry {
        group: "admissionregistration.k8s.io",
        kind: "ValidatingAdmissionPolicy",
        name: true,
        columns: &[
            ("VALIDATIONS", Always, c::vap_validations),
            ("PARAMKIND", Always, c::vap_param_kind),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "admissionregistration.k8s.io",
        kind: "ValidatingAdmissionPolicyBinding",
        name: true,
        columns: &[
            ("POLICYNAME", Always, c::vapb_policy),
            ("PARAMREF", Always, c::vapb_param_ref),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "certificates.k8s.io",
        kind: "CertificateSigningRequest",
        name: true,
        columns: &[
            ("AGE", Always, age),
            ("SIGNERNAME", Always, c::csr_signer),
            ("REQUESTOR", Always, c::csr_requestor),
            ("REQUESTEDDURATION", Always, c::csr_duration),
            ("CONDITION", Always, c::csr_condition),
        ],
        go_project: None,
    },
    Entry {
        group: "flowcontrol.apiserver.k8s.io",
        kind: "FlowSchema",
        name: true,
        columns: &[
            ("PRIORITYLEVEL", Always, c::fs_priority_level),
            ("MATCHINGPRECEDENCE", Always, c::fs_precedence),
            ("DISTINGUISHERMETHOD", Always, c::fs_distinguisher),
            ("AGE", Always, age),
            ("MISSINGPL", Always, c::fs_missing_pl),
        ],
        go_project: None,
    },
    Entry {
        group: "flowcontrol.apiserver.k8s.io",
        kind: "PriorityLevelConfiguration",
        name: true,
        columns: &[
            ("TYPE", Always, c::plc_type),
            ("NOMINALCONCURRENCYSHARES", Always, c::plc_shares),
            ("QUEUES", Always, c::plc_queues),
            ("HANDSIZE", Always, c::plc_hand_size),
            ("QUEUELENGTHLIMIT", Always, c::plc_queue_length_limit),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    Entry {
        group: "apiextensions.k8s.io",
        kind: "CustomResourceDefinition",
        name: true,
        columns: CREATED_AT,
        go_project: None,
    },
    Entry {
        group: "apiregistration.k8s.io",
        kind: "APIService",
        name: true,
        columns: &[
            ("SERVICE", Always, c::apiservice_service),
            ("AVAILABLE", Always, c::apiservice_available),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    // --- resource.k8s.io (dynamic resource allocation) -------------------------------------------
    Entry { group: "resource.k8s.io", kind: "DeviceClass", name: true, columns: AGE_ONLY, go_project: None },
    Entry {
        group: "resource.k8s.io",
        kind: "ResourceClaim",
        name: true,
        columns: &[("STATE", Always, c::claim_state), ("AGE", Always, age)],
        go_project: None,
    },
    Entry {
        group: "resource.k8s.io",
        kind: "ResourceClaimTemplate",
        name: true,
        columns: AGE_ONLY,
        go_project: None,
    },
    Entry {
        group: "resource.k8s.io",
        kind: "ResourceSlice",
        name: true,
        columns: &[
            ("NODE", Always, c::slice_node),
            ("DRIVER", Always, c::slice_driver),
            ("POOL", Always, c::slice_pool),
            ("AGE", Always, age),
        ],
        go_project: None,
    },
    // --- events.k8s.io: the same storage and printer as core events ------------------------------
    Entry { group: "events.k8s.io", kind: "Event", name: false, columns: EVENT_COLUMNS, go_project: None },
    // --- this project ----------------------------------------------------------------------------
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
        go_project: None,
    },
];

/// `eventColumnDefinitions`: no NAME first; the event's own name is the last, wide column.
const EVENT_COLUMNS: &[Col] = &[
    ("LAST SEEN", Always, c::event_last_seen),
    ("TYPE", Always, c::event_type),
    ("REASON", Always, c::event_reason),
    ("OBJECT", Always, c::event_object),
    ("SUBOBJECT", Wide, c::event_subobject),
    ("SOURCE", Wide, c::event_source),
    ("MESSAGE", Always, c::event_message),
    ("FIRST SEEN", Wide, c::event_first_seen),
    ("COUNT", Wide, c::event_count),
    ("NAME", Wide, c::event_name),
];

/// The API server's default table (`rest.NewDefaultTableConvertor`): Name and Created At.
const CREATED_AT: &[Col] = &[("CREATED AT", Always, c::created_at)];

/// Name and Age.
const AGE_ONLY: &[Col] = &[("AGE", Always, age)];

/// Role and cluster role bindings.
const BINDING_COLUMNS: &[Col] = &[
    ("ROLE", Always, c::binding_role),
    ("AGE", Always, age),
    ("USERS", Wide, c::binding_users),
    ("GROUPS", Wide, c::binding_groups),
    ("SERVICEACCOUNTS", Wide, c::binding_service_accounts),
];

/// Validating and mutating webhook configurations.
const WEBHOOK_COLUMNS: &[Col] = &[("WEBHOOKS", Always, c::webhook_count), ("AGE", Always, age)];

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::printers::{TableSpec, View};

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
    fn the_go_projects_tables_keep_their_columns() {
        let headers = |group: &str, kind: &str| {
            TableSpec::builtin(group, kind, true, View::GoProject).unwrap().headers(false).join(" ")
        };
        assert_eq!(headers("", "Pod"), "CLUSTER NAME NAMESPACE NODE POD IP STATUS CONTAINER IMAGE");
        assert_eq!(headers("apps", "Deployment"), "CLUSTER NAME NAMESPACE TOTAL AVAILABLE READY");
        assert_eq!(headers("", "ConfigMap"), "CLUSTER NAME NAMESPACE DATA");
        let kubectl = TableSpec::builtin("", "Pod", true, View::Kubectl).unwrap().headers(true).join(" ");
        assert_eq!(
            kubectl,
            "CLUSTER NAME NAMESPACE READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES"
        );
        let deploy =
            TableSpec::builtin("apps", "Deployment", true, View::Kubectl).unwrap().headers(false).join(" ");
        assert_eq!(deploy, "CLUSTER NAME NAMESPACE READY UP-TO-DATE AVAILABLE AGE");
    }

    #[test]
    fn cluster_scoped_kinds_have_no_namespace_column() {
        assert_eq!(
            TableSpec::builtin("", "Node", false, View::Kubectl).unwrap().headers(false)[..3],
            ["CLUSTER", "NAME", "STATUS"]
        );
        assert_eq!(TableSpec::generic(false).headers(false), ["CLUSTER", "NAME", "AGE"]);
    }
}
