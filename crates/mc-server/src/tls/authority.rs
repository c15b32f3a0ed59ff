//! The server's own CA and the serving certificate it signs, made when no certificate is
//! configured, so that the server speaks HTTPS out of the box and kubectl sends its token.
//!
//! Both live in one directory (`<data-dir>/tls`): `ca.crt`, `ca.key`, `server.crt`, `server.key`.
//! The CA is made once and kept (clients trust it); the serving certificate is issued again when
//! it is missing, unreadable, signed by another CA, does not name every address asked for, or
//! is within [`RENEW_BEFORE`] of its end. Every file is written whole under a temporary name and
//! renamed into place, so a crash never leaves half a key.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
    KeyPair, KeyUsagePurpose, SanType, SerialNumber,
};
use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};

/// How long the CA is valid: long enough that clients keep trusting it for the server's life.
pub const CA_VALIDITY: Duration = Duration::from_secs(10 * 365 * 86_400);
/// How long a serving certificate is valid.
pub const SERVING_VALIDITY: Duration = Duration::from_secs(365 * 86_400);
/// A serving certificate with less than this left is issued again.
pub const RENEW_BEFORE: Duration = Duration::from_secs(30 * 86_400);
/// How far back a new certificate starts, for clients whose clock runs a little behind.
const BACKDATE: Duration = Duration::from_secs(3_600);

/// File names inside the directory; also the keys of the in-cluster Secret (`tls.crt` and
/// `tls.key` there, as in a `kubernetes.io/tls` Secret).
pub const CA_CERT: &str = "ca.crt";
/// The CA's private key.
pub const CA_KEY: &str = "ca.key";
/// The serving certificate.
pub const SERVER_CERT: &str = "server.crt";
/// The serving certificate's private key.
pub const SERVER_KEY: &str = "server.key";

/// Why the CA or the serving certificate could not be made or used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The CA's files exist but cannot be used; the server does not replace a CA that clients
    /// may trust. Not retryable: the files must be fixed or deleted.
    #[error("CA {}: {reason}; delete {CA_CERT} and {CA_KEY} there to make a new CA (clients then need the new {CA_CERT})", .dir.display())]
    Ca {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A file or the directory could not be written. Not retryable until the disk is fixed.
    #[error("TLS file {}: cannot write: {source}", .path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A CA handed over to be adopted (from the in-cluster Secret) cannot be used; the server's
    /// own stays. Not retryable until the Secret is fixed or deleted.
    #[error("{0}")]
    Adopted(String),
    /// Making a key or signing a certificate failed (the system's random source, most likely).
    #[error("making a certificate: {0}")]
    Generate(#[from] rcgen::Error),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One name the serving certificate is for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Name {
    /// An IP address.
    Ip(IpAddr),
    /// A DNS name, lowercase, without a trailing dot (`*.example.com` allowed).
    Dns(String),
}

impl Name {
    /// An IP address or a DNS name; `None` for what is neither (see
    /// [`mc_types::config::san_problem`]).
    pub fn parse(text: &str) -> Option<Name> {
        let text = text.trim();
        if let Ok(ip) = text.parse::<IpAddr>() {
            return Some(Name::Ip(ip));
        }
        let text = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(text);
        if let Ok(ip) = text.parse::<IpAddr>() {
            return Some(Name::Ip(ip));
        }
        if mc_types::config::san_problem(text).is_some() {
            return None;
        }
        Some(Name::Dns(text.trim_end_matches('.').to_ascii_lowercase()))
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Name::Ip(ip) => write!(f, "{ip}"),
            Name::Dns(dns) => f.write_str(dns),
        }
    }
}

/// Why a new serving certificate was issued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// There was none (first start, or the file was removed).
    Missing,
    /// The certificate or its key could not be read or parsed, or they do not belong together.
    Unreadable(String),
    /// The CA is new, or the certificate was signed by another one.
    OtherCa,
    /// It does not name every address asked for; these were missing.
    Names(Vec<Name>),
    /// It ends within [`RENEW_BEFORE`] (or has ended).
    Expiring {
        /// Whole days left (negative once it has ended).
        days_left: i64,
    },
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Missing => f.write_str("there was none"),
            Reason::Unreadable(why) => write!(f, "the previous one is unusable: {why}"),
            Reason::OtherCa => f.write_str("the previous one was not signed by this CA"),
            Reason::Names(names) => {
                let names: Vec<String> = names.iter().map(Name::to_string).collect();
                write!(f, "the previous one did not name {}", names.join(", "))
            }
            Reason::Expiring { days_left } => write!(f, "the previous one ends in {days_left} days"),
        }
    }
}

