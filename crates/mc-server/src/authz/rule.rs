//! Whether a policy rule of a Role or ClusterRole allows a request: the member's
//! `RuleAllows` with its `VerbMatches`, `APIGroupMatches`, `ResourceMatches`,
//! `ResourceNameMatches` and `NonResourceURLMatches`, comparison for comparison.

use super::objects::Rule;
use super::request::Request;

/// `*` in verbs, API groups, resources and non-resource URLs: anything.
const ALL: &str = "*";

impl Rule {
    /// Whether the rule allows a resource request.
    pub fn allows(&self, req: &Request<'_>) -> bool {
        self.verb_matches(req.verb)
            && self.api_group_matches(req.api_group)
            && self.resource_matches(req.resource, req.subresource)
            && self.resource_name_matches(req.name)
    }

    /// Whether the rule allows a non-resource request (`GET /healthz`).
    pub fn allows_path(&self, verb: &str, path: &str) -> bool {
        self.verb_matches(verb) && self.non_resource_url_matches(path)
    }

    fn verb_matches(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == ALL || v == verb)
    }

    fn api_group_matches(&self, group: &str) -> bool {
        self.api_groups.iter().any(|g| g == ALL || g == group)
    }

    /// `*`, the exact `resource` or `resource/subresource`, or `*/subresource` when the request
    /// names a subresource.
    fn resource_matches(&self, resource: &str, subresource: &str) -> bool {
        self.resources.iter().any(|r| {
            if r == ALL {
                return true;
            }
            let exact = if subresource.is_empty() {
                r == resource
            } else {
                // The member compares with `resource + "/" + subresource`.
                r.len() == resource.len() + 1 + subresource.len()
                    && r.strip_prefix(resource).and_then(|rest| rest.strip_prefix('/')) == Some(subresource)
            };
            exact || (!subresource.is_empty() && r.strip_prefix("*/") == Some(subresource))
        })
    }

    /// No names in the rule: any name, and no name. Names in the rule: one of them, never a
    /// request without a name (a list, a watch, a create).
    fn resource_name_matches(&self, name: &str) -> bool {
        self.resource_names.is_empty() || self.resource_names.iter().any(|n| n == name)
    }

    /// `*`, the exact path, or a prefix ending in `*` (its trailing `*`s removed).
    fn non_resource_url_matches(&self, path: &str) -> bool {
        self.non_resource_urls
            .iter()
            .any(|u| u == ALL || u == path || (u.ends_with('*') && path.starts_with(u.trim_end_matches('*'))))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rule(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str]) -> Rule {
        let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        Rule {
            verbs: own(verbs),
            api_groups: own(groups),
            resources: own(resources),
            resource_names: own(names),
            non_resource_urls: Vec::new(),
        }
    }

    fn req<'a>(verb: &'a str, group: &'a str, resource: &'a str, sub: &'a str, name: &'a str) -> Request<'a> {
        Request { verb, api_group: group, resource, subresource: sub, namespace: "ns", name }
    }

    #[test]
    fn a_verb_matches_itself_or_a_star_and_nothing_else() {
        let get = rule(&["get"], &[""], &["pods"], &[]);
        assert!(get.allows(&req("get", "", "pods", "", "")));
        assert!(!get.allows(&req("list", "", "pods", "", "")));
        assert!(!get.allows(&req("GET", "", "pods", "", "")), "verbs are case-sensitive");
        assert!(!get.allows(&req("*", "", "pods", "", "")), "a requested * is a verb like any other");
        let any = rule(&["*"], &[""], &["pods"], &[]);
        assert!(any.allows(&req("escalate", "", "pods", "", "")));
        assert!(any.allows(&req("*", "", "pods", "", "")));
        assert!(!rule(&[], &[""], &["pods"], &[]).allows(&req("get", "", "pods", "", "")));
    }

    #[test]
    fn an_api_group_matches_itself_or_a_star_and_the_core_group_is_only_the_empty_one() {
        let core = rule(&["get"], &[""], &["*"], &[]);
        assert!(core.allows(&req("get", "", "pods", "", "")));
        assert!(!core.allows(&req("get", "apps", "deployments", "", "")));
        let apps = rule(&["get"], &["apps"], &["*"], &[]);
        assert!(!apps.allows(&req("get", "", "pods", "", "")));
        assert!(!apps.allows(&req("get", "apps.example.com", "deployments", "", "")));
        let any = rule(&["get"], &["*"], &["*"], &[]);
        assert!(any.allows(&req("get", "", "pods", "", "")));
        assert!(any.allows(&req("get", "example.com", "widgets", "", "")));
        assert!(!rule(&["get"], &[], &["*"], &[]).allows(&req("get", "", "pods", "", "")));
    }

    #[test]
    fn a_resource_matches_exactly_and_never_its_subresources() {
        let pods = rule(&["get"], &[""], &["pods"], &[]);
        assert!(pods.allows(&req("get", "", "pods", "", "")));
        assert!(!pods.allows(&req("get", "", "pods", "log", "")));
        assert!(!pods.allows(&req("get", "", "pod", "", "")));
        assert!(!pods.allows(&req("get", "", "podsx", "", "")));
    }

    #[test]
    fn a_resource_with_a_subresource_matches_only_that_subresource() {
        let log = rule(&["get"], &[""], &["pods/log"], &[]);
        assert!(log.allows(&req("get", "", "pods", "log", "")));
        assert!(!log.allows(&req("get", "", "pods", "", "")));
        assert!(!log.allows(&req("get", "", "pods", "exec", "")));
        assert!(!log.allows(&req("get", "", "pods", "lo", "")));
        assert!(!log.allows(&req("get", "", "pod", "s/log", "")), "only resource + / + subresource");
        assert!(!log.allows(&req("get", "", "services", "log", "")));
    }

    #[test]
    fn a_star_resource_matches_everything_and_star_slash_a_subresource_of_any_resource() {
        let any = rule(&["get"], &[""], &["*"], &[]);
        assert!(any.allows(&req("get", "", "pods", "", "")));
        assert!(any.allows(&req("get", "", "pods", "log", "")));
        let status = rule(&["get"], &[""], &["*/status"], &[]);
        assert!(status.allows(&req("get", "", "pods", "status", "")));
        assert!(status.allows(&req("get", "", "services", "status", "")));
        assert!(!status.allows(&req("get", "", "pods", "", "")), "*/x needs a subresource");
        assert!(!status.allows(&req("get", "", "pods", "log", "")));
        assert!(!status.allows(&req("get", "", "pods", "tatus", "")));
        assert!(!status.allows(&req("get", "", "*", "", "")));
        // A requested `*` is a resource like any other: a rule's `*` matches it, `pods` does not.
        assert!(any.allows(&req("get", "", "*", "", "")));
        assert!(!rule(&["get"], &[""], &["pods"], &[]).allows(&req("get", "", "*", "", "")));
    }

    #[test]
    fn resource_names_allow_only_those_names_and_never_a_request_without_a_name() {
        let named = rule(&["get", "list", "create"], &[""], &["configmaps"], &["a", "b"]);
        assert!(named.allows(&req("get", "", "configmaps", "", "a")));
        assert!(named.allows(&req("get", "", "configmaps", "", "b")));
        assert!(!named.allows(&req("get", "", "configmaps", "", "c")));
        assert!(!named.allows(&req("list", "", "configmaps", "", "")), "a list has no name");
        assert!(!named.allows(&req("create", "", "configmaps", "", "")), "a create has no name");
        let unnamed = rule(&["list"], &[""], &["configmaps"], &[]);
        assert!(unnamed.allows(&req("list", "", "configmaps", "", "")));
        assert!(unnamed.allows(&req("list", "", "configmaps", "", "any")));
    }

    #[test]
    fn non_resource_urls_match_exactly_by_star_or_by_a_prefix_ending_in_star() {
        let urls = Rule {
            verbs: vec!["get".into()],
            non_resource_urls: vec!["/healthz".into(), "/logs/*".into(), "/api**".into()],
            ..Rule::default()
        };
        assert!(urls.allows_path("get", "/healthz"));
        assert!(!urls.allows_path("get", "/healthz/ready"));
        assert!(!urls.allows_path("post", "/healthz"));
        assert!(urls.allows_path("get", "/logs/"));
        assert!(urls.allows_path("get", "/logs/kube.log"));
        assert!(!urls.allows_path("get", "/logs"));
        assert!(urls.allows_path("get", "/apis/x"), "every trailing * is cut before the prefix test");
        let all = Rule { verbs: vec!["*".into()], non_resource_urls: vec!["*".into()], ..Rule::default() };
        assert!(all.allows_path("get", "/anything"));
        // A rule of URLs allows no resource, and a rule of resources no URL.
        assert!(!urls.allows(&req("get", "", "pods", "", "")));
        assert!(!rule(&["*"], &["*"], &["*"], &[]).allows_path("get", "/healthz"));
    }

    #[test]
    fn a_rule_is_read_from_the_api_servers_json_with_nulls_and_missing_fields_as_empty() {
        let r: Rule = serde_json::from_value(serde_json::json!({
            "verbs": ["get"], "apiGroups": null, "resources": ["pods"], "nonResourceURLs": ["/x"]
        }))
        .unwrap();
        assert_eq!(r.verbs, ["get"]);
        assert!(r.api_groups.is_empty() && r.resource_names.is_empty());
        assert_eq!(r.non_resource_urls, ["/x"]);
        assert!(serde_json::from_value::<Rule>(serde_json::json!({"verbs": "get"})).is_err());
    }
}
