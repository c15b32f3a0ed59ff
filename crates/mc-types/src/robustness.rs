//! Property tests: every parser of input from users or the network gives a value or an error for
//! any input — never a panic.

use std::path::Path;

use proptest::prelude::*;

use crate::config::{ClusterName, ServerConfig};
use crate::gvr::{GvrSpec, ResourceCatalog, ResourceInfo};
use crate::selector::{FieldSelector, LabelSelector};

/// Strings made of the characters these grammars care about, plus anything else.
fn grammar_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9./=!,()~ _-]{0,80}",
        "[a-z]{1,8}(/[a-z0-9]{1,8}){0,4}",
        "[a-z]{1,6}( (in|notin) \\([a-z,]{0,12}\\))?(,[!a-z]{1,6}(!?=[a-z]{0,5})?){0,5}",
        any::<String>(),
        ".{0,300}",
    ]
}

fn catalog() -> ResourceCatalog {
    let info = |group: &str, resource: &str, kind: &str, short: &[&str]| ResourceInfo {
        group: group.into(),
        version: "v1".into(),
        resource: resource.into(),
        singular: resource.trim_end_matches('s').into(),
        kind: kind.into(),
        short_names: short.iter().map(|s| s.to_string()).collect(),
        namespaced: true,
        verbs: vec!["list".into(), "watch".into()],
        categories: Vec::new(),
    };
    ResourceCatalog::new(vec![
        info("", "pods", "Pod", &["po"]),
        info("apps", "deployments", "Deployment", &["deploy"]),
        info("", "configmaps", "ConfigMap", &["cm"]),
        info("example.com", "widgets", "Widget", &[]),
    ])
}

/// YAML-ish documents assembled from pieces of the config file's shape.
fn config_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("clusters:\n".to_string()),
        Just("  - metadata:\n".to_string()),
        "      clusterName: [a-zA-Z0-9-]{0,70}\n",
        "      configPath: [a-z/.~]{0,20}\n",
        "      isMaster: (true|false|yes|1|x)\n",
        "      context: [a-z]{0,5}\n",
        "      resources: \\[\\{rType: [a-z/.]{0,20}\\}\\]\n",
        "      labels: \\{[a-z]{1,4}: [a-z]{0,4}\\}\n",
        "server: \\{port: [0-9a-z]{0,6}, bind: [0-9.a-z:]{0,10}\\}\n",
        "server:\n  token: [ -~]{0,20}\n  tokens: \\[\\{token: [a-z0-9]{0,20}, role: [a-z]{0,6}\\}\\]\n",
        "server: \\{tlsCertFile: [a-z]{0,3}, tlsKeyFile: [a-z]{0,3}\\}\n",
        "storage: \\{url: [a-z:/@]{0,20}\\}\n",
        "sync: \\{excludeGroups: \\[[a-z.]{0,8}\\], redactSecrets: [a-z]{0,5}\\}\n",
        "[\\[\\]{}:,&*!|>'\"%@` -~\t\n]{0,40}",
    ];
    prop::collection::vec(piece, 0..14).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn gvr_parsing_and_resolution_never_panic(input in grammar_text()) {
        let catalog = catalog();
        if let Ok(spec) = GvrSpec::parse(&input) {
            let _ = catalog.resolve(&spec);
            let _ = spec.to_string();
        }
        let _ = catalog.resolve_str(&input);
    }

    #[test]
    fn label_selectors_never_panic(input in grammar_text()) {
        if let Ok(mut selector) = LabelSelector::parse(&input) {
            let again = LabelSelector::parse(&input);
            prop_assert!(again.is_ok());
            if let Ok(other) = again {
                selector.extend(other);
            }
        }
    }

    #[test]
    fn equality_label_filters_never_panic(pairs in prop::collection::vec((grammar_text(), grammar_text()), 0..80)) {
        let _ = LabelSelector::from_equalities(pairs);
    }

    #[test]
    fn field_selectors_never_panic(input in grammar_text()) {
        let _ = FieldSelector::parse(&input);
    }

    #[test]
    fn cluster_names_never_panic(input in grammar_text()) {
        let _ = ClusterName::parse(&input);
    }

    #[test]
    fn server_configs_never_panic(text in config_text()) {
        match ServerConfig::from_yaml(&text, Path::new("/etc/mc/config.yaml")) {
            Ok(config) => prop_assert!(!config.clusters.is_empty()),
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "not one line: {}", e),
        }
    }

    #[test]
    fn cli_configs_never_panic(text in config_text(), extra in "(serverIP|serverPort|token|masterClusterKubeConfigPath): [ -~]{0,30}\n") {
        let dir = std::env::temp_dir().join(format!("mc-prop-cli-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join("config");
        let body = format!("{extra}{text}");
        if std::fs::write(&file, &body).is_ok()
            && let Ok(config) = crate::config::CliConfig::load(&file)
        {
            let _ = config.server_url();
        }
    }
}
