//! A CRD's `additionalPrinterColumns`, read and evaluated as the API server's table convertor
//! does: the plugin's tables and the server's Table answers use the same columns and cells.

use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use crate::jsonpath::JsonPath;

/// One printer column of a CRD version.
#[derive(Clone, Debug, PartialEq)]
pub struct PrinterColumn {
    /// Column name as the CRD spells it (`Ready`, `Age`).
    pub name: String,
    /// OpenAPI type: `string`, `integer`, `number`, `boolean` or `date`.
    pub kind: String,
    /// OpenAPI format, e.g. `name`.
    pub format: String,
    /// 0 shows always, more only with `-o wide`.
    pub priority: i64,
    /// What the column holds.
    pub description: String,
    /// The path, or `None` when it is outside the supported JSONPath subset (cells `<invalid>`).
    pub path: Option<JsonPath>,
}

impl PrinterColumn {
    /// The cell of `object`, as the API server formats it: empty when the path selects
    /// nothing (the API server's cell is null, which kubectl prints as nothing), an age for `date` columns, JSON text for lists and maps.
    pub fn cell(&self, object: &Value, now: Timestamp) -> String {
        let Some(path) = &self.path else { return "<invalid>".into() };
        match path.select(object).first().copied() {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) if self.kind == "date" => crate::age::since(Some(s), now),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        }
    }
}

/// The printer columns of `version` of a CRD object (else of its storage version), in order.
/// Empty when it has none; callers then show an age column, as the API server does.
pub fn from_crd(crd: &Value, version: &str) -> Vec<PrinterColumn> {
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let chosen = versions
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(version))
        .or_else(|| versions.iter().find(|v| v.get("storage").and_then(Value::as_bool) == Some(true)));
    let printer = chosen
        .and_then(|v| v.get("additionalPrinterColumns"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    printer
        .iter()
        .filter_map(|p| {
            let text = |key: &str| p.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            Some(PrinterColumn {
                name: p.get("name")?.as_str()?.to_owned(),
                kind: Some(text("type")).filter(|t| !t.is_empty()).unwrap_or_else(|| "string".into()),
                format: text("format"),
                priority: p.get("priority").and_then(Value::as_i64).unwrap_or(0),
                description: text("description"),
                path: JsonPath::parse(p.get("jsonPath")?.as_str()?).ok(),
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd() -> Value {
        json!({"spec": {"versions": [
            {"name": "v1beta1", "storage": false, "additionalPrinterColumns": [{"name": "Old", "type": "string", "jsonPath": ".a"}]},
            {"name": "v1", "storage": true, "additionalPrinterColumns": [
                {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
                {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1},
                {"name": "Dotted", "type": "string", "jsonPath": ".metadata.labels.app\\.kubernetes\\.io/name"},
                {"name": "Quoted", "type": "string", "jsonPath": ".metadata.labels['app.kubernetes.io/name']"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
            ]}
        ]}})
    }

    #[test]
    fn columns_of_the_asked_version_else_of_the_storage_version() {
        let names = |v: &str| from_crd(&crd(), v).into_iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(names("v1beta1"), ["Old"]);
        assert_eq!(names("v1"), ["Ready", "Replicas", "Dotted", "Quoted", "Age"]);
        assert_eq!(names("v2"), ["Ready", "Replicas", "Dotted", "Quoted", "Age"]);
        assert_eq!(from_crd(&crd(), "v1")[1].priority, 1);
    }

    #[test]
    fn cells_read_like_the_api_servers() {
        let now: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let object = json!({
            "metadata": {"creationTimestamp": "2025-12-31T23:55:00Z", "labels": {"app.kubernetes.io/name": "web"}},
            "spec": {"replicas": 3},
            "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]}
        });
        let cells: Vec<String> = from_crd(&crd(), "v1").iter().map(|c| c.cell(&object, now)).collect();
        assert_eq!(cells, ["True", "3", "web", "web", "5m"]);
        let empty: Vec<String> = from_crd(&crd(), "v1").iter().map(|c| c.cell(&json!({}), now)).collect();
        assert_eq!(empty, ["", "", "", "", ""]);
    }
}
