//! Who may call what: bearer tokens with roles, checked in constant time, and the token the
//! server generates at first start when none is configured (the API is never open by default).

use std::io::Write;
use std::path::{Path, PathBuf};

use mc_types::config::{MIN_TOKEN_LEN, Role, token_problem};
use ring::digest::{SHA256, digest};

use crate::authz::User;

/// Name of the generated token's file in the data directory.
pub const TOKEN_FILE: &str = "token";

/// Errors of the token file (not retryable: the directory or file must be fixed).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The token file exists but could not be read, or holds no usable token.
    #[error("token file {}: {reason}", .path.display())]
    Unusable {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The token file could not be written.
    #[error("token file {}: cannot write: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The system's random source failed.
    #[error("generating a token: {0}")]
    Random(String),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    /// No `Authorization: Bearer` header (401).
    Missing,
    /// A token that is not one of ours, or a malformed header (401).
    Invalid,
}

/// What a request asks for, as far as tokens are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A read (GET, HEAD): without a token when anonymous reads are on.
    Read,
    /// Anything else: always with a token.
    Write,
    /// A read that needs a token whatever anonymous reads say (a closed `/metrics`).
    Token,
}

/// The tokens the server accepts, as SHA-256 digests (comparing digests in constant time does not
/// leak a token's length or prefix).
#[derive(Clone)]
pub struct Auth {
    tokens: Vec<([u8; 32], Role)>,
    /// Tokens that act as a user (`server.tokens[].user`).
    users: Vec<([u8; 32], User)>,
    anonymous_read: bool,
    metrics_auth: bool,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("tokens", &self.tokens.len())
            .field("users", &self.users.len())
            .field("anonymous_read", &self.anonymous_read)
            .field("metrics_auth", &self.metrics_auth)
            .finish()
    }
}

impl Auth {
    /// Accepts these tokens; `anonymous_read` lets reads without a token through as `read`.
    pub fn new(tokens: &[(String, Role)], anonymous_read: bool, metrics_auth: bool) -> Self {
        Auth {
            tokens: tokens.iter().map(|(t, r)| (sha256(t.as_bytes()), *r)).collect(),
            users: Vec::new(),
            anonymous_read,
            metrics_auth,
        }
    }

    /// Also accepts these tokens, each acting as its user.
    pub fn with_users(mut self, users: &[(String, User)]) -> Self {
        self.users = users.iter().map(|(t, u)| (sha256(t.as_bytes()), u.clone())).collect();
        self
    }

    /// The user a request's token acts as, when it is one of [`Auth::with_users`]'.
    pub fn user(&self, authorization: Option<&[u8]>) -> Option<User> {
        let given = sha256(bearer(authorization?)?);
        // Every token is compared, so the time taken does not say which one matched.
        let mut found = None;
        for (want, user) in &self.users {
            if constant_time_eq(&given, want) {
                found = Some(user);
            }
        }
        found.cloned()
    }

    /// Whether `/metrics` needs a token.
    pub fn metrics_auth(&self) -> bool {
        self.metrics_auth
    }

    /// Whether GETs without a token are let through.
    pub fn anonymous_read(&self) -> bool {
        self.anonymous_read
    }

    /// The role of a request's `Authorization` header. A request without one is `read` only
    /// when anonymous reads are on and it is an [`Access::Read`]; a wrong token is refused even
    /// then, so a typo is not silently downgraded.
    pub fn check(&self, authorization: Option<&[u8]>, access: Access) -> Result<Role, Denied> {
        let Some(header) = authorization else {
            let anonymous = self.anonymous_read && access == Access::Read;
            return if anonymous { Ok(Role::Read) } else { Err(Denied::Missing) };
        };
        let token = bearer(header).ok_or(Denied::Invalid)?;
        let given = sha256(token);
        // Every token is compared, so the time taken does not say which one matched.
        let mut found: Option<Role> = None;
        for (want, role) in &self.tokens {
            if constant_time_eq(&given, want) {
                found = Some(found.map_or(*role, |r| r.max(*role)));
            }
        }
        found.ok_or(Denied::Invalid)
    }
}

/// Longest bearer token sent for review: ServiceAccount and OIDC tokens are a few KiB.
pub const MAX_REVIEWED_TOKEN: usize = 16 * 1024;

/// The bearer token of an `Authorization` header that is none of the static tokens, with its
/// SHA-256, to be reviewed: `None` when the header is malformed, or the token too long or not
/// printable ASCII (a JWT is), which is refused without asking anyone.
pub fn reviewable(authorization: &[u8]) -> Option<(&str, [u8; 32])> {
    let token = bearer(authorization)?;
    if token.len() > MAX_REVIEWED_TOKEN || !token.iter().all(|b| b.is_ascii_graphic()) {
        return None;
    }
    let text = std::str::from_utf8(token).ok()?;
    Some((text, sha256(token)))
}

