//! End-to-end tests against real API servers started by `scripts/testenv`.
//!
//! Run through `scripts/test.sh`, or by hand:
//! `MC_TESTENV_DIR=/tmp/x cargo test -p mc-server --features cluster-tests --test cluster`.
#![allow(clippy::unwrap_used, missing_docs)]

mod testenv;

mod access;
mod certs;
mod deploy;
mod dispatch;
mod foundation;
mod go_project;
mod history;
mod join;
mod k9s;
mod kube_api;
mod logs;
mod openapi;
mod parity;
mod ports;
mod rbac_parity;
mod server;
mod shard;
mod sync;
mod version_can_i;
