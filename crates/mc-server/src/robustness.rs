//! Property tests: the customize renderer, the continue-token decoder and the checks of an
//! uploaded kubeconfig give a value or an error for any input — never a panic.

use kube::config::Kubeconfig;
use mc_types::crd::Action;
use proptest::prelude::*;
use serde_json::Value;

use crate::clusters::ClusterSpec;
use crate::clusters::uploaded;
use crate::dispatch::render::render;
use crate::store::Cursor;

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z=/~0-9-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z~/0-9-]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn action() -> impl Strategy<Value = Action> {
    (
        prop_oneof![Just("add"), Just("replace"), Just("remove"), Just("ADD"), Just(""), Just("move")],
        prop_oneof!["(/[a-z0-9~-]{0,5}){0,5}", "[a-z/~]{0,10}", Just("/spec/-".to_string())],
        prop::option::of(json()),
    )
        .prop_map(|(op, path, value)| Action { op: op.to_string(), path, value })
}

/// Hex of JSON arrays of a few strings: tokens of the right shape and of nearly the right shape.
fn token() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<String>(), 0..9).prop_map(|parts| {
        let json = serde_json::to_string(&parts).unwrap_or_default();
        json.bytes().map(|b| format!("{b:02x}")).collect()
    })
}

/// Kubeconfig-like YAML assembled from pieces of its shape, with every kind of credential.
fn kubeconfig_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("apiVersion: v1\nkind: Config\ncurrent-context: c\n".to_string()),
        Just("contexts:\n- name: c\n  context: {cluster: k, user: u}\n".to_string()),
        "clusters:\n- name: k\n  cluster:\n    server: (https|http|file|)://[a-z0-9.:]{0,20}\n",
        "    certificate-authority(-data)?: [a-zA-Z0-9/=]{0,12}\n",
        "    proxy-url: [a-z:/0-9.]{0,12}\n",
        "users:\n- name: u\n  user:\n    (token|tokenFile|client-certificate|client-key|username|password): [a-z/0-9]{0,12}\n",
        Just("    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/true}\n".to_string()),
        Just("    auth-provider: {name: gcp, config: {cmd-path: /bin/true}}\n".to_string()),
        "[\\[\\]{}:,&*!|>'\"%@` -~\t\n]{0,30}",
    ];
    prop::collection::vec(piece, 0..10).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn customize_rendering_never_panics(template in json(), actions in prop::collection::vec(action(), 0..6)) {
        let _ = render(&template, &actions);
    }

    #[test]
    fn continue_tokens_never_panic(token in prop_oneof![any::<String>(), "[0-9a-f]{0,200}", ".{0,9000}", token()]) {
        if let Ok((cursor, query)) = Cursor::decode_for(&token) {
            let again = match &query {
                Some(q) => cursor.encode_for(q),
                None => cursor.encode(),
            };
            prop_assert_eq!(Cursor::decode_for(&again).ok(), Some((cursor, query)));
        }
    }

    #[test]
    fn uploaded_kubeconfigs_never_panic(text in kubeconfig_text(), allow_http in any::<bool>()) {
        if let Ok(mut kubeconfig) = Kubeconfig::from_yaml(&text)
            && uploaded::check(&kubeconfig, uploaded::Allowed { http: allow_http, link_local: false }).is_ok()
        {
            let users = kubeconfig.auth_infos.iter().filter_map(|u| u.auth_info.as_ref());
            for u in users {
                prop_assert!(u.exec.is_none() && u.auth_provider.is_none() && u.token_file.is_none(), "accepted: {}", text);
                prop_assert!(u.client_certificate.is_none() && u.client_key.is_none(), "accepted: {}", text);
            }
            uploaded::strip_credentials_over_http(&mut kubeconfig);
            let _ = ClusterSpec::from_kubeconfig("x", kubeconfig, "upload".into(), None, allow_http);
        }
    }
}
