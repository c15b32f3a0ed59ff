//! Types shared by `mc-server` and `kubectl-multicluster`.
//!
//! One concept per module: GVR parsing, the two configuration files, the HTTP wire types, the
//! custom resource definitions and ages as kubectl prints them.

pub mod age;
pub mod api;
pub mod changed_fields;
pub mod config;
pub mod count;
pub mod crd;
pub mod declared_links;
pub mod gvr;
pub mod history;
pub mod jsonpath;
pub mod moment;
pub mod printer_columns;
pub mod printers;
pub mod search;
pub mod selector;
pub mod tree;

pub use config::ClusterName;
pub use gvr::Gvr;
pub use gvr::{GvrSpec, ResourceCatalog, ResourceInfo};

#[cfg(test)]
mod robustness;
