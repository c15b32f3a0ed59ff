//! What a verified token's claims must say, and the user they make, as kube-apiserver's OIDC
//! authenticator reads them.

use std::collections::BTreeMap;
use std::time::Duration;

use mc_types::config::OidcSection;
use serde_json::{Map, Value};

use crate::authz::User;

/// How far in the future `nbf` may be: the issuer's clock may run ahead of ours. `exp` gets
/// none, so a token is never taken after its end.
pub const LEEWAY: Duration = Duration::from_secs(60);

/// Why the claims are refused (401, not retryable).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `iss` is not the configured issuer.
    #[error("iss is not the issuer")]
    Issuer,
    /// `aud` does not contain the client id.
    #[error("aud does not contain the client id")]
    Audience,
    /// `exp` is missing or past.
    #[error("expired or without exp")]
    Expired,
    /// `nbf` is in the future.
    #[error("not valid yet (nbf)")]
    NotYetValid,
    /// The username claim is missing, not a string, or empty.
    #[error("claim {0:?} is not a non-empty string")]
    Username(String),
    /// `email_verified` is present and not `true`.
    #[error("email_verified is not true")]
    EmailNotVerified,
    /// The groups claim is neither a string nor an array of strings.
    #[error("claim {0:?} is not a string or an array of strings")]
    Groups(String),
    /// A required claim is missing or has another value.
    #[error("required claim {0:?} does not match")]
    Required(String),
    /// The user or a group would be a `system:` name, which only Kubernetes gives out.
    #[error("the user or a group would be a reserved system: name")]
    Reserved,
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The rules of one issuer's claims.
#[derive(Debug, Clone)]
pub struct Rules {
    issuer: String,
    client_id: String,
    username_claim: String,
    username_prefix: String,
    groups_claim: Option<String>,
    groups_prefix: String,
    required: BTreeMap<String, String>,
}

impl Rules {
    /// The rules a config section sets.
    pub fn new(section: &OidcSection) -> Rules {
        Rules {
            issuer: section.issuer_url.clone(),
            client_id: section.client_id.clone(),
            username_claim: section.username_claim.clone(),
            username_prefix: section.username_prefix(),
            groups_claim: section.groups_claim.clone(),
            groups_prefix: section.groups_prefix.clone().unwrap_or_default(),
            required: section.required_claims.clone(),
        }
    }

