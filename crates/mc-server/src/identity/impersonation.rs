//! Acting as another user, as kube-apiserver offers it (`kubectl --as`, `--as-group`): the
//! `Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-*`
//! headers read into an [`Impersonation`], the user the request then runs as
//! ([`impersonated`]), and the `impersonate` requests its caller must be allowed
//! ([`Impersonation::checks`]).

use axum::http::HeaderMap;

use crate::authz::{Request, User};

/// The user name of unauthenticated requests, which impersonation gives no
/// `system:authenticated` group.
pub const ANONYMOUS: &str = "system:anonymous";

/// The API group of the `uids` and `userextras` resources that impersonation checks.
const AUTHENTICATION_GROUP: &str = "authentication.k8s.io";

/// Most `Impersonate-*` headers one request may carry.
const MAX_HEADERS: usize = 64;

/// What a request asks to act as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Impersonation {
    /// `Impersonate-User`.
    pub user: String,
    /// Each `Impersonate-Group`.
    pub groups: Vec<String>,
    /// `Impersonate-Uid`.
    pub uid: Option<String>,
    /// Each `Impersonate-Extra-KEY: VALUE`, the key as the header names it (lower case).
    pub extra: Vec<(String, String)>,
}

/// Why the headers cannot be honoured (400).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// `Impersonate-Group`, `-Uid` or `-Extra-*` without `Impersonate-User`.
    #[error("{0} needs Impersonate-User: say which user to act as")]
    WithoutUser(&'static str),
    /// Two `Impersonate-User` (or `-Uid`) headers.
    #[error("{0} may be given once")]
    Repeated(&'static str),
    /// An empty user name.
    #[error("Impersonate-User is empty")]
    EmptyUser,
    /// A value that is not text.
    #[error("an Impersonate-* header is not UTF-8 text")]
    NotText,
    /// Too many headers.
    #[error("more than {MAX_HEADERS} Impersonate-* headers")]
    TooMany,
}

impl Impersonation {
    /// The impersonation a request's headers ask for; `None` when they ask for none.
    pub fn from_headers(headers: &HeaderMap) -> Result<Option<Impersonation>, Error> {
        let (mut user, mut uid) = (None, None);
        let (mut groups, mut extra) = (Vec::new(), Vec::new());
        let mut seen = 0;
        for (name, value) in headers {
            let Some(which) = name.as_str().strip_prefix("impersonate-") else { continue };
            seen += 1;
            if seen > MAX_HEADERS {
                return Err(Error::TooMany);
            }
            let value = value.to_str().map_err(|_| Error::NotText)?.to_string();
            match which {
                "user" if user.is_some() => return Err(Error::Repeated("Impersonate-User")),
                "user" => user = Some(value),
                "uid" if uid.is_some() => return Err(Error::Repeated("Impersonate-Uid")),
                "uid" => uid = Some(value),
                "group" => groups.push(value),
                _ => match which.strip_prefix("extra-") {
                    Some(key) if !key.is_empty() => extra.push((key.to_string(), value)),
                    // Not one of kube-apiserver's headers: as there, not read.
                    _ => {}
                },
            }
        }
        let Some(user) = user else {
            return match (groups.is_empty(), uid.is_none(), extra.is_empty()) {
                (false, _, _) => Err(Error::WithoutUser("Impersonate-Group")),
                (_, false, _) => Err(Error::WithoutUser("Impersonate-Uid")),
                (_, _, false) => Err(Error::WithoutUser("Impersonate-Extra-*")),
                _ => Ok(None),
            };
        };
        if user.is_empty() {
            return Err(Error::EmptyUser);
        }
        Ok(Some(Impersonation { user, groups, uid, extra }))
    }

    /// The user the request runs as (see [`impersonated`]).
    pub fn as_user(&self) -> User {
        impersonated(self.user.clone(), self.groups.clone())
    }

    /// The requests its caller must be allowed, each with the verb `impersonate`, as
    /// kube-apiserver checks them: the user (a ServiceAccount's user as that ServiceAccount in
    /// its namespace), each group, the uid and each extra value.
    pub fn checks(&self) -> Vec<Request<'_>> {
        let impersonate = |api_group, resource, name| Request {
            verb: "impersonate",
            api_group,
            resource,
            name,
            ..Request::default()
        };
        let mut checks = Vec::new();
        match service_account(&self.user) {
            Some((namespace, name)) => {
                checks.push(Request { namespace, ..impersonate("", "serviceaccounts", name) });
            }
            None => checks.push(impersonate("", "users", &self.user)),
        }
        checks.extend(self.groups.iter().map(|g| impersonate("", "groups", g)));
        checks.extend(self.uid.iter().map(|u| impersonate(AUTHENTICATION_GROUP, "uids", u)));
        checks.extend(self.extra.iter().map(|(key, value)| Request {
            subresource: key,
            ..impersonate(AUTHENTICATION_GROUP, "userextras", value)
        }));
        checks
    }
}