/// What [`Authority::ensure`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// A new CA was made (there was none).
    pub new_ca: bool,
    /// A new serving certificate was issued, and why; `None`: the one there was kept.
    pub issued: Option<Reason>,
}

/// The server's own CA and serving certificate in one directory, for a set of names.
#[derive(Clone, Debug)]
pub struct Authority {
    dir: PathBuf,
    names: Vec<Name>,
}

impl Authority {
    /// The CA and certificate in `dir`, the certificate for `names` (deduplicated, in order).
    pub fn new(dir: PathBuf, names: Vec<Name>) -> Self {
        let mut unique: Vec<Name> = Vec::with_capacity(names.len());
        for name in names {
            if !unique.contains(&name) {
                unique.push(name);
            }
        }
        Authority { dir, names: unique }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The names the serving certificate is for.
    pub fn names(&self) -> &[Name] {
        &self.names
    }

    /// The CA certificate clients trust.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join(CA_CERT)
    }

    /// The serving certificate.
    pub fn cert_file(&self) -> PathBuf {
        self.dir.join(SERVER_CERT)
    }

    /// The serving certificate's key.
    pub fn key_file(&self) -> PathBuf {
        self.dir.join(SERVER_KEY)
    }

    /// Makes what is missing and renews what is due, as of `now`: the CA when there is none, the
    /// serving certificate when [`Authority::check`] says so. A CA whose files exist but cannot
    /// be used is an error (see [`Error::Ca`]).
    pub fn ensure(&self, now: SystemTime) -> Result<Outcome> {
        private_dir(&self.dir)?;
        let (ca_pem, ca_key, new_ca) = match self.read_ca()? {
            Some((pem, key)) => (pem, key, false),
            None => {
                let (pem, key) = self.make_ca(now)?;
                (pem, key, true)
            }
        };
        let reason = if new_ca { Some(Reason::Missing) } else { self.check(&ca_pem, now) };
        let issued = match reason {
            Some(reason) => {
                self.issue(&ca_pem, ca_key, now)?;
                Some(reason)
            }
            None => None,
        };
        Ok(Outcome { new_ca, issued })
    }

