//! Cell functions of the built-in tables: one `fn(&Value, &Ctx) -> String` per column, computed
//! as kubectl's printers do (`k8s.io/kubernetes/pkg/printers/internalversion`).

use serde_json::Value;

use super::Ctx;
use super::time;

const NONE: &str = "<none>";

/// `Value::pointer` without its allocation per segment: a table of 10,000 rows looks up tens of
/// paths per row. The paths here are literals without `~` escapes.
fn at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    pointer.split('/').skip(1).try_fold(v, |v, key| match v {
        Value::Object(map) => map.get(key),
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    at(v, pointer).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn int_at(v: &Value, pointer: &str) -> Option<i64> {
    at(v, pointer).and_then(Value::as_i64)
}

fn arr_at<'a>(v: &'a Value, pointer: &str) -> &'a [Value] {
    at(v, pointer).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn count_at(v: &Value, pointer: &str) -> usize {
    match at(v, pointer) {
        Some(Value::Object(map)) => map.len(),
        Some(Value::Array(items)) => items.len(),
        _ => 0,
    }
}

fn or_none(s: String) -> String {
    if s.is_empty() { NONE.into() } else { s }
}

fn join_strs<'a>(items: impl Iterator<Item = &'a str>, sep: &str) -> String {
    items.collect::<Vec<_>>().join(sep)
}

fn condition<'a>(v: &'a Value, pointer: &str, kind: &str) -> Option<&'a Value> {
    arr_at(v, pointer).iter().find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
}

fn condition_true(v: &Value, pointer: &str, kind: &str) -> bool {
    condition(v, pointer, kind).and_then(|c| c.get("status")).and_then(Value::as_str) == Some("True")
}

/// `metadata.creationTimestamp` as an age.
pub fn age(v: &Value, ctx: &Ctx) -> String {
    time::since(str_at(v, "/metadata/creationTimestamp"), ctx.now)
}

/// A label selector (`matchLabels` + `matchExpressions`) as text.
fn selector_text(sel: Option<&Value>) -> String {
    let Some(sel) = sel else { return NONE.into() };
    let mut parts: Vec<String> = Vec::new();
    if let Some(labels) = sel.get("matchLabels").and_then(Value::as_object) {
        parts.extend(labels.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())));
    }
    for e in sel.get("matchExpressions").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
        let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
        let values = join_strs(arr_at(e, "/values").iter().filter_map(Value::as_str), ",");
        parts.push(match e.get("operator").and_then(Value::as_str).unwrap_or_default() {
            "In" => format!("{key} in ({values})"),
            "NotIn" => format!("{key} notin ({values})"),
            "Exists" => key.to_owned(),
            "DoesNotExist" => format!("!{key}"),
            op => format!("{key} {op} ({values})"),
        });
    }
    if parts.is_empty() { NONE.into() } else { parts.join(",") }
}

/// `spec.selector` of a workload.
pub fn selector(v: &Value, _: &Ctx) -> String {
    selector_text(at(v, "/spec/selector"))
}

/// A plain map selector (Services).
fn map_selector(v: &Value, pointer: &str) -> String {
    match at(v, pointer).and_then(Value::as_object) {
        Some(map) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(","),
        _ => NONE.into(),
    }
}

fn template_containers<'a>(v: &'a Value, pointer: &str) -> &'a [Value] {
    arr_at(v, pointer)
}

fn names_of(containers: &[Value], field: &str) -> String {
    or_none(join_strs(containers.iter().filter_map(|c| c.get(field).and_then(Value::as_str)), ","))
}

/// Container names of a workload's pod template.
pub fn template_container_names(v: &Value, _: &Ctx) -> String {
    names_of(template_containers(v, "/spec/template/spec/containers"), "name")
}

/// Images of a workload's pod template.
pub fn template_images(v: &Value, _: &Ctx) -> String {
    names_of(template_containers(v, "/spec/template/spec/containers"), "image")
}

