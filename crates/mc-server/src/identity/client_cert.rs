//! The identity a verified client certificate carries, read as kube-apiserver reads it with
//! `--client-ca-file`: the subject's common name (CN) is the user, each organization (O) a
//! group, and every such user is in `system:authenticated`.
//!
//! The listener reads it once per connection, after rustls verified the certificate against the
//! client CA (see [`crate::tls`]); every request of that connection carries it as an extension.

use x509_parser::prelude::{FromDer, X509Certificate};

use crate::authz::User;

/// The group every authenticated user is in.
const AUTHENTICATED: &str = "system:authenticated";

/// Why a verified certificate identifies nobody (never retryable: the certificate must change).
/// The connection goes on without an identity, so a bearer token may still identify its caller.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The certificate is not DER that x509-parser reads.
    #[error("the client certificate cannot be read: {0}")]
    Unreadable(#[source] x509_parser::nom::Err<x509_parser::error::X509Error>),
    /// The subject has no common name, or an empty one.
    #[error("the client certificate's subject has no common name (CN) to be the user")]
    NoCommonName,
    /// The subject has more than one common name: which is the user is not clear.
    #[error("the client certificate's subject has {0} common names (CN); the user must be one")]
    SeveralCommonNames(usize),
    /// A common name or organization is not text (a BMPString, or not UTF-8).
    #[error("the client certificate's subject {attribute} is not UTF-8 text")]
    NotText {
        /// `CN` or `O`.
        attribute: &'static str,
    },
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The user a connection's verified client certificate names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerIdentity {
    user: User,
}

impl PeerIdentity {
    /// Reads the identity of a verified leaf certificate (DER).
    pub fn from_der(der: &[u8]) -> Result<PeerIdentity> {
        let (_, cert) = X509Certificate::from_der(der).map_err(Error::Unreadable)?;
        let subject = cert.subject();
        let names: Vec<_> = subject.iter_common_name().collect();
        let name = match names.as_slice() {
            [] => return Err(Error::NoCommonName),
            [one] => one.as_str().map_err(|_| Error::NotText { attribute: "CN" })?,
            several => return Err(Error::SeveralCommonNames(several.len())),
        };
        if name.is_empty() {
            return Err(Error::NoCommonName);
        }
        let mut groups = Vec::new();
        for o in subject.iter_organization() {
            let group = o.as_str().map_err(|_| Error::NotText { attribute: "O" })?;
            if !group.is_empty() && !groups.iter().any(|g| g == group) {
                groups.push(group.to_string());
            }
        }
        if !groups.iter().any(|g| g == AUTHENTICATED) {
            groups.push(AUTHENTICATED.to_string());
        }
        Ok(PeerIdentity { user: User { name: name.to_string(), groups } })
    }

    /// The user and its groups.
    pub fn user(&self) -> &User {
        &self.user
    }

    /// The identity a certificate for `user` carries, for router tests without a handshake.
    #[cfg(test)]
    pub fn for_test(user: User) -> PeerIdentity {
        PeerIdentity { user }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use rcgen::{CertificateParams, DistinguishedName, DnType, DnValue, KeyPair};

    use super::*;

    /// A self-signed certificate for `subject` (`/CN=…/O=…`, attributes may repeat), made with
    /// openssl, as DER (the listener hands over verified ones).
    fn certificate(subject: &str) -> Vec<u8> {
        let out = std::process::Command::new("openssl")
            .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"])
            .args(["-days", "1", "-subj", subject, "-keyout", "/dev/null", "-outform", "DER"])
            .output()
            .unwrap();
        assert!(out.status.success(), "openssl: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    #[test]
    fn the_common_name_is_the_user_and_each_organization_a_group() {
        let identity = PeerIdentity::from_der(&certificate("/CN=alice/O=team-a/O=team-b")).unwrap();
        assert_eq!(identity.user(), &User::new("alice", ["team-a", "team-b", "system:authenticated"]));
    }

    #[test]
    fn without_organizations_the_user_is_only_authenticated() {
        let identity = PeerIdentity::from_der(&certificate("/CN=system:node:worker-1")).unwrap();
        assert_eq!(identity.user(), &User::new("system:node:worker-1", ["system:authenticated"]));
    }

    #[test]
    fn a_subject_without_one_common_name_identifies_nobody() {
        let no_cn = PeerIdentity::from_der(&certificate("/O=team-a"));
        assert!(matches!(no_cn, Err(Error::NoCommonName)), "{no_cn:?}");
        let two = PeerIdentity::from_der(&certificate("/CN=alice/CN=bob"));
        assert!(matches!(two, Err(Error::SeveralCommonNames(2))), "{two:?}");
        assert!(matches!(PeerIdentity::from_der(b"not DER"), Err(Error::Unreadable(_))));
    }

    #[test]
    fn a_common_name_that_is_not_utf8_text_identifies_nobody() {
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, DnValue::BmpString("alice".try_into().unwrap()));
        params.distinguished_name = dn;
        let der = params.self_signed(&KeyPair::generate().unwrap()).unwrap().der().to_vec();
        let bmp = PeerIdentity::from_der(&der);
        assert!(matches!(bmp, Err(Error::NotText { attribute: "CN" })), "{bmp:?}");
    }
}
