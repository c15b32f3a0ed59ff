//! The attacks of the threat model (docs/security.md), replayed against a real mc-server and real
//! clusters, each shown harmless. Hostile servers are listeners on 127.0.0.1; nothing leaves the
//! machine.
//!
//! `MC_TESTENV_DIR=/tmp/x cargo test -p mc-server --features cluster-tests --test security`
#![allow(clippy::unwrap_used, missing_docs, dead_code)]

#[path = "../cluster/certs.rs"]
mod certs;
#[path = "../cluster/ports.rs"]
mod ports;
#[path = "../cluster/server.rs"]
mod server;
#[path = "../cluster/testenv.rs"]
mod testenv;

mod auth;
mod bounds;
mod hostile;
mod join;
mod redaction;
mod tenant;
mod tls;
