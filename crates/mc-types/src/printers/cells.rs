//! Cell functions of the built-in tables: one `fn(&Value, &Ctx) -> String` per column, computed
//! as kubectl's printers do (`k8s.io/kubernetes/pkg/printers/internalversion/printers.go`,
//! v1.35), which the API server runs with `Wide: true` for its `meta.k8s.io/v1` Table answers.
//!
//! The object is the JSON an API server returns, so it is already defaulted. Where a field that
//! the API always defaults is missing (a hand-written object), the cell uses that default
//! (`SetDefaults_*`), so it reads as the API server would print the object once stored. Quantities
//! are printed as the API serializes them (canonical form); they are not re-canonicalized.
//!
//! Go cells that are `bool` values (not `printBool` strings) print as kubectl prints them:
//! `true`/`false`; `printBoolPtr` cells print `True`/`False`/`<unset>`.

use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value};

use super::Ctx;
use crate::age as time;

const NONE: &str = "<none>";
const UNSET: &str = "<unset>";
const UNKNOWN: &str = "<unknown>";

/// `Value::pointer` without its allocation per segment: a table of 10,000 rows looks up tens of
/// paths per row. The paths here are literals without `~` escapes.
fn at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    pointer.split('/').skip(1).try_fold(v, |v, key| match v {
        Value::Object(map) => map.get(key),
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// A non-empty string (a Go `string` field, where missing and empty are the same).
fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    at(v, pointer).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// A Go `string` field: empty when missing.
fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    str_at(v, pointer).unwrap_or_default()
}

/// A Go `*string` field: `Some("")` when set to the empty string.
fn ptr_str<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    at(v, pointer).and_then(Value::as_str)
}

fn int_at(v: &Value, pointer: &str) -> Option<i64> {
    at(v, pointer).and_then(Value::as_i64)
}

/// A Go integer field: 0 when missing.
fn int_text(v: &Value, pointer: &str) -> String {
    int_at(v, pointer).unwrap_or(0).to_string()
}

fn bool_at(v: &Value, pointer: &str) -> Option<bool> {
    at(v, pointer).and_then(Value::as_bool)
}

fn arr_at<'a>(v: &'a Value, pointer: &str) -> &'a [Value] {
    at(v, pointer).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn obj_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Map<String, Value>> {
    at(v, pointer).and_then(Value::as_object)
}

/// A Go pointer or struct field that is set (present and not `null`).
fn set_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    at(v, pointer).filter(|x| !x.is_null())
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

/// An annotation, found even when empty (Go's `value, found := annotations[key]`).
fn annotation<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    obj_at(v, "/metadata/annotations")?.get(key)?.as_str()
}

/// `metadata.deletionTimestamp != nil`.
fn deleting(v: &Value) -> bool {
    set_at(v, "/metadata/deletionTimestamp").is_some()
}

/// The first condition of a type.
fn condition<'a>(v: &'a Value, pointer: &str, kind: &str) -> Option<&'a Value> {
    arr_at(v, pointer).iter().find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
}

/// The first condition of a type has status `True`.
fn condition_true(v: &Value, pointer: &str, kind: &str) -> bool {
    condition(v, pointer, kind).and_then(|c| c.get("status")).and_then(Value::as_str) == Some("True")
}

/// `translateTimestampSince`: the age of a timestamp, `<unknown>` without one.
fn since(v: &Value, pointer: &str, ctx: &Ctx) -> String {
    ctx.since(str_at(v, pointer))
}

/// A Go `bool` cell as kubectl prints it (`fmt.Sprint`).
fn go_bool(b: bool) -> String {
    b.to_string()
}

/// `printBool`.
fn print_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

/// `(*resource.Quantity).String()`: the serialized quantity, `<nil>` for a nil pointer.
fn quantity(q: Option<&Value>) -> String {
    match q {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => "<nil>".into(),
    }
}

/// A `resource.Quantity` value (not a pointer): `0` when missing.
fn quantity_or_zero(q: Option<&Value>) -> String {
    match q {
        Some(Value::String(_) | Value::Number(_)) => quantity(q),
        _ => "0".into(),
    }
}

/// `(*intstr.IntOrString).String()`.
fn int_or_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.as_i64().map_or_else(|| n.to_string(), |i| i.to_string()),
        _ => "<nil>".into(),
    }
}

/// `listWithMoreString`: the first `max` items, `+ N more...`, `<unset>` when empty.
fn list_with_more(list: &[String], more: bool, count: usize, max: usize) -> String {
    let ret = list.join(",");
    if more {
        return format!("{ret} + {} more...", count.saturating_sub(max));
    }
    if ret.is_empty() { UNSET.into() } else { ret }
}

/// `metadata.creationTimestamp` as an age.
pub fn age(v: &Value, ctx: &Ctx) -> String {
    since(v, "/metadata/creationTimestamp", ctx)
}

/// `metadata.creationTimestamp` as RFC 3339 in UTC, to the second: the `Created At` column of
/// the API server's default table (`rest.NewDefaultTableConvertor`), used by kinds without a
/// printer (roles, cluster roles, limit ranges, CRDs, …).
pub fn created_at(v: &Value, _: &Ctx) -> String {
    str_at(v, "/metadata/creationTimestamp")
        .and_then(time::parse)
        .and_then(|t| Timestamp::from_second(t.as_second()).ok())
        .map_or_else(|| "0001-01-01T00:00:00Z".into(), |t| t.to_string())
}

/// `metadata.name`.
pub fn name(v: &Value, _: &Ctx) -> String {
    text(v, "/metadata/name").into()
}

// --- Labels and selectors ----------------------------------------------------------------------

/// `labels.FormatLabels`: `k=v` pairs sorted, `<none>` when empty.
fn format_labels(map: Option<&Value>) -> String {
    let mut pairs: Vec<String> = map
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort_unstable();
    or_none(pairs.join(","))
}

/// `metav1.LabelSelectorAsSelector(sel).String()`: requirements sorted by key, `""` for a nil or
/// empty selector; `None` where Go fails (an unknown operator, values that do not fit it).
fn selector_string(sel: Option<&Value>) -> Option<String> {
    let Some(sel) = sel.filter(|s| !s.is_null()) else { return Some(String::new()) };
    let mut reqs: Vec<(&str, String)> = Vec::new();
    for (k, v) in obj_at(sel, "/matchLabels").into_iter().flatten() {
        reqs.push((k, format!("{k}={}", v.as_str().unwrap_or_default())));
    }
    for e in arr_at(sel, "/matchExpressions") {
        let key = text(e, "/key");
        let mut values: Vec<&str> = arr_at(e, "/values").iter().filter_map(Value::as_str).collect();
        let req = match text(e, "/operator") {
            op @ ("In" | "NotIn") => {
                if values.is_empty() {
                    return None;
                }
                values.sort_unstable();
                let word = if op == "In" { "in" } else { "notin" };
                format!("{key} {word} ({})", values.join(","))
            }
            "Exists" if values.is_empty() => key.to_owned(),
            "DoesNotExist" if values.is_empty() => format!("!{key}"),
            _ => return None,
        };
        reqs.push((key, req));
    }
    reqs.sort_by(|a, b| a.0.cmp(b.0));
    Some(join_strs(reqs.iter().map(|(_, r)| r.as_str()), ","))
}

/// `metav1.FormatLabelSelector`: `<none>` when empty, `<error>` when invalid.
fn format_label_selector(sel: Option<&Value>) -> String {
    selector_string(sel).map_or_else(|| "<error>".into(), or_none)
}

/// `spec.selector` of a workload (`metav1.FormatLabelSelector`).
pub fn selector(v: &Value, _: &Ctx) -> String {
    format_label_selector(at(v, "/spec/selector"))
}

/// Deployment SELECTOR: `LabelSelectorAsSelector(…).String()`, empty for an empty selector,
/// `<invalid>` when invalid.
pub fn deployment_selector(v: &Value, _: &Ctx) -> String {
    selector_string(at(v, "/spec/selector")).unwrap_or_else(|| "<invalid>".into())
}

