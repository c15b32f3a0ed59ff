//! The built-in tables against what kubectl prints from a v1.35 API server: realistic objects,
//! exact cells, including the edge cases of `printers.go` (`<none>`, `<unset>`, truncations).

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::{Ctx, TableSpec, View};

fn ctx() -> Ctx {
    Ctx::at("2026-01-01T00:00:00Z".parse().unwrap())
}

/// A week before `ctx().now`: AGE `7d`.
const CREATED: &str = "2025-12-25T00:00:00Z";

fn spec(group: &str, kind: &str) -> TableSpec {
    TableSpec::builtin(group, kind, false, View::Kubectl)
        .unwrap_or_else(|| panic!("{group}/{kind} not registered"))
}

/// Headers after NAME, as `kubectl get` (`-o wide` with `wide`) shows them.
fn headers(group: &str, kind: &str, wide: bool) -> Vec<String> {
    spec(group, kind).visible(wide).map(|c| c.header.clone()).collect()
}

/// Cells after NAME with `-o wide`.
/// Also checks that the object parsed for printing only (see `pruned`) prints the same, and
/// that the row kept with deferred ages (see `deferred`) prints the same later.
fn cells(group: &str, kind: &str, obj: &Value) -> Vec<String> {
    let row_at = |obj: &Value, ctx: &Ctx| {
        spec(group, kind).visible(true).map(|c| c.cell(obj, ctx)).collect::<Vec<_>>()
    };
    let row = |obj: &Value| row_at(obj, &ctx());
    let full = row(obj);
    let pruned = super::pruned::parse(&obj.to_string()).unwrap();
    assert_eq!(row(&pruned), full, "{group}/{kind}: a skipped subtree is read by a cell");
    let kept = row_at(obj, &Ctx::deferred(ctx().now));
    assert!(super::deferred::matches(&kept, &full, ctx().now), "{group}/{kind}: {kept:?} is not {full:?}");
    let later = Ctx::at(ctx().now + std::time::Duration::from_secs(7 * 3600));
    assert!(
        super::deferred::matches(&kept, &row_at(obj, &later), later.now),
        "{group}/{kind}: a kept row is wrong later"
    );
    full
}

fn meta(name: &str) -> Value {
    json!({"name": name, "namespace": "default", "creationTimestamp": CREATED})
}

#[test]
fn pods_running_with_restarts_and_wide_columns() {
    assert_eq!(
        headers("", "Pod", true),
        ["READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
    );
    let pod = json!({
        "metadata": meta("web-0"),
        "spec": {
            "nodeName": "node-a",
            "containers": [{"name": "app", "image": "nginx"}, {"name": "log", "image": "busybox"}],
            "readinessGates": [{"conditionType": "example.com/lb"}, {"conditionType": "example.com/dns"}],
        },
        "status": {
            "phase": "Running",
            "podIPs": [{"ip": "10.0.0.7"}, {"ip": "fd00::7"}],
            "conditions": [
                {"type": "Ready", "status": "True"},
                {"type": "example.com/lb", "status": "True"},
                {"type": "example.com/dns", "status": "False"},
            ],
            "containerStatuses": [
                {"name": "app", "ready": true, "restartCount": 2, "state": {"running": {}},
                 "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2025-12-31T23:55:00Z"}}},
                {"name": "log", "ready": true, "restartCount": 1, "state": {"running": {}},
                 "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2025-12-31T23:00:00Z"}}},
            ],
        },
    });
    assert_eq!(
        cells("", "Pod", &pod),
        ["2/2", "Running", "3 (5m ago)", "7d", "10.0.0.7", "node-a", "<none>", "1/2"]
    );
}

