//! kubectl's message for a named object that no cluster has:
//! `Error from server (NotFound): deployments.apps "web" not found`.

use mc_types::{GvrSpec, ResourceCatalog, ResourceInfo};

/// The resource as kubectl names it in messages: the plural, with `.group` unless core
/// (`pods`, `deployments.apps`). Resolved through the discovery data; else from the typed form.
pub fn resource_name(typed: &str, resources: Option<&[ResourceInfo]>) -> String {
    let info = resources.and_then(|r| ResourceCatalog::new(r.to_vec()).resolve_str(typed).ok().cloned());
    let (resource, group) = match (info, GvrSpec::parse(typed)) {
        (Some(info), _) => (info.resource, info.group),
        (None, Ok(GvrSpec::Explicit(gvr))) => (gvr.resource, gvr.group),
        (None, _) => return typed.to_owned(),
    };
    if group.is_empty() { resource } else { format!("{resource}.{group}") }
}

/// `Error from server (NotFound): RESOURCE "NAME" not found`.
pub fn message(resource: &str, name: &str) -> String {
    format!("Error from server (NotFound): {resource} \"{name}\" not found")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn core_types_have_no_group_suffix_and_others_do() {
        assert_eq!(resource_name("v1/pods", None), "pods");
        assert_eq!(resource_name("apps/v1/deployments", None), "deployments.apps");
        assert_eq!(resource_name("po", None), "po");
        assert_eq!(message("pods", "x"), "Error from server (NotFound): pods \"x\" not found");
    }
}
