//! Tests without clusters: table snapshots from fixed objects, and the real binary against a fake
//! mc-server.
#![allow(clippy::unwrap_used, missing_docs)]

mod auth;
mod commands;
mod complete;
mod config_file;
mod count;
mod fake;
mod fake_go_server;
mod fake_master;
mod go_server;
mod kubeconfig;
mod list_options;
mod logs;
mod print;
mod scripts;
mod top;