/// The user kube-apiserver makes of `Impersonate-User` and `Impersonate-Group`: a
/// ServiceAccount's user asked for without groups is in its ServiceAccount groups; any user but
/// `system:anonymous` is in `system:authenticated` (unless asked to be in
/// `system:unauthenticated`), and `system:anonymous` in `system:unauthenticated`.
pub fn impersonated(name: String, mut groups: Vec<String>) -> User {
    if groups.is_empty()
        && let Some((namespace, _)) = service_account(&name)
    {
        groups = vec!["system:serviceaccounts".to_string(), format!("system:serviceaccounts:{namespace}")];
    }
    let has = |g: &str| groups.iter().any(|x| x == g);
    let added = if name == ANONYMOUS {
        (!has("system:unauthenticated")).then_some("system:unauthenticated")
    } else {
        (!has("system:authenticated") && !has("system:unauthenticated")).then_some("system:authenticated")
    };
    groups.extend(added.map(String::from));
    User { name, groups }
}

/// The namespace and name of a ServiceAccount's user name,
/// `system:serviceaccount:NAMESPACE:NAME`.
fn service_account(user: &str) -> Option<(&str, &str)> {
    let rest = user.strip_prefix("system:serviceaccount:")?;
    let (namespace, name) = rest.split_once(':')?;
    (!namespace.is_empty() && !name.is_empty() && !name.contains(':')).then_some((namespace, name))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        map
    }

    #[test]
    fn headers_are_read_as_kube_apiserver_reads_them() {
        assert_eq!(Impersonation::from_headers(&headers(&[("accept", "x")])), Ok(None));
        let asked = Impersonation::from_headers(&headers(&[
            ("Impersonate-User", "bob"),
            ("Impersonate-Group", "devs"),
            ("Impersonate-Group", "ops"),
            ("Impersonate-Extra-Scopes", "view"),
            ("Impersonate-Uid", "42"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(asked.user, "bob");
        assert_eq!(asked.groups, ["devs", "ops"]);
        assert_eq!(asked.extra, [("scopes".to_string(), "view".to_string())]);
        assert_eq!(asked.as_user(), User::new("bob", ["devs", "ops", "system:authenticated"]));
        let checks: Vec<(&str, &str, &str, &str)> =
            asked.checks().iter().map(|r| (r.api_group, r.resource, r.subresource, r.name)).collect();
        assert_eq!(
            checks,
            [
                ("", "users", "", "bob"),
                ("", "groups", "", "devs"),
                ("", "groups", "", "ops"),
                ("authentication.k8s.io", "uids", "", "42"),
                ("authentication.k8s.io", "userextras", "scopes", "view"),
            ]
        );
        assert!(asked.checks().iter().all(|r| r.verb == "impersonate"));
    }

    #[test]
    fn a_service_account_is_checked_as_itself_in_its_namespace_and_gets_its_groups() {
        let asked =
            Impersonation::from_headers(&headers(&[("Impersonate-User", "system:serviceaccount:team:ci")]))
                .unwrap()
                .unwrap();
        let check = asked.checks()[0];
        assert_eq!((check.resource, check.namespace, check.name), ("serviceaccounts", "team", "ci"));
        assert_eq!(
            asked.as_user().groups,
            ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"]
        );
        assert_eq!(impersonated(ANONYMOUS.into(), vec![]).groups, ["system:unauthenticated"]);
    }

    #[test]
    fn incomplete_or_repeated_headers_are_refused() {
        let refused = |pairs: &[(&str, &str)]| Impersonation::from_headers(&headers(pairs)).unwrap_err();
        assert_eq!(refused(&[("Impersonate-Group", "devs")]), Error::WithoutUser("Impersonate-Group"));
        assert_eq!(refused(&[("Impersonate-Uid", "1")]), Error::WithoutUser("Impersonate-Uid"));
        assert_eq!(refused(&[("Impersonate-Extra-a", "1")]), Error::WithoutUser("Impersonate-Extra-*"));
        assert_eq!(
            refused(&[("Impersonate-User", "a"), ("Impersonate-User", "b")]),
            Error::Repeated("Impersonate-User")
        );
        assert_eq!(refused(&[("Impersonate-User", "")]), Error::EmptyUser);
        let many: Vec<(&str, &str)> = std::iter::once(("Impersonate-User", "a"))
            .chain(std::iter::repeat_n(("Impersonate-Group", "g"), MAX_HEADERS))
            .collect();
        assert_eq!(refused(&many), Error::TooMany);
    }

    fn groups(name: &str, groups: &[&str]) -> Vec<String> {
        impersonated(name.to_string(), groups.iter().map(|g| g.to_string()).collect()).groups
    }

    #[test]
    fn an_impersonated_user_gets_the_groups_kube_apiserver_gives_it() {
        assert_eq!(groups("alice", &[]), ["system:authenticated"]);
        assert_eq!(groups("alice", &["dev"]), ["dev", "system:authenticated"]);
        assert_eq!(groups("alice", &["system:authenticated"]), ["system:authenticated"]);
        assert_eq!(groups("alice", &["system:unauthenticated"]), ["system:unauthenticated"]);
        assert_eq!(
            groups("system:serviceaccount:team:ci", &[]),
            ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"]
        );
        assert_eq!(groups("system:serviceaccount:team:ci", &["g"]), ["g", "system:authenticated"]);
        assert_eq!(
            groups("system:serviceaccount:team", &[]),
            ["system:authenticated"],
            "not a ServiceAccount"
        );
        assert_eq!(groups("system:anonymous", &[]), ["system:unauthenticated"]);
    }
}