/// The generated `(*metav1.LabelSelector).String()` (a Go struct dump), as the binding printers
/// show a `paramRef.selector`.
fn label_selector_go_string(sel: &Value) -> String {
    let mut labels: Vec<(&String, &str)> = obj_at(sel, "/matchLabels")
        .into_iter()
        .flatten()
        .map(|(k, v)| (k, v.as_str().unwrap_or_default()))
        .collect();
    labels.sort_unstable();
    let labels: String = labels.iter().map(|(k, v)| format!("{k}: {v},")).collect();
    let exprs: String = arr_at(sel, "/matchExpressions")
        .iter()
        .map(|e| {
            let values = join_strs(arr_at(e, "/values").iter().filter_map(Value::as_str), " ");
            format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{values}],}},",
                text(e, "/key"),
                text(e, "/operator")
            )
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}"
    )
}

// --- Containers --------------------------------------------------------------------------------

/// `layoutContainerCells`: one field of every container, comma-joined (empty without any).
fn container_field(v: &Value, pointer: &str, field: &str) -> String {
    join_strs(
        arr_at(v, pointer).iter().map(|c| c.get(field).and_then(Value::as_str).unwrap_or_default()),
        ",",
    )
}

/// Container names of a workload's pod template.
pub fn template_container_names(v: &Value, _: &Ctx) -> String {
    container_field(v, "/spec/template/spec/containers", "name")
}

/// Images of a workload's pod template.
pub fn template_images(v: &Value, _: &Ctx) -> String {
    container_field(v, "/spec/template/spec/containers", "image")
}

/// Names of the Go project's `list` columns: the values present, `<none>` without any.
fn names_of(containers: &[Value], field: &str) -> String {
    or_none(join_strs(containers.iter().filter_map(|c| c.get(field).and_then(Value::as_str)), ","))
}

// --- Pods --------------------------------------------------------------------------------------

/// What `printPod` computes for READY, STATUS and RESTARTS.
struct PodSummary {
    ready: usize,
    total: usize,
    reason: String,
    restarts: i64,
    last_restart: Option<Timestamp>,
}

/// `lastState.terminated.finishedAt` of a container status, when later than `last`.
fn later_restart(c: &Value, last: Option<Timestamp>) -> Option<Timestamp> {
    if set_at(c, "/lastState/terminated").is_none() {
        return last;
    }
    let finished = str_at(c, "/lastState/terminated/finishedAt").and_then(time::parse);
    match (last, finished) {
        (Some(l), Some(f)) if l < f => Some(f),
        (None, Some(f)) => Some(f),
        _ => last,
    }
}

/// A terminated state's reason: its reason, else `Signal:N`, else `ExitCode:N`.
fn terminated_reason(t: &Value, prefix: &str) -> String {
    match str_at(t, "/reason") {
        Some(r) => format!("{prefix}{r}"),
        None => match int_at(t, "/signal").filter(|s| *s != 0) {
            Some(s) => format!("{prefix}Signal:{s}"),
            None => format!("{prefix}ExitCode:{}", int_at(t, "/exitCode").unwrap_or(0)),
        },
    }
}