/// The token of `Bearer <token>` (scheme case-insensitive, as RFC 7235 says).
fn bearer(header: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = header.split_at_checked(7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then(|| rest.trim_ascii()).filter(|t| !t.is_empty())
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(digest(&SHA256, bytes).as_ref());
    out
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A new random token: 32 bytes from the system's random source, hex-encoded.
pub fn generate() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The token kept in `<dir>/token`, created (mode 0600) with a new random token when missing.
/// Returns the token and whether it was created now.
pub fn load_or_generate(dir: &Path) -> Result<(String, bool)> {
    let path = dir.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let token = text.trim().to_string();
            if let Some(problem) = token_problem(&token) {
                return Err(Error::Unusable {
                    path,
                    reason: format!(
                        "the token {problem} (at least {MIN_TOKEN_LEN}); delete the file to get a new one"
                    ),
                });
            }
            Ok((token, false))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let token = generate()?;
            write_private(&path, &token).map_err(|source| Error::Write { path: path.clone(), source })?;
            Ok((token, true))
        }
        Err(e) => Err(Error::Unusable { path, reason: format!("cannot read: {e}") }),
    }
}

/// Writes a file only its owner can read, creating its directory; never follows an existing
/// file's permissions.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The data directory holds the store too: only the server's user may enter one it makes.
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(text.as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_generated_token_and_the_directory_made_for_it_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let root = std::env::temp_dir().join(format!("mc-auth-{}-{nanos}", std::process::id()));
        let file = root.join("data").join("token");
        write_private(&file, "t").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&root.join("data")), 0o700);
        std::fs::remove_dir_all(&root).unwrap();
    }

    fn auth(anonymous_read: bool) -> Auth {
        Auth::new(
            &[("admin-token-0123456789".into(), Role::Admin), ("reader-token-0123456789".into(), Role::Read)],
            anonymous_read,
            false,
        )
    }

    #[test]
    fn each_token_gets_its_role() {
        let a = auth(false);
        assert_eq!(a.check(Some(b"Bearer admin-token-0123456789"), Access::Write), Ok(Role::Admin));
        assert_eq!(a.check(Some(b"bearer reader-token-0123456789"), Access::Read), Ok(Role::Read));
    }

    #[test]
    fn missing_wrong_or_malformed_tokens_are_refused() {
        let a = auth(false);
        assert_eq!(a.check(None, Access::Read), Err(Denied::Missing));
        assert_eq!(a.check(Some(b"Bearer admin-token-012345678"), Access::Read), Err(Denied::Invalid));
        assert_eq!(a.check(Some(b"Basic YWRtaW46YWRtaW4="), Access::Read), Err(Denied::Invalid));
        assert_eq!(a.check(Some(b"Bearer "), Access::Read), Err(Denied::Invalid));
        assert_eq!(a.check(Some(b"admin-token-0123456789"), Access::Read), Err(Denied::Invalid));
    }

    #[test]
    fn anonymous_reads_only_when_asked_for_and_never_for_writes() {
        let a = auth(true);
        assert_eq!(a.check(None, Access::Read), Ok(Role::Read));
        assert_eq!(a.check(None, Access::Write), Err(Denied::Missing));
        assert_eq!(a.check(None, Access::Token), Err(Denied::Missing), "a closed /metrics stays closed");
        assert_eq!(a.check(Some(b"Bearer reader-token-0123456789"), Access::Token), Ok(Role::Read));
        // A wrong token is not downgraded to anonymous.
        assert_eq!(a.check(Some(b"Bearer nope-nope-nope-nope"), Access::Read), Err(Denied::Invalid));
    }

    #[test]
    fn a_generated_token_is_kept_private_and_reused() {
        let dir = std::env::temp_dir().join(format!("mc-auth-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (first, created) = load_or_generate(&dir).unwrap();
        assert!(created);
        assert_eq!(first.len(), 64);
        assert!(token_problem(&first).is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(TOKEN_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let (again, created) = load_or_generate(&dir).unwrap();
        assert!(!created);
        assert_eq!(first, again);
        assert_ne!(first, generate().unwrap());
        std::fs::write(dir.join(TOKEN_FILE), "short\n").unwrap();
        assert!(load_or_generate(&dir).unwrap_err().to_string().contains("shorter than 16"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
