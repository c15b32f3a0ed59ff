//! The clusters the server serves: their connection, live state and lifecycle.

pub mod connect;
pub mod registry;
pub mod transport;
pub mod uploaded;

pub use connect::{ClusterSpec, connect, connect_with};
pub use registry::{Cluster, ClusterState, Ownership, Registry};
