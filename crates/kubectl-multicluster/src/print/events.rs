//! The `Events:` section of `describe`, from the store's events of the object's cluster and
//! namespace: `Type Reason Age From Message` as `kubectl describe` prints them, written as YAML
//! comments so the output stays one YAML document per object.

use std::io::{self, Write};

use mc_types::printers::{Ctx, cells};
use serde_json::Value;

use super::table;

/// The events among `events` about `object` (by uid, else by kind and name), oldest first.
pub fn about<'a>(object: &Value, events: &'a [Value]) -> Vec<&'a Value> {
    let text = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or_default().to_owned();
    let uid = text(object, "/metadata/uid");
    let (kind, name) = (text(object, "/kind"), text(object, "/metadata/name"));
    let mut found: Vec<&Value> = events
        .iter()
        .filter(|e| {
            let target = e.get("involvedObject").or_else(|| e.get("regarding")).unwrap_or(&Value::Null);
            let target_uid = text(target, "/uid");
            if !uid.is_empty() && !target_uid.is_empty() {
                return target_uid == uid;
            }
            text(target, "/kind") == kind && text(target, "/name") == name
        })
        .collect();
    found.sort_by_key(|e| last_seen(e));
    found
}

fn last_seen(e: &Value) -> String {
    [
        "/series/lastObservedTime",
        "/lastTimestamp",
        "/eventTime",
        "/firstTimestamp",
        "/metadata/creationTimestamp",
    ]
    .iter()
    .find_map(|p| e.pointer(p).and_then(Value::as_str).filter(|s| !s.is_empty()))
    .unwrap_or_default()
    .to_owned()
}

/// Writes `# Events:` and a row per event, or `# Events:  <none>`; `error` says why they could
/// not be read.
pub fn write(out: &mut dyn Write, events: &[&Value], error: Option<&str>, ctx: &Ctx) -> io::Result<()> {
    if let Some(error) = error {
        return writeln!(out, "# Events:  <unknown> ({error})");
    }
    if events.is_empty() {
        return writeln!(out, "# Events:  <none>");
    }
    writeln!(out, "# Events:")?;
    let headers = ["Type", "Reason", "Age", "From", "Message"].map(String::from);
    let rows: Vec<Vec<String>> = events
        .iter()
        .map(|e| {
            let count = cells::event_count(e, ctx);
            let age = match count.as_str() {
                "1" | "" => cells::event_last_seen(e, ctx),
                n => format!(
                    "{} (x{n} over {})",
                    cells::event_last_seen(e, ctx),
                    cells::event_first_seen(e, ctx)
                ),
            };
            vec![
                cells::event_type(e, ctx),
                cells::event_reason(e, ctx),
                age,
                cells::event_source(e, ctx),
                cells::event_message(e, ctx),
            ]
        })
        .collect();
    let mut text = Vec::new();
    table::write(&mut text, Some(&headers), &rows)?;
    for line in String::from_utf8_lossy(&text).lines() {
        writeln!(out, "#   {line}")?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_of_the_object_print_as_comment_rows_oldest_first() {
        let pod = json!({"kind": "Pod", "metadata": {"name": "web", "uid": "u1"}});
        let events = vec![
            json!({"type": "Warning", "reason": "BackOff", "message": "Back-off", "count": 3,
                   "involvedObject": {"kind": "Pod", "name": "web", "uid": "u1"},
                   "source": {"component": "kubelet"},
                   "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:50:00Z"}),
            json!({"type": "Normal", "reason": "Scheduled", "message": "assigned", "count": 1,
                   "involvedObject": {"kind": "Pod", "name": "web", "uid": "u1"},
                   "source": {"component": "default-scheduler"},
                   "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z"}),
            json!({"type": "Normal", "reason": "Other", "involvedObject": {"kind": "Pod", "name": "web", "uid": "old"}}),
        ];
        let found = about(&pod, &events);
        assert_eq!(found.len(), 2, "the earlier pod of that name is not this one");
        let ctx = Ctx::at("2026-01-01T01:00:00Z".parse().unwrap());
        let mut out = Vec::new();
        write(&mut out, &found, None, &ctx).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# Events:");
        assert!(lines[1].starts_with("#   Type") && lines[1].contains("Message"), "{text}");
        assert!(lines[2].contains("Scheduled") && lines[2].contains("default-scheduler"), "{text}");
        assert!(lines[3].contains("BackOff") && lines[3].contains("10m (x3 over 60m)"), "{text}");
        let mut none = Vec::new();
        write(&mut none, &[], None, &ctx).unwrap();
        assert_eq!(String::from_utf8(none).unwrap(), "# Events:  <none>\n");
    }
}
