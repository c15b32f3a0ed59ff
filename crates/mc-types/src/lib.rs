//! Types shared by `mc-server` and `kubectl-multicluster`.
//!
//! One concept per module: GVR parsing, the two configuration files, the HTTP wire types and the
//! custom resource definitions.

pub mod gvr;

pub use gvr::Gvr;