fn pod_summary(v: &Value) -> PodSummary {
    let init_specs = arr_at(v, "/spec/initContainers");
    let restartable = |name: Option<&Value>| {
        init_specs.iter().rev().find(|s| s.get("name") == name).and_then(|s| ptr_str(s, "/restartPolicy"))
            == Some("Always")
    };
    let mut total = arr_at(v, "/spec/containers").len();
    total += init_specs.iter().filter(|s| ptr_str(s, "/restartPolicy") == Some("Always")).count();
    let mut ready = 0;
    let mut restarts = 0;
    let mut restartable_restarts = 0;
    let mut last_restart = None;
    let mut last_restartable_restart = None;
    // The phase the API server gives every pod it creates.
    let mut reason =
        str_at(v, "/status/reason").or(str_at(v, "/status/phase")).unwrap_or("Pending").to_owned();
    let conditions = arr_at(v, "/status/conditions");
    if conditions
        .iter()
        .any(|c| text(c, "/type") == "PodScheduled" && text(c, "/reason") == "SchedulingGated")
    {
        reason = "SchedulingGated".into();
    }

    let mut initializing = false;
    for (i, c) in arr_at(v, "/status/initContainerStatuses").iter().enumerate() {
        let count = int_at(c, "/restartCount").unwrap_or(0);
        let sidecar = restartable(c.get("name"));
        restarts += count;
        last_restart = later_restart(c, last_restart);
        if sidecar {
            restartable_restarts += count;
            last_restartable_restart = later_restart(c, last_restartable_restart);
        }
        let terminated = set_at(c, "/state/terminated");
        if terminated.is_some_and(|t| int_at(t, "/exitCode").unwrap_or(0) == 0) {
            continue;
        }
        if sidecar && bool_at(c, "/started") == Some(true) {
            if bool_at(c, "/ready") == Some(true) {
                ready += 1;
            }
            continue;
        }
        let waiting = set_at(c, "/state/waiting").and_then(|w| str_at(w, "/reason"));
        reason = match (terminated, waiting) {
            (Some(t), _) => terminated_reason(t, "Init:"),
            (None, Some(w)) if w != "PodInitializing" => format!("Init:{w}"),
            _ => format!("Init:{i}/{}", init_specs.len()),
        };
        initializing = true;
        break;
    }

    if !initializing || condition_true(v, "/status/conditions", "Initialized") {
        restarts = restartable_restarts;
        last_restart = last_restartable_restart;
        let mut has_running = false;
        let mut error_reason = None;
        for c in arr_at(v, "/status/containerStatuses").iter().rev() {
            restarts += int_at(c, "/restartCount").unwrap_or(0);
            last_restart = later_restart(c, last_restart);
            let waiting = set_at(c, "/state/waiting").and_then(|w| str_at(w, "/reason"));
            if let Some(w) = waiting {
                reason = w.to_owned();
            } else if let Some(t) = set_at(c, "/state/terminated") {
                reason = terminated_reason(t, "");
                if int_at(t, "/exitCode").unwrap_or(0) != 0 {
                    error_reason = Some(reason.clone());
                }
            } else if bool_at(c, "/ready") == Some(true) && set_at(c, "/state/running").is_some() {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" {
            let pod_ready =
                conditions.iter().any(|c| text(c, "/type") == "Ready" && text(c, "/status") == "True");
            if has_running && pod_ready {
                reason = "Running".into();
            } else if let Some(e) = error_reason {
                reason = e;
            } else if has_running {
                reason = "NotReady".into();
            }
        }
    }

    if deleting(v) {
        let phase = text(v, "/status/phase");
        if text(v, "/status/reason") == "NodeLost" {
            reason = "Unknown".into();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".into();
        }
    }
    PodSummary { ready, total, reason, restarts, last_restart }
}

/// `status.nominatedNodeName`.
pub fn pod_nominated_node(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/nominatedNodeName").unwrap_or(NONE).into()
}

/// `ready/total` readiness gates whose condition is True; `<none>` without gates.
pub fn pod_readiness_gates(v: &Value, _: &Ctx) -> String {
    let gates = arr_at(v, "/spec/readinessGates");
    if gates.is_empty() {
        return NONE.into();
    }
    let ready =
        gates.iter().filter(|g| condition_true(v, "/status/conditions", text(g, "/conditionType"))).count();
    format!("{ready}/{}", gates.len())
}

/// `spec.nodeName`.
pub fn pod_node(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/nodeName").unwrap_or(NONE).into()
}

/// The pod's first IP: `status.podIP` (authoritative in the v1 conversion), else
/// `status.podIPs[0].ip`, else `<none>`.
pub fn pod_ip(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/podIP").or_else(|| str_at(v, "/status/podIPs/0/ip")).unwrap_or(NONE).into()
}

/// Container names, comma-separated (the Go project's CONTAINER column).
pub fn pod_containers(v: &Value, _: &Ctx) -> String {
    names_of(arr_at(v, "/spec/containers"), "name")
}

/// Container images, comma-separated, in container order (the Go project's IMAGE column).
pub fn pod_images(v: &Value, _: &Ctx) -> String {
    names_of(arr_at(v, "/spec/containers"), "image")
}

/// `ready/total` containers, sidecars (restartable init containers) included.
pub fn pod_ready(v: &Value, _: &Ctx) -> String {
    let s = pod_summary(v);
    format!("{}/{}", s.ready, s.total)
}

/// Restarts of the containers, with the time since the last one: `3 (5m ago)`.
pub fn pod_restarts(v: &Value, ctx: &Ctx) -> String {
    let s = pod_summary(v);
    match s.last_restart {
        Some(t) if s.restarts != 0 => {
            format!("{} ({} ago)", s.restarts, ctx.ago(t))
        }
        _ => s.restarts.to_string(),
    }
}

/// The STATUS column of `kubectl get pods`: the phase, refined by container states
/// (`CrashLoopBackOff`, `Init:0/1`, `Completed`, `Terminating`, …).
pub fn pod_status(v: &Value, _: &Ctx) -> String {
    pod_summary(v).reason
}

/// PodTemplate containers.
pub fn podtemplate_containers(v: &Value, _: &Ctx) -> String {
    container_field(v, "/template/spec/containers", "name")
}

/// PodTemplate images.
pub fn podtemplate_images(v: &Value, _: &Ctx) -> String {
    container_field(v, "/template/spec/containers", "image")
}

/// PodTemplate POD LABELS.
pub fn podtemplate_labels(v: &Value, _: &Ctx) -> String {
    format_labels(at(v, "/template/metadata/labels"))
}

// --- Workloads ---------------------------------------------------------------------------------

/// `spec.replicas`, defaulted to 1.
fn replicas_spec(v: &Value) -> i64 {
    int_at(v, "/spec/replicas").unwrap_or(1)
}

/// `spec.replicas` (DESIRED; TOTAL of the Go project's deployment table).
pub fn spec_replicas(v: &Value, _: &Ctx) -> String {
    replicas_spec(v).to_string()
}

/// `status.availableReplicas`.
pub fn available_replicas(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/availableReplicas")
}

/// `status.readyReplicas`.
pub fn ready_replicas(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/readyReplicas")
}

/// `status.replicas` (CURRENT).
pub fn current_replicas(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/replicas")
}

/// `status.updatedReplicas`.
pub fn updated_replicas(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/updatedReplicas")
}

/// `ready/desired`, as kubectl shows Deployments and StatefulSets.
pub fn ready_of_desired(v: &Value, _: &Ctx) -> String {
    format!("{}/{}", int_at(v, "/status/readyReplicas").unwrap_or(0), replicas_spec(v))
}

/// ReplicationController `spec.selector` (a plain map).
pub fn rc_selector(v: &Value, _: &Ctx) -> String {
    format_labels(at(v, "/spec/selector"))
}

/// DaemonSet `status.desiredNumberScheduled`.
pub fn ds_desired(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/desiredNumberScheduled")
}

/// DaemonSet `status.currentNumberScheduled`.
pub fn ds_current(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/currentNumberScheduled")
}

/// DaemonSet `status.numberReady`.
pub fn ds_ready(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/numberReady")
}

/// DaemonSet `status.updatedNumberScheduled`.
pub fn ds_updated(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/updatedNumberScheduled")
}

/// DaemonSet `status.numberAvailable`.
pub fn ds_available(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/numberAvailable")
}

/// DaemonSet pod template node selector.
pub fn ds_node_selector(v: &Value, _: &Ctx) -> String {
    format_labels(at(v, "/spec/template/spec/nodeSelector"))
}

/// ControllerRevision CONTROLLER: `kind.group/name` of the controlling owner, `<none>`.
pub fn revision_controller(v: &Value, _: &Ctx) -> String {
    let Some(owner) =
        arr_at(v, "/metadata/ownerReferences").iter().find(|o| bool_at(o, "/controller") == Some(true))
    else {
        return NONE.into();
    };
    let api_version = text(owner, "/apiVersion");
    // schema.ParseGroupVersion: "v1" has no group, "apps/v1" is group apps.
    let group = match api_version.matches('/').count() {
        0 => "",
        1 => api_version.split('/').next().unwrap_or_default(),
        _ => return "<invalid>".into(),
    };
    let (kind, name) = (text(owner, "/kind"), text(owner, "/name"));
    if kind.is_empty() && group.is_empty() {
        return name.into();
    }
    let group_kind = if group.is_empty() { kind.to_owned() } else { format!("{kind}.{group}") };
    format!("{}/{name}", group_kind.to_lowercase())
}

/// ControllerRevision `revision`.
pub fn revision_number(v: &Value, _: &Ctx) -> String {
    int_text(v, "/revision")
}

// --- Jobs and CronJobs -------------------------------------------------------------------------

/// Job STATUS: Complete, Failed, Terminating, Suspended, FailureTarget, SuccessCriteriaMet or
/// Running, in that order.
pub fn job_status(v: &Value, _: &Ctx) -> String {
    let conditions = "/status/conditions";
    if condition_true(v, conditions, "Complete") {
        "Complete"
    } else if condition_true(v, conditions, "Failed") {
        "Failed"
    } else if deleting(v) {
        "Terminating"
    } else if condition_true(v, conditions, "Suspended") {
        "Suspended"
    } else if condition_true(v, conditions, "FailureTarget") {
        "FailureTarget"
    } else if condition_true(v, conditions, "SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else {
        "Running"
    }
    .into()
}

/// Job COMPLETIONS: `succeeded/completions`, `succeeded/1 of parallelism` without completions.
pub fn job_completions(v: &Value, _: &Ctx) -> String {
    let succeeded = int_at(v, "/status/succeeded").unwrap_or(0);
    let (completions, parallelism) = (int_at(v, "/spec/completions"), int_at(v, "/spec/parallelism"));
    match (completions, parallelism) {
        (Some(c), _) => format!("{succeeded}/{c}"),
        (None, Some(p)) if p > 1 => format!("{succeeded}/1 of {p}"),
        _ => format!("{succeeded}/1"),
    }
}

/// Job DURATION: from start to completion, or to now while running; empty before it starts.
pub fn job_duration(v: &Value, ctx: &Ctx) -> String {
    let Some(start) = str_at(v, "/status/startTime").and_then(time::parse) else { return String::new() };
    match str_at(v, "/status/completionTime").and_then(time::parse) {
        Some(end) => time::human_duration(end.duration_since(start).as_secs()),
        None => ctx.ago(start),
    }
}

/// Job pod template containers.
pub fn job_containers(v: &Value, ctx: &Ctx) -> String {
    template_container_names(v, ctx)
}

/// CronJob `spec.schedule`.
pub fn cron_schedule(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/schedule").into()
}

/// CronJob `spec.timeZone`, `<none>` when unset.
pub fn cron_timezone(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/spec/timeZone").unwrap_or(NONE).into()
}

/// CronJob `spec.suspend` (`printBoolPtr`): `True`/`False`, defaulted to `False` (so never
/// `<unset>`).
pub fn cron_suspend(v: &Value, _: &Ctx) -> String {
    print_bool(bool_at(v, "/spec/suspend").unwrap_or(false))
}

/// CronJob active jobs.
pub fn cron_active(v: &Value, _: &Ctx) -> String {
    count_at(v, "/status/active").to_string()
}

/// CronJob time since the last schedule, `<none>` before the first.
pub fn cron_last_schedule(v: &Value, ctx: &Ctx) -> String {
    match set_at(v, "/status/lastScheduleTime") {
        Some(_) => since(v, "/status/lastScheduleTime", ctx),
        None => NONE.into(),
    }
}

/// CronJob job template containers.
pub fn cron_containers(v: &Value, _: &Ctx) -> String {
    container_field(v, "/spec/jobTemplate/spec/template/spec/containers", "name")
}

/// CronJob job template images.
pub fn cron_images(v: &Value, _: &Ctx) -> String {
    container_field(v, "/spec/jobTemplate/spec/template/spec/containers", "image")
}

/// CronJob job template selector.
pub fn cron_selector(v: &Value, _: &Ctx) -> String {
    format_label_selector(at(v, "/spec/jobTemplate/spec/selector"))
}

// --- Autoscaling and disruption budgets --------------------------------------------------------

/// HPA REFERENCE: `Kind/name`.
pub fn hpa_reference(v: &Value, _: &Ctx) -> String {
    format!("{}/{}", text(v, "/spec/scaleTargetRef/kind"), text(v, "/spec/scaleTargetRef/name"))
}

/// One entry of `formatHPAMetrics`: a spec against the status at the same index.
fn hpa_metric(spec: &Value, status: Option<&Value>) -> String {
    let current_of = |key: &str| status.and_then(|s| set_at(s, &format!("/{key}")));
    match text(spec, "/type") {
        kind @ ("External" | "Object") => {
            let key = if kind == "External" { "external" } else { "object" };
            if let Some(avg) = set_at(spec, &format!("/{key}/target/averageValue")) {
                let current = current_of(key)
                    .and_then(|s| set_at(s, "/current/averageValue"))
                    .map_or_else(|| UNKNOWN.into(), |q| quantity(Some(q)));
                format!("{current}/{} (avg)", quantity(Some(avg)))
            } else {
                let current =
                    current_of(key).map_or_else(|| UNKNOWN.into(), |s| quantity(set_at(s, "/current/value")));
                format!("{current}/{}", quantity(set_at(spec, &format!("/{key}/target/value"))))
            }
        }
        "Pods" => {
            let current = current_of("pods")
                .map_or_else(|| UNKNOWN.into(), |s| quantity(set_at(s, "/current/averageValue")));
            format!("{current}/{}", quantity(set_at(spec, "/pods/target/averageValue")))
        }
        kind @ ("Resource" | "ContainerResource") => {
            let key = if kind == "Resource" { "resource" } else { "containerResource" };
            let name = text(spec, &format!("/{key}/name"));
            if let Some(avg) = set_at(spec, &format!("/{key}/target/averageValue")) {
                let current = current_of(key)
                    .map_or_else(|| UNKNOWN.into(), |s| quantity(set_at(s, "/current/averageValue")));
                format!("{name}: {current}/{}", quantity(Some(avg)))
            } else {
                let current = current_of(key)
                    .and_then(|s| int_at(s, "/current/averageUtilization"))
                    .map_or_else(|| UNKNOWN.into(), |u| format!("{u}%"));
                let target = int_at(spec, &format!("/{key}/target/averageUtilization"))
                    .map_or_else(|| "<auto>".into(), |u| format!("{u}%"));
                format!("{name}: {current}/{target}")
            }
        }
        _ => "<unknown type>".into(),
    }
}

/// HPA TARGETS (`formatHPAMetrics`): each metric's `current/target`, two at most then
/// `+ N more...`. An HPA without metrics has the API default, CPU at 80%; the autoscaling/v1
/// shape (`targetCPUUtilizationPercentage`) converts to the same.
pub fn hpa_targets(v: &Value, _: &Ctx) -> String {
    const MAX: usize = 2;
    let mut specs = arr_at(v, "/spec/metrics").to_vec();
    let mut statuses = arr_at(v, "/status/currentMetrics").to_vec();
    if specs.is_empty() {
        let target = int_at(v, "/spec/targetCPUUtilizationPercentage").unwrap_or(80);
        specs.push(serde_json::json!({
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": target}},
        }));
        if let Some(current) = int_at(v, "/status/currentCPUUtilizationPercentage") {
            statuses = vec![serde_json::json!({
                "type": "Resource",
                "resource": {"name": "cpu", "current": {"averageUtilization": current}},
            })];
        }
    }
    let list: Vec<String> = specs.iter().enumerate().map(|(i, s)| hpa_metric(s, statuses.get(i))).collect();
    if list.len() > MAX {
        return format!("{} + {} more...", list[..MAX].join(", "), list.len() - MAX);
    }
    list.join(", ")
}

/// HPA MINPODS, defaulted to 1.
pub fn hpa_min_pods(v: &Value, _: &Ctx) -> String {
    int_at(v, "/spec/minReplicas").unwrap_or(1).to_string()
}

/// HPA MAXPODS.
pub fn hpa_max_pods(v: &Value, _: &Ctx) -> String {
    int_text(v, "/spec/maxReplicas")
}

/// HPA REPLICAS: `status.currentReplicas`.
pub fn hpa_replicas(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/currentReplicas")
}

/// PDB MIN AVAILABLE, `N/A` when unset.
pub fn pdb_min_available(v: &Value, _: &Ctx) -> String {
    set_at(v, "/spec/minAvailable").map_or_else(|| "N/A".into(), int_or_string)
}

/// PDB MAX UNAVAILABLE, `N/A` when unset.
pub fn pdb_max_unavailable(v: &Value, _: &Ctx) -> String {
    set_at(v, "/spec/maxUnavailable").map_or_else(|| "N/A".into(), int_or_string)
}

/// PDB ALLOWED DISRUPTIONS.
pub fn pdb_allowed_disruptions(v: &Value, _: &Ctx) -> String {
    int_text(v, "/status/disruptionsAllowed")
}

// --- Config, quotas and storage ----------------------------------------------------------------

/// Number of keys in `data` plus `binaryData` (ConfigMap DATA).
pub fn data_count(v: &Value, _: &Ctx) -> String {
    (count_at(v, "/data") + count_at(v, "/binaryData")).to_string()
}

/// Number of keys in `data` (Secret DATA).
pub fn secret_data(v: &Value, _: &Ctx) -> String {
    count_at(v, "/data").to_string()
}

/// Secret `type`, defaulted to `Opaque`.
pub fn secret_type(v: &Value, _: &Ctx) -> String {
    str_at(v, "/type").unwrap_or("Opaque").into()
}

/// ResourceQuota REQUEST and LIMIT: `name: used/hard` of every hard limit, sorted by name; the
/// `limits.*` ones in LIMIT.
fn quota_columns(v: &Value) -> (String, String) {
    let hard = obj_at(v, "/status/hard");
    let mut names: Vec<&String> = hard.into_iter().flat_map(Map::keys).collect();
    names.sort_unstable();
    let (mut requests, mut limits) = (Vec::new(), Vec::new());
    for name in names {
        let used = quantity_or_zero(obj_at(v, "/status/used").and_then(|u| u.get(name.as_str())));
        let hard = quantity_or_zero(hard.and_then(|h| h.get(name.as_str())));
        let mut pieces = name.split('.');
        let is_limit = pieces.next() == Some("limits") && pieces.next().is_some();
        let column = if is_limit { &mut limits } else { &mut requests };
        column.push(format!("{name}: {used}/{hard}"));
    }
    (requests.join(", "), limits.join(", "))
}

/// ResourceQuota REQUEST.
pub fn quota_request(v: &Value, _: &Ctx) -> String {
    quota_columns(v).0
}

/// ResourceQuota LIMIT.
pub fn quota_limit(v: &Value, _: &Ctx) -> String {
    quota_columns(v).1
}

/// `helper.GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order, once each.
fn access_modes(modes: &[Value]) -> String {
    let has = |m: &str| modes.iter().any(|x| x.as_str() == Some(m));
    let all = [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ];
    join_strs(all.iter().filter(|(m, _)| has(m)).map(|(_, short)| *short), ",")
}

const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// PVC and PV STATUS: `status.phase` (defaulted to `Pending`), `Terminating` while deleted.
pub fn volume_phase(v: &Value, _: &Ctx) -> String {
    if deleting(v) {
        return "Terminating".into();
    }
    str_at(v, "/status/phase").unwrap_or("Pending").into()
}

/// PVC STATUS (see [`volume_phase`]).
pub fn pvc_status(v: &Value, ctx: &Ctx) -> String {
    volume_phase(v, ctx)
}

/// PVC `spec.volumeName`.
pub fn pvc_volume(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/volumeName").into()
}

/// PVC CAPACITY: `status.capacity.storage` once bound to a volume.
pub fn pvc_capacity(v: &Value, _: &Ctx) -> String {
    if str_at(v, "/spec/volumeName").is_none() {
        return String::new();
    }
    quantity_or_zero(set_at(v, "/status/capacity/storage"))
}

/// PVC ACCESS MODES: `status.accessModes` once bound to a volume.
pub fn pvc_access_modes(v: &Value, _: &Ctx) -> String {
    if str_at(v, "/spec/volumeName").is_none() {
        return String::new();
    }
    access_modes(arr_at(v, "/status/accessModes"))
}

/// PVC STORAGECLASS: the beta annotation, else `spec.storageClassName`, else empty.
pub fn pvc_storage_class(v: &Value, _: &Ctx) -> String {
    annotation(v, BETA_STORAGE_CLASS)
        .or_else(|| ptr_str(v, "/spec/storageClassName"))
        .unwrap_or_default()
        .into()
}

/// PVC and PV VOLUMEATTRIBUTESCLASS, `<unset>` when unset.
pub fn pvc_attributes_class(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/spec/volumeAttributesClassName").unwrap_or(UNSET).into()
}

/// PVC and PV VOLUMEMODE, defaulted to `Filesystem`.
pub fn pvc_volume_mode(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/spec/volumeMode").unwrap_or("Filesystem").into()
}

/// PV CAPACITY: `spec.capacity.storage`.
pub fn pv_capacity(v: &Value, _: &Ctx) -> String {
    quantity_or_zero(set_at(v, "/spec/capacity/storage"))
}

/// PV ACCESS MODES.
pub fn pv_access_modes(v: &Value, _: &Ctx) -> String {
    access_modes(arr_at(v, "/spec/accessModes"))
}

/// PV RECLAIM POLICY, defaulted to `Retain`.
pub fn pv_reclaim_policy(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/persistentVolumeReclaimPolicy").unwrap_or("Retain").into()
}

/// PV CLAIM: `namespace/name` of the claim, empty when unclaimed.
pub fn pv_claim(v: &Value, _: &Ctx) -> String {
    match set_at(v, "/spec/claimRef") {
        Some(c) => format!("{}/{}", text(c, "/namespace"), text(c, "/name")),
        None => String::new(),
    }
}

/// PV STORAGECLASS: the beta annotation, else `spec.storageClassName`.
pub fn pv_storage_class(v: &Value, _: &Ctx) -> String {
    annotation(v, BETA_STORAGE_CLASS).unwrap_or_else(|| text(v, "/spec/storageClassName")).into()
}

/// PV REASON: `status.reason`.
pub fn pv_reason(v: &Value, _: &Ctx) -> String {
    text(v, "/status/reason").into()
}

/// A StorageClass's NAME cell as the API prints it: `name (default)` for the default class
/// (see [`super::name_cell`]).
pub fn storage_class_name(v: &Value, _: &Ctx) -> String {
    let default =
        ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"]
            .iter()
            .any(|key| annotation(v, key) == Some("true"));
    let name = text(v, "/metadata/name");
    if default { format!("{name} (default)") } else { name.into() }
}

/// StorageClass PROVISIONER.
pub fn sc_provisioner(v: &Value, _: &Ctx) -> String {
    text(v, "/provisioner").into()
}

/// StorageClass RECLAIMPOLICY, defaulted to `Delete`.
pub fn sc_reclaim_policy(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/reclaimPolicy").unwrap_or("Delete").into()
}

/// StorageClass VOLUMEBINDINGMODE, defaulted to `Immediate`.
pub fn sc_binding_mode(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/volumeBindingMode").unwrap_or("Immediate").into()
}

/// StorageClass ALLOWVOLUMEEXPANSION (a Go bool: `true`/`false`).
pub fn sc_allow_expansion(v: &Value, _: &Ctx) -> String {
    go_bool(bool_at(v, "/allowVolumeExpansion").unwrap_or(false))
}

/// CSIDriver ATTACHREQUIRED (defaulted to `true`).
pub fn csidriver_attach_required(v: &Value, _: &Ctx) -> String {
    go_bool(bool_at(v, "/spec/attachRequired").unwrap_or(true))
}

/// CSIDriver PODINFOONMOUNT.
pub fn csidriver_pod_info(v: &Value, _: &Ctx) -> String {
    go_bool(bool_at(v, "/spec/podInfoOnMount").unwrap_or(false))
}

/// CSIDriver STORAGECAPACITY.
pub fn csidriver_storage_capacity(v: &Value, _: &Ctx) -> String {
    go_bool(bool_at(v, "/spec/storageCapacity").unwrap_or(false))
}

/// CSIDriver TOKENREQUESTS: the audiences, `<unset>` without token requests.
pub fn csidriver_token_requests(v: &Value, _: &Ctx) -> String {
    let requests = arr_at(v, "/spec/tokenRequests");
    if requests.is_empty() {
        return UNSET.into();
    }
    join_strs(requests.iter().map(|t| text(t, "/audience")), ",")
}

/// CSIDriver REQUIRESREPUBLISH.
pub fn csidriver_requires_republish(v: &Value, _: &Ctx) -> String {
    go_bool(bool_at(v, "/spec/requiresRepublish").unwrap_or(false))
}

/// CSIDriver MODES: `spec.volumeLifecycleModes`, defaulted to `Persistent`.
pub fn csidriver_modes(v: &Value, _: &Ctx) -> String {
    let modes = arr_at(v, "/spec/volumeLifecycleModes");
    if modes.is_empty() {
        return "Persistent".into();
    }
    join_strs(modes.iter().map(|m| m.as_str().unwrap_or_default()), ",")
}

/// CSINode DRIVERS: how many drivers are registered.
pub fn csinode_drivers(v: &Value, _: &Ctx) -> String {
    count_at(v, "/spec/drivers").to_string()
}

/// VolumeAttachment ATTACHER.
pub fn va_attacher(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/attacher").into()
}

/// VolumeAttachment PV: `spec.source.persistentVolumeName`.
pub fn va_pv(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/spec/source/persistentVolumeName").unwrap_or_default().into()
}

/// VolumeAttachment NODE.
pub fn va_node(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/nodeName").into()
}

/// VolumeAttachment ATTACHED (a Go bool: `true`/`false`).
pub fn va_attached(v: &Value, _: &Ctx) -> String {
    go_bool(bool_at(v, "/status/attached").unwrap_or(false))
}

/// VolumeAttributesClass DRIVERNAME.
pub fn vac_driver(v: &Value, _: &Ctx) -> String {
    text(v, "/driverName").into()
}

// --- Services, endpoints and networking --------------------------------------------------------

/// Service `spec.type`, defaulted to `ClusterIP`.
pub fn svc_type(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/type").unwrap_or("ClusterIP").into()
}

/// Service CLUSTER-IP: the first of `spec.clusterIPs` (`spec.clusterIP` when only that is
/// set), `<none>`.
pub fn svc_cluster_ip(v: &Value, _: &Ctx) -> String {
    match arr_at(v, "/spec/clusterIPs").first() {
        Some(ip) => ip.as_str().unwrap_or_default().into(),
        None => str_at(v, "/spec/clusterIP").unwrap_or(NONE).into(),
    }
}

/// `loadBalancerStatusStringer` with `wide` (as the API server prints): the IP or else hostname
/// of every ingress point, sorted and without duplicates.
fn lb_addresses(v: &Value) -> Vec<&str> {
    let mut all: Vec<&str> = arr_at(v, "/status/loadBalancer/ingress")
        .iter()
        .filter_map(|i| str_at(i, "/ip").or_else(|| str_at(i, "/hostname")))
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Service EXTERNAL-IP (`getServiceExternalIP`): external IPs, load balancer addresses,
/// `<pending>`, the external name.
pub fn svc_external_ip(v: &Value, _: &Ctx) -> String {
    let external: Vec<&str> =
        arr_at(v, "/spec/externalIPs").iter().map(|ip| ip.as_str().unwrap_or_default()).collect();
    match str_at(v, "/spec/type").unwrap_or("ClusterIP") {
        "ClusterIP" | "NodePort" => or_none(external.join(",")),
        "LoadBalancer" => {
            let mut all = lb_addresses(v);
            if !external.is_empty() {
                all.extend(external);
                return all.join(",");
            }
            if all.is_empty() { "<pending>".into() } else { all.join(",") }
        }
        "ExternalName" => text(v, "/spec/externalName").into(),
        _ => UNKNOWN.into(),
    }
}

/// Service PORT(S) (`makePortString`): `80/TCP`, `80:30080/TCP`; `<none>` without ports.
pub fn svc_ports(v: &Value, _: &Ctx) -> String {
    let ports: Vec<String> = arr_at(v, "/spec/ports")
        .iter()
        .map(|p| {
            let port = int_at(p, "/port").unwrap_or(0);
            let proto = str_at(p, "/protocol").unwrap_or("TCP");
            match int_at(p, "/nodePort").filter(|n| *n > 0) {
                Some(node) => format!("{port}:{node}/{proto}"),
                None => format!("{port}/{proto}"),
            }
        })
        .collect();
    or_none(ports.join(","))
}

/// Service `spec.selector` (`labels.FormatLabels`).
pub fn svc_selector(v: &Value, _: &Ctx) -> String {
    format_labels(at(v, "/spec/selector"))
}

/// `net.JoinHostPort`.
fn join_host_port(host: &str, port: i64) -> String {
    if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") }
}

/// Endpoints ENDPOINTS (`formatEndpoints`): `ip:port` of ready addresses, three at most then
/// `+ N more...`; `<none>` without subsets.
pub fn endpoints(v: &Value, _: &Ctx) -> String {
    const MAX: usize = 3;
    let subsets = arr_at(v, "/subsets");
    if subsets.is_empty() {
        return NONE.into();
    }
    let (mut list, mut more, mut count) = (Vec::new(), false, 0);
    for ss in subsets {
        let addresses = arr_at(ss, "/addresses");
        let ports = arr_at(ss, "/ports");
        if ports.is_empty() {
            count += addresses.len();
            for a in addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                list.push(text(a, "/ip").to_owned());
            }
            continue;
        }
        for port in ports {
            count += addresses.len();
            for a in addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                list.push(join_host_port(text(a, "/ip"), int_at(port, "/port").unwrap_or(0)));
            }
        }
    }
    let ret = list.join(",");
    if more { format!("{ret} + {} more...", count.saturating_sub(MAX)) } else { ret }
}

