//! Whether a caller may act as another user: an `admin` static token may; a Kubernetes
//! identity may when the master cluster's RBAC allows it each `impersonate` request
//! kube-apiserver would check (the master vouched for the identity, so its RBAC says whom it
//! may act as); a `read` token may not.

use mc_types::config::Role;

use super::{AccessControl, Error};
use crate::authz::Request;
use crate::identity::impersonation::Impersonation;
use crate::identity::{Caller, Grant};

/// Why a caller may not act as the user it asked for.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// A `read` static token (or an anonymous read).
    #[error(
        "this token has the read role; acting as another user needs an admin token or an identity allowed to impersonate"
    )]
    ReadRole,
    /// No master cluster to decide for a Kubernetes identity.
    #[error("no master cluster is configured to decide whom {0} may impersonate")]
    NoMaster(String),
    /// The master's RBAC does not allow one of the requests; kube-apiserver's wording.
    #[error(
        "{what} is forbidden: User \"{user}\" cannot impersonate resource \"{resource}\" in API group \"{group}\" {place}"
    )]
    Denied {
        /// `users "bob"`, `groups "devs"`, …
        what: String,
        /// The caller.
        user: String,
        /// The resource, with its subresource.
        resource: String,
        /// The API group.
        group: String,
        /// `at the cluster scope` or `in the namespace "NS"`.
        place: String,
    },
    /// The master's RBAC could not be read (503).
    #[error(transparent)]
    Store(#[from] Error),
}

impl AccessControl {
    /// The caller the request runs as when `caller` asks to act as `asked`: the impersonated
    /// user, whose reads each member's RBAC decides, if `caller` may act as it. `master` is the
    /// master cluster's name.
    pub async fn impersonate(
        &self,
        caller: &Caller,
        asked: &Impersonation,
        master: Option<&str>,
    ) -> Result<Caller, Refused> {
        match caller.grant {
            Grant::Role(Role::Admin) => {}
            Grant::Role(Role::Read) => return Err(Refused::ReadRole),
            Grant::Rbac => {
                let master = master.ok_or_else(|| Refused::NoMaster(caller.user.name.clone()))?;
                let rbac = self.rbac(master).await?;
                if let Some(req) =
                    asked.checks().into_iter().find(|r| !rbac.authorize(&caller.user, r).is_allowed())
                {
                    return Err(denied(&caller.user.name, &req));
                }
            }
        }
        Ok(Caller { impersonator: Some(caller.user.name.clone()), ..Caller::member(asked.as_user()) })
    }
}

fn denied(user: &str, req: &Request<'_>) -> Refused {
    let resource = match req.subresource {
        "" => req.resource.to_string(),
        sub => format!("{}/{sub}", req.resource),
    };
    let place = match req.namespace {
        "" => "at the cluster scope".to_string(),
        ns => format!("in the namespace \"{ns}\""),
    };
    Refused::Denied {
        what: format!("{} \"{}\"", req.resource, req.name),
        user: user.to_string(),
        resource,
        group: req.api_group.to_string(),
        place,
    }
}