#[test]
fn pod_status_follows_print_pod() {
    let status = |spec: Value, status: Value| {
        let pod = json!({"metadata": meta("p"), "spec": spec, "status": status});
        cells("", "Pod", &pod)[..3].to_vec()
    };
    let one = json!({"containers": [{"name": "a"}]});
    let two = json!({"containers": [{"name": "a"}, {"name": "b"}]});

    // Containers are looked at last to first: the first container's state is the reason.
    let terminated = |a: Value, b: Value| {
        status(
            two.clone(),
            json!({"phase": "Running", "containerStatuses": [
                {"name": "a", "state": {"terminated": a}},
                {"name": "b", "state": {"terminated": b}},
            ]}),
        )
    };
    let completed = json!({"exitCode": 0, "reason": "Completed"});
    assert_eq!(
        terminated(json!({"exitCode": 2, "reason": "Error"}), completed.clone()),
        ["0/2", "Error", "0"]
    );
    // errorReason: "Completed" gives way to a failed container's reason.
    assert_eq!(terminated(completed.clone(), json!({"exitCode": 137}))[1], "ExitCode:137");
    assert_eq!(terminated(completed.clone(), json!({"exitCode": 3, "reason": "OOMKilled"}))[1], "OOMKilled");
    // A signal with exit code 0 is no error.
    assert_eq!(terminated(completed.clone(), json!({"exitCode": 0, "signal": 9}))[1], "Completed");
    // Completed, one still running: Running when the pod is Ready, else NotReady.
    let running_and_done = |ready: &str| {
        status(
            two.clone(),
            json!({"phase": "Running", "conditions": [{"type": "Ready", "status": ready}], "containerStatuses": [
                {"name": "a", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
                {"name": "b", "ready": true, "state": {"running": {}}},
            ]}),
        )
    };
    assert_eq!(running_and_done("True"), ["1/2", "Running", "0"]);
    assert_eq!(running_and_done("False"), ["1/2", "NotReady", "0"]);
    // Waiting reasons, signals, exit codes.
    assert_eq!(
        status(
            one.clone(),
            json!({"phase": "Running", "containerStatuses": [
                {"name": "a", "restartCount": 4, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                 "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2025-12-31T23:59:30Z"}}},
            ]})
        ),
        ["0/1", "CrashLoopBackOff", "4 (30s ago)"]
    );
    assert_eq!(
        status(
            one.clone(),
            json!({"phase": "Failed", "containerStatuses": [{"name": "a", "state": {"terminated": {"exitCode": 0, "signal": 9}}}]})
        )[1],
        "Signal:9"
    );
    // Restarts without a known last termination: the count alone.
    assert_eq!(
        status(
            one.clone(),
            json!({"phase": "Running", "containerStatuses": [{"name": "a", "restartCount": 3}]})
        )[2],
        "3"
    );
    // Scheduling gates, the pod's own reason, deletion.
    assert_eq!(
        status(
            one.clone(),
            json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]})
        )[1],
        "SchedulingGated"
    );
    assert_eq!(status(one.clone(), json!({"phase": "Failed", "reason": "Evicted"}))[1], "Evicted");
    let deleted = |phase: &str, reason: &str| {
        let mut pod =
            json!({"metadata": meta("p"), "spec": one, "status": {"phase": phase, "reason": reason}});
        pod["metadata"]["deletionTimestamp"] = json!("2025-12-31T23:59:00Z");
        cells("", "Pod", &pod)[1].clone()
    };
    assert_eq!(deleted("Running", ""), "Terminating");
    assert_eq!(deleted("Succeeded", ""), "Succeeded");
    assert_eq!(deleted("Running", "NodeLost"), "Unknown");
}

#[test]
fn pod_init_containers_and_sidecars() {
    let pod = |init_statuses: Value, initialized: &str| {
        json!({
            "metadata": meta("p"),
            "spec": {
                "initContainers": [{"name": "setup"}, {"name": "proxy", "restartPolicy": "Always"}, {"name": "migrate"}],
                "containers": [{"name": "app"}],
            },
            "status": {
                "phase": "Pending",
                "conditions": [{"type": "Initialized", "status": initialized}],
                "initContainerStatuses": init_statuses,
                "containerStatuses": [{"name": "app", "state": {"waiting": {"reason": "PodInitializing"}}}],
            },
        })
    };
    let done = json!({"name": "setup", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}});
    let sidecar = json!({"name": "proxy", "started": true, "ready": true, "restartCount": 1, "state": {"running": {}},
        "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2025-12-31T23:58:00Z"}}});
    // The sidecar counts among the containers (1 + 1) and as ready once started.
    let waiting = json!({"name": "migrate", "state": {"waiting": {"reason": "PodInitializing"}}});
    assert_eq!(
        cells("", "Pod", &pod(json!([done, sidecar, waiting]), "False"))[..3],
        ["1/2", "Init:2/3", "1 (2m ago)"]
    );
    let crashing =
        json!({"name": "migrate", "restartCount": 5, "state": {"waiting": {"reason": "CrashLoopBackOff"}}});
    assert_eq!(
        cells("", "Pod", &pod(json!([done, sidecar, crashing]), "False"))[..3],
        ["1/2", "Init:CrashLoopBackOff", "6 (2m ago)"]
    );
    let failed = json!({"name": "setup", "state": {"terminated": {"exitCode": 3}}});
    assert_eq!(cells("", "Pod", &pod(json!([failed]), "False"))[1], "Init:ExitCode:3");
    // Once initialized, the app containers decide; the sidecar's restarts stay counted.
    let migrated =
        json!({"name": "migrate", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}});
    assert_eq!(
        cells("", "Pod", &pod(json!([done, sidecar, migrated]), "True"))[..3],
        ["1/2", "PodInitializing", "1 (2m ago)"]
    );
}

#[test]
fn deployments_show_ready_of_desired_and_their_selector() {
    assert_eq!(
        headers("apps", "Deployment", true),
        ["READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]
    );
    let deploy = json!({
        "metadata": meta("web"),
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}, "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["front", "edge"]},
                {"key": "canary", "operator": "DoesNotExist"},
            ]},
            "template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.27"}, {"name": "sidecar"}]}},
        },
        "status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 2, "availableReplicas": 2},
    });
    assert_eq!(
        cells("apps", "Deployment", &deploy),
        ["2/3", "3", "2", "7d", "app,sidecar", "nginx:1.27,", "app=web,!canary,tier in (edge,front)"]
    );
    // No status yet; an empty selector prints as nothing (not <none>) for deployments only.
    let empty =
        json!({"metadata": meta("x"), "spec": {"selector": {}, "template": {"spec": {"containers": []}}}});
    assert_eq!(cells("apps", "Deployment", &empty), ["0/1", "0", "0", "7d", "", "", ""]);
    let rs =
        json!({"metadata": meta("x"), "spec": {"replicas": 2, "selector": {}}, "status": {"replicas": 1}});
    assert_eq!(cells("apps", "ReplicaSet", &rs), ["2", "1", "0", "7d", "", "", "<none>"]);
}

