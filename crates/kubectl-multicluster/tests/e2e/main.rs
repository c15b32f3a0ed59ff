//! End-to-end tests: the real kubectl runs `kubectl multicluster …` through its plugin mechanism,
//! against a real mc-server syncing the real clusters of `scripts/testenv`.
//!
//! Run through `scripts/test.sh`, or by hand after `cargo build -p mc-server`:
//! `MC_TESTENV_DIR=/tmp/x cargo test -p kubectl-multicluster --features cluster-tests --test e2e`.
#![allow(clippy::unwrap_used, missing_docs)]

/// The certificate issuer the server's cluster and security tests use.
#[path = "../../../mc-server/tests/cluster/certs.rs"]
mod certs;
mod harness;
/// Ports for test servers, as the server's cluster tests pick them.
#[path = "../../../mc-server/tests/cluster/ports.rs"]
mod ports;

mod apply;
mod count;
mod errors;
mod find;
mod history;
mod join;
mod kubeconfig;
mod list;
mod search;
mod secure;
mod tree;
mod watch;