// --- Pods --------------------------------------------------------------------------------------

/// `spec.nodeName`.
pub fn pod_node(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/nodeName").unwrap_or(NONE).into()
}

/// `status.podIP`.
pub fn pod_ip(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/podIP").unwrap_or(NONE).into()
}

/// Container names, comma-separated.
pub fn pod_containers(v: &Value, _: &Ctx) -> String {
    names_of(arr_at(v, "/spec/containers"), "name")
}

/// Container images, comma-separated, in container order.
pub fn pod_images(v: &Value, _: &Ctx) -> String {
    names_of(arr_at(v, "/spec/containers"), "image")
}

/// `ready/total` containers.
pub fn pod_ready(v: &Value, _: &Ctx) -> String {
    let total = arr_at(v, "/spec/containers").len();
    let ready = arr_at(v, "/status/containerStatuses")
        .iter()
        .filter(|c| c.get("ready").and_then(Value::as_bool) == Some(true))
        .count();
    format!("{ready}/{total}")
}

/// Restarts of all containers, with the time since the last one: `3 (5m ago)`.
pub fn pod_restarts(v: &Value, ctx: &Ctx) -> String {
    let statuses = arr_at(v, "/status/containerStatuses");
    let restarts: i64 = statuses.iter().filter_map(|c| c.get("restartCount").and_then(Value::as_i64)).sum();
    let last = statuses
        .iter()
        .filter_map(|c| at(c, "/lastState/terminated/finishedAt").and_then(Value::as_str))
        .filter_map(time::parse)
        .max();
    match last {
        Some(t) if restarts > 0 => {
            format!("{restarts} ({} ago)", time::human_duration(ctx.now.duration_since(t).as_secs()))
        }
        _ => restarts.to_string(),
    }
}