/// EndpointSlice ADDRESSTYPE.
pub fn eps_address_type(v: &Value, _: &Ctx) -> String {
    text(v, "/addressType").into()
}

/// EndpointSlice PORTS (`formatDiscoveryPorts`): port numbers (the name when there is none),
/// three at most; `<unset>` without any.
pub fn eps_ports(v: &Value, _: &Ctx) -> String {
    const MAX: usize = 3;
    let ports = arr_at(v, "/ports");
    let list: Vec<String> = ports
        .iter()
        .take(MAX)
        .map(|p| match int_at(p, "/port") {
            Some(n) => n.to_string(),
            // The name defaults to "".
            None => ptr_str(p, "/name").unwrap_or_default().into(),
        })
        .collect();
    list_with_more(&list, ports.len() > MAX, ports.len(), MAX)
}

/// EndpointSlice ENDPOINTS (`formatDiscoveryEndpoints`): every endpoint address, three at most;
/// `<unset>` without any.
pub fn eps_endpoints(v: &Value, _: &Ctx) -> String {
    const MAX: usize = 3;
    let addresses: Vec<&str> = arr_at(v, "/endpoints")
        .iter()
        .flat_map(|e| arr_at(e, "/addresses"))
        .map(|a| a.as_str().unwrap_or_default())
        .collect();
    let list: Vec<String> = addresses.iter().take(MAX).map(|a| (*a).to_owned()).collect();
    list_with_more(&list, addresses.len() > MAX, addresses.len(), MAX)
}

