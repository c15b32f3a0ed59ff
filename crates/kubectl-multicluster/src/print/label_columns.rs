//! `-L key1,key2`: a table column per label key, as kubectl adds them.

use serde_json::Value;

/// The label keys to show, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelColumns {
    keys: Vec<String>,
}

impl LabelColumns {
    /// Columns for these keys (empty ones are left out).
    pub fn new(keys: &[String]) -> Self {
        LabelColumns { keys: keys.iter().filter(|k| !k.is_empty()).cloned().collect() }
    }

    /// Whether no label column was asked for.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Headers as kubectl writes them: the key's last `/` segment in upper case
    /// (`app.kubernetes.io/name` → `NAME`).
    pub fn headers(&self) -> impl Iterator<Item = String> + '_ {
        self.keys.iter().map(|k| k.rsplit('/').next().unwrap_or(k).to_uppercase())
    }

    /// The object's values of the keys; empty where a label is missing.
    pub fn cells<'a>(&'a self, object: &'a Value) -> impl Iterator<Item = String> + 'a {
        let labels = object.pointer("/metadata/labels");
        self.keys.iter().map(move |k| {
            labels.and_then(|l| l.get(k)).and_then(Value::as_str).unwrap_or_default().to_owned()
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn headers_are_the_last_segment_upper_cased_and_cells_the_values() {
        let columns = LabelColumns::new(&["app".into(), "app.kubernetes.io/version".into()]);
        assert_eq!(columns.headers().collect::<Vec<_>>(), ["APP", "VERSION"]);
        let obj = json!({"metadata": {"labels": {"app.kubernetes.io/version": "1.2"}}});
        assert_eq!(columns.cells(&obj).collect::<Vec<_>>(), ["", "1.2"]);
    }
}