#[test]
fn cronjobs_print_suspend_as_print_bool_ptr() {
    assert_eq!(
        headers("batch", "CronJob", true),
        [
            "SCHEDULE",
            "TIMEZONE",
            "SUSPEND",
            "ACTIVE",
            "LAST SCHEDULE",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    let cron = json!({
        "metadata": meta("backup"),
        "spec": {
            "schedule": "*/5 * * * *",
            "timeZone": "Europe/Paris",
            "suspend": true,
            "jobTemplate": {"spec": {
                "selector": {"matchLabels": {"b": "2", "a": "1"}},
                "template": {"spec": {"containers": [{"name": "dump", "image": "pg:16"}]}},
            }},
        },
        "status": {"active": [{"name": "backup-1"}], "lastScheduleTime": "2025-12-31T23:55:00Z"},
    });
    assert_eq!(
        cells("batch", "CronJob", &cron),
        ["*/5 * * * *", "Europe/Paris", "True", "1", "5m", "7d", "dump", "pg:16", "a=1,b=2"]
    );
    let plain = json!({"metadata": meta("c"), "spec": {"schedule": "@daily", "suspend": false, "jobTemplate": {"spec": {}}}});
    assert_eq!(
        cells("batch", "CronJob", &plain),
        ["@daily", "<none>", "False", "0", "<none>", "7d", "", "", "<none>"]
    );
}

#[test]
fn job_status_order_and_completions() {
    let job = |conditions: Value, spec: Value| {
        json!({"metadata": meta("j"), "spec": spec, "status": {"succeeded": 1, "conditions": conditions,
            "startTime": "2025-12-31T23:00:00Z", "completionTime": "2025-12-31T23:02:05Z"}})
    };
    let suspended_and_failing = json!([
        {"type": "FailureTarget", "status": "True"},
        {"type": "Suspended", "status": "True"},
    ]);
    let row = cells("batch", "Job", &job(suspended_and_failing, json!({"completions": 3})));
    assert_eq!(row[..4], ["Suspended", "1/3", "2m5s", "7d"]);
    let row = cells(
        "batch",
        "Job",
        &job(json!([{"type": "Complete", "status": "True"}]), json!({"parallelism": 4})),
    );
    assert_eq!(row[..2], ["Complete", "1/1 of 4"]);
    let mut running = job(json!([]), json!({}));
    running["status"]["completionTime"] = Value::Null;
    assert_eq!(cells("batch", "Job", &running)[..3], ["Running", "1/1", "60m"]);
}

#[test]
fn services_follow_get_service_external_ip() {
    assert_eq!(
        headers("", "Service", true),
        ["TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]
    );
    let lb = json!({
        "metadata": meta("front"),
        "spec": {
            "type": "LoadBalancer",
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10", "fd00::10"],
            "externalIPs": ["192.0.2.9"],
            "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
            "selector": {"tier": "front", "app": "web"},
        },
        "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}, {"ip": "203.0.113.5"}, {"ip": "203.0.113.5"}]}},
    });
    assert_eq!(
        cells("", "Service", &lb),
        [
            "LoadBalancer",
            "10.96.0.10",
            "203.0.113.5,lb.example.com,192.0.2.9",
            "80:30080/TCP,53/UDP",
            "7d",
            "app=web,tier=front"
        ]
    );
    let pending = json!({"metadata": meta("p"), "spec": {"type": "LoadBalancer", "clusterIPs": ["10.96.0.11"], "ports": []}});
    assert_eq!(cells("", "Service", &pending)[..4], ["LoadBalancer", "10.96.0.11", "<pending>", "<none>"]);
    let headless = json!({"metadata": meta("h"), "spec": {"clusterIP": "None", "clusterIPs": ["None"], "ports": [{"port": 5432}]}});
    assert_eq!(cells("", "Service", &headless), ["ClusterIP", "None", "<none>", "5432/TCP", "7d", "<none>"]);
    let external =
        json!({"metadata": meta("e"), "spec": {"type": "ExternalName", "externalName": "db.example.com"}});
    assert_eq!(cells("", "Service", &external)[..3], ["ExternalName", "<none>", "db.example.com"]);
}

#[test]
fn nodes_report_not_ready_for_any_status_but_true() {
    let node = |status: &str| {
        json!({
            "metadata": {"name": "n1", "creationTimestamp": CREATED, "labels": {
                "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "infra"}},
            "spec": {"unschedulable": true},
            "status": {
                "conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": status}],
                "addresses": [{"type": "Hostname", "address": "n1"}, {"type": "InternalIP", "address": "172.18.0.2"}],
                "nodeInfo": {"kubeletVersion": "v1.35.4", "osImage": "Debian GNU/Linux 12", "containerRuntimeVersion": "containerd://2.1"},
            },
        })
    };
    assert_eq!(
        cells("", "Node", &node("True")),
        [
            "Ready,SchedulingDisabled",
            "control-plane,infra,worker",
            "7d",
            "v1.35.4",
            "172.18.0.2",
            "<none>",
            "Debian GNU/Linux 12",
            "<unknown>",
            "containerd://2.1"
        ]
    );
    assert_eq!(cells("", "Node", &node("Unknown"))[0], "NotReady,SchedulingDisabled");
}

#[test]
fn events_keep_kubectl_column_order() {
    let wide = headers("", "Event", true);
    assert_eq!(
        wide,
        [
            "LAST SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SUBOBJECT",
            "SOURCE",
            "MESSAGE",
            "FIRST SEEN",
            "COUNT",
            "NAME"
        ]
    );
    assert_eq!(headers("", "Event", false), ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
    let core = json!({
        "metadata": {"name": "web-0.18a", "namespace": "default", "creationTimestamp": "2025-12-31T23:00:00Z"},
        "involvedObject": {"kind": "Pod", "name": "web-0", "fieldPath": "spec.containers{app}"},
        "reason": "BackOff",
        "message": "  Back-off restarting failed container\n",
        "type": "Warning",
        "source": {"component": "kubelet", "host": "node-a"},
        "firstTimestamp": "2025-12-31T23:00:00Z",
        "lastTimestamp": "2025-12-31T23:58:00Z",
        "count": 12,
    });
    assert_eq!(
        cells("", "Event", &core),
        [
            "2m",
            "Warning",
            "BackOff",
            "pod/web-0",
            "spec.containers{app}",
            "kubelet, node-a",
            "Back-off restarting failed container",
            "60m",
            "12",
            "web-0.18a"
        ]
    );
    // events.k8s.io/v1: a series, the reporting controller and instance, no kind name.
    let new = json!({
        "metadata": {"name": "ev2", "namespace": "default", "creationTimestamp": "2025-12-31T23:00:00Z"},
        "eventTime": "2025-12-31T23:30:00.000000Z",
        "series": {"count": 4, "lastObservedTime": "2025-12-31T23:59:50.123456Z"},
        "reportingController": "example.com/controller",
        "reportingInstance": "controller-7d9",
        "regarding": {"kind": "Node"},
        "reason": "Sync",
        "note": "synced",
        "type": "Normal",
    });
    assert_eq!(
        cells("events.k8s.io", "Event", &new),
        [
            "9s",
            "Normal",
            "Sync",
            "node",
            "",
            "example.com/controller, controller-7d9",
            "synced",
            "30m",
            "4",
            "ev2"
        ]
    );
    // Neither first nor last timestamp nor event time: <unknown>; a singleton counts 1.
    let bare =
        json!({"metadata": {"name": "ev3"}, "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "X"});
    assert_eq!(
        cells("", "Event", &bare),
        ["<unknown>", "", "X", "pod/p", "", "", "", "<unknown>", "1", "ev3"]
    );
}

#[test]
fn endpoints_and_endpoint_slices_truncate_after_three() {
    let ep = json!({
        "metadata": meta("web"),
        "subsets": [
            {"addresses": [{"ip": "10.0.0.1"}, {"ip": "fd00::2"}], "ports": [{"port": 80}, {"port": 443}]},
            {"addresses": [{"ip": "10.0.0.3"}], "notReadyAddresses": [{"ip": "10.0.0.4"}]},
        ],
    });
    assert_eq!(cells("", "Endpoints", &ep), ["10.0.0.1:80,[fd00::2]:80,10.0.0.1:443 + 2 more...", "7d"]);
    let none = json!({"metadata": meta("x")});
    assert_eq!(cells("", "Endpoints", &none), ["<none>", "7d"]);
    let not_ready = json!({"metadata": meta("x"), "subsets": [{"notReadyAddresses": [{"ip": "10.0.0.4"}], "ports": [{"port": 80}]}]});
    assert_eq!(cells("", "Endpoints", &not_ready), ["", "7d"]);

    let slice = json!({
        "metadata": meta("web-abc"),
        "addressType": "IPv4",
        "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}, {"name": "m", "port": 9090},
                  {"name": "n", "port": 9091}],
        "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2", "10.0.0.3"]}, {"addresses": ["10.0.0.4"]}],
    });
    assert_eq!(
        cells("discovery.k8s.io", "EndpointSlice", &slice),
        ["IPv4", "80,443,9090 + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...", "7d"]
    );
    let empty = json!({"metadata": meta("e"), "addressType": "IPv6", "endpoints": []});
    assert_eq!(cells("discovery.k8s.io", "EndpointSlice", &empty), ["IPv6", "<unset>", "<unset>", "7d"]);
}

#[test]
fn volumes_and_claims() {
    assert_eq!(
        headers("", "PersistentVolume", true),
        [
            "CAPACITY",
            "ACCESS MODES",
            "RECLAIM POLICY",
            "STATUS",
            "CLAIM",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "REASON",
            "AGE",
            "VOLUMEMODE"
        ]
    );
    let pv = json!({
        "metadata": {"name": "pv-1", "creationTimestamp": CREATED},
        "spec": {
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteOncePod", "ReadWriteOnce", "ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Delete",
            "claimRef": {"namespace": "db", "name": "data-pg-0"},
            "storageClassName": "standard",
            "volumeMode": "Block",
        },
        "status": {"phase": "Bound"},
    });
    assert_eq!(
        cells("", "PersistentVolume", &pv),
        ["10Gi", "RWO,RWOP", "Delete", "Bound", "db/data-pg-0", "standard", "<unset>", "", "7d", "Block"]
    );
    let pvc = json!({
        "metadata": {"name": "data", "namespace": "db", "creationTimestamp": CREATED,
            "annotations": {"volume.beta.kubernetes.io/storage-class": "legacy"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "standard", "volumeName": "pv-1",
            "volumeAttributesClassName": "gold", "volumeMode": "Filesystem"},
        "status": {"phase": "Bound", "accessModes": ["ReadWriteMany", "ReadOnlyMany"], "capacity": {"storage": "10Gi"}},
    });
    assert_eq!(
        cells("", "PersistentVolumeClaim", &pvc),
        ["Bound", "pv-1", "10Gi", "ROX,RWX", "legacy", "gold", "7d", "Filesystem"]
    );
    // Pending: no volume, so neither capacity nor access modes; no class at all is empty.
    let pending = json!({"metadata": meta("p"), "spec": {"accessModes": ["ReadWriteOnce"]}, "status": {"phase": "Pending"}});
    assert_eq!(
        cells("", "PersistentVolumeClaim", &pending),
        ["Pending", "", "", "", "", "<unset>", "7d", "Filesystem"]
    );
}

#[test]
fn resource_quotas_split_requests_and_limits() {
    let quota = json!({
        "metadata": meta("compute"),
        "status": {
            "hard": {"requests.cpu": "4", "limits.memory": "8Gi", "pods": "10", "limits.cpu": "8", "requests.memory": "4Gi"},
            "used": {"requests.cpu": "500m", "limits.cpu": "1", "pods": "3"},
        },
    });
    assert_eq!(
        cells("", "ResourceQuota", &quota),
        [
            "pods: 3/10, requests.cpu: 500m/4, requests.memory: 0/4Gi",
            "limits.cpu: 1/8, limits.memory: 0/8Gi",
            "7d"
        ]
    );
}

#[test]
fn horizontal_pod_autoscalers_format_their_metrics() {
    assert_eq!(
        headers("autoscaling", "HorizontalPodAutoscaler", true),
        ["REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]
    );
    let hpa = json!({
        "metadata": meta("web"),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
                {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
                {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "100"}}},
            ],
        },
        "status": {
            "currentReplicas": 3,
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 45, "averageValue": "120m"}}},
                {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "200Mi"}}},
            ],
        },
    });
    assert_eq!(
        cells("autoscaling", "HorizontalPodAutoscaler", &hpa),
        ["Deployment/web", "cpu: 45%/60%, memory: 200Mi/500Mi + 1 more...", "2", "10", "3", "7d"]
    );
    let fresh = json!({
        "metadata": meta("api"),
        "spec": {
            "scaleTargetRef": {"kind": "StatefulSet", "name": "api"},
            "maxReplicas": 5,
            "metrics": [
                {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "AverageValue", "averageValue": "30"}}},
                {"type": "Object", "object": {"metric": {"name": "hits"}, "target": {"type": "Value", "value": "10k"}}},
            ],
        },
    });
    assert_eq!(
        cells("autoscaling", "HorizontalPodAutoscaler", &fresh),
        ["StatefulSet/api", "<unknown>/30 (avg), <unknown>/10k", "1", "5", "0", "7d"]
    );
    // autoscaling/v1 and no metrics at all: the CPU default.
    let v1 = json!({"metadata": meta("v1"), "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "x"},
        "maxReplicas": 3, "targetCPUUtilizationPercentage": 70}, "status": {"currentCPUUtilizationPercentage": 12}});
    assert_eq!(cells("autoscaling", "HorizontalPodAutoscaler", &v1)[1], "cpu: 12%/70%");
    let bare = json!({"metadata": meta("b"), "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "x"}, "maxReplicas": 3}});
    assert_eq!(cells("autoscaling", "HorizontalPodAutoscaler", &bare)[1], "cpu: <unknown>/80%");
}

#[test]
fn disruption_budgets_show_na_for_the_unset_bound() {
    let pdb = json!({"metadata": meta("web"), "spec": {"minAvailable": "50%"}, "status": {"disruptionsAllowed": 1}});
    assert_eq!(cells("policy", "PodDisruptionBudget", &pdb), ["50%", "N/A", "1", "7d"]);
    let pdb = json!({"metadata": meta("db"), "spec": {"maxUnavailable": 1}});
    assert_eq!(cells("policy", "PodDisruptionBudget", &pdb), ["N/A", "1", "0", "7d"]);
}

#[test]
fn ingresses_and_ingress_classes() {
    let ing = json!({
        "metadata": {"name": "web", "namespace": "default", "creationTimestamp": CREATED,
            "annotations": {"kubernetes.io/ingress.class": "ignored"}},
        "spec": {
            "rules": [{"host": "a.example.com"}, {}, {"host": "b.example.com"}, {"host": "c.example.com"}, {"host": "d.example.com"}],
            "tls": [{"hosts": ["a.example.com"]}],
        },
        "status": {"loadBalancer": {"ingress": [{"ip": "172.18.0.5"}, {"hostname": "lb.example.com"}]}},
    });
    assert_eq!(
        cells("networking.k8s.io", "Ingress", &ing),
        [
            "<none>",
            "a.example.com,b.example.com,c.example.com + 2 more...",
            "172.18.0.5,lb.example.com",
            "80, 443",
            "7d"
        ]
    );
    let catch_all =
        json!({"metadata": meta("all"), "spec": {"ingressClassName": "nginx", "defaultBackend": {}}});
    assert_eq!(cells("networking.k8s.io", "Ingress", &catch_all), ["nginx", "*", "", "80", "7d"]);

    let class = json!({"metadata": {"name": "nginx", "creationTimestamp": CREATED}, "spec": {
        "controller": "k8s.io/ingress-nginx",
        "parameters": {"apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "external-lb"}}});
    assert_eq!(
        cells("networking.k8s.io", "IngressClass", &class),
        ["k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/external-lb", "7d"]
    );
    let plain = json!({"metadata": {"name": "x", "creationTimestamp": CREATED}, "spec": {"controller": "example.com/x"}});
    assert_eq!(cells("networking.k8s.io", "IngressClass", &plain), ["example.com/x", "<none>", "7d"]);
    let netpol = json!({"metadata": meta("deny"), "spec": {"podSelector": {}}});
    assert_eq!(cells("networking.k8s.io", "NetworkPolicy", &netpol), ["<none>", "7d"]);
}

#[test]
fn rbac_bindings_and_default_tables() {
    assert_eq!(
        headers("rbac.authorization.k8s.io", "RoleBinding", true),
        ["ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    );
    let binding = json!({
        "metadata": meta("view"),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [
            {"kind": "User", "name": "alice"},
            {"kind": "ServiceAccount", "name": "ci", "namespace": "tools"},
            {"kind": "Group", "name": "devs"},
            {"kind": "User", "name": "bob"},
            {"kind": "ServiceAccount", "name": "default", "namespace": "default"},
        ],
    });
    assert_eq!(
        cells("rbac.authorization.k8s.io", "RoleBinding", &binding),
        ["ClusterRole/view", "7d", "alice, bob", "devs", "tools/ci, default/default"]
    );
    let empty = json!({"metadata": meta("none"), "roleRef": {"kind": "Role", "name": "r"}});
    assert_eq!(
        cells("rbac.authorization.k8s.io", "ClusterRoleBinding", &empty),
        ["Role/r", "7d", "", "", ""]
    );

    // Served by the default table convertor: CREATED AT, RFC 3339 in UTC.
    for (group, kind) in [
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("", "LimitRange"),
        ("storage.k8s.io", "CSIStorageCapacity"),
    ] {
        assert_eq!(headers(group, kind, true), ["CREATED AT"], "{kind}");
        let obj = json!({"metadata": {"name": "x", "creationTimestamp": "2025-11-24T13:00:00Z"}});
        assert_eq!(cells(group, kind, &obj), ["2025-11-24T13:00:00Z"], "{kind}");
    }
    let crd = json!({"metadata": {"name": "widgets.example.com", "creationTimestamp": "2025-11-24T14:00:00+01:00"}});
    assert_eq!(cells("apiextensions.k8s.io", "CustomResourceDefinition", &crd), ["2025-11-24T13:00:00Z"]);
    assert_eq!(
        cells("apiextensions.k8s.io", "CustomResourceDefinition", &json!({})),
        ["0001-01-01T00:00:00Z"]
    );
}

#[test]
fn storage_classes_drivers_and_attachments() {
    let sc = json!({"metadata": {"name": "standard", "creationTimestamp": CREATED,
        "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "rancher.io/local-path", "volumeBindingMode": "WaitForFirstConsumer"});
    assert_eq!(
        cells("storage.k8s.io", "StorageClass", &sc),
        ["rancher.io/local-path", "Delete", "WaitForFirstConsumer", "false", "7d"]
    );
    assert_eq!(super::cells::storage_class_name(&sc, &ctx()), "standard (default)");

    assert_eq!(
        headers("storage.k8s.io", "CSIDriver", true),
        [
            "ATTACHREQUIRED",
            "PODINFOONMOUNT",
            "STORAGECAPACITY",
            "TOKENREQUESTS",
            "REQUIRESREPUBLISH",
            "MODES",
            "AGE"
        ]
    );
    let driver = json!({"metadata": {"name": "csi.example.com", "creationTimestamp": CREATED},
        "spec": {"attachRequired": false, "podInfoOnMount": true, "volumeLifecycleModes": ["Persistent", "Ephemeral"],
            "tokenRequests": [{"audience": "vault"}, {"audience": "gcp", "expirationSeconds": 3600}]}});
    assert_eq!(
        cells("storage.k8s.io", "CSIDriver", &driver),
        ["false", "true", "false", "vault,gcp", "false", "Persistent,Ephemeral", "7d"]
    );
    let defaults = json!({"metadata": {"name": "d", "creationTimestamp": CREATED}, "spec": {}});
    assert_eq!(
        cells("storage.k8s.io", "CSIDriver", &defaults),
        ["true", "false", "false", "<unset>", "false", "Persistent", "7d"]
    );

    let va = json!({"metadata": {"name": "csi-123", "creationTimestamp": CREATED},
        "spec": {"attacher": "csi.example.com", "nodeName": "node-a", "source": {"persistentVolumeName": "pv-1"}},
        "status": {"attached": true}});
    assert_eq!(
        cells("storage.k8s.io", "VolumeAttachment", &va),
        ["csi.example.com", "pv-1", "node-a", "true", "7d"]
    );
}

#[test]
fn leases_priority_classes_and_revisions() {
    let lease = json!({"metadata": meta("kube-scheduler"), "spec": {"holderIdentity": "cp-1_5f2c"}});
    assert_eq!(cells("coordination.k8s.io", "Lease", &lease), ["cp-1_5f2c", "7d"]);
    let lease = json!({"metadata": meta("free"), "spec": {}});
    assert_eq!(cells("coordination.k8s.io", "Lease", &lease), ["", "7d"]);

    assert_eq!(
        headers("scheduling.k8s.io", "PriorityClass", false),
        ["VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    );
    let pc = json!({"metadata": {"name": "system-node-critical", "creationTimestamp": CREATED},
        "value": 2000001000, "preemptionPolicy": "PreemptLowerPriority"});
    assert_eq!(
        cells("scheduling.k8s.io", "PriorityClass", &pc),
        ["2000001000", "false", "7d", "PreemptLowerPriority"]
    );
    let pc = json!({"metadata": {"name": "batch", "creationTimestamp": CREATED}, "value": 10, "globalDefault": true,
        "preemptionPolicy": "Never"});
    assert_eq!(cells("scheduling.k8s.io", "PriorityClass", &pc), ["10", "true", "7d", "Never"]);

    let rev = json!({"metadata": {"name": "web-6d4", "namespace": "default", "creationTimestamp": CREATED,
        "ownerReferences": [
            {"apiVersion": "v1", "kind": "Pod", "name": "not-the-controller"},
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "controller": true},
        ]}, "revision": 3});
    assert_eq!(cells("apps", "ControllerRevision", &rev), ["statefulset.apps/web", "3", "7d"]);
    let orphan = json!({"metadata": meta("x"), "revision": 1});
    assert_eq!(cells("apps", "ControllerRevision", &orphan), ["<none>", "1", "7d"]);
}

#[test]
fn certificate_signing_requests() {
    assert_eq!(
        headers("certificates.k8s.io", "CertificateSigningRequest", true),
        ["AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]
    );
    let csr = json!({"metadata": {"name": "csr-abc", "creationTimestamp": "2025-12-31T23:50:00Z"},
        "spec": {"signerName": "kubernetes.io/kube-apiserver-client-kubelet", "username": "system:node:n1",
            "expirationSeconds": 86400},
        "status": {"conditions": [{"type": "Approved", "status": "True"}, {"type": "Failed", "status": "True"}],
            "certificate": "LS0tLS1CRUdJTi"}});
    assert_eq!(
        cells("certificates.k8s.io", "CertificateSigningRequest", &csr),
        [
            "10m",
            "kubernetes.io/kube-apiserver-client-kubelet",
            "system:node:n1",
            "24h",
            "Approved,Failed,Issued"
        ]
    );
    let pending = json!({"metadata": {"name": "p", "creationTimestamp": CREATED}, "spec": {"username": "u"}});
    assert_eq!(
        cells("certificates.k8s.io", "CertificateSigningRequest", &pending),
        ["7d", "<none>", "u", "<none>", "Pending"]
    );
    let denied = json!({"metadata": {"name": "d"}, "status": {"conditions": [{"type": "Approved"}, {"type": "Denied"}]}});
    assert_eq!(cells("certificates.k8s.io", "CertificateSigningRequest", &denied)[4], "Denied");
}

#[test]
fn flow_schemas_and_priority_levels() {
    let fs = json!({"metadata": {"name": "system-leader-election", "creationTimestamp": CREATED},
        "spec": {"priorityLevelConfiguration": {"name": "leader-election"}, "matchingPrecedence": 100,
            "distinguisherMethod": {"type": "ByUser"}},
        "status": {"conditions": [{"type": "Dangling", "status": "False"}]}});
    assert_eq!(
        cells("flowcontrol.apiserver.k8s.io", "FlowSchema", &fs),
        ["leader-election", "100", "ByUser", "7d", "False"]
    );
    let fs = json!({"metadata": {"name": "catch-all", "creationTimestamp": CREATED},
        "spec": {"priorityLevelConfiguration": {"name": "catch-all"}}});
    assert_eq!(
        cells("flowcontrol.apiserver.k8s.io", "FlowSchema", &fs),
        ["catch-all", "1000", "<none>", "7d", "?"]
    );

    let limited = json!({"metadata": {"name": "workload-high", "creationTimestamp": CREATED},
        "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 40, "limitResponse": {"type": "Queue",
            "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50}}}}});
    assert_eq!(
        cells("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", &limited),
        ["Limited", "40", "128", "6", "50", "7d"]
    );
    let reject = json!({"metadata": {"name": "catch-all", "creationTimestamp": CREATED},
        "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}}}});
    assert_eq!(
        cells("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", &reject),
        ["Limited", "5", "<none>", "<none>", "<none>", "7d"]
    );
    let exempt = json!({"metadata": {"name": "exempt", "creationTimestamp": CREATED},
        "spec": {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0}}});
    assert_eq!(
        cells("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", &exempt),
        ["Exempt", "<none>", "<none>", "<none>", "<none>", "7d"]
    );
}

#[test]
fn smaller_core_kinds() {
    let rc = json!({"metadata": meta("legacy"), "spec": {"replicas": 2, "selector": {"app": "legacy"},
        "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}, "status": {"replicas": 2, "readyReplicas": 1}});
    assert_eq!(cells("", "ReplicationController", &rc), ["2", "2", "1", "7d", "c", "i", "app=legacy"]);

    assert_eq!(headers("", "PodTemplate", true), ["CONTAINERS", "IMAGES", "POD LABELS"]);
    let template = json!({"metadata": meta("t"), "template": {"metadata": {"labels": {"b": "2", "a": "1"}},
        "spec": {"containers": [{"name": "x", "image": "busybox"}, {"name": "y", "image": "alpine"}]}}});
    assert_eq!(cells("", "PodTemplate", &template), ["x,y", "busybox,alpine", "a=1,b=2"]);
    let bare = json!({"metadata": meta("t"), "template": {"spec": {"containers": []}}});
    assert_eq!(cells("", "PodTemplate", &bare), ["", "", "<none>"]);

    assert_eq!(
        cells("", "ServiceAccount", &json!({"metadata": meta("default"), "secrets": [{"name": "s"}]})),
        ["7d"]
    );
    let secret =
        json!({"metadata": meta("tls"), "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}});
    assert_eq!(cells("", "Secret", &secret), ["kubernetes.io/tls", "2", "7d"]);
    let ds = json!({"metadata": meta("agent"), "spec": {"selector": {"matchLabels": {"app": "agent"}},
        "template": {"spec": {"nodeSelector": {"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"},
            "containers": [{"name": "agent", "image": "agent:1"}]}}},
        "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2,
            "updatedNumberScheduled": 3, "numberAvailable": 2}});
    assert_eq!(
        cells("apps", "DaemonSet", &ds),
        [
            "3",
            "3",
            "2",
            "3",
            "2",
            "kubernetes.io/arch=amd64,kubernetes.io/os=linux",
            "7d",
            "agent",
            "agent:1",
            "app=agent"
        ]
    );
}

#[test]
fn admission_and_api_services() {
    let vwc = json!({"metadata": {"name": "policy", "creationTimestamp": CREATED}, "webhooks": [{"name": "a"}, {"name": "b"}]});
    assert_eq!(cells("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", &vwc), ["2", "7d"]);
    let mwc = json!({"metadata": {"name": "inject", "creationTimestamp": CREATED}});
    assert_eq!(cells("admissionregistration.k8s.io", "MutatingWebhookConfiguration", &mwc), ["0", "7d"]);
    let binding = json!({"metadata": {"name": "b", "creationTimestamp": CREATED}, "spec": {"policyName": "p",
        "paramRef": {"selector": {"matchLabels": {"env": "prod"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["a", "b"]}]}}}});
    assert_eq!(
        cells("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", &binding),
        [
            "p",
            "&LabelSelector{MatchLabels:map[string]string{env: prod,},MatchExpressions:[]LabelSelectorRequirement{\
             LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},},}",
            "7d"
        ]
    );
    let local = json!({"metadata": {"name": "v1.apps", "creationTimestamp": CREATED},
        "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Local"}]}});
    assert_eq!(cells("apiregistration.k8s.io", "APIService", &local), ["Local", "True", "7d"]);
    let broken = json!({"metadata": {"name": "v1beta1.metrics.k8s.io", "creationTimestamp": CREATED},
        "spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}},
        "status": {"conditions": [{"type": "Available", "status": "False", "reason": "MissingEndpoints"}]}});
    assert_eq!(
        cells("apiregistration.k8s.io", "APIService", &broken),
        ["kube-system/metrics-server", "False (MissingEndpoints)", "7d"]
    );
}