/// Ingress CLASS: `spec.ingressClassName`, `<none>` when unset.
pub fn ing_class(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/spec/ingressClassName").unwrap_or(NONE).into()
}

/// Ingress HOSTS (`formatHosts`): the rules' hosts, three at most then `+ N more...`; `*` when
/// no rule has a host.
pub fn ing_hosts(v: &Value, _: &Ctx) -> String {
    const MAX: usize = 3;
    let rules = arr_at(v, "/spec/rules");
    let mut list: Vec<&str> = Vec::new();
    let mut more = false;
    for rule in rules {
        if list.len() == MAX {
            more = true;
        }
        if !more && let Some(host) = str_at(rule, "/host") {
            list.push(host);
        }
    }
    if list.is_empty() {
        return "*".into();
    }
    let ret = list.join(",");
    if more { format!("{ret} + {} more...", rules.len().saturating_sub(MAX)) } else { ret }
}

/// Ingress ADDRESS: load balancer addresses, sorted.
pub fn ing_address(v: &Value, _: &Ctx) -> String {
    lb_addresses(v).join(",")
}

/// Ingress PORTS: 80, plus 443 with TLS.
pub fn ing_ports(v: &Value, _: &Ctx) -> String {
    if arr_at(v, "/spec/tls").is_empty() { "80".into() } else { "80, 443".into() }
}

