//! Hub grants (`authorization.mode: hub`): what a caller may read in every cluster is granted
//! in the master cluster. Each RoleBinding and ClusterRoleBinding of the master applies to the
//! clusters its `mulitcluster.practice.com/cluster-selector` annotation selects, with the
//! master's roles; a binding without the annotation applies to the master alone, so the
//! master's own grants (its controllers', its admins') never reach the other clusters unasked.

use std::collections::BTreeMap;

use mc_types::crd::CLUSTER_SELECTOR_ANNOTATION;
use mc_types::selector::LabelSelector;

/// The cluster an authorizer is built for, as hub grants select clusters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Target {
    /// Whether it is the master.
    pub is_master: bool,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
}

impl Target {
    /// Whether a master binding with these annotations grants in this cluster. A selector that
    /// cannot be read grants nowhere.
    pub fn selects(&self, annotations: &BTreeMap<String, String>) -> bool {
        match annotations.get(CLUSTER_SELECTOR_ANNOTATION) {
            None => self.is_master,
            Some(text) => match LabelSelector::parse(text) {
                Ok(selector) => selector.matches(&self.labels),
                Err(error) => {
                    tracing::debug!(%error, "a hub binding's cluster selector cannot be read: it grants nowhere");
                    false
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotated(selector: Option<&str>) -> BTreeMap<String, String> {
        selector.map(|s| (CLUSTER_SELECTOR_ANNOTATION.to_string(), s.to_string())).into_iter().collect()
    }

    #[test]
    fn a_binding_grants_where_its_selector_selects_and_the_master_alone_without_one() {
        let prod = Target { is_master: false, labels: [("env".to_string(), "prod".to_string())].into() };
        let master = Target { is_master: true, labels: BTreeMap::new() };
        assert!(prod.selects(&annotated(Some("env=prod"))));
        assert!(prod.selects(&annotated(Some(""))), "an empty selector selects every cluster");
        assert!(!prod.selects(&annotated(Some("env=dev"))));
        assert!(!prod.selects(&annotated(None)), "the master's own bindings stay the master's");
        assert!(master.selects(&annotated(None)));
        assert!(!master.selects(&annotated(Some("env=prod"))));
        assert!(!prod.selects(&annotated(Some("env in (prod"))), "unreadable: nowhere");
    }
}