/// The STATUS column of `kubectl get pods`: the phase, refined by container states
/// (`CrashLoopBackOff`, `Init:0/1`, `Completed`, `Terminating`, …).
pub fn pod_status(v: &Value, _: &Ctx) -> String {
    let mut reason =
        str_at(v, "/status/reason").or(str_at(v, "/status/phase")).unwrap_or("Unknown").to_owned();
    if let Some(c) = condition(v, "/status/conditions", "PodScheduled")
        && c.get("reason").and_then(Value::as_str) == Some("SchedulingGated")
    {
        reason = "SchedulingGated".into();
    }
    let init_specs = arr_at(v, "/spec/initContainers");
    let init_statuses = arr_at(v, "/status/initContainerStatuses");
    let mut initializing = false;
    for (i, c) in init_statuses.iter().enumerate() {
        let terminated = at(c, "/state/terminated");
        let exit_code = terminated.and_then(|t| t.get("exitCode")).and_then(Value::as_i64).unwrap_or(0);
        let sidecar = init_specs
            .iter()
            .find(|s| s.get("name") == c.get("name"))
            .and_then(|s| s.get("restartPolicy"))
            .and_then(Value::as_str)
            == Some("Always");
        let waiting_reason = at(c, "/state/waiting/reason").and_then(Value::as_str).unwrap_or_default();
        if terminated.is_some() && exit_code == 0 {
            continue;
        }
        if sidecar && c.get("started").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(t) = terminated {
            reason = match t.get("reason").and_then(Value::as_str).filter(|r| !r.is_empty()) {
                Some(r) => format!("Init:{r}"),
                None => match t.get("signal").and_then(Value::as_i64).filter(|s| *s != 0) {
                    Some(s) => format!("Init:Signal:{s}"),
                    None => format!("Init:ExitCode:{exit_code}"),
                },
            };
        } else if !waiting_reason.is_empty() && waiting_reason != "PodInitializing" {
            reason = format!("Init:{waiting_reason}");
        } else {
            reason = format!("Init:{i}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }
    if !initializing || condition_true(v, "/status/conditions", "Initialized") {
        let mut has_running = false;
        for c in arr_at(v, "/status/containerStatuses").iter().rev() {
            let waiting = at(c, "/state/waiting/reason").and_then(Value::as_str).filter(|r| !r.is_empty());
            let terminated = at(c, "/state/terminated");
            if let Some(w) = waiting {
                reason = w.to_owned();
            } else if let Some(t) = terminated {
                reason = match t.get("reason").and_then(Value::as_str).filter(|r| !r.is_empty()) {
                    Some(r) => r.to_owned(),
                    None => match t.get("signal").and_then(Value::as_i64).filter(|s| *s != 0) {
                        Some(s) => format!("Signal:{s}"),
                        None => {
                            format!("ExitCode:{}", t.get("exitCode").and_then(Value::as_i64).unwrap_or(0))
                        }
                    },
                };
            } else if c.get("ready").and_then(Value::as_bool) == Some(true)
                && at(c, "/state/running").is_some()
            {
                has_running = true;
            }
        }
        if reason == "Completed" && has_running {
            reason =
                if condition_true(v, "/status/conditions", "Ready") { "Running" } else { "NotReady" }.into();
        }
    }
    if at(v, "/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        let phase = str_at(v, "/status/phase").unwrap_or_default();
        if str_at(v, "/status/reason") == Some("NodeLost") {
            reason = "Unknown".into();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".into();
        }
    }
    reason
}

// --- Workloads ---------------------------------------------------------------------------------

fn replicas_spec(v: &Value) -> i64 {
    int_at(v, "/spec/replicas").unwrap_or(1)
}

/// `spec.replicas` (TOTAL of the original's deployment table).
pub fn spec_replicas(v: &Value, _: &Ctx) -> String {
    replicas_spec(v).to_string()
}

/// `status.availableReplicas`.
pub fn available_replicas(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/availableReplicas").unwrap_or(0).to_string()
}

/// `status.readyReplicas`.
pub fn ready_replicas(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/readyReplicas").unwrap_or(0).to_string()
}

/// `status.replicas` (CURRENT).
pub fn current_replicas(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/replicas").unwrap_or(0).to_string()
}

/// `status.updatedReplicas`.
pub fn updated_replicas(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/updatedReplicas").unwrap_or(0).to_string()
}

/// `ready/desired`, as kubectl shows StatefulSets.
pub fn ready_of_desired(v: &Value, _: &Ctx) -> String {
    format!("{}/{}", int_at(v, "/status/readyReplicas").unwrap_or(0), replicas_spec(v))
}

/// DaemonSet `status.desiredNumberScheduled`.
pub fn ds_desired(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/desiredNumberScheduled").unwrap_or(0).to_string()
}

/// DaemonSet `status.currentNumberScheduled`.
pub fn ds_current(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/currentNumberScheduled").unwrap_or(0).to_string()
}

/// DaemonSet `status.numberReady`.
pub fn ds_ready(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/numberReady").unwrap_or(0).to_string()
}

/// DaemonSet `status.updatedNumberScheduled`.
pub fn ds_updated(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/updatedNumberScheduled").unwrap_or(0).to_string()
}

/// DaemonSet `status.numberAvailable`.
pub fn ds_available(v: &Value, _: &Ctx) -> String {
    int_at(v, "/status/numberAvailable").unwrap_or(0).to_string()
}

/// DaemonSet pod template node selector.
pub fn ds_node_selector(v: &Value, _: &Ctx) -> String {
    map_selector(v, "/spec/template/spec/nodeSelector")
}

// --- Jobs and CronJobs -------------------------------------------------------------------------

/// Job STATUS: Complete, Failed, Suspended, Terminating, Running, …
pub fn job_status(v: &Value, _: &Ctx) -> String {
    let conditions = "/status/conditions";
    if condition_true(v, conditions, "Complete") {
        "Complete"
    } else if condition_true(v, conditions, "Failed") {
        "Failed"
    } else if at(v, "/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        "Terminating"
    } else if condition_true(v, conditions, "FailureTarget") {
        "FailureTarget"
    } else if condition_true(v, conditions, "SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else if condition_true(v, conditions, "Suspended") {
        "Suspended"
    } else {
        "Running"
    }
    .into()
}

/// Job COMPLETIONS: `succeeded/completions`.
pub fn job_completions(v: &Value, _: &Ctx) -> String {
    let succeeded = int_at(v, "/status/succeeded").unwrap_or(0);
    match int_at(v, "/spec/completions") {
        Some(c) => format!("{succeeded}/{c}"),
        None => match int_at(v, "/spec/parallelism").unwrap_or(0) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    }
}

/// Job DURATION: from start to completion, or to now while running.
pub fn job_duration(v: &Value, ctx: &Ctx) -> String {
    let Some(start) = str_at(v, "/status/startTime").and_then(time::parse) else { return String::new() };
    let end = str_at(v, "/status/completionTime").and_then(time::parse).unwrap_or(ctx.now);
    time::human_duration(end.duration_since(start).as_secs())
}

/// Job pod template containers.
pub fn job_containers(v: &Value, ctx: &Ctx) -> String {
    template_container_names(v, ctx)
}

/// CronJob `spec.schedule`.
pub fn cron_schedule(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/schedule").unwrap_or_default().into()
}

/// CronJob `spec.timeZone`.
pub fn cron_timezone(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/timeZone").unwrap_or(NONE).into()
}

/// CronJob `spec.suspend`.
pub fn cron_suspend(v: &Value, _: &Ctx) -> String {
    at(v, "/spec/suspend").and_then(Value::as_bool).unwrap_or(false).to_string()
}

/// CronJob active jobs.
pub fn cron_active(v: &Value, _: &Ctx) -> String {
    count_at(v, "/status/active").to_string()
}

/// CronJob time since the last schedule.
pub fn cron_last_schedule(v: &Value, ctx: &Ctx) -> String {
    match str_at(v, "/status/lastScheduleTime") {
        Some(t) => time::since(Some(t), ctx.now),
        None => NONE.into(),
    }
}

/// CronJob job template containers.
pub fn cron_containers(v: &Value, _: &Ctx) -> String {
    names_of(arr_at(v, "/spec/jobTemplate/spec/template/spec/containers"), "name")
}

/// CronJob job template images.
pub fn cron_images(v: &Value, _: &Ctx) -> String {
    names_of(arr_at(v, "/spec/jobTemplate/spec/template/spec/containers"), "image")
}

// --- Config and storage ------------------------------------------------------------------------

/// Number of keys in `data` plus `binaryData` (ConfigMaps) or `data` (Secrets).
pub fn data_count(v: &Value, _: &Ctx) -> String {
    (count_at(v, "/data") + count_at(v, "/binaryData")).to_string()
}

/// Secret `type`.
pub fn secret_type(v: &Value, _: &Ctx) -> String {
    str_at(v, "/type").unwrap_or("Opaque").into()
}

/// PVC `status.phase` (Terminating while being deleted).
pub fn pvc_status(v: &Value, _: &Ctx) -> String {
    if at(v, "/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        return "Terminating".into();
    }
    str_at(v, "/status/phase").unwrap_or("Pending").into()
}

/// PVC `spec.volumeName`.
pub fn pvc_volume(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/volumeName").unwrap_or_default().into()
}

/// PVC capacity, once bound.
pub fn pvc_capacity(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/capacity/storage").unwrap_or_default().into()
}

/// PVC access modes, abbreviated: RWO, ROX, RWX, RWOP.
pub fn pvc_access_modes(v: &Value, _: &Ctx) -> String {
    let modes = arr_at(v, "/status/accessModes");
    let modes = if modes.is_empty() { arr_at(v, "/spec/accessModes") } else { modes };
    join_strs(
        modes.iter().filter_map(Value::as_str).map(|m| match m {
            "ReadWriteOnce" => "RWO",
            "ReadOnlyMany" => "ROX",
            "ReadWriteMany" => "RWX",
            "ReadWriteOncePod" => "RWOP",
            other => other,
        }),
        ",",
    )
}

/// PVC storage class.
pub fn pvc_storage_class(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/storageClassName").unwrap_or(NONE).into()
}

/// PVC volume attributes class.
pub fn pvc_attributes_class(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/volumeAttributesClassName").unwrap_or(NONE).into()
}

/// PVC volume mode.
pub fn pvc_volume_mode(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/volumeMode").unwrap_or("Filesystem").into()
}

// --- Services and ingresses --------------------------------------------------------------------

/// Service `spec.type`.
pub fn svc_type(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/type").unwrap_or("ClusterIP").into()
}

/// Service `spec.clusterIP`.
pub fn svc_cluster_ip(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/clusterIP").unwrap_or(NONE).into()
}

fn lb_addresses(v: &Value) -> Vec<&str> {
    arr_at(v, "/status/loadBalancer/ingress")
        .iter()
        .filter_map(|i| i.get("ip").or_else(|| i.get("hostname")).and_then(Value::as_str))
        .collect()
}

/// Service EXTERNAL-IP: external IPs, load balancer addresses, or `<pending>`.
pub fn svc_external_ip(v: &Value, _: &Ctx) -> String {
    let external: Vec<&str> = arr_at(v, "/spec/externalIPs").iter().filter_map(Value::as_str).collect();
    match str_at(v, "/spec/type").unwrap_or("ClusterIP") {
        "ExternalName" => str_at(v, "/spec/externalName").unwrap_or(NONE).into(),
        "LoadBalancer" => {
            let mut all = lb_addresses(v);
            all.extend(external);
            if all.is_empty() { "<pending>".into() } else { all.join(",") }
        }
        _ => or_none(external.join(",")),
    }
}

/// Service PORT(S): `80/TCP`, `80:30080/TCP`.
pub fn svc_ports(v: &Value, _: &Ctx) -> String {
    let ports: Vec<String> = arr_at(v, "/spec/ports")
        .iter()
        .map(|p| {
            let port = p.get("port").and_then(Value::as_i64).unwrap_or(0);
            let proto = p.get("protocol").and_then(Value::as_str).unwrap_or("TCP");
            match p.get("nodePort").and_then(Value::as_i64) {
                Some(node) => format!("{port}:{node}/{proto}"),
                None => format!("{port}/{proto}"),
            }
        })
        .collect();
    or_none(ports.join(","))
}

/// Service `spec.selector`.
pub fn svc_selector(v: &Value, _: &Ctx) -> String {
    map_selector(v, "/spec/selector")
}

/// Ingress class.
pub fn ing_class(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/ingressClassName")
        .or_else(|| str_at(v, "/metadata/annotations/kubernetes.io~1ingress.class"))
        .unwrap_or(NONE)
        .into()
}

/// Ingress hosts, `*` for rules without one.
pub fn ing_hosts(v: &Value, _: &Ctx) -> String {
    let rules = arr_at(v, "/spec/rules");
    if rules.is_empty() {
        return "*".into();
    }
    join_strs(rules.iter().map(|r| r.get("host").and_then(Value::as_str).unwrap_or("*")), ",")
}

/// Ingress load balancer addresses.
pub fn ing_address(v: &Value, _: &Ctx) -> String {
    lb_addresses(v).join(",")
}

/// Ingress ports: 80, plus 443 with TLS.
pub fn ing_ports(v: &Value, _: &Ctx) -> String {
    if arr_at(v, "/spec/tls").is_empty() { "80".into() } else { "80, 443".into() }
}

// --- Nodes and namespaces ----------------------------------------------------------------------

/// Node STATUS: Ready/NotReady/Unknown, `,SchedulingDisabled` when cordoned.
pub fn node_status(v: &Value, _: &Ctx) -> String {
    let mut status = match condition(v, "/status/conditions", "Ready")
        .and_then(|c| c.get("status"))
        .and_then(Value::as_str)
    {
        Some("True") => "Ready".to_owned(),
        Some("False") => "NotReady".to_owned(),
        _ => "Unknown".to_owned(),
    };
    if at(v, "/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push_str(",SchedulingDisabled");
    }
    status
}

/// Node roles from `node-role.kubernetes.io/*` labels.
pub fn node_roles(v: &Value, _: &Ctx) -> String {
    let mut roles: Vec<&str> = Vec::new();
    if let Some(labels) = at(v, "/metadata/labels").and_then(Value::as_object) {
        for (k, val) in labels {
            if let Some(role) = k.strip_prefix("node-role.kubernetes.io/").filter(|r| !r.is_empty()) {
                roles.push(role);
            } else if k == "kubernetes.io/role" {
                roles.extend(val.as_str().filter(|r| !r.is_empty()));
            }
        }
    }
    roles.sort_unstable();
    roles.dedup();
    or_none(roles.join(","))
}

/// Kubelet version.
pub fn node_version(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/nodeInfo/kubeletVersion").unwrap_or_default().into()
}

fn node_address(v: &Value, kind: &str) -> String {
    arr_at(v, "/status/addresses")
        .iter()
        .find(|a| a.get("type").and_then(Value::as_str) == Some(kind))
        .and_then(|a| a.get("address").and_then(Value::as_str))
        .unwrap_or(NONE)
        .into()
}

/// Node internal IP.
pub fn node_internal_ip(v: &Value, _: &Ctx) -> String {
    node_address(v, "InternalIP")
}

/// Node external IP.
pub fn node_external_ip(v: &Value, _: &Ctx) -> String {
    node_address(v, "ExternalIP")
}

/// Node OS image.
pub fn node_os_image(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/nodeInfo/osImage").unwrap_or("<unknown>").into()
}

/// Node kernel version.
pub fn node_kernel(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/nodeInfo/kernelVersion").unwrap_or("<unknown>").into()
}

/// Node container runtime.
pub fn node_runtime(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/nodeInfo/containerRuntimeVersion").unwrap_or("<unknown>").into()
}

/// Namespace `status.phase`.
pub fn ns_status(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/phase").unwrap_or("Active").into()
}

// --- Events (core/v1 and events.k8s.io/v1) -----------------------------------------------------

fn event_last_time(v: &Value) -> Option<&str> {
    str_at(v, "/series/lastObservedTime")
        .or_else(|| str_at(v, "/lastTimestamp"))
        .or_else(|| str_at(v, "/deprecatedLastTimestamp"))
        .or_else(|| str_at(v, "/eventTime"))
        .or_else(|| str_at(v, "/firstTimestamp"))
        .or_else(|| str_at(v, "/metadata/creationTimestamp"))
}

/// Time since the event was last seen.
pub fn event_last_seen(v: &Value, ctx: &Ctx) -> String {
    time::since(event_last_time(v), ctx.now)
}

/// Time since the event was first seen.
pub fn event_first_seen(v: &Value, ctx: &Ctx) -> String {
    let first = str_at(v, "/firstTimestamp")
        .or_else(|| str_at(v, "/deprecatedFirstTimestamp"))
        .or_else(|| str_at(v, "/eventTime"))
        .or_else(|| str_at(v, "/metadata/creationTimestamp"));
    time::since(first, ctx.now)
}

/// Normal or Warning.
pub fn event_type(v: &Value, _: &Ctx) -> String {
    str_at(v, "/type").unwrap_or_default().into()
}

/// The event's reason.
pub fn event_reason(v: &Value, _: &Ctx) -> String {
    str_at(v, "/reason").unwrap_or_default().into()
}

/// `kind/name` of the object the event is about.
pub fn event_object(v: &Value, _: &Ctx) -> String {
    let obj = v.get("involvedObject").or_else(|| v.get("regarding"));
    let kind = obj.and_then(|o| o.get("kind")).and_then(Value::as_str).unwrap_or_default();
    let name = obj.and_then(|o| o.get("name")).and_then(Value::as_str).unwrap_or_default();
    format!("{}/{name}", kind.to_ascii_lowercase())
}

/// The event's message (`note` in events.k8s.io), on one line.
pub fn event_message(v: &Value, _: &Ctx) -> String {
    str_at(v, "/message").or_else(|| str_at(v, "/note")).unwrap_or_default().into()
}

/// Component that reported the event.
pub fn event_source(v: &Value, _: &Ctx) -> String {
    let component = str_at(v, "/source/component")
        .or_else(|| str_at(v, "/reportingController"))
        .or_else(|| str_at(v, "/reportingComponent"))
        .unwrap_or_default();
    match str_at(v, "/source/host") {
        Some(host) => format!("{component}, {host}"),
        None => component.into(),
    }
}

/// How often it happened.
pub fn event_count(v: &Value, _: &Ctx) -> String {
    int_at(v, "/count")
        .or_else(|| int_at(v, "/series/count"))
        .or_else(|| int_at(v, "/deprecatedCount"))
        .unwrap_or(1)
        .to_string()
}

/// The event object's own name.
pub fn event_name(v: &Value, _: &Ctx) -> String {
    str_at(v, "/metadata/name").unwrap_or_default().into()
}

// --- MultiClusterResources ---------------------------------------------------------------------

/// `Kind/name` of the template.
pub fn mcr_template(v: &Value, _: &Ctx) -> String {
    let kind = str_at(v, "/spec/template/kind").unwrap_or("?");
    let name = str_at(v, "/spec/template/metadata/name").unwrap_or("?");
    format!("{kind}/{name}")
}

/// Placed clusters, or `<master>` when there is no placement (the original's default).
pub fn mcr_placement(v: &Value, _: &Ctx) -> String {
    let names =
        join_strs(arr_at(v, "/spec/placement/clusters").iter().filter_map(|c| c.get("name")?.as_str()), ",");
    if !names.is_empty() {
        return names;
    }
    if let Some(sel) = at(v, "/spec/placement/clusterSelector") {
        return format!("selector: {}", selector_text(Some(sel)));
    }
    "<master>".into()
}

/// `applied/placed`: the controller's `status.ready`, else counted from `status.clusters`.
pub fn mcr_ready(v: &Value, _: &Ctx) -> String {
    if let Some(ready) = str_at(v, "/status/ready") {
        return ready.to_owned();
    }
    let clusters = arr_at(v, "/status/clusters");
    if clusters.is_empty() {
        return NONE.into();
    }
    let applied =
        clusters.iter().filter(|c| c.get("phase").and_then(Value::as_str) == Some("Applied")).count();
    format!("{applied}/{}", clusters.len())
}

/// Status of the `Synced` condition.
pub fn mcr_synced(v: &Value, _: &Ctx) -> String {
    condition(v, "/status/conditions", "Synced")
        .and_then(|c| c.get("status"))
        .and_then(Value::as_str)
        .unwrap_or(NONE)
        .into()
}

/// The first failure: `cluster: message`.
pub fn mcr_message(v: &Value, _: &Ctx) -> String {
    arr_at(v, "/status/clusters")
        .iter()
        .find(|c| c.get("phase").and_then(Value::as_str).is_some_and(|p| p != "Applied"))
        .map(|c| {
            let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
            let phase = c.get("phase").and_then(Value::as_str).unwrap_or_default();
            let message = c.get("message").and_then(Value::as_str).unwrap_or_default();
            if message.is_empty() {
                format!("{name}: {phase}")
            } else {
                format!("{name}: {phase}: {message}")
            }
        })
        .unwrap_or_default()
}
