//! Who is calling: a static token's role, or a Kubernetes identity (a user and its groups) that
//! the master cluster vouched for through a `TokenReview` or a client CA signed a certificate for
//! ([`client_cert`]).
//!
//! A static token (`server.token`, `server.tokens`) keeps its meaning: `read` reads everything,
//! `admin` does everything. Any other bearer token is reviewed by the master cluster, so its
//! ServiceAccount tokens and whatever it accepts (OIDC-backed clusters too) identify a user and
//! groups with no configuration; what that user may read is then what each member cluster's
//! RBAC allows it (see `crate::access`). With `authentication.oidc`, a token whose `iss` is
//! that issuer is checked by mc-server itself instead ([`oidc`]).

pub mod client_cert;
pub mod impersonation;
pub mod oidc;
mod review_cache;
mod token_review;

pub use client_cert::PeerIdentity;
pub use oidc::Verifier as OidcVerifier;
pub use review_cache::{ReviewCache, Reviewed};
pub use token_review::{ReviewError, TokenReviewer};

use mc_types::config::Role;

use crate::authz::User;

/// The caller of a request, as authentication found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The user and groups it acts as.
    pub user: User,
    /// What it may do.
    pub grant: Grant,
    /// Who acts as this user through impersonation headers, when someone does.
    pub impersonator: Option<String>,
}

/// What a caller may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// A static token's role: `read` reads everything, `admin` does everything.
    Role(Role),
    /// A Kubernetes identity: what each member cluster's RBAC allows it.
    Rbac,
}

/// The user name static tokens act as when the config names none.
pub const STATIC_USER: &str = "mc-server:static-token";

impl Caller {
    /// A static token's caller.
    pub fn with_role(role: Role) -> Caller {
        let group = match role {
            Role::Admin => "mc-server:admins",
            Role::Read => "mc-server:readers",
        };
        Caller {
            user: User { name: STATIC_USER.to_string(), groups: vec![group.to_string()] },
            grant: Grant::Role(role),
            impersonator: None,
        }
    }

    /// A Kubernetes identity: reviewed by the master cluster, or named by a client certificate.
    pub fn member(user: User) -> Caller {
        Caller { user, grant: Grant::Rbac, impersonator: None }
    }

    /// Whether it reads everything without asking the clusters' RBAC.
    pub fn reads_everything(&self) -> bool {
        matches!(self.grant, Grant::Role(_))
    }

    /// Whether it may join and unjoin clusters.
    pub fn is_admin(&self) -> bool {
        self.grant == Grant::Role(Role::Admin)
    }
}