    /// Why the serving certificate must be issued again as of `now`, `None` when it is fine.
    pub fn check(&self, ca_pem: &str, now: SystemTime) -> Option<Reason> {
        let cert_pem = match std::fs::read_to_string(self.cert_file()) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Reason::Missing),
            Err(e) => return Some(Reason::Unreadable(format!("{SERVER_CERT}: {e}"))),
        };
        let key_pem = match std::fs::read_to_string(self.key_file()) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Reason::Missing),
            Err(e) => return Some(Reason::Unreadable(format!("{SERVER_KEY}: {e}"))),
        };
        let cert_der = match pem_der(&cert_pem) {
            Ok(der) => der,
            Err(why) => return Some(Reason::Unreadable(format!("{SERVER_CERT}: {why}"))),
        };
        let cert = match X509Certificate::from_der(&cert_der) {
            Ok((_, cert)) => cert,
            Err(e) => return Some(Reason::Unreadable(format!("{SERVER_CERT}: {e}"))),
        };
        let key = match KeyPair::from_pem(&key_pem) {
            Ok(key) => key,
            Err(e) => return Some(Reason::Unreadable(format!("{SERVER_KEY}: {e}"))),
        };
        if key.public_key_raw() != cert.public_key().subject_public_key.data.as_ref() {
            return Some(Reason::Unreadable(format!("{SERVER_KEY} is not the key of {SERVER_CERT}")));
        }
        let signed_by_ca = pem_der(ca_pem).ok().is_some_and(|ca_der| {
            X509Certificate::from_der(&ca_der).is_ok_and(|(_, ca)| {
                cert.issuer() == ca.subject() && cert.verify_signature(Some(ca.public_key())).is_ok()
            })
        });
        if !signed_by_ca {
            return Some(Reason::OtherCa);
        }
        let missing: Vec<Name> =
            self.names.iter().filter(|n| !names_of(&cert).contains(n)).cloned().collect();
        if !missing.is_empty() {
            return Some(Reason::Names(missing));
        }
        let left = cert.validity().not_after.timestamp() - unix_seconds(now);
        if left < RENEW_BEFORE.as_secs() as i64 {
            return Some(Reason::Expiring { days_left: left.div_euclid(86_400) });
        }
        None
    }

    /// The CA certificate and key, `None` when neither file exists.
    fn read_ca(&self) -> Result<Option<(String, KeyPair)>> {
        let ca_error = |reason: String| Error::Ca { dir: self.dir.clone(), reason };
        let read = |name: &str| match std::fs::read_to_string(self.dir.join(name)) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ca_error(format!("{name}: cannot read: {e}"))),
        };
        let (pem, key) = match (read(CA_CERT)?, read(CA_KEY)?) {
            (None, None) => return Ok(None),
            (Some(pem), Some(key)) => (pem, key),
            (Some(_), None) => return Err(ca_error(format!("{CA_CERT} is there but {CA_KEY} is not"))),
            (None, Some(_)) => return Err(ca_error(format!("{CA_KEY} is there but {CA_CERT} is not"))),
        };
        let key = parse_ca(&pem, &key).map_err(ca_error)?;
        Ok(Some((pem, key)))
    }

    fn make_ca(&self, now: SystemTime) -> Result<(String, KeyPair)> {
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        // Its own name per installation: clients that trust two of them tell them apart.
        dn.push(DnType::CommonName, format!("mc-server CA {}", hex(&random::<4>())));
        dn.push(DnType::OrganizationName, "kubectl-multicluster");
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages =
            vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        params.serial_number = Some(serial());
        params.not_before = (now - BACKDATE).into();
        params.not_after = (now + CA_VALIDITY).into();
        let cert = params.self_signed(&key)?;
        // The key first: a CA certificate without its key would stop the next start.
        write_atomic(&self.dir.join(CA_KEY), key.serialize_pem().as_bytes(), 0o600)?;
        write_atomic(&self.dir.join(CA_CERT), cert.pem().as_bytes(), 0o644)?;
        Ok((cert.pem(), key))
    }

    fn issue(&self, ca_pem: &str, ca_key: KeyPair, now: SystemTime) -> Result<()> {
        let issuer = Issuer::from_ca_cert_pem(ca_pem, ca_key)?;
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, "mc-server");
        params.distinguished_name = dn;
        params.subject_alt_names = self
            .names
            .iter()
            .map(|n| match n {
                Name::Ip(ip) => Ok(SanType::IpAddress(*ip)),
                Name::Dns(dns) => Ok(SanType::DnsName(dns.clone().try_into()?)),
            })
            .collect::<Result<_, rcgen::Error>>()?;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        params.serial_number = Some(serial());
        params.not_before = (now - BACKDATE).into();
        params.not_after = (now + SERVING_VALIDITY).into();
        let cert = params.signed_by(&key, &issuer)?;
        write_atomic(&self.key_file(), key.serialize_pem().as_bytes(), 0o600)?;
        write_atomic(&self.cert_file(), cert.pem().as_bytes(), 0o644)?;
        Ok(())
    }

    /// The four files, for the in-cluster Secret: `ca.crt`, `ca.key`, `tls.crt`, `tls.key`.
    pub fn files(&self) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
        [(CA_CERT, CA_CERT), (CA_KEY, CA_KEY), ("tls.crt", SERVER_CERT), ("tls.key", SERVER_KEY)]
            .into_iter()
            .map(|(key, file)| Ok((key.to_string(), std::fs::read(self.dir.join(file))?)))
            .collect()
    }

    /// Takes the CA (and the serving certificate, when there is one) of an in-cluster Secret as
    /// its own: files that differ are replaced. [`Authority::ensure`] then issues a serving
    /// certificate again if the one taken does not fit this server.
    pub fn adopt(&self, secret: &BTreeMap<String, Vec<u8>>) -> Result<()> {
        let text = |key: &str| {
            let bytes = secret.get(key).ok_or_else(|| Error::Adopted(format!("no {key}")))?;
            std::str::from_utf8(bytes).map_err(|_| Error::Adopted(format!("{key} is not PEM")))
        };
        parse_ca(text(CA_CERT)?, text(CA_KEY)?).map_err(Error::Adopted)?;
        private_dir(&self.dir)?;
        let pairs = [(CA_KEY, CA_KEY, 0o600), (CA_CERT, CA_CERT, 0o644)];
        let serving = [("tls.key", SERVER_KEY, 0o600), ("tls.crt", SERVER_CERT, 0o644)];
        let with_serving = serving.iter().all(|(key, _, _)| secret.contains_key(*key));
        for (key, file, mode) in pairs.iter().chain(if with_serving { &serving[..] } else { &[] }) {
            let Some(bytes) = secret.get(*key) else { continue };
            let path = self.dir.join(file);
            if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
                write_atomic(&path, bytes, *mode)?;
            }
        }
        Ok(())
    }
}