    /// The issuer, exactly as configured.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The user `claims` make at `now` (seconds since the epoch), and when they stop being valid
    /// (`exp`, seconds since the epoch).
    pub fn user(&self, claims: &Map<String, Value>, now: f64) -> Result<(User, f64)> {
        if claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err(Error::Issuer);
        }
        let audience = match claims.get("aud") {
            Some(Value::String(aud)) => aud == &self.client_id,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(self.client_id.as_str())),
            _ => false,
        };
        if !audience {
            return Err(Error::Audience);
        }
        let exp = claims.get("exp").and_then(Value::as_f64).ok_or(Error::Expired)?;
        if exp <= now {
            return Err(Error::Expired);
        }
        if let Some(nbf) = claims.get("nbf") {
            let nbf = nbf.as_f64().ok_or(Error::NotYetValid)?;
            if nbf > now + LEEWAY.as_secs_f64() {
                return Err(Error::NotYetValid);
            }
        }
        for (claim, want) in &self.required {
            if claims.get(claim).and_then(Value::as_str) != Some(want.as_str()) {
                return Err(Error::Required(claim.clone()));
            }
        }
        let username = claims
            .get(&self.username_claim)
            .and_then(Value::as_str)
            .filter(|u| !u.is_empty())
            .ok_or_else(|| Error::Username(self.username_claim.clone()))?;
        if self.username_claim == "email"
            && let Some(verified) = claims.get("email_verified")
            && verified != &Value::Bool(true)
        {
            return Err(Error::EmailNotVerified);
        }
        let mut groups = Vec::new();
        if let Some(claim) = &self.groups_claim {
            let not_groups = || Error::Groups(claim.clone());
            match claims.get(claim) {
                None | Some(Value::Null) => {}
                Some(Value::String(g)) => groups.push(g.as_str()),
                Some(Value::Array(gs)) => {
                    for g in gs {
                        groups.push(g.as_str().ok_or_else(not_groups)?);
                    }
                }
                Some(_) => return Err(not_groups()),
            }
        }
        let name = format!("{}{username}", self.username_prefix);
        let mut groups: Vec<String> = groups.iter().map(|g| format!("{}{g}", self.groups_prefix)).collect();
        if name.starts_with("system:") || groups.iter().any(|g| g.starts_with("system:")) {
            return Err(Error::Reserved);
        }
        groups.push("system:authenticated".into());
        Ok((User { name, groups }, exp))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    const NOW: f64 = 1_700_000_000.0;

    fn rules(extra: Value) -> Rules {
        let mut section = json!({"issuerURL": "https://id.example.com", "clientID": "mc"});
        for (k, v) in extra.as_object().unwrap() {
            section[k] = v.clone();
        }
        Rules::new(&serde_json::from_value(section).unwrap())
    }

    fn claims(extra: Value) -> Map<String, Value> {
        let mut c = json!({"iss": "https://id.example.com", "aud": "mc", "sub": "alice", "exp": NOW + 60.0});
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        c.as_object().unwrap().clone()
    }

    #[test]
    fn the_user_is_the_prefixed_claim_with_its_prefixed_groups() {
        let (user, exp) = rules(json!({})).user(&claims(json!({})), NOW).unwrap();
        assert_eq!(user, User::new("https://id.example.com#alice", ["system:authenticated"]));
        assert_eq!(exp, NOW + 60.0);
        let r = rules(json!({"usernameClaim": "email", "groupsClaim": "groups", "groupsPrefix": "oidc:"}));
        let c = claims(json!({"email": "a@example.com", "email_verified": true, "groups": ["dev", "ops"]}));
        let user = r.user(&c, NOW).unwrap().0;
        assert_eq!(user, User::new("a@example.com", ["oidc:dev", "oidc:ops", "system:authenticated"]));
        let one = r.user(&claims(json!({"email": "a@example.com", "groups": "dev"})), NOW).unwrap().0;
        assert_eq!(one.groups, ["oidc:dev", "system:authenticated"]);
        let dash = rules(json!({"usernamePrefix": "-"})).user(&claims(json!({})), NOW).unwrap().0;
        assert_eq!(dash.name, "alice");
    }

    #[test]
    fn claims_that_break_a_rule_are_refused() {
        let r = rules(
            json!({"usernameClaim": "email", "groupsClaim": "groups", "requiredClaims": {"hd": "example.com"}}),
        );
        let ok = json!({"email": "a@example.com", "hd": "example.com"});
        assert!(r.user(&claims(ok.clone()), NOW).is_ok());
        let with = |extra: Value| {
            let mut c = claims(ok.clone());
            for (k, v) in extra.as_object().unwrap() {
                c.insert(k.clone(), v.clone());
            }
            c.retain(|_, v| !v.is_null());
            r.user(&c, NOW).unwrap_err()
        };
        assert!(matches!(with(json!({"iss": "https://id.example.com/"})), Error::Issuer));
        assert!(matches!(with(json!({"aud": "other"})), Error::Audience));
        assert!(matches!(with(json!({"aud": ["other", 1]})), Error::Audience));
        assert!(matches!(with(json!({"aud": null})), Error::Audience));
        assert!(matches!(with(json!({"exp": NOW})), Error::Expired));
        assert!(matches!(with(json!({"exp": null})), Error::Expired));
        assert!(matches!(with(json!({"exp": "later"})), Error::Expired));
        assert!(matches!(with(json!({"nbf": NOW + 120.0})), Error::NotYetValid));
        let mut early = claims(ok.clone());
        early.insert("nbf".into(), json!(NOW + 30.0));
        assert!(r.user(&early, NOW).is_ok(), "within the leeway");
        assert!(matches!(with(json!({"email": ""})), Error::Username(_)));
        assert!(matches!(with(json!({"email": 7})), Error::Username(_)));
        assert!(matches!(with(json!({"email_verified": false})), Error::EmailNotVerified));
        assert!(matches!(with(json!({"email_verified": "true"})), Error::EmailNotVerified));
        assert!(matches!(with(json!({"hd": "evil.com"})), Error::Required(_)));
        assert!(matches!(with(json!({"groups": [1]})), Error::Groups(_)));
        assert!(matches!(with(json!({"groups": ["system:masters"]})), Error::Reserved));
        assert!(matches!(with(json!({"email": "system:admin"})), Error::Reserved));
    }
}
