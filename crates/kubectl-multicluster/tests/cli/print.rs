//! Snapshots of every table kind and output shape, from the fixtures in `tests/fixtures/print`.
//! Ages are measured from a fixed time, so the snapshots are stable.

use std::path::PathBuf;

use insta::assert_snapshot;
use kubectl_multicluster::commands::clusters;
use kubectl_multicluster::print::{self, Ctx, TableSpec, View};
use mc_types::api::{ClusterInfo, ListWithClusterItem};
use serde::Deserialize;
use serde_json::Value;

/// A fixture: objects with their clusters, and the CRD for custom resources.
#[derive(Deserialize)]
pub struct Fixture {
    #[serde(default)]
    pub crd: Option<Value>,
    pub items: Vec<ListWithClusterItem>,
}

pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/print")
}

pub fn fixture(name: &str) -> Fixture {
    let text = std::fs::read_to_string(fixtures_dir().join(format!("{name}.yaml"))).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{name}.yaml: {e}"))
}

fn ctx() -> Ctx {
    Ctx::at("2026-01-01T00:00:00Z".parse().unwrap())
}

/// The table as `list` prints it: the spec is chosen from the objects' apiVersion and kind.
fn table(name: &str, wide: bool) -> String {
    let f = fixture(name);
    let obj = &f.items[0].object;
    let api_version = obj["apiVersion"].as_str().unwrap();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let namespaced = obj.pointer("/metadata/namespace").is_some();
    let spec = TableSpec::resolve(
        group,
        obj["kind"].as_str().unwrap(),
        version,
        namespaced,
        f.crd.as_ref(),
        View::of(wide),
    );
    let mut out = Vec::new();
    print::write_table(&mut out, &spec, &f.items, &ctx(), wide, true).unwrap();
    String::from_utf8(out).unwrap()
}

macro_rules! table_snapshots {
    ($($test:ident => $fixture:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            assert_snapshot!(concat!($fixture, "-table"), table($fixture, false));
            assert_snapshot!(concat!($fixture, "-wide"), table($fixture, true));
        }
    )*};
}

table_snapshots! {
    pods_show_node_ip_status_containers_and_images => "pods",
    deployments_show_total_available_ready => "deployments",
    configmaps_show_data_counts => "configmaps",
    services_show_type_ips_and_ports => "services",
    nodes_show_status_roles_and_version => "nodes",
    namespaces_show_status => "namespaces",
    jobs_show_status_completions_and_duration => "jobs",
    cronjobs_show_schedule_and_last_run => "cronjobs",
    statefulsets_show_ready_of_desired => "statefulsets",
    daemonsets_show_scheduling_counts => "daemonsets",
    replicasets_show_desired_current_ready => "replicasets",
    secrets_show_type_and_key_count => "secrets",
    ingresses_show_class_hosts_and_address => "ingresses",
    core_events_show_last_seen_reason_object_message => "events",
    events_k8s_io_read_like_core_events => "events-k8s-io",
    persistentvolumeclaims_show_binding_and_capacity => "persistentvolumeclaims",
    multiclusterresources_show_template_placement_and_readiness => "multiclusterresources",
    custom_resources_use_their_crd_printer_columns => "widgets",
    leases_show_their_holder => "leases",
    cluster_scoped_types_have_no_namespace_column => "clusterroles",
}

#[test]
fn every_fixture_has_a_snapshot_test() {
    let source = include_str!("print.rs");
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".yaml") {
            assert!(source.contains(&format!("=> \"{stem}\"")), "no snapshot test for fixture {name}");
        }
    }
}

#[test]
fn clusters_show_version_host_platform_master_and_status() {
    let text = std::fs::read_to_string(fixtures_dir().join("clusters.json")).unwrap();
    let clusters: Vec<ClusterInfo> = serde_json::from_str(&text).unwrap();
    for wide in [false, true] {
        let mut out = Vec::new();
        clusters::write_table(&mut out, &clusters, &ctx(), wide, true).unwrap();
        let name = if wide { "clusters-wide" } else { "clusters-table" };
        assert_snapshot!(name, String::from_utf8(out).unwrap());
    }
}

fn two_configmaps() -> Vec<ListWithClusterItem> {
    fixture("configmaps").items.into_iter().take(2).collect()
}

#[test]
fn json_output_is_a_list_whose_items_name_their_cluster() {
    let mut out = Vec::new();
    print::write_json(&mut out, &print::list_document(&two_configmaps())).unwrap();
    let text = String::from_utf8(out).unwrap();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["kind"], "List");
    assert_eq!(parsed["items"][1]["metadata"]["annotations"][print::CLUSTER_ANNOTATION], "tencent2");
    assert_snapshot!("configmaps-json", text);
}

#[test]
fn yaml_output_is_the_same_list_in_yaml() {
    let mut out = Vec::new();
    print::write_yaml(&mut out, &print::list_document(&two_configmaps())).unwrap();
    let text = String::from_utf8(out).unwrap();
    let parsed: Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(parsed, print::list_document(&two_configmaps()));
    assert_snapshot!("configmaps-yaml", text);
}

#[test]
fn name_output_is_cluster_kind_group_name() {
    let mut items = two_configmaps();
    items.extend(fixture("deployments").items.into_iter().take(1));
    let mut out = Vec::new();
    print::write_names(&mut out, &items, false).unwrap();
    assert_snapshot!("names", String::from_utf8(out).unwrap());
}

#[test]
fn describe_prints_one_yaml_document_per_cluster() {
    let mut out = Vec::new();
    print::write_described(&mut out, &two_configmaps()).unwrap();
    let text = String::from_utf8(out).unwrap();
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    assert_eq!(docs.len(), 2);
    assert_snapshot!("describe", text);
}