/// IngressClass CONTROLLER.
pub fn ingclass_controller(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/controller").into()
}

/// IngressClass PARAMETERS: `Kind[.apiGroup]/name`, `<none>`.
pub fn ingclass_parameters(v: &Value, _: &Ctx) -> String {
    let Some(p) = set_at(v, "/spec/parameters") else { return NONE.into() };
    let mut out = text(p, "/kind").to_owned();
    if let Some(group) = ptr_str(p, "/apiGroup") {
        out = format!("{out}.{group}");
    }
    format!("{out}/{}", text(p, "/name"))
}

/// NetworkPolicy POD-SELECTOR.
pub fn netpol_pod_selector(v: &Value, _: &Ctx) -> String {
    format_label_selector(at(v, "/spec/podSelector"))
}

/// ServiceCIDR CIDRS.
pub fn servicecidr_cidrs(v: &Value, _: &Ctx) -> String {
    join_strs(arr_at(v, "/spec/cidrs").iter().map(|c| c.as_str().unwrap_or_default()), ",")
}

/// IPAddress PARENTREF: `resource[.group]/[namespace/]name`, `<none>`.
pub fn ipaddress_parent(v: &Value, _: &Ctx) -> String {
    let Some(p) = set_at(v, "/spec/parentRef") else { return NONE.into() };
    let (group, resource) = (text(p, "/group"), text(p, "/resource"));
    let mut out =
        if group.is_empty() { resource.to_owned() } else { format!("{resource}.{group}") }.to_lowercase();
    if let Some(ns) = str_at(p, "/namespace") {
        out = format!("{out}/{ns}");
    }
    format!("{out}/{}", text(p, "/name"))
}

// --- Nodes, namespaces and cluster components --------------------------------------------------

/// Node STATUS: Ready, NotReady (any other status of the Ready condition) or Unknown (none),
/// `,SchedulingDisabled` when cordoned.
pub fn node_status(v: &Value, _: &Ctx) -> String {
    // printNode keeps the last condition of each type.
    let ready = arr_at(v, "/status/conditions")
        .iter()
        .rev()
        .find(|c| text(c, "/type") == "Ready")
        .map(|c| text(c, "/status"));
    let mut status = match ready {
        Some("True") => "Ready".to_owned(),
        Some(_) => "NotReady".to_owned(),
        None => "Unknown".to_owned(),
    };
    if bool_at(v, "/spec/unschedulable") == Some(true) {
        status.push_str(",SchedulingDisabled");
    }
    status
}

/// Node roles from `node-role.kubernetes.io/*` and `kubernetes.io/role` labels, sorted.
pub fn node_roles(v: &Value, _: &Ctx) -> String {
    let mut roles: Vec<&str> = Vec::new();
    for (k, val) in obj_at(v, "/metadata/labels").into_iter().flatten() {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role);
            }
        } else if k == "kubernetes.io/role" {
            roles.extend(val.as_str().filter(|r| !r.is_empty()));
        }
    }
    roles.sort_unstable();
    roles.dedup();
    or_none(roles.join(","))
}

/// Kubelet version.
pub fn node_version(v: &Value, _: &Ctx) -> String {
    text(v, "/status/nodeInfo/kubeletVersion").into()
}

