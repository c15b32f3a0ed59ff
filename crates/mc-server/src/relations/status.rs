//! The short status of an object in a tree: a ready count and a word, read from its JSON.

use serde_json::Value;

/// `(ready, status)` of an object of `kind`.
pub fn of(kind: &str, o: &Value) -> (Option<String>, Option<String>) {
    let int = |v: &Value| v.as_i64().unwrap_or(0);
    let s = &o["status"];
    match kind {
        "Deployment" | "ReplicaSet" | "StatefulSet" => {
            let want = o["spec"]["replicas"].as_i64().unwrap_or(1);
            let ready = int(&s["readyReplicas"]);
            (Some(format!("{ready}/{want}")), Some(if ready >= want { "Ready" } else { "NotReady" }.into()))
        }
        "DaemonSet" => {
            let (ready, want) = (int(&s["numberReady"]), int(&s["desiredNumberScheduled"]));
            (Some(format!("{ready}/{want}")), Some(if ready >= want { "Ready" } else { "NotReady" }.into()))
        }
        "Job" => {
            let want = o["spec"]["completions"].as_i64().unwrap_or(1);
            let done = int(&s["succeeded"]);
            let word = if condition(s, "Complete") == Some(true) {
                "Complete"
            } else if condition(s, "Failed") == Some(true) {
                "Failed"
            } else {
                "Running"
            };
            (Some(format!("{done}/{want}")), Some(word.into()))
        }
        "Pod" => {
            let statuses = s["containerStatuses"].as_array();
            let total = o["spec"]["containers"].as_array().map_or(0, Vec::len);
            let ready = statuses.into_iter().flatten().filter(|c| c["ready"] == true).count();
            let phase = s["phase"].as_str().map(str::to_string);
            (Some(format!("{ready}/{total}")), phase)
        }
        "Node" => {
            let ready = condition(s, "Ready");
            (None, Some(if ready == Some(true) { "Ready" } else { "NotReady" }.into()))
        }
        "PersistentVolumeClaim" | "PersistentVolume" | "Namespace" => {
            (None, s["phase"].as_str().map(str::to_string))
        }
        "EndpointSlice" => {
            let endpoints = o["endpoints"].as_array();
            let total = endpoints.map_or(0, Vec::len);
            let ready = endpoints.into_iter().flatten().filter(|e| e["conditions"]["ready"] != false).count();
            (Some(format!("{ready}/{total}")), None)
        }
        "Service" => (None, o["spec"]["type"].as_str().map(str::to_string)),
        "MultiClusterResource" => {
            let ready = s["ready"].as_str().filter(|r| !r.is_empty()).map(str::to_string);
            let word = condition(s, "Ready").map(|r| if r { "Ready" } else { "NotReady" }.to_string());
            (ready, word)
        }
        _ => match condition(s, "Ready").or_else(|| condition(s, "Available")) {
            Some(r) => (None, Some(if r { "Ready" } else { "NotReady" }.into())),
            None => (None, None),
        },
    }
}

/// Whether the condition `kind` is `True`; `None` when absent.
fn condition(status: &Value, kind: &str) -> Option<bool> {
    status["conditions"].as_array()?.iter().find(|c| c["type"] == kind).map(|c| c["status"] == "True")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn counts_and_words_follow_each_kind() {
        let deploy = json!({"spec": {"replicas": 2}, "status": {"readyReplicas": 1}});
        assert_eq!(of("Deployment", &deploy), (Some("1/2".into()), Some("NotReady".into())));
        let pod = json!({"spec": {"containers": [{}, {}]}, "status": {"phase": "Running",
            "containerStatuses": [{"ready": true}, {"ready": false}]}});
        assert_eq!(of("Pod", &pod), (Some("1/2".into()), Some("Running".into())));
        let node = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert_eq!(of("Node", &node), (None, Some("Ready".into())));
        assert_eq!(of("ConfigMap", &json!({})), (None, None));
    }
}
