//! mc-server: keeps every object of every cluster in a store, serves queries over HTTP and
//! dispatches `MultiClusterResource`s to member clusters.

pub mod access;
pub mod auth;
pub mod authz;
pub mod clusters;
pub mod config;
pub mod dispatch;
pub mod http;
pub mod identity;
pub mod lease;
pub mod listener;
pub mod membership;
pub mod metrics;
pub mod object_counts;
pub mod relations;
pub mod retention;
pub mod server;
pub mod store;
pub mod sync;
pub mod tls;

#[cfg(test)]
mod robustness;