fn node_address(v: &Value, kind: &str) -> String {
    arr_at(v, "/status/addresses")
        .iter()
        .find(|a| text(a, "/type") == kind)
        .map_or(NONE, |a| text(a, "/address"))
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
    str_at(v, "/status/nodeInfo/osImage").unwrap_or(UNKNOWN).into()
}

/// Node kernel version.
pub fn node_kernel(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/nodeInfo/kernelVersion").unwrap_or(UNKNOWN).into()
}

/// Node container runtime.
pub fn node_runtime(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/nodeInfo/containerRuntimeVersion").unwrap_or(UNKNOWN).into()
}

/// Namespace `status.phase`, defaulted to `Active`.
pub fn ns_status(v: &Value, _: &Ctx) -> String {
    str_at(v, "/status/phase").unwrap_or("Active").into()
}

fn component_condition(v: &Value) -> Option<&Value> {
    condition(v, "/conditions", "Healthy")
}

/// ComponentStatus STATUS: Healthy, Unhealthy or Unknown.
pub fn component_status(v: &Value, _: &Ctx) -> String {
    match component_condition(v) {
        Some(c) if text(c, "/status") == "True" => "Healthy",
        Some(_) => "Unhealthy",
        None => "Unknown",
    }
    .into()
}

/// ComponentStatus MESSAGE.
pub fn component_message(v: &Value, _: &Ctx) -> String {
    component_condition(v).map_or("", |c| text(c, "/message")).into()
}

/// ComponentStatus ERROR.
pub fn component_error(v: &Value, _: &Ctx) -> String {
    component_condition(v).map_or("", |c| text(c, "/error")).into()
}

/// APIService SERVICE: `namespace/name`, `Local` without a service.
pub fn apiservice_service(v: &Value, _: &Ctx) -> String {
    match set_at(v, "/spec/service") {
        Some(s) => format!("{}/{}", text(s, "/namespace"), text(s, "/name")),
        None => "Local".into(),
    }
}

/// APIService AVAILABLE: the Available condition's status, with its reason unless True.
pub fn apiservice_available(v: &Value, _: &Ctx) -> String {
    let Some(c) = condition(v, "/status/conditions", "Available") else { return "Unknown".into() };
    let status = text(c, "/status");
    match str_at(c, "/reason") {
        Some(reason) if status != "True" => format!("{status} ({reason})"),
        _ => status.into(),
    }
}

// --- RBAC, leases, scheduling ------------------------------------------------------------------

/// RoleBinding and ClusterRoleBinding ROLE: `Kind/name`.
pub fn binding_role(v: &Value, _: &Ctx) -> String {
    format!("{}/{}", text(v, "/roleRef/kind"), text(v, "/roleRef/name"))
}

fn subjects_of(v: &Value, kind: &str) -> String {
    let subjects = arr_at(v, "/subjects").iter().filter(|s| text(s, "/kind") == kind);
    let names: Vec<String> = if kind == "ServiceAccount" {
        subjects.map(|s| format!("{}/{}", text(s, "/namespace"), text(s, "/name"))).collect()
    } else {
        subjects.map(|s| text(s, "/name").to_owned()).collect()
    };
    names.join(", ")
}

/// Binding USERS.
pub fn binding_users(v: &Value, _: &Ctx) -> String {
    subjects_of(v, "User")
}

/// Binding GROUPS.
pub fn binding_groups(v: &Value, _: &Ctx) -> String {
    subjects_of(v, "Group")
}

/// Binding SERVICEACCOUNTS: `namespace/name`.
pub fn binding_service_accounts(v: &Value, _: &Ctx) -> String {
    subjects_of(v, "ServiceAccount")
}

/// Lease HOLDER.
pub fn lease_holder(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/spec/holderIdentity").unwrap_or_default().into()
}

/// PriorityClass VALUE.
pub fn pc_value(v: &Value, _: &Ctx) -> String {
    int_text(v, "/value")
}

/// PriorityClass GLOBAL-DEFAULT (a Go bool: `true`/`false`).
pub fn pc_global_default(v: &Value, _: &Ctx) -> String {
    go_bool(bool_at(v, "/globalDefault").unwrap_or(false))
}

/// PriorityClass PREEMPTIONPOLICY, defaulted to `PreemptLowerPriority`.
pub fn pc_preemption_policy(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/preemptionPolicy").unwrap_or("PreemptLowerPriority").into()
}

/// RuntimeClass HANDLER.
pub fn runtimeclass_handler(v: &Value, _: &Ctx) -> String {
    text(v, "/handler").into()
}

// --- Admission, certificates, flow control -----------------------------------------------------

/// Webhook configurations WEBHOOKS: how many.
pub fn webhook_count(v: &Value, _: &Ctx) -> String {
    count_at(v, "/webhooks").to_string()
}

/// ValidatingAdmissionPolicy VALIDATIONS: how many.
pub fn vap_validations(v: &Value, _: &Ctx) -> String {
    count_at(v, "/spec/validations").to_string()
}

/// ValidatingAdmissionPolicy PARAMKIND: `apiVersion/kind`, `<unset>`.
pub fn vap_param_kind(v: &Value, _: &Ctx) -> String {
    match set_at(v, "/spec/paramKind") {
        Some(p) => format!("{}/{}", text(p, "/apiVersion"), text(p, "/kind")),
        None => UNSET.into(),
    }
}

/// ValidatingAdmissionPolicyBinding POLICYNAME.
pub fn vapb_policy(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/policyName").into()
}

/// ValidatingAdmissionPolicyBinding PARAMREF: `namespace/name` (`*/name` without a namespace),
/// the selector, `<unset>`.
pub fn vapb_param_ref(v: &Value, _: &Ctx) -> String {
    let Some(p) = set_at(v, "/spec/paramRef") else { return UNSET.into() };
    if let Some(name) = str_at(p, "/name") {
        return match str_at(p, "/namespace") {
            Some(ns) => format!("{ns}/{name}"),
            None => format!("*/{name}"),
        };
    }
    set_at(p, "/selector").map_or_else(|| UNSET.into(), label_selector_go_string)
}

/// CSR SIGNERNAME, `<none>`.
pub fn csr_signer(v: &Value, _: &Ctx) -> String {
    str_at(v, "/spec/signerName").unwrap_or(NONE).into()
}

/// CSR REQUESTOR: `spec.username`.
pub fn csr_requestor(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/username").into()
}

/// CSR REQUESTEDDURATION: `spec.expirationSeconds` as a duration, `<none>`.
pub fn csr_duration(v: &Value, _: &Ctx) -> String {
    int_at(v, "/spec/expirationSeconds").map_or_else(|| NONE.into(), time::human_duration)
}

/// CSR CONDITION: Denied, Approved or Pending, then `,Failed` and `,Issued`.
pub fn csr_condition(v: &Value, _: &Ctx) -> String {
    let conditions = arr_at(v, "/status/conditions");
    let has = |kind: &str| conditions.iter().any(|c| text(c, "/type") == kind);
    let mut status = if has("Denied") {
        "Denied"
    } else if has("Approved") {
        "Approved"
    } else {
        "Pending"
    }
    .to_owned();
    if has("Failed") {
        status.push_str(",Failed");
    }
    if str_at(v, "/status/certificate").is_some() {
        status.push_str(",Issued");
    }
    status
}

/// FlowSchema PRIORITYLEVEL.
pub fn fs_priority_level(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/priorityLevelConfiguration/name").into()
}

/// FlowSchema MATCHINGPRECEDENCE, defaulted to 1000.
pub fn fs_precedence(v: &Value, _: &Ctx) -> String {
    int_at(v, "/spec/matchingPrecedence").filter(|p| *p != 0).unwrap_or(1000).to_string()
}

/// FlowSchema DISTINGUISHERMETHOD, `<none>`.
pub fn fs_distinguisher(v: &Value, _: &Ctx) -> String {
    match set_at(v, "/spec/distinguisherMethod") {
        Some(d) => text(d, "/type").into(),
        None => NONE.into(),
    }
}

/// FlowSchema MISSINGPL: the Dangling condition's status, `?` without it.
pub fn fs_missing_pl(v: &Value, _: &Ctx) -> String {
    condition(v, "/status/conditions", "Dangling").map_or("?", |c| text(c, "/status")).into()
}

