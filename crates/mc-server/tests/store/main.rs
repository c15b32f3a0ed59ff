//! Store conformance: the same scenarios on SQLite, MySQL/MariaDB and PostgreSQL.
//!
//! Needs `MC_TEST_MYSQL_URL` and `MC_TEST_POSTGRES_URL` (e.g. from
//! `eval "$(scripts/testdb up --dir /tmp/mc-testdb)"`); a missing one fails the tests of that
//! backend — they are never skipped. Every test runs in a database of its own, created for it
//! (the user of the URL needs the right to create databases) and dropped when it passes.
//!
//! Run: `cargo test -p mc-server --features db-tests --test store`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod harness;
mod scenarios;

/// One test per scenario and backend, named `<backend>::<scenario>`.
macro_rules! conformance {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    crate::harness::run(crate::harness::Kind::Sqlite, stringify!($scenario), crate::scenarios::$scenario).await;
                }
            )*
        }
        mod mysql {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    crate::harness::run(crate::harness::Kind::MySql, stringify!($scenario), crate::scenarios::$scenario).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    crate::harness::run(crate::harness::Kind::Postgres, stringify!($scenario), crate::scenarios::$scenario).await;
                }
            )*
        }
    };
}

conformance!(
    upsert_then_delete_leaves_nothing,
    upsert_replaces_the_object_and_its_labels,
    a_batch_keeps_the_outcome_of_watch_order,
    reconcile_makes_the_rows_exactly_the_list,
    label_selectors_of_every_operator,
    field_selectors_on_columns_and_on_the_object,
    pages_return_every_row_once_in_stable_order,
    a_bad_continue_token_is_an_error,
    delete_cluster_removes_objects_labels_and_row,
    delete_missing_keeps_only_the_listed_uids,
    cluster_names_come_from_objects_and_rows,
    delete_gvr_removes_one_type_of_one_cluster,
    counts_and_keys,
    cluster_rows_round_trip,
    one_object_under_two_types,
    names_compare_byte_for_byte,
    reconcile_of_30k_objects,
    poison_objects_are_isolated_sanitized_or_reported,
);