/// The CA's key, when the certificate and key are a CA and its key; else what is wrong.
fn parse_ca(pem: &str, key: &str) -> std::result::Result<KeyPair, String> {
    let der = pem_der(pem).map_err(|why| format!("{CA_CERT}: {why}"))?;
    let (_, cert) = X509Certificate::from_der(&der).map_err(|e| format!("{CA_CERT}: {e}"))?;
    let key = KeyPair::from_pem(key).map_err(|e| format!("{CA_KEY}: {e}"))?;
    if key.public_key_raw() != cert.public_key().subject_public_key.data.as_ref() {
        return Err(format!("{CA_KEY} is not the key of {CA_CERT}"));
    }
    if !cert.is_ca() {
        return Err(format!("{CA_CERT} is not a CA certificate"));
    }
    Ok(key)
}

/// The names a certificate's subjectAltName extension holds.
fn names_of(cert: &X509Certificate<'_>) -> Vec<Name> {
    let Ok(Some(san)) = cert.subject_alternative_name() else { return Vec::new() };
    san.value
        .general_names
        .iter()
        .filter_map(|g| match g {
            GeneralName::DNSName(dns) => Some(Name::Dns(dns.trim_end_matches('.').to_ascii_lowercase())),
            GeneralName::IPAddress(bytes) => match bytes.len() {
                4 => <[u8; 4]>::try_from(*bytes).ok().map(|b| Name::Ip(IpAddr::from(b))),
                16 => <[u8; 16]>::try_from(*bytes).ok().map(|b| Name::Ip(IpAddr::from(b))),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The DER of the first PEM block.
fn pem_der(text: &str) -> std::result::Result<Vec<u8>, String> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    CertificateDer::from_pem_slice(text.as_bytes()).map(|c| c.to_vec()).map_err(|e| e.to_string())
}

fn unix_seconds(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    }
}

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // A failing random source leaves zeros here; the keys (ring) would fail on it anyway.
    let _ = getrandom::fill(&mut bytes);
    bytes
}

/// A positive 16-byte serial number.
fn serial() -> SerialNumber {
    let mut bytes = random::<16>();
    bytes[0] = (bytes[0] & 0x7f) | 0x01;
    SerialNumber::from_slice(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Creates the directory only its owner may enter, or narrows an existing one to that.
fn private_dir(dir: &Path) -> Result<()> {
    let write_error = |source| Error::Write { path: dir.to_path_buf(), source };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(write_error)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(write_error)?;
    }
    Ok(())
}

/// Writes a file whole under a temporary name beside it, then renames it into place: a reader
/// (or the next start after a crash) sees the old file or the new one, never a part.
fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let write_error = |source| Error::Write { path: path.to_path_buf(), source };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", hex(&random::<6>())));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let written = options.open(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_error(e));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const DAY: Duration = Duration::from_secs(86_400);

    /// A fresh directory (its `tls` child does not exist yet), removed on drop.
    struct Dir(PathBuf);
    impl Dir {
        fn new(tag: &str) -> Dir {
            static N: AtomicUsize = AtomicUsize::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("mc-authority-{tag}-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Dir(dir)
        }
        fn tls(&self) -> PathBuf {
            self.0.join("tls")
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn names(list: &[&str]) -> Vec<Name> {
        list.iter().map(|n| Name::parse(n).unwrap()).collect()
    }

    fn default_names() -> Vec<Name> {
        names(&["localhost", "127.0.0.1", "::1", "mc-host"])
    }

    fn read(path: PathBuf) -> Vec<u8> {
        std::fs::read(path).unwrap()
    }

    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// What a TLS client (rustls' WebPKI verifier, as kubectl's Go verifier checks the same
    /// things) says of the serving certificate for `name`, trusting only the CA.
    fn verify(authority: &Authority, name: &str, at: SystemTime) -> Result<(), rustls::Error> {
        use rustls::client::danger::ServerCertVerifier;
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
        let mut roots = rustls::RootCertStore::empty();
        roots.add(CertificateDer::from_pem_file(authority.ca_file()).unwrap()).unwrap();
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(roots.into(), provider)
            .build()
            .unwrap();
        let cert = CertificateDer::from_pem_file(authority.cert_file()).unwrap();
        let since_epoch = at.duration_since(SystemTime::UNIX_EPOCH).unwrap();
        verifier
            .verify_server_cert(
                &cert,
                &[],
                &ServerName::try_from(name.to_string()).unwrap(),
                &[],
                UnixTime::since_unix_epoch(since_epoch),
            )
            .map(|_| ())
    }

    #[test]
    fn the_first_start_makes_a_ca_and_a_certificate_that_clients_accept_for_every_name() {
        let dir = Dir::new("first");
        let authority = Authority::new(dir.tls(), default_names());
        let now = SystemTime::now();
        let outcome = authority.ensure(now).unwrap();
        assert_eq!(outcome, Outcome { new_ca: true, issued: Some(Reason::Missing) });
        for name in ["localhost", "127.0.0.1", "::1", "mc-host"] {
            verify(&authority, name, now).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert!(verify(&authority, "elsewhere.example.com", now).is_err(), "only the names asked for");
        assert!(verify(&authority, "localhost", now + SERVING_VALIDITY + DAY).is_err(), "valid one year");
        assert_eq!(authority.check(&std::fs::read_to_string(authority.ca_file()).unwrap(), now), None);
    }

    #[test]
    fn keys_are_private_to_the_owner_in_a_directory_only_the_owner_enters() {
        let dir = Dir::new("modes");
        let authority = Authority::new(dir.tls(), default_names());
        authority.ensure(SystemTime::now()).unwrap();
        assert_eq!(mode(&dir.tls()), 0o700);
        assert_eq!(mode(&dir.tls().join(CA_KEY)), 0o600);
        assert_eq!(mode(&authority.key_file()), 0o600);
        // A directory made wider by hand is narrowed again at the next start.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.tls(), std::fs::Permissions::from_mode(0o755)).unwrap();
        authority.ensure(SystemTime::now()).unwrap();
        assert_eq!(mode(&dir.tls()), 0o700);
        // Nothing but the four files: no temporary file is left behind.
        let mut files: Vec<String> = std::fs::read_dir(dir.tls())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(files, [CA_CERT, CA_KEY, SERVER_CERT, SERVER_KEY]);
    }

    #[test]
    fn a_later_start_reuses_the_ca_and_the_certificate() {
        let dir = Dir::new("reuse");
        let authority = Authority::new(dir.tls(), default_names());
        let now = SystemTime::now();
        authority.ensure(now).unwrap();
        let before = authority.files().unwrap();
        assert_eq!(authority.ensure(now + DAY).unwrap(), Outcome::default());
        assert_eq!(authority.files().unwrap(), before);
    }

    #[test]
    fn the_certificate_is_renewed_within_30_days_of_its_end_and_the_ca_is_kept() {
        let dir = Dir::new("renew");
        let authority = Authority::new(dir.tls(), default_names());
        let now = SystemTime::now();
        authority.ensure(now).unwrap();
        let ca = read(authority.ca_file());
        let first = read(authority.cert_file());
        assert_eq!(authority.ensure(now + 300 * DAY).unwrap(), Outcome::default(), "65 days left");
        let late = now + SERVING_VALIDITY - 29 * DAY;
        let outcome = authority.ensure(late).unwrap();
        assert!(matches!(outcome.issued, Some(Reason::Expiring { days_left: 28 | 29 })), "{outcome:?}");
        assert!(!outcome.new_ca);
        assert_eq!(read(authority.ca_file()), ca, "the CA clients trust stays");
        assert_ne!(read(authority.cert_file()), first);
        verify(&authority, "localhost", late + 300 * DAY).unwrap();
        // Ended long ago (a server that was off for a year): renewed as well.
        let outcome = authority.ensure(late + 2 * SERVING_VALIDITY).unwrap();
        assert!(
            matches!(outcome.issued, Some(Reason::Expiring { days_left }) if days_left < 0),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_name_not_covered_yet_gets_a_new_certificate_and_fewer_names_do_not() {
        let dir = Dir::new("names");
        let now = SystemTime::now();
        Authority::new(dir.tls(), default_names()).ensure(now).unwrap();
        let more =
            Authority::new(dir.tls(), names(&["localhost", "127.0.0.1", "mc.example.com", "10.0.0.7"]));
        let outcome = more.ensure(now).unwrap();
        assert_eq!(outcome.issued, Some(Reason::Names(names(&["mc.example.com", "10.0.0.7"]))));
        verify(&more, "mc.example.com", now).unwrap();
        verify(&more, "10.0.0.7", now).unwrap();
        let fewer = Authority::new(dir.tls(), names(&["LOCALHOST", "10.0.0.7"]));
        assert_eq!(fewer.ensure(now).unwrap(), Outcome::default(), "names compare without case");
        let wildcard = Authority::new(dir.tls(), names(&["*.mc.example.com"]));
        assert_eq!(wildcard.ensure(now).unwrap().issued, Some(Reason::Names(names(&["*.mc.example.com"]))));
        verify(&wildcard, "a.mc.example.com", now).unwrap();
        assert_eq!(wildcard.ensure(now).unwrap(), Outcome::default());
    }

    #[test]
    fn an_unreadable_missing_or_mismatched_certificate_is_issued_again() {
        let dir = Dir::new("unreadable");
        let authority = Authority::new(dir.tls(), default_names());
        let now = SystemTime::now();
        authority.ensure(now).unwrap();
        std::fs::write(authority.cert_file(), "not a certificate\n").unwrap();
        let outcome = authority.ensure(now).unwrap();
        assert!(
            matches!(&outcome.issued, Some(Reason::Unreadable(why)) if why.contains(SERVER_CERT)),
            "{outcome:?}"
        );
        verify(&authority, "localhost", now).unwrap();

        std::fs::write(authority.key_file(), KeyPair::generate().unwrap().serialize_pem()).unwrap();
        let outcome = authority.ensure(now).unwrap();
        assert!(
            matches!(&outcome.issued, Some(Reason::Unreadable(why)) if why.contains("is not the key of")),
            "{outcome:?}"
        );
        std::fs::write(authority.key_file(), "-----BEGIN PRIVATE KEY-----\nbroken\n").unwrap();
        assert!(matches!(authority.ensure(now).unwrap().issued, Some(Reason::Unreadable(_))));

        std::fs::remove_file(authority.key_file()).unwrap();
        assert_eq!(authority.ensure(now).unwrap().issued, Some(Reason::Missing));
        std::fs::remove_file(authority.cert_file()).unwrap();
        assert_eq!(authority.ensure(now).unwrap(), Outcome { new_ca: false, issued: Some(Reason::Missing) });
        assert_eq!(authority.ensure(now).unwrap(), Outcome::default());
    }

    #[test]
    fn a_certificate_signed_by_another_ca_is_issued_again() {
        let (ours, theirs) = (Dir::new("ours"), Dir::new("theirs"));
        let now = SystemTime::now();
        let authority = Authority::new(ours.tls(), default_names());
        authority.ensure(now).unwrap();
        let other = Authority::new(theirs.tls(), default_names());
        other.ensure(now).unwrap();
        std::fs::copy(other.cert_file(), authority.cert_file()).unwrap();
        std::fs::copy(other.key_file(), authority.key_file()).unwrap();
        assert_eq!(authority.ensure(now).unwrap().issued, Some(Reason::OtherCa));
        verify(&authority, "localhost", now).unwrap();
    }

    #[test]
    fn an_unusable_ca_stops_the_start_naming_the_file_and_is_never_replaced() {
        let dir = Dir::new("bad-ca");
        let authority = Authority::new(dir.tls(), default_names());
        let now = SystemTime::now();
        authority.ensure(now).unwrap();
        let key = dir.tls().join(CA_KEY);
        std::fs::write(&key, "garbage\n").unwrap();
        let message = authority.ensure(now).unwrap_err().to_string();
        assert!(message.contains("ca.key") && message.contains("delete ca.crt and ca.key"), "{message}");
        assert_eq!(std::fs::read_to_string(&key).unwrap(), "garbage\n", "left for the operator to look at");
        std::fs::remove_file(&key).unwrap();
        let message = authority.ensure(now).unwrap_err().to_string();
        assert!(message.contains("ca.crt is there but ca.key is not"), "{message}");
        // A serving certificate is no CA.
        std::fs::copy(authority.key_file(), &key).unwrap();
        std::fs::copy(authority.cert_file(), authority.ca_file()).unwrap();
        let message = authority.ensure(now).unwrap_err().to_string();
        assert!(message.contains("is not a CA certificate"), "{message}");
    }

    #[test]
    fn a_ca_adopted_from_a_secret_replaces_the_local_one_and_signs_the_next_certificate() {
        let (pod, first) = (Dir::new("pod"), Dir::new("first-pod"));
        let now = SystemTime::now();
        let shared = Authority::new(first.tls(), names(&["first-pod"]));
        shared.ensure(now).unwrap();
        let secret = shared.files().unwrap();
        assert_eq!(secret.keys().collect::<Vec<_>>(), ["ca.crt", "ca.key", "tls.crt", "tls.key"]);
        let authority = Authority::new(pod.tls(), names(&["localhost", "second-pod"]));
        authority.ensure(now).unwrap();
        authority.adopt(&secret).unwrap();
        assert_eq!(read(authority.ca_file()), secret["ca.crt"]);
        assert_eq!(mode(&pod.tls().join(CA_KEY)), 0o600);
        let outcome = authority.ensure(now).unwrap();
        assert_eq!(outcome.issued, Some(Reason::Names(names(&["localhost", "second-pod"]))));
        assert!(!outcome.new_ca);
        verify(&authority, "second-pod", now).unwrap();
        assert_eq!(read(authority.ca_file()), secret["ca.crt"], "one CA for every replica");
        // A Secret without a usable CA is refused and changes nothing.
        let mut broken = secret.clone();
        broken.insert(CA_KEY.into(), b"garbage".to_vec());
        assert!(authority.adopt(&broken).unwrap_err().to_string().contains("ca.key"));
        broken.remove(CA_CERT);
        assert_eq!(authority.adopt(&broken).unwrap_err().to_string(), "no ca.crt");
        assert_eq!(read(authority.ca_file()), secret["ca.crt"]);
    }

    #[test]
    fn names_are_addresses_or_dns_names() {
        assert_eq!(Name::parse("127.0.0.1"), Some(Name::Ip([127, 0, 0, 1].into())));
        assert_eq!(Name::parse("[::1]"), Some(Name::Ip(std::net::Ipv6Addr::LOCALHOST.into())));
        assert_eq!(Name::parse("MC.Example.com."), Some(Name::Dns("mc.example.com".into())));
        assert_eq!(Name::parse("under_score"), None);
        let authority = Authority::new(PathBuf::from("/x"), names(&["localhost", "LOCALHOST", "::1"]));
        assert_eq!(authority.names().len(), 2, "{:?}", authority.names());
    }
}