/// PriorityLevelConfiguration TYPE.
pub fn plc_type(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/type").into()
}

/// PriorityLevelConfiguration NOMINALCONCURRENCYSHARES (defaulted to 30), `<none>` unless
/// limited.
pub fn plc_shares(v: &Value, _: &Ctx) -> String {
    match set_at(v, "/spec/limited") {
        Some(l) => int_at(l, "/nominalConcurrencyShares").unwrap_or(30).to_string(),
        None => NONE.into(),
    }
}

/// A queuing parameter of a limited priority level (0 is the default), `<none>` without queuing.
fn plc_queuing(v: &Value, field: &str, default: i64) -> String {
    match set_at(v, "/spec/limited").and_then(|l| set_at(l, "/limitResponse/queuing")) {
        Some(q) => int_at(q, field).filter(|n| *n != 0).unwrap_or(default).to_string(),
        None => NONE.into(),
    }
}

/// PriorityLevelConfiguration QUEUES (defaulted to 64).
pub fn plc_queues(v: &Value, _: &Ctx) -> String {
    plc_queuing(v, "/queues", 64)
}

/// PriorityLevelConfiguration HANDSIZE (defaulted to 8).
pub fn plc_hand_size(v: &Value, _: &Ctx) -> String {
    plc_queuing(v, "/handSize", 8)
}

/// PriorityLevelConfiguration QUEUELENGTHLIMIT (defaulted to 50).
pub fn plc_queue_length_limit(v: &Value, _: &Ctx) -> String {
    plc_queuing(v, "/queueLengthLimit", 50)
}

// --- Dynamic resource allocation ---------------------------------------------------------------

/// ResourceClaim STATE: `deleted`, `pending`, `allocated`, `reserved`, comma-joined.
pub fn claim_state(v: &Value, _: &Ctx) -> String {
    let mut states = Vec::new();
    let deleted = deleting(v);
    if deleted {
        states.push("deleted");
    }
    if set_at(v, "/status/allocation").is_none() {
        if !deleted {
            states.push("pending");
        }
    } else {
        states.push("allocated");
        if !arr_at(v, "/status/reservedFor").is_empty() {
            states.push("reserved");
        }
    }
    states.join(",")
}

/// ResourceSlice NODE.
pub fn slice_node(v: &Value, _: &Ctx) -> String {
    ptr_str(v, "/spec/nodeName").unwrap_or_default().into()
}

/// ResourceSlice DRIVER.
pub fn slice_driver(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/driver").into()
}

/// ResourceSlice POOL.
pub fn slice_pool(v: &Value, _: &Ctx) -> String {
    text(v, "/spec/pool/name").into()
}

// --- Events (core/v1 and events.k8s.io/v1) -----------------------------------------------------

/// A field of either event shape: core/v1's name, else events.k8s.io/v1's.
fn event_field<'a>(v: &'a Value, core: &str, events: &str) -> Option<&'a Value> {
    set_at(v, core).or_else(|| set_at(v, events))
}

fn event_str<'a>(v: &'a Value, core: &str, events: &str) -> &'a str {
    str_at(v, core).or_else(|| str_at(v, events)).unwrap_or_default()
}

/// Time since the event was last seen: `series.lastObservedTime` of a series, else
/// `lastTimestamp`, else the first time seen.
pub fn event_last_seen(v: &Value, ctx: &Ctx) -> String {
    if set_at(v, "/series").is_some() {
        return since(v, "/series/lastObservedTime", ctx);
    }
    match str_at(v, "/lastTimestamp").or_else(|| str_at(v, "/deprecatedLastTimestamp")) {
        Some(last) => ctx.since(Some(last)),
        None => event_first_seen(v, ctx),
    }
}

/// Time since the event was first seen: `firstTimestamp`, else `eventTime`.
pub fn event_first_seen(v: &Value, ctx: &Ctx) -> String {
    let first = str_at(v, "/firstTimestamp")
        .or_else(|| str_at(v, "/deprecatedFirstTimestamp"))
        .or_else(|| str_at(v, "/eventTime"));
    ctx.since(first)
}

/// Normal or Warning.
pub fn event_type(v: &Value, _: &Ctx) -> String {
    text(v, "/type").into()
}

/// The event's reason.
pub fn event_reason(v: &Value, _: &Ctx) -> String {
    text(v, "/reason").into()
}

/// `kind/name` of the object the event is about (the kind in lower case; the kind alone
/// without a name).
pub fn event_object(v: &Value, _: &Ctx) -> String {
    let obj = event_field(v, "/involvedObject", "/regarding").unwrap_or(&Value::Null);
    let kind = text(obj, "/kind").to_lowercase();
    match str_at(obj, "/name") {
        Some(name) => format!("{kind}/{name}"),
        None => kind,
    }
}

/// SUBOBJECT: the field path within the object.
pub fn event_subobject(v: &Value, _: &Ctx) -> String {
    let obj = event_field(v, "/involvedObject", "/regarding").unwrap_or(&Value::Null);
    text(obj, "/fieldPath").into()
}

/// The event's message (`note` in events.k8s.io), trimmed.
pub fn event_message(v: &Value, _: &Ctx) -> String {
    event_str(v, "/message", "/note").trim().into()
}

/// SOURCE (`formatEventSource`): `component[, host]`, the reporting controller and instance
/// standing in for empty ones.
pub fn event_source(v: &Value, _: &Ctx) -> String {
    let source = event_field(v, "/source", "/deprecatedSource").unwrap_or(&Value::Null);
    let component = str_at(source, "/component")
        .or_else(|| str_at(v, "/reportingComponent"))
        .or_else(|| str_at(v, "/reportingController"))
        .unwrap_or_default();
    match str_at(source, "/host").or_else(|| str_at(v, "/reportingInstance")) {
        Some(instance) => format!("{component}, {instance}"),
        None => component.into(),
    }
}

/// How often it happened: `series.count` of a series, else `count`, at least 1.
pub fn event_count(v: &Value, _: &Ctx) -> String {
    if let Some(series) = set_at(v, "/series") {
        return int_text(series, "/count");
    }
    match int_at(v, "/count").or_else(|| int_at(v, "/deprecatedCount")).unwrap_or(0) {
        0 => "1".into(),
        n => n.to_string(),
    }
}

/// The event object's own name.
pub fn event_name(v: &Value, ctx: &Ctx) -> String {
    name(v, ctx)
}

// --- MultiClusterResources ---------------------------------------------------------------------

/// A label selector (`matchLabels` + `matchExpressions`) in kubectl's text syntax.
fn selector_text(sel: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (k, v) in obj_at(sel, "/matchLabels").into_iter().flatten() {
        parts.push(format!("{k}={}", v.as_str().unwrap_or_default()));
    }
    for e in arr_at(sel, "/matchExpressions") {
        let key = text(e, "/key");
        let values = join_strs(arr_at(e, "/values").iter().filter_map(Value::as_str), ",");
        parts.push(match text(e, "/operator") {
            "In" => format!("{key} in ({values})"),
            "NotIn" => format!("{key} notin ({values})"),
            "Exists" => key.to_owned(),
            "DoesNotExist" => format!("!{key}"),
            op => format!("{key} {op} ({values})"),
        });
    }
    or_none(parts.join(","))
}

/// `Kind/name` of the template.
pub fn mcr_template(v: &Value, _: &Ctx) -> String {
    let kind = str_at(v, "/spec/template/kind").unwrap_or("?");
    let name = str_at(v, "/spec/template/metadata/name").unwrap_or("?");
    format!("{kind}/{name}")
}

/// Placed clusters, or `<master>` when there is no placement (the Go project's default).
pub fn mcr_placement(v: &Value, _: &Ctx) -> String {
    let names =
        join_strs(arr_at(v, "/spec/placement/clusters").iter().filter_map(|c| c.get("name")?.as_str()), ",");
    if !names.is_empty() {
        return names;
    }
    if let Some(sel) = at(v, "/spec/placement/clusterSelector") {
        return format!("selector: {}", selector_text(sel));
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
