//! Store conformance: the same scenarios on SQLite, MySQL/MariaDB and PostgreSQL.
//!
//! Needs `MC_TEST_MYSQL_URL` and `MC_TEST_POSTGRES_URL` (e.g. from
//! `eval "$(scripts/testdb up --dir /tmp/mc-testdb)"`); a missing one fails the tests of that
//! backend — they are never skipped. Every test runs in a database of its own, created for it
//! (the user of the URL needs the right to create databases) and dropped when it passes.
//!
//! Run: `cargo test -p mc-server --features db-tests --test store`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod count;
mod harness;
mod history;
mod related;
mod scenarios;
mod search;

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
    a_relist_makes_the_rows_exactly_the_list,
    label_selectors_of_every_operator,
    field_selectors_on_columns_and_on_the_object,
    pages_return_every_row_once_in_stable_order,
    a_bad_continue_token_is_an_error,
    delete_cluster_removes_objects_labels_and_row,
    deletions_after_upserts_take_their_label_rows,
    concurrent_writers_of_different_clusters_meet_only_conflicts,
    label_rows_are_their_objects_whatever_a_write_expects,
    delete_missing_keeps_only_the_listed_uids,
    cluster_names_come_from_objects_and_rows,
    delete_gvr_removes_one_type_of_one_cluster,
    counts_and_keys,
    cluster_rows_round_trip,
    one_object_under_two_types,
    names_compare_byte_for_byte,
    a_relist_of_30k_objects,
    objects_of_a_megabyte_and_more_go_many_to_a_batch,
    poison_objects_are_isolated_sanitized_or_reported,
    digest_pages_read_only_the_objects_not_known,
    the_change_feed_carries_what_other_replicas_wrote_in_commit_order,
    reads_cancelled_at_any_point_leave_no_connection_in_a_transaction,
    first_lists_cancelled_at_any_point_commit_all_or_nothing,
    indexes_deferred_for_a_first_sync_are_built_after_it,
    history_keeps_every_change_of_an_object_in_order,
    history_of_a_relist_tells_the_gap,
    history_state_at_a_time_is_each_objects_revision_then,
    history_state_at_rewinds_from_the_current_rows,
    history_keeps_an_expired_events_last_state,
    history_pruned_by_age_keeps_what_the_window_needs,
    history_pruned_by_bytes_goes_oldest_first,
    history_off_writes_no_revision,
    history_of_a_failed_transaction_is_not_written,
    history_of_removed_types_and_clusters_says_so,
    history_staged_revisions_move_in_write_order,
    counts_group_by_cluster_namespace_and_fields,
    counts_keep_the_filters_of_the_query,
    counts_by_a_kept_field_are_the_objects_counts,
    search_finds_objects_by_every_field,
    search_ranks_exact_name_prefix_substring_then_fields,
    search_index_follows_every_write_and_deletion,
    search_keeps_to_the_filters_and_rights_in_the_query,
    search_index_is_completed_after_a_start_with_search_off,
    search_index_deferred_for_a_first_sync_is_built_after_it,
    search_of_a_text_every_object_holds_still_finds_the_names,
    related_reads_take_any_number_of_keys_in_one_transaction,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mysql_lock_wait_timeout_is_retried() {
    harness::run(harness::Kind::MySql, "lock_wait_timeout", scenarios::a_lock_wait_timeout_is_retried).await;
}

/// A MySQL database the Go project used: its `resources` table is set aside (kept, renamed) and
/// ours is created, so mc-server starts on the same database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_go_projects_mysql_database_is_taken_over() {
    use sqlx::{Connection as _, Executor as _};
    let (url, to_clean) = harness::prepare(harness::Kind::MySql, "go_project").await;
    let mut c = sqlx::MySqlConnection::connect(&url).await.unwrap();
    c.execute(include_str!("go_project_resources_table.sql")).await.unwrap();
    c.execute(
        "INSERT INTO resources (namespace, name, cluster, `group`, version, resource, kind, uid, object) \
         VALUES ('default', 'old', 'tencent1', '', 'v1', 'configmaps', 'ConfigMap', 'u-1', '{}')",
    )
    .await
    .unwrap();
    let store = mc_server::store::Store::connect(&url).await.expect("starts on the Go project's database");
    let kept: Vec<String> = sqlx::query_scalar(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'resources_go_original_%'",
    )
    .fetch_all(&mut c)
    .await
    .unwrap();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let rows: i64 =
        sqlx::query_scalar(&format!("SELECT COUNT(*) FROM `{}`", kept[0])).fetch_one(&mut c).await.unwrap();
    assert_eq!(rows, 1, "the Go project's rows are kept");
    assert_eq!(store.count("tencent1").await.unwrap(), 0, "ours starts empty and fills by syncing");
    // A second start finds our migrations and touches nothing.
    store.close().await;
    let again = mc_server::store::Store::connect(&url).await.unwrap();
    again.close().await;
    let kept_again: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'resources_go_original_%'",
    )
    .fetch_one(&mut c)
    .await
    .unwrap();
    assert_eq!(kept_again, 1);
    harness::cleanup(to_clean).await;
}
