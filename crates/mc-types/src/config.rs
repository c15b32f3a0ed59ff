//! The two configuration files: the server's cluster list and the CLI's
//! `~/.multi-cluster-operator/config`. Both keep the Go project's keys.
//!
//! Loading parses, validates and normalises in one step, so code past the edge can rely on a
//! [`ServerConfig`] having at least one cluster, unique DNS-label names and exactly one master.
//! Unknown keys are ignored: files written for the Go project may carry extras.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::gvr::{GvrError, GvrSpec, ResourceInfo};

/// Port of mc-server, as in the Go project.
pub const DEFAULT_PORT: u16 = 31888;

/// Why a configuration file could not be used. Every message is one line that names the file
/// and, where there is one, the cluster. None is retryable: the file has to be fixed.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file does not exist.
    #[error("config {}: file not found", .file.display())]
    NotFound {
        /// The file looked for.
        file: PathBuf,
    },
    /// The file exists but could not be read.
    #[error("config {}: cannot read: {source}", .file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file (or its directory) could not be written.
    #[error("config {}: cannot write: {source}", .file.display())]
    Write {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file is not valid YAML, or does not have the expected shape.
    #[error("config {}: {message}", .file.display())]
    Yaml {
        /// The file.
        file: PathBuf,
        /// 1-based line of the problem, when the parser knows it.
        line: Option<u64>,
        /// The parser's message, on one line.
        message: String,
    },
    /// A problem with the file as a whole (no clusters, half a TLS pair, bad port, …).
    #[error("config {}: {problem}", .file.display())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A problem with one cluster entry.
    #[error("config {}: {}: {problem}", .file.display(), cluster_label(.cluster, *.index))]
    Cluster {
        /// The file.
        file: PathBuf,
        /// 0-based position in `clusters`.
        index: usize,
        /// The cluster's name as written (may be empty).
        cluster: String,
        /// What is wrong.
        problem: String,
    },
    /// A cluster's kubeconfig is unreadable, invalid or lacks the requested context. Checked by
    /// the server when it connects, reported with the same shape as the other errors.
    #[error("config {}: cluster {cluster:?}: {reason}", .file.display())]
    Kubeconfig {
        /// The server config file.
        file: PathBuf,
        /// The cluster.
        cluster: String,
        /// What is wrong, naming the kubeconfig path or context.
        reason: String,
    },
}

fn cluster_label(name: &str, index: usize) -> String {
    if name.is_empty() { format!("cluster #{}", index + 1) } else { format!("cluster {name:?}") }
}

/// Result of configuration loading.
pub type Result<T, E = ConfigError> = std::result::Result<T, E>;

/// A cluster name: a DNS-1123 label (lowercase alphanumerics and `-`, at most 63 characters,
/// starting and ending with an alphanumeric).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ClusterName(String);

/// A string that is not a valid [`ClusterName`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid cluster name {name:?}: {reason}")]
pub struct InvalidClusterName {
    /// The rejected name.
    pub name: String,
    /// Which rule it breaks.
    pub reason: &'static str,
}

impl ClusterName {
    /// Longest DNS-1123 label.
    pub const MAX_LEN: usize = 63;

    /// Validates a cluster name.
    pub fn parse(name: &str) -> Result<Self, InvalidClusterName> {
        let reject = |reason| Err(InvalidClusterName { name: name.to_owned(), reason });
        if name.is_empty() {
            return reject("must not be empty");
        }
        if name.len() > Self::MAX_LEN {
            return reject("must be at most 63 characters");
        }
        if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            return reject("must consist of lowercase letters, digits and '-'");
        }
        if name.starts_with('-') || name.ends_with('-') {
            return reject("must start and end with a letter or digit");
        }
        Ok(Self(name.to_owned()))
    }

    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClusterName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for ClusterName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for ClusterName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl FromStr for ClusterName {
    type Err = InvalidClusterName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for ClusterName {
    type Error = InvalidClusterName;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<ClusterName> for String {
    fn from(name: ClusterName) -> Self {
        name.0
    }
}

impl PartialEq<str> for ClusterName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for ClusterName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

// ---------------------------------------------------------------------------------------------
// Server configuration
// ---------------------------------------------------------------------------------------------

/// The server's configuration file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    /// The clusters to sync; the first flagged `isMaster` (or else the first) is the master.
    #[serde(default)]
    pub clusters: Vec<ClusterEntry>,
    /// HTTP listener.
    #[serde(default)]
    pub server: ServerSection,
    /// Where objects are stored.
    #[serde(default)]
    pub storage: StorageSection,
    /// What is synced.
    #[serde(default)]
    pub sync: SyncSection,
    /// What MultiClusterResources may write.
    #[serde(default)]
    pub dispatch: DispatchSection,
    /// What callers that are Kubernetes identities may read.
    #[serde(default)]
    pub authorization: AuthorizationSection,
    /// How callers other than static tokens are identified.
    #[serde(default)]
    pub authentication: AuthenticationSection,
    /// What is kept of past changes, and for how long.
    #[serde(default)]
    pub history: HistorySection,
    /// What `/metrics` exports besides its fixed series.
    #[serde(default)]
    pub metrics: MetricsSection,
    /// Links between types that `tree` and `describe --related` follow besides the built-in ones.
    #[serde(default)]
    pub relations: crate::declared_links::RelationsSection,
    /// How `count` answers.
    #[serde(default)]
    pub count: CountSection,
    /// Free-text search (`kubectl multicluster search`).
    #[serde(default)]
    pub search: SearchSection,
}

/// How `count` answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CountSection {
    /// One field per type whose value is kept with each object, in an index, so that a count
    /// by it (`count pods --by cluster,status.phase`) reads the index instead of every object:
    /// type (`plural` for the core group, `plural.group` otherwise) → field path (`status.phase`,
    /// `spec.nodeName`, `metadata.labels["app"]`). `{pods: status.phase}` by default; `{}`
    /// keeps none.
    #[serde(default = "default_indexed_fields")]
    pub indexed_fields: BTreeMap<String, String>,
}

impl Default for CountSection {
    fn default() -> Self {
        Self { indexed_fields: default_indexed_fields() }
    }
}

fn default_indexed_fields() -> BTreeMap<String, String> {
    BTreeMap::from([("pods".to_string(), "status.phase".to_string())])
}

impl CountSection {
    /// What is wrong with the section, if anything.
    pub fn problem(&self) -> Option<String> {
        for (name, path) in &self.indexed_fields {
            if !is_type_name(name) {
                return Some(format!(
                    "count.indexedFields: {name:?} is not a type name; write `plural` or `plural.group` (e.g. deployments.apps)"
                ));
            }
            if let Err(e) = crate::count::FieldPath::parse(path) {
                return Some(format!("count.indexedFields.{name}: {e}"));
            }
        }
        None
    }
}

/// Free-text search over every object (`/v1/search`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchSection {
    /// Keep the search index with every write; true by default. `false`: no index is kept and
    /// `/v1/search` answers 501.
    #[serde(default = "default_true")]
    pub enabled: bool,
}

impl Default for SearchSection {
    fn default() -> Self {
        SearchSection { enabled: true }
    }
}

/// What `/metrics` exports besides its fixed series.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricsSection {
    /// Types whose objects are also counted per namespace (`mc_namespace_objects`), written as
    /// kubectl takes them: `configmaps`, `pods`, `deployments.apps`, `apps/v1/deployments`.
    #[serde(default)]
    pub namespace_counts_for: Vec<String>,
    /// Most `mc_namespace_objects` series (default [`DEFAULT_MAX_NAMESPACE_SERIES`]): the
    /// largest namespaces keep theirs, the others of a cluster and type are summed into one
    /// series with `namespace="<other>"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_namespace_series: Option<u32>,
}

/// Default of `metrics.maxNamespaceSeries`.
pub const DEFAULT_MAX_NAMESPACE_SERIES: u32 = 10_000;

/// Authentication settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthenticationSection {
    /// PEM bundle of the CAs whose client certificates identify callers, as kube-apiserver's
    /// `--client-ca-file`: the subject's CN is the user, each O a group. Empty: none.
    #[serde(
        default,
        rename = "clientCAFile",
        alias = "clientCaFile",
        skip_serializing_if = "String::is_empty"
    )]
    pub client_ca_file: String,
    /// OIDC ID tokens checked by the server itself, as kube-apiserver's `--oidc-*` flags do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oidc: Option<OidcSection>,
}

/// An OIDC issuer whose ID tokens identify callers; each key mirrors a kube-apiserver
/// `--oidc-*` flag.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OidcSection {
    /// The issuer, `https://…`: a token's `iss` must be exactly this.
    #[serde(rename = "issuerURL", alias = "issuerUrl")]
    pub issuer_url: String,
    /// The audience a token's `aud` must contain.
    #[serde(rename = "clientID", alias = "clientId")]
    pub client_id: String,
    /// The claim that holds the user name.
    #[serde(default = "default_username_claim")]
    pub username_claim: String,
    /// Put before every user name. Unset: `issuerURL#`, except for the `email` claim; `-`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username_prefix: Option<String>,
    /// The claim that holds the groups (a string or an array of strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups_claim: Option<String>,
    /// Put before every group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups_prefix: Option<String>,
    /// Claims a token must carry with exactly these values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub required_claims: BTreeMap<String, String>,
    /// The algorithms a token may be signed with.
    #[serde(default = "default_signing_algs")]
    pub signing_algs: Vec<SigningAlg>,
    /// The issuer's keys from this JWKS file instead of from the issuer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_file: Option<String>,
    /// PEM CA certificates to trust for the issuer's HTTPS instead of the system's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
}

/// A JWS signature algorithm an OIDC token may use. Neither `none` nor the HMAC ones: a
/// shared secret would let anyone who verifies tokens also make them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SigningAlg {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// RSASSA-PSS with SHA-256.
    PS256,
    /// RSASSA-PSS with SHA-384.
    PS384,
    /// RSASSA-PSS with SHA-512.
    PS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
}

impl SigningAlg {
    /// The name a token's header gives it (`RS256`, …).
    pub fn name(self) -> &'static str {
        match self {
            SigningAlg::RS256 => "RS256",
            SigningAlg::RS384 => "RS384",
            SigningAlg::RS512 => "RS512",
            SigningAlg::PS256 => "PS256",
            SigningAlg::PS384 => "PS384",
            SigningAlg::PS512 => "PS512",
            SigningAlg::ES256 => "ES256",
            SigningAlg::ES384 => "ES384",
        }
    }

    /// Every algorithm, to read a header's `alg` against.
    pub const ALL: [SigningAlg; 8] = [
        SigningAlg::RS256,
        SigningAlg::RS384,
        SigningAlg::RS512,
        SigningAlg::PS256,
        SigningAlg::PS384,
        SigningAlg::PS512,
        SigningAlg::ES256,
        SigningAlg::ES384,
    ];
}

impl fmt::Display for SigningAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn default_username_claim() -> String {
    "sub".into()
}

fn default_signing_algs() -> Vec<SigningAlg> {
    vec![SigningAlg::RS256]
}

impl OidcSection {
    /// What is wrong with it, naming the key; `None` when nothing is.
    pub fn problem(&self) -> Option<String> {
        let url = &self.issuer_url;
        let Some(rest) = url.strip_prefix("https://") else {
            return Some(format!("issuerURL {url:?} must start with https://"));
        };
        let host = rest.split('/').next().unwrap_or_default();
        if host.is_empty() || host.contains(['@', ' ']) || rest.contains(['?', '#']) {
            return Some(format!(
                "issuerURL {url:?} is not an https URL with a host and no query, fragment or user"
            ));
        }
        if self.client_id.is_empty() {
            return Some("clientID must not be empty".into());
        }
        if self.username_claim.is_empty() {
            return Some("usernameClaim must not be empty (leave it out for sub)".into());
        }
        if self.groups_claim.as_deref() == Some("") {
            return Some("groupsClaim must not be empty (leave it out for no groups)".into());
        }
        if self.groups_prefix.is_some() && self.groups_claim.is_none() {
            return Some("groupsPrefix needs groupsClaim".into());
        }
        if self.required_claims.keys().any(String::is_empty) {
            return Some("requiredClaims has an empty claim name".into());
        }
        if self.signing_algs.is_empty() {
            return Some("signingAlgs must not be empty (leave it out for [RS256])".into());
        }
        for (key, value) in [("jwksFile", &self.jwks_file), ("caFile", &self.ca_file)] {
            if value.as_deref() == Some("") {
                return Some(format!("{key} is empty; remove it"));
            }
        }
        None
    }

    /// The prefix of user names: `usernamePrefix` as set (`-` is none), else `issuerURL#`
    /// unless the name is the `email` claim, as kube-apiserver does.
    pub fn username_prefix(&self) -> String {
        match self.username_prefix.as_deref() {
            Some("-") => String::new(),
            Some(prefix) => prefix.to_string(),
            None if self.username_claim == "email" => String::new(),
            None => format!("{}#", self.issuer_url),
        }
    }
}

/// Authorization settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationSection {
    /// How callers are authorized.
    #[serde(default)]
    pub mode: AuthorizationMode,
}

/// How callers are authorized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthorizationMode {
    /// Static tokens keep their roles; any other bearer token is reviewed by the master cluster
    /// (`TokenReview`), and that user reads what each member cluster's own RBAC allows it.
    #[default]
    Member,
    /// Static tokens and their roles only; other tokens are refused.
    Roles,
    /// As `member` for who the caller is, but what it may read in every cluster is granted in
    /// the master cluster: its RoleBindings and ClusterRoleBindings, each applying to the
    /// clusters its `mulitcluster.practice.com/cluster-selector` annotation selects (the master
    /// alone without one), with the master's roles.
    Hub,
}

/// Dispatch settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchSection {
    /// Namespaces whose MultiClusterResources may write into other namespaces and cluster-scoped
    /// kinds. A resource elsewhere writes only into its own namespace. Empty: the server's own
    /// namespace (`--namespace`, `default` unless set).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admin_namespaces: Vec<String>,
}

impl DispatchSection {
    /// The namespaces whose MultiClusterResources may write anywhere: `adminNamespaces` as
    /// configured, else `server_namespace` alone.
    pub fn admin_namespaces_or(&self, server_namespace: &str) -> Vec<String> {
        if self.admin_namespaces.is_empty() {
            vec![server_namespace.to_string()]
        } else {
            self.admin_namespaces.clone()
        }
    }
}

/// One item of `clusters`, wrapped in `metadata` as in the Go project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterEntry {
    /// The cluster's settings.
    pub metadata: ClusterMetadata,
}

/// One cluster's settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterMetadata {
    /// Unique name, a DNS-1123 label.
    #[serde(default)]
    pub cluster_name: String,
    /// Skip TLS verification of this cluster's API server.
    #[serde(default)]
    pub insecure: bool,
    /// Kubeconfig file; empty means the in-cluster service account. After loading it is absolute
    /// (relative paths are resolved against the config file's directory, `~/` against HOME).
    #[serde(default)]
    pub config_path: String,
    /// Kubeconfig context; `None` means its current-context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Whether this is the master cluster (where MultiClusterResources live).
    #[serde(default)]
    pub is_master: bool,
    /// Optional allow-list of resource types; empty means everything syncable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceFilter>,
    /// Labels of the cluster, matched by placement `clusterSelector`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

impl ClusterMetadata {
    /// The kubeconfig file, `None` for in-cluster configuration.
    pub fn kubeconfig_path(&self) -> Option<&Path> {
        if self.config_path.is_empty() { None } else { Some(Path::new(&self.config_path)) }
    }

    /// The allow-list parsed into specs, in order.
    pub fn resource_specs(&self) -> Result<Vec<GvrSpec>, GvrError> {
        self.resources.iter().map(ResourceFilter::spec).collect()
    }
}

/// One entry of a cluster's `resources` allow-list: `{rType: apps/v1/deployments}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceFilter {
    /// The resource type, in any form of the type syntax.
    #[serde(rename = "rType")]
    pub r_type: String,
}

impl ResourceFilter {
    /// The resource type parsed.
    pub fn spec(&self) -> Result<GvrSpec, GvrError> {
        GvrSpec::parse(&self.r_type)
    }
}

/// HTTP listener settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSection {
    /// TCP port, 31888 by default.
    #[serde(default = "default_port", deserialize_with = "port_from_number_or_string")]
    pub port: u16,
    /// Address to bind, `0.0.0.0` by default.
    #[serde(default = "default_bind")]
    pub bind: String,
    /// Bearer token with the `admin` role. Empty: the server uses `tokens`, or generates one at
    /// first start (the API is never open by default).
    #[serde(default)]
    pub token: String,
    /// More tokens, each with a role (`read` or `admin`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TokenEntry>,
    /// Let GET requests without a token through with the `read` role (for the Go project's CLI,
    /// which cannot send one). Join and unjoin never go anonymous.
    #[serde(default)]
    pub anonymous_read: bool,
    /// Require a token on `/metrics` too (open by default, like `/healthz` and `/readyz`).
    #[serde(default)]
    pub metrics_auth: bool,
    /// PEM certificate (chain) for HTTPS. Unset, the server serves HTTPS all the same, with a
    /// certificate from a CA of its own that it makes at first start (see `tlsSANs`).
    #[serde(default)]
    pub tls_cert_file: String,
    /// PEM private key for HTTPS; set together with `tlsCertFile`.
    #[serde(default)]
    pub tls_key_file: String,
    /// More names and addresses for the certificate the server makes when no `tlsCertFile` is
    /// set, besides the bind address, the host name, `localhost`, `127.0.0.1` and `::1`: what
    /// clients dial (a DNS name, `*.example.com`, an IP address).
    #[serde(default, rename = "tlsSANs", alias = "tlsSans", skip_serializing_if = "Vec::is_empty")]
    pub tls_sans: Vec<String>,
    /// Serve plain http instead of HTTPS: for the Go project's CLI, which speaks plain http, or
    /// behind a proxy that terminates TLS. kubectl sends no token over plain http.
    #[serde(default, rename = "plainHTTP", alias = "plainHttp")]
    pub plain_http: bool,
    /// Let joined clusters (uploaded kubeconfigs) have a link-local API server address
    /// (169.254.0.0/16, fe80::/10), named or resolved. Off by default: cloud metadata services
    /// answer there, and a join must not make mc-server their client.
    #[serde(default)]
    pub allow_link_local_joins: bool,
}

/// One entry of `server.tokens`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenEntry {
    /// The bearer token (at least 16 characters).
    pub token: String,
    /// What it may do; `read` when not given.
    #[serde(default)]
    pub role: Role,
    /// The user it acts as: set, the token reads what the clusters' RBAC allows this user (as
    /// a Kubernetes identity does) instead of by its role, and never joins or unjoins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The groups of `user` (besides `system:authenticated`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
}

/// What a token may do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Queries only.
    #[default]
    Read,
    /// Queries, join and unjoin.
    Admin,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Read => "read",
            Role::Admin => "admin",
        })
    }
}

/// Shortest token accepted in the configuration (a guessable token is no token).
pub const MIN_TOKEN_LEN: usize = 16;

impl Default for ServerSection {
    fn default() -> Self {
        Self {
            port: DEFAULT_PORT,
            bind: default_bind(),
            token: String::new(),
            tokens: Vec::new(),
            anonymous_read: false,
            metrics_auth: false,
            tls_cert_file: String::new(),
            tls_key_file: String::new(),
            tls_sans: Vec::new(),
            plain_http: false,
            allow_link_local_joins: false,
        }
    }
}

impl ServerSection {
    /// The single admin token, `None` when not configured.
    pub fn token(&self) -> Option<&str> {
        if self.token.is_empty() { None } else { Some(&self.token) }
    }

    /// Every configured token with its role: `token` (admin) first, then `tokens`.
    pub fn all_tokens(&self) -> Vec<(String, Role)> {
        let mut out: Vec<(String, Role)> =
            self.token().map(|t| (t.to_string(), Role::Admin)).into_iter().collect();
        out.extend(self.tokens.iter().filter(|t| t.user.is_none()).map(|t| (t.token.clone(), t.role)));
        out
    }

    /// The tokens mapped to a user: token, user and groups.
    pub fn user_tokens(&self) -> Vec<(String, String, Vec<String>)> {
        let mapped =
            self.tokens.iter().filter_map(|t| Some((t.token.clone(), t.user.clone()?, t.groups.clone())));
        mapped.collect()
    }

    /// Certificate and key files when a certificate is configured.
    pub fn tls(&self) -> Option<(&Path, &Path)> {
        if self.tls_cert_file.is_empty() || self.tls_key_file.is_empty() {
            None
        } else {
            Some((Path::new(&self.tls_cert_file), Path::new(&self.tls_key_file)))
        }
    }
}

/// Why an entry of `tlsSANs` cannot name a server, `None` when it is fine: an IP address, or a
/// DNS name (letters, digits and `-` in labels of at most 63, a first label `*` allowed).
pub fn san_problem(san: &str) -> Option<&'static str> {
    if san.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    if san.is_empty() {
        return Some("is empty");
    }
    if san.len() > 253 {
        return Some("is longer than 253 characters");
    }
    let name = san.strip_prefix("*.").unwrap_or(san);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if !name.trim_end_matches('.').split('.').all(label_ok) {
        return Some("is neither an IP address nor a DNS name");
    }
    None
}

/// Why a token is unusable, `None` when it is fine: long enough, printable ASCII without spaces
/// (it travels in an HTTP header).
pub fn token_problem(token: &str) -> Option<String> {
    if token.len() < MIN_TOKEN_LEN {
        return Some(format!("is shorter than {MIN_TOKEN_LEN} characters"));
    }
    if token.len() > 1024 {
        return Some("is longer than 1024 characters".into());
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Some("must be printable ASCII without spaces".into());
    }
    None
}

fn default_port() -> u16 {
    DEFAULT_PORT
}

fn default_bind() -> String {
    "0.0.0.0".to_owned()
}

/// Store settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageSection {
    /// `sqlite://…`, `mysql://…` or `postgres://…`; `None` means SQLite in the data directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// What is synced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncSection {
    /// API groups not to sync, in addition to [`crate::gvr::DEFAULT_EXCLUDED_GROUPS`].
    #[serde(default)]
    pub exclude_groups: Vec<String>,
    /// Resources (`plural` or `plural.group`) not to sync, in addition to
    /// [`crate::gvr::DEFAULT_EXCLUDED_RESOURCES`].
    #[serde(default)]
    pub exclude_resources: Vec<String>,
    /// Replace Secret `data`/`stringData` before storing; true by default.
    #[serde(default = "default_true")]
    pub redact_secrets: bool,
    /// With a shared MySQL/PostgreSQL store: the most clusters one replica syncs. Replicas split
    /// the clusters through one Lease per cluster in the master; unset, a replica takes every
    /// cluster no other replica holds. Leave room for a takeover: with `r` replicas and `n`
    /// clusters, at least `n / (r - 1)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_clusters_per_replica: Option<u32>,
    /// Objects per request when a type's list is read in pages (default 2,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_page_size: Option<u32>,
    /// A list of at most this many objects is read in one answer, which the API server serves
    /// from its watch cache for less CPU than pages (see docs/adr/0002-unpaged-first-lists.md),
    /// and parsed as it arrives; a larger one is read in pages, and so is a type whose list in
    /// one answer broke off. Default 500,000; 0 reads every list in pages. Lower it for API
    /// servers before 1.33, which build a list's whole answer in memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpaged_list_max: Option<u32>,
}

impl Default for SyncSection {
    fn default() -> Self {
        Self {
            exclude_groups: Vec::new(),
            exclude_resources: Vec::new(),
            redact_secrets: true,
            max_clusters_per_replica: None,
            list_page_size: None,
            unpaged_list_max: None,
        }
    }
}

impl SyncSection {
    /// Whether a discovered type is synced: listable, watchable and not excluded.
    pub fn should_sync(&self, info: &ResourceInfo) -> bool {
        info.is_syncable() && !info.is_excluded(&self.exclude_groups, &self.exclude_resources)
    }
}

fn default_true() -> bool {
    true
}

/// What the history store keeps: every change of the synced objects, as revisions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistorySection {
    /// Keep revisions; true by default. `false`: no revision is written.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// How long a superseded revision is kept (`30m`, `24h`, `7d`); `7d` by default. The newest
    /// revision of a live object is kept however old.
    #[serde(default = "default_history_max_age")]
    pub max_age: String,
    /// Most bytes of stored objects kept in all (`10Gi`, `500Mi`, `2G`, or bytes); unset: no
    /// limit. Beyond it the oldest superseded revisions go first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<String>,
    /// Only these types (`plural` or `plural.group`, as `sync.excludeResources`); empty: every
    /// synced type.
    #[serde(default)]
    pub include_types: Vec<String>,
    /// Never these types; `[leases.coordination.k8s.io]` by default (heartbeats: pure churn).
    #[serde(default = "default_history_excluded")]
    pub exclude_types: Vec<String>,
    /// Events (`events` and `events.events.k8s.io`), kept on their own terms.
    #[serde(default)]
    pub events: HistoryEventsSection,
}

/// How long Events are kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEventsSection {
    /// How long an Event's superseded revisions, and a deleted Event, are kept; `24h` by
    /// default: Kubernetes expires Events after 1 h, and they change more than any other type.
    #[serde(default = "default_events_max_age")]
    pub max_age: String,
}

impl Default for HistoryEventsSection {
    fn default() -> Self {
        Self { max_age: default_events_max_age() }
    }
}

impl Default for HistorySection {
    fn default() -> Self {
        Self {
            enabled: true,
            max_age: default_history_max_age(),
            max_bytes: None,
            include_types: Vec::new(),
            exclude_types: default_history_excluded(),
            events: HistoryEventsSection::default(),
        }
    }
}

fn default_history_max_age() -> String {
    "7d".into()
}

fn default_events_max_age() -> String {
    "24h".into()
}

fn default_history_excluded() -> Vec<String> {
    vec!["leases.coordination.k8s.io".into()]
}

impl HistorySection {
    /// `maxAge` as a duration.
    pub fn max_age(&self) -> std::result::Result<std::time::Duration, String> {
        parse_age(&self.max_age).map_err(|e| format!("history.maxAge: {e}"))
    }

    /// `events.maxAge` as a duration.
    pub fn events_max_age(&self) -> std::result::Result<std::time::Duration, String> {
        parse_age(&self.events.max_age).map_err(|e| format!("history.events.maxAge: {e}"))
    }

    /// `maxBytes` in bytes; `None` when unset.
    pub fn max_bytes(&self) -> std::result::Result<Option<u64>, String> {
        self.max_bytes
            .as_deref()
            .map(|q| parse_bytes(q).map_err(|e| format!("history.maxBytes: {e}")))
            .transpose()
    }

    /// What is wrong with the section, if anything.
    pub fn problem(&self) -> Option<String> {
        if let Err(e) = self.max_age().and(self.events_max_age()).and(self.max_bytes()) {
            return Some(e);
        }
        for (key, names) in [("includeTypes", &self.include_types), ("excludeTypes", &self.exclude_types)] {
            if let Some(bad) = names.iter().find(|n| !is_type_name(n)) {
                return Some(format!(
                    "history.{key}: {bad:?} is not a type name; write `plural` or `plural.group` (e.g. leases.coordination.k8s.io)"
                ));
            }
        }
        None
    }
}

/// `plural` or `plural.group`: lowercase DNS characters, no slash.
fn is_type_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && !name.starts_with('.')
        && !name.ends_with('.')
}

/// A Kubernetes-style duration: a number and a unit (`s`, `m`, `h`, `d`), or several of them
/// (`1h30m`); more than zero.
pub fn parse_age(text: &str) -> std::result::Result<std::time::Duration, String> {
    let bad = || format!("{text:?} is not a duration; write e.g. 30m, 24h or 7d");
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    let mut seconds: u64 = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let number: u64 = rest[..digits].parse().map_err(|_| bad())?;
        let unit = rest[digits..].chars().next().ok_or_else(bad)?;
        let scale = match unit {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(bad()),
        };
        seconds = number.checked_mul(scale).and_then(|s| s.checked_add(seconds)).ok_or_else(bad)?;
        rest = &rest[digits + 1..];
    }
    if seconds == 0 {
        return Err(format!("{text:?} is zero; write a positive duration"));
    }
    Ok(std::time::Duration::from_secs(seconds))
}

/// A Kubernetes-style quantity of bytes: a number with an optional suffix (`Ki`, `Mi`, `Gi`,
/// `Ti` powers of 1024; `k`/`K`, `M`, `G`, `T` powers of 1000).
pub fn parse_bytes(text: &str) -> std::result::Result<u64, String> {
    let bad = || format!("{text:?} is not a size; write e.g. 10Gi or 500Mi");
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = t[..digits].parse().map_err(|_| bad())?;
    let scale: u64 = match &t[digits..] {
        "" => 1,
        "k" | "K" => 1000,
        "M" => 1000_u64.pow(2),
        "G" => 1000_u64.pow(3),
        "T" => 1000_u64.pow(4),
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        _ => return Err(bad()),
    };
    number.checked_mul(scale).ok_or_else(bad)
}

impl ServerConfig {
    /// Reads, validates and normalises a config file: the master is flagged, `configPath` is
    /// absolute, an empty `storage.url` is `None`.
    pub fn load(path: &Path) -> Result<Self> {
        let text = read_file(path)?;
        Self::from_yaml(&text, path)
    }

    /// As [`ServerConfig::load`], from text already read; `file` is used in messages and to
    /// resolve relative paths.
    pub fn from_yaml(text: &str, file: &Path) -> Result<Self> {
        if text.trim().is_empty() {
            return Err(ConfigError::Invalid { file: file.to_owned(), problem: "file is empty".into() });
        }
        let mut config: Self = parse_yaml(text, file)?;
        config.validate(file)?;
        config.normalise(file);
        Ok(config)
    }

    /// Checks what can be checked without touching the clusters: at least one cluster, names
    /// that are unique DNS labels, at most one master, parseable `rType`s, namespace names in
    /// `dispatch.adminNamespaces`, a complete TLS pair, a client CA only over HTTPS and not
    /// with `roles` authorization, an `authentication.oidc` issuer over https.
    pub fn validate(&self, file: &Path) -> Result<()> {
        let invalid = |problem: String| ConfigError::Invalid { file: file.to_owned(), problem };
        if let Some(problem) = self.history.problem().or_else(|| self.count.problem()) {
            return Err(invalid(problem));
        }
        if let Some(problem) = self.relations.problem() {
            return Err(invalid(problem));
        }
        if self.clusters.is_empty() {
            return Err(invalid("no clusters configured: add at least one under `clusters:`".into()));
        }
        let mut seen = HashSet::new();
        let mut master: Option<&str> = None;
        for (index, ClusterEntry { metadata: m }) in self.clusters.iter().enumerate() {
            let cluster_error = |problem: String| ConfigError::Cluster {
                file: file.to_owned(),
                index,
                cluster: m.cluster_name.clone(),
                problem,
            };
            if m.cluster_name.is_empty() {
                return Err(cluster_error("clusterName is missing or empty".into()));
            }
            if let Err(e) = ClusterName::parse(&m.cluster_name) {
                return Err(cluster_error(format!(
                    "clusterName {}; use lowercase letters, digits and '-' (at most 63)",
                    e.reason
                )));
            }
            if !seen.insert(m.cluster_name.as_str()) {
                return Err(cluster_error("duplicate clusterName".into()));
            }
            if m.is_master {
                if let Some(first) = master {
                    return Err(cluster_error(format!(
                        "isMaster is also set on cluster {first:?}; exactly one cluster may be master"
                    )));
                }
                master = Some(&m.cluster_name);
            }
            if m.context.as_deref() == Some("") {
                return Err(cluster_error("context is empty; remove it to use the current-context".into()));
            }
            for (i, filter) in m.resources.iter().enumerate() {
                if let Err(e) = filter.spec() {
                    return Err(cluster_error(format!("resources[{i}].rType: {e}")));
                }
            }
        }
        // Namespace names are DNS-1123 labels, the same rule as cluster names: a typo here would
        // otherwise silently grant nothing.
        for (i, ns) in self.dispatch.admin_namespaces.iter().enumerate() {
            if let Err(e) = ClusterName::parse(ns) {
                return Err(invalid(format!(
                    "dispatch.adminNamespaces[{i}] {ns:?} is not a namespace name: it {}",
                    e.reason
                )));
            }
        }
        let s = &self.server;
        if s.port == 0 {
            return Err(invalid("server.port must not be 0".into()));
        }
        if s.bind.is_empty() {
            return Err(invalid("server.bind must not be empty".into()));
        }
        if s.tls_cert_file.is_empty() != s.tls_key_file.is_empty() {
            return Err(invalid("server.tlsCertFile and server.tlsKeyFile must be set together".into()));
        }
        if s.plain_http && !s.tls_cert_file.is_empty() {
            return Err(invalid(
                "server.plainHTTP and server.tlsCertFile exclude each other: remove one".into(),
            ));
        }
        // A client certificate is only ever sent in a TLS handshake.
        if s.plain_http && !self.authentication.client_ca_file.is_empty() {
            return Err(invalid(
                "authentication.clientCAFile needs HTTPS: client certificates come in the TLS handshake; remove server.plainHTTP or the client CA".into(),
            ));
        }
        // A certificate's user reads what the members' RBAC allows; `roles` knows static tokens only.
        if self.authorization.mode == AuthorizationMode::Roles
            && !self.authentication.client_ca_file.is_empty()
        {
            return Err(invalid(
                "authentication.clientCAFile identifies users that member clusters' RBAC authorizes; authorization.mode roles serves static tokens only: remove one".into(),
            ));
        }
        for (i, san) in s.tls_sans.iter().enumerate() {
            if let Some(problem) = san_problem(san) {
                return Err(invalid(format!("server.tlsSANs[{i}] {san:?} {problem}")));
            }
        }
        if let Some(problem) = s.token().and_then(token_problem) {
            return Err(invalid(format!("server.token {problem}")));
        }
        for (i, t) in s.tokens.iter().enumerate() {
            if let Some(problem) = token_problem(&t.token) {
                return Err(invalid(format!("server.tokens[{i}].token {problem}")));
            }
            let entry = format!("server.tokens[{i}]");
            match &t.user {
                None if !t.groups.is_empty() => {
                    return Err(invalid(format!(
                        "{entry}.groups needs user: groups belong to the user a token acts as"
                    )));
                }
                Some(user) if user.trim().is_empty() || t.groups.iter().any(|g| g.trim().is_empty()) => {
                    return Err(invalid(format!("{entry}: user and groups must not be empty")));
                }
                Some(_) if t.role == Role::Admin => {
                    return Err(invalid(format!(
                        "{entry}: a token with a user reads as that user, so role admin has no meaning; remove one"
                    )));
                }
                Some(_) if self.authorization.mode == AuthorizationMode::Roles => {
                    return Err(invalid(format!(
                        "{entry}.user needs authorization.mode member or hub: roles knows no users"
                    )));
                }
                _ => {}
            }
        }
        if let Some(oidc) = &self.authentication.oidc {
            if let Some(problem) = oidc.problem() {
                return Err(invalid(format!("authentication.oidc.{problem}")));
            }
            if self.authorization.mode == AuthorizationMode::Roles {
                return Err(invalid(
                    "authentication.oidc needs authorization.mode member or hub: roles accepts static tokens only"
                        .into(),
                ));
            }
        }
        Ok(())
    }

    fn normalise(&mut self, file: &Path) {
        if !self.clusters.iter().any(|c| c.metadata.is_master)
            && let Some(first) = self.clusters.first_mut()
        {
            first.metadata.is_master = true;
        }
        let base = file.parent().unwrap_or_else(|| Path::new(""));
        for entry in &mut self.clusters {
            resolve_path(&mut entry.metadata.config_path, base);
        }
        resolve_path(&mut self.server.tls_cert_file, base);
        resolve_path(&mut self.server.tls_key_file, base);
        resolve_path(&mut self.authentication.client_ca_file, base);
        if let Some(oidc) = &mut self.authentication.oidc {
            for path in [&mut oidc.jwks_file, &mut oidc.ca_file].into_iter().flatten() {
                resolve_path(path, base);
            }
        }
        if self.storage.url.as_deref().is_some_and(|u| u.trim().is_empty()) {
            self.storage.url = None;
        }
    }

    /// The master cluster: the one flagged `isMaster`, else the first. `None` only for a config
    /// without clusters, which [`ServerConfig::load`] never returns.
    pub fn master(&self) -> Option<&ClusterMetadata> {
        self.clusters
            .iter()
            .map(|c| &c.metadata)
            .find(|m| m.is_master)
            .or_else(|| self.clusters.first().map(|c| &c.metadata))
    }

    /// The cluster with this name.
    pub fn cluster(&self, name: &str) -> Option<&ClusterMetadata> {
        self.clusters.iter().map(|c| &c.metadata).find(|m| m.cluster_name == name)
    }
}

/// Makes a non-empty relative path absolute against `base`; `~/` is the home directory.
fn resolve_path(path: &mut String, base: &Path) {
    if path.is_empty() {
        return;
    }
    let resolved = if let Some(rest) = path.strip_prefix("~/") {
        match dirs::home_dir() {
            Some(home) => home.join(rest),
            None => return,
        }
    } else if Path::new(path.as_str()).is_relative() {
        base.join(path.as_str())
    } else {
        return;
    };
    *path = resolved.to_string_lossy().into_owned();
}

fn read_file(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => ConfigError::NotFound { file: path.to_owned() },
        _ => ConfigError::Read { file: path.to_owned(), source },
    })
}

fn parse_yaml<T: de::DeserializeOwned>(text: &str, file: &Path) -> Result<T> {
    serde_saphyr::from_str(text).map_err(|e| {
        let plain = e.without_snippet().to_string();
        let message = plain.split_whitespace().collect::<Vec<_>>().join(" ");
        ConfigError::Yaml { file: file.to_owned(), line: e.location().map(|l| l.line()), message }
    })
}

// ---------------------------------------------------------------------------------------------
// CLI configuration
// ---------------------------------------------------------------------------------------------

/// The CLI's `~/.multi-cluster-operator/config`, with the Go project's keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CliConfig {
    /// Host name or IP of mc-server; may also be a URL (`https://mc.example.com`).
    #[serde(rename = "serverIP", alias = "serverIp")]
    pub server_ip: String,
    /// Port of mc-server; the Go project wrote it as a string, both are accepted.
    #[serde(
        rename = "serverPort",
        default = "default_port",
        deserialize_with = "port_from_number_or_string"
    )]
    pub server_port: u16,
    /// Kubeconfig of the master cluster, used by `apply` and `delete`.
    #[serde(rename = "masterClusterKubeConfigPath", default)]
    pub master_cluster_kube_config_path: String,
    /// Bearer token for mc-server (new, optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// PEM CA bundle that signs mc-server's HTTPS certificate (new, optional; mc-server writes
    /// the path of the CA it made); a relative path is relative to this file's directory.
    #[serde(rename = "certificateAuthority", default, skip_serializing_if = "Option::is_none")]
    pub certificate_authority: Option<String>,
    /// Do not verify mc-server's HTTPS certificate (new, optional; for throwaway tests only).
    #[serde(rename = "insecureSkipTlsVerify", default, skip_serializing_if = "Option::is_none")]
    pub insecure_skip_tls_verify: Option<bool>,
    /// Send the bearer token of the current kubeconfig context's user instead of `token` (new,
    /// optional): mc-server reviews it with the master cluster and answers as that user.
    #[serde(rename = "useKubeconfigUser", default, skip_serializing_if = "Option::is_none")]
    pub use_kubeconfig_user: Option<bool>,
}

impl CliConfig {
    /// `~/.multi-cluster-operator/config`, `None` when there is no home directory.
    pub fn default_path() -> Option<PathBuf> {
        dirs::home_dir().map(|home| home.join(".multi-cluster-operator").join("config"))
    }

    /// Reads a CLI config. A missing file is [`ConfigError::NotFound`] so callers can say how to
    /// create one.
    pub fn load(path: &Path) -> Result<Self> {
        let text = read_file(path)?;
        if text.trim().is_empty() {
            return Err(ConfigError::Invalid { file: path.to_owned(), problem: "file is empty".into() });
        }
        let config: Self = parse_yaml(&text, path)?;
        if config.server_ip.trim().is_empty() {
            return Err(ConfigError::Invalid { file: path.to_owned(), problem: "serverIP is empty".into() });
        }
        if config.server_port == 0 {
            return Err(ConfigError::Invalid {
                file: path.to_owned(),
                problem: "serverPort must not be 0".into(),
            });
        }
        Ok(config)
    }

    /// Writes the config, creating its directory. The file is private to the user (it may hold a
    /// token).
    pub fn save(&self, path: &Path) -> Result<()> {
        let write_error = |source| ConfigError::Write { file: path.to_owned(), source };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(write_error)?;
        }
        let text = serde_saphyr::to_string(self)
            .map_err(|e| write_error(io::Error::new(io::ErrorKind::InvalidData, e.to_string())))?;
        std::fs::write(path, text).map_err(write_error)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(write_error)?;
        }
        Ok(())
    }

    /// Base URL of mc-server: `http://IP:PORT`. A `serverIP` that already is a URL keeps its
    /// scheme (and its port, if it has one); IPv6 addresses are bracketed.
    pub fn server_url(&self) -> String {
        let ip = self.server_ip.trim().trim_end_matches('/');
        if let Some((scheme, rest)) = ip.split_once("://") {
            let has_port = rest.rsplit_once(':').is_some_and(|(host, port)| {
                !port.is_empty()
                    && port.bytes().all(|b| b.is_ascii_digit())
                    && (!host.contains(':') || host.ends_with(']'))
            });
            return if has_port { ip.to_owned() } else { format!("{scheme}://{rest}:{}", self.server_port) };
        }
        if ip.contains(':') && !ip.starts_with('[') {
            format!("http://[{ip}]:{}", self.server_port)
        } else {
            format!("http://{ip}:{}", self.server_port)
        }
    }
}

fn port_from_number_or_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u16, D::Error> {
    struct PortVisitor;

    impl Visitor<'_> for PortVisitor {
        type Value = u16;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a port number (1-65535), as a number or a string")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u16, E> {
            u16::try_from(v).map_err(|_| E::custom(format!("port {v} is out of range")))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u16, E> {
            u16::try_from(v).map_err(|_| E::custom(format!("port {v} is out of range")))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<u16, E> {
            v.trim().parse().map_err(|_| E::custom(format!("port {v:?} is not a number from 1 to 65535")))
        }
    }

    deserializer.deserialize_any(PortVisitor)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const FILE: &str = "/etc/mc/config.yaml";

    fn load_str(text: &str) -> Result<ServerConfig> {
        ServerConfig::from_yaml(text, Path::new(FILE))
    }

    fn error_line(text: &str) -> String {
        let message = load_str(text).unwrap_err().to_string();
        assert!(!message.contains('\n'), "not one line: {message}");
        message
    }

    #[test]
    fn a_token_mapped_to_a_user_reads_as_that_user_and_is_checked() {
        let base = "clusters: [{metadata: {clusterName: a}}]\n";
        let text = format!(
            "{base}server: {{tokens: [{{token: team-a-token-0123456789, user: ci, groups: [team-a]}}, {{token: plain-read-0123456789}}]}}\n"
        );
        let config = load_str(&text).unwrap();
        assert_eq!(config.server.all_tokens(), [("plain-read-0123456789".to_string(), Role::Read)]);
        assert_eq!(
            config.server.user_tokens(),
            [("team-a-token-0123456789".to_string(), "ci".to_string(), vec!["team-a".to_string()])]
        );
        let refused = |tail: &str| error_line(&format!("{base}{tail}"));
        assert!(
            refused("server: {tokens: [{token: t-0123456789abcdef, groups: [g]}]}")
                .contains("groups needs user")
        );
        assert!(
            refused("server: {tokens: [{token: t-0123456789abcdef, user: ci, role: admin}]}")
                .contains("role admin")
        );
        assert!(
            refused("server: {tokens: [{token: t-0123456789abcdef, user: \"\"}]}")
                .contains("must not be empty")
        );
        let roles = "server: {tokens: [{token: t-0123456789abcdef, user: ci}]}\nauthorization: {mode: roles}";
        assert!(refused(roles).contains("roles knows no users"));
    }

    /// A fresh directory under the system temp dir, removed by the test when done.
    fn temp_dir(tag: &str) -> PathBuf {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mc-types-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `shared/reference/examples/config.yaml`, the Go project's example, verbatim.
    const GO_PROJECT_EXAMPLE: &str = r#"clusters:                     # 集群列表
  - metadata:
      clusterName: tencent1   # 自定义集群名
      insecure: true          # 是否开启跳过 tls 证书认证
      configPath: /app/file/config-tencent1 # kube config 配置文件地址
  - metadata:
      clusterName: tencent2   # 自定义集群名
      insecure: true          # 是否开启跳过 tls 证书认证
      configPath: /app/file/config-tencent2 # kube config 配置文件地址
  - metadata:
      clusterName: tencent4   # 自定义集群名
      insecure: true          # 是否开启跳过 tls 证书认证
      configPath: /app/file/config-tencent4 # kube config 配置文件地址
      isMaster: true          # 标示主集群"#;

    #[test]
    fn the_go_projects_example_config_loads() {
        let config = load_str(GO_PROJECT_EXAMPLE).unwrap();
        let names: Vec<&str> = config.clusters.iter().map(|c| c.metadata.cluster_name.as_str()).collect();
        assert_eq!(names, ["tencent1", "tencent2", "tencent4"]);
        assert_eq!(config.master().unwrap().cluster_name, "tencent4");
        assert!(config.clusters[0].metadata.insecure);
        assert_eq!(config.clusters[0].metadata.config_path, "/app/file/config-tencent1");
        assert_eq!(config.server, ServerSection::default());
        assert_eq!(config.sync, SyncSection::default());
        assert_eq!(config.storage.url, None);
    }

    #[test]
    fn defaults_fill_every_optional_key() {
        let config = load_str("clusters:\n  - metadata:\n      clusterName: a\n").unwrap();
        let m = &config.clusters[0].metadata;
        assert!(!m.insecure);
        assert_eq!(m.config_path, "");
        assert_eq!(m.kubeconfig_path(), None);
        assert_eq!(m.context, None);
        assert!(m.resources.is_empty());
        assert!(m.labels.is_empty());
        assert_eq!(config.server.port, 31888);
        assert_eq!(config.server.bind, "0.0.0.0");
        assert_eq!(config.server.token(), None);
        assert_eq!(config.server.tls(), None);
        assert!(config.server.tls_sans.is_empty());
        assert!(!config.server.plain_http, "HTTPS unless plain http is asked for");
        assert!(!config.server.allow_link_local_joins);
        assert!(config.sync.redact_secrets);
    }

    #[test]
    fn every_documented_key_is_read() {
        let text = r#"
clusters:
  - metadata:
      clusterName: tencent1
      insecure: true
      configPath: /root/.kube/config
      context: prod
      isMaster: true
      resources:
        - rType: apps/v1/deployments
        - rType: v1/pods
      labels:
        env: prod
server: { port: 8080, bind: 127.0.0.1, token: s3cret-s3cret-s3cret, tlsCertFile: /tls/crt, tlsKeyFile: /tls/key, tlsSANs: [mc.example.com, 10.0.0.7], allowLinkLocalJoins: true }
storage: { url: "postgres://mc@db/mc" }
sync: { excludeGroups: [example.com], excludeResources: [leases], redactSecrets: false }
"#;
        let config = load_str(text).unwrap();
        let m = &config.clusters[0].metadata;
        assert_eq!(m.context.as_deref(), Some("prod"));
        assert!(m.is_master && m.insecure);
        assert_eq!(m.resources[0].r_type, "apps/v1/deployments");
        assert_eq!(m.resource_specs().unwrap().len(), 2);
        assert_eq!(m.labels["env"], "prod");
        assert_eq!(config.server.port, 8080);
        assert_eq!(config.server.bind, "127.0.0.1");
        assert_eq!(config.server.token(), Some("s3cret-s3cret-s3cret"));
        assert_eq!(config.server.tls(), Some((Path::new("/tls/crt"), Path::new("/tls/key"))));
        assert_eq!(config.server.tls_sans, ["mc.example.com", "10.0.0.7"]);
        assert!(config.server.allow_link_local_joins);
        assert_eq!(config.storage.url.as_deref(), Some("postgres://mc@db/mc"));
        assert_eq!(config.sync.exclude_groups, ["example.com"]);
        assert_eq!(config.sync.exclude_resources, ["leases"]);
        assert!(!config.sync.redact_secrets);
    }

    #[test]
    fn history_defaults_and_settings() {
        let config = load_str("clusters: [{metadata: {clusterName: a}}]\n").unwrap();
        let h = &config.history;
        assert!(h.enabled);
        assert_eq!(h.max_age().unwrap().as_secs(), 7 * 86_400);
        assert_eq!(h.events_max_age().unwrap().as_secs(), 86_400);
        assert_eq!(h.max_bytes().unwrap(), None);
        assert_eq!(h.exclude_types, ["leases.coordination.k8s.io"]);
        let text = "clusters: [{metadata: {clusterName: a}}]\nhistory:\n  enabled: false\n  maxAge: 1h30m\n  maxBytes: 10Gi\n  includeTypes: [deployments.apps, pods]\n  excludeTypes: []\n  events: {maxAge: 2d}\n";
        let h = load_str(text).unwrap().history;
        assert!(!h.enabled);
        assert_eq!(h.max_age().unwrap().as_secs(), 5400);
        assert_eq!(h.events_max_age().unwrap().as_secs(), 2 * 86_400);
        assert_eq!(h.max_bytes().unwrap(), Some(10 << 30));
        assert_eq!(h.include_types, ["deployments.apps", "pods"]);
        assert!(h.exclude_types.is_empty());
    }

    #[test]
    fn count_indexed_fields_default_to_pods_phase_and_are_checked() {
        let config = load_str("clusters: [{metadata: {clusterName: a}}]\n").unwrap();
        assert_eq!(config.count.indexed_fields, BTreeMap::from([("pods".into(), "status.phase".into())]));
        let text = "clusters: [{metadata: {clusterName: a}}]\ncount: {indexedFields: {}}\n";
        assert!(load_str(text).unwrap().count.indexed_fields.is_empty());
        let text = "clusters: [{metadata: {clusterName: a}}]\ncount:\n  indexedFields: {deployments.apps: 'metadata.labels[\"app\"]'}\n";
        assert_eq!(
            load_str(text).unwrap().count.indexed_fields["deployments.apps"],
            "metadata.labels[\"app\"]"
        );
        for (section, want) in [
            (
                "{indexedFields: {apps/v1/deployments: status.phase}}",
                "count.indexedFields: \"apps/v1/deployments\" is not a type name",
            ),
            ("{indexedFields: {pods: status..phase}}", "count.indexedFields.pods:"),
            ("{indexedFields: {pods: \"\"}}", "count.indexedFields.pods:"),
        ] {
            let text = format!("clusters: [{{metadata: {{clusterName: a}}}}]\ncount: {section}\n");
            let line = error_line(&text);
            assert!(line.contains(want), "{section}: {line}");
            assert!(!line.contains('\n'), "{line}");
        }
    }

    #[test]
    fn bad_history_settings_are_one_line_errors() {
        for (section, want) in [
            ("{maxAge: 7 days}", "history.maxAge: \"7 days\" is not a duration"),
            ("{maxAge: 0d}", "history.maxAge: \"0d\" is zero"),
            ("{maxAge: \"\"}", "history.maxAge"),
            ("{events: {maxAge: 1w}}", "history.events.maxAge: \"1w\" is not a duration"),
            ("{maxBytes: 10GB}", "history.maxBytes: \"10GB\" is not a size"),
            ("{maxBytes: 99999999999999999999}", "history.maxBytes"),
            (
                "{excludeTypes: [apps/v1/deployments]}",
                "history.excludeTypes: \"apps/v1/deployments\" is not a type name",
            ),
            ("{includeTypes: [\"\"]}", "history.includeTypes"),
        ] {
            let text = format!("clusters: [{{metadata: {{clusterName: a}}}}]\nhistory: {section}\n");
            let line = error_line(&text);
            assert!(line.contains(want), "{section}: {line}");
            assert!(!line.contains('\n'), "{line}");
        }
        assert_eq!(parse_bytes("500Mi"), Ok(500 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2_000_000_000));
        assert_eq!(parse_bytes("123"), Ok(123));
        assert_eq!(parse_age("90s").map(|d| d.as_secs()), Ok(90));
        assert!(parse_age("5").is_err());
        assert!(parse_age("m").is_err());
    }

    #[test]
    fn metrics_name_the_types_counted_per_namespace() {
        let text = "clusters: [{metadata: {clusterName: a}}]\nmetrics:\n  namespaceCountsFor: [configmaps, deployments.apps]\n  maxNamespaceSeries: 500\n";
        let config = load_str(text).unwrap();
        assert_eq!(config.metrics.namespace_counts_for, ["configmaps", "deployments.apps"]);
        assert_eq!(config.metrics.max_namespace_series, Some(500));
        let plain = load_str("clusters: [{metadata: {clusterName: a}}]\n").unwrap();
        assert_eq!(plain.metrics, MetricsSection::default());
    }

    #[test]
    fn tokens_carry_roles_and_the_single_token_is_admin() {
        let text = "clusters: [{metadata: {clusterName: a}}]\nserver:\n  token: admin-token-0123456789\n  anonymousRead: true\n  metricsAuth: true\n  tokens:\n    - {token: reader-token-0123456789, role: read}\n    - {token: second-admin-0123456789, role: admin}\n    - {token: default-role-0123456789}\n";
        let config = load_str(text).unwrap();
        assert!(config.server.anonymous_read && config.server.metrics_auth);
        let tokens = config.server.all_tokens();
        assert_eq!(
            tokens,
            vec![
                ("admin-token-0123456789".to_string(), Role::Admin),
                ("reader-token-0123456789".to_string(), Role::Read),
                ("second-admin-0123456789".to_string(), Role::Admin),
                ("default-role-0123456789".to_string(), Role::Read),
            ]
        );
    }

    #[test]
    fn short_or_unprintable_tokens_are_rejected() {
        let short = error_line("clusters: [{metadata: {clusterName: a}}]\nserver: {token: abc}\n");
        assert!(short.contains("server.token is shorter than 16 characters"), "{short}");
        let spaced = error_line(
            "clusters: [{metadata: {clusterName: a}}]\nserver: {tokens: [{token: \"has a space in it!!\"}]}\n",
        );
        assert!(spaced.contains("server.tokens[0].token must be printable ASCII"), "{spaced}");
        let role = load_str(
            "clusters: [{metadata: {clusterName: a}}]\nserver: {tokens: [{token: reader-token-0123456789, role: root}]}\n",
        );
        assert!(role.is_err());
    }

    const OIDC: &str = "clusters: [{metadata: {clusterName: a}}]\nauthentication:\n  oidc:\n";

    #[test]
    fn oidc_keys_are_read_with_kube_apiservers_defaults() {
        let config =
            load_str(&format!("{OIDC}    issuerURL: https://id.example.com\n    clientID: mc\n")).unwrap();
        let oidc = config.authentication.oidc.unwrap();
        assert_eq!(oidc.username_claim, "sub");
        assert_eq!(oidc.signing_algs, [SigningAlg::RS256]);
        assert_eq!(oidc.username_prefix(), "https://id.example.com#");
        assert_eq!(oidc.groups_claim, None);
        assert!(oidc.required_claims.is_empty());

        let text = format!(
            "{OIDC}    issuerURL: https://id.example.com/realms/x\n    clientID: mc\n    usernameClaim: email\n    groupsClaim: groups\n    groupsPrefix: \"oidc:\"\n    requiredClaims: {{hd: example.com}}\n    signingAlgs: [ES256, RS256]\n    jwksFile: keys.json\n    caFile: ~/ca.pem\n"
        );
        let oidc = load_str(&text).unwrap().authentication.oidc.unwrap();
        assert_eq!(oidc.username_prefix(), "", "no prefix for email unless asked");
        assert_eq!(oidc.groups_prefix.as_deref(), Some("oidc:"));
        assert_eq!(oidc.required_claims["hd"], "example.com");
        assert_eq!(oidc.signing_algs, [SigningAlg::ES256, SigningAlg::RS256]);
        assert_eq!(oidc.jwks_file.as_deref(), Some("/etc/mc/keys.json"), "relative to the config file");
        assert!(!oidc.ca_file.unwrap().starts_with('~'));

        let dash = format!(
            "{OIDC}    issuerURL: https://id.example.com\n    clientID: mc\n    usernamePrefix: \"-\"\n"
        );
        assert_eq!(load_str(&dash).unwrap().authentication.oidc.unwrap().username_prefix(), "");
        assert_eq!(
            load_str("clusters: [{metadata: {clusterName: a}}]\nauthentication: {}\n")
                .unwrap()
                .authentication
                .oidc,
            None
        );
    }

    #[test]
    fn an_oidc_issuer_must_be_https_and_its_settings_whole() {
        for (keys, expected) in [
            (
                "issuerURL: http://id.example.com\n    clientID: mc",
                "authentication.oidc.issuerURL \"http://id.example.com\" must start with https://",
            ),
            ("issuerURL: https://\n    clientID: mc", "is not an https URL"),
            ("issuerURL: https://id.example.com#x\n    clientID: mc", "is not an https URL"),
            ("issuerURL: https://id.example.com\n    clientID: \"\"", "clientID must not be empty"),
            (
                "issuerURL: https://id.example.com\n    clientID: mc\n    signingAlgs: []",
                "signingAlgs must not be empty",
            ),
            (
                "issuerURL: https://id.example.com\n    clientID: mc\n    groupsPrefix: x",
                "groupsPrefix needs groupsClaim",
            ),
            ("issuerURL: https://id.example.com\n    clientID: mc\n    caFile: \"\"", "caFile is empty"),
            ("issuerURL: https://id.example.com\n    clientID: mc\n    signingAlgs: [HS256]", "HS256"),
            ("issuerURL: https://id.example.com\n    clientID: mc\n    signingAlgs: [none]", "none"),
            ("clientID: mc", "issuerURL"),
        ] {
            let message = error_line(&format!("{OIDC}    {keys}\n"));
            assert!(message.contains(expected), "{keys}: {message}");
        }
        let roles = format!(
            "{OIDC}    issuerURL: https://id.example.com\n    clientID: mc\nauthorization: {{mode: roles}}\n"
        );
        assert!(error_line(&roles).contains("authentication.oidc needs authorization.mode member or hub"));
    }

    #[test]
    fn unknown_keys_are_ignored() {
        let text =
            "clusters:\n  - metadata:\n      clusterName: a\n      color: blue\n    extra: 1\nmysql: {}\n";
        assert!(load_str(text).is_ok());
    }

    #[test]
    fn declared_links_are_read_and_a_bad_one_is_a_one_line_error() {
        let clusters = "clusters:\n  - metadata: {clusterName: a}\n";
        let ok = format!(
            "{clusters}relations:\n  links:\n    - from: {{group: example.com, resource: widgets}}\n      to: {{resource: configmaps}}\n      fieldPath: spec.configRef.name\n"
        );
        let config = load_str(&ok).unwrap();
        assert_eq!(config.relations.links[0].to.resource, "configmaps");
        assert_eq!(config.relations.links[0].field_path.as_deref(), Some("spec.configRef.name"));
        let both = format!(
            "{clusters}relations: {{links: [{{from: {{resource: widgets}}, to: {{resource: pods}}, fieldPath: a, selector: b}}]}}\n"
        );
        assert_eq!(
            error_line(&both),
            format!("config {FILE}: relations.links[0]: give fieldPath or selector, not both")
        );
        let unknown = format!(
            "{clusters}relations: {{links: [{{from: {{resource: widgets}}, to: {{resource: pods}}, path: a}}]}}\n"
        );
        assert!(error_line(&unknown).contains("unknown field `path`"), "{}", error_line(&unknown));
    }

    #[test]
    fn without_a_flagged_master_the_first_cluster_is_master() {
        let text = "clusters:\n  - metadata: {clusterName: a}\n  - metadata: {clusterName: b}\n";
        let config = load_str(text).unwrap();
        assert!(config.clusters[0].metadata.is_master);
        assert!(!config.clusters[1].metadata.is_master);
        assert_eq!(config.master().unwrap().cluster_name, "a");
    }

    #[test]
    fn master_falls_back_to_the_first_cluster_before_normalisation() {
        let mut config = ServerConfig::default();
        assert!(config.master().is_none());
        config.clusters.push(ClusterEntry {
            metadata: ClusterMetadata { cluster_name: "x".into(), ..Default::default() },
        });
        assert_eq!(config.master().unwrap().cluster_name, "x");
        assert_eq!(config.cluster("x").unwrap().cluster_name, "x");
        assert!(config.cluster("y").is_none());
    }

    #[test]
    fn two_masters_are_rejected_naming_both() {
        let text = "clusters:\n  - metadata: {clusterName: a, isMaster: true}\n  - metadata: {clusterName: b, isMaster: true}\n";
        assert_eq!(
            error_line(text),
            "config /etc/mc/config.yaml: cluster \"b\": isMaster is also set on cluster \"a\"; exactly one cluster may be master"
        );
    }

    #[test]
    fn duplicate_names_are_rejected() {
        let text =
            "clusters:\n  - metadata: {clusterName: tencent2}\n  - metadata: {clusterName: tencent2}\n";
        assert_eq!(
            error_line(text),
            "config /etc/mc/config.yaml: cluster \"tencent2\": duplicate clusterName"
        );
    }

    #[test]
    fn a_missing_cluster_name_is_reported_by_position() {
        let text = "clusters:\n  - metadata: {clusterName: a}\n  - metadata: {configPath: /x}\n";
        assert_eq!(
            error_line(text),
            "config /etc/mc/config.yaml: cluster #2: clusterName is missing or empty"
        );
    }

    #[test]
    fn a_non_dns_label_cluster_name_is_rejected() {
        let message = error_line("clusters:\n  - metadata: {clusterName: Tencent_1}\n");
        assert!(
            message
                .starts_with("config /etc/mc/config.yaml: cluster \"Tencent_1\": clusterName must consist")
        );
    }

    #[test]
    fn no_clusters_is_an_error() {
        assert!(error_line("server: {port: 1}\n").contains("no clusters configured"));
        assert!(error_line("clusters: []\n").contains("no clusters configured"));
    }

    #[test]
    fn an_empty_file_is_an_error() {
        assert_eq!(error_line("  \n"), "config /etc/mc/config.yaml: file is empty");
    }

    #[test]
    fn a_bad_rtype_names_the_cluster_and_the_entry() {
        let text =
            "clusters:\n  - metadata:\n      clusterName: a\n      resources: [{rType: apps//deployments}]\n";
        assert_eq!(
            error_line(text),
            "config /etc/mc/config.yaml: cluster \"a\": resources[0].rType: invalid resource type \"apps//deployments\": empty segment"
        );
    }

    #[test]
    fn an_out_of_range_server_port_says_so() {
        let message = error_line("clusters: [{metadata: {clusterName: a}}]\nserver: {port: 99999}\n");
        assert!(message.contains("port 99999 is out of range"), "{message}");
        let config =
            load_str("clusters: [{metadata: {clusterName: a}}]\nserver: {port: \"8080\"}\n").unwrap();
        assert_eq!(config.server.port, 8080);
    }

    #[test]
    fn half_a_tls_pair_is_rejected() {
        let text = "clusters: [{metadata: {clusterName: a}}]\nserver: {tlsCertFile: /c}\n";
        assert!(error_line(text).contains("tlsCertFile and server.tlsKeyFile must be set together"));
    }

    #[test]
    fn plain_http_is_read_and_excludes_a_certificate() {
        let plain =
            load_str("clusters: [{metadata: {clusterName: a}}]\nserver: {plainHTTP: true}\n").unwrap();
        assert!(plain.server.plain_http);
        let both = "clusters: [{metadata: {clusterName: a}}]\nserver: {plainHTTP: true, tlsCertFile: /c, tlsKeyFile: /k}\n";
        assert!(error_line(both).contains("server.plainHTTP and server.tlsCertFile exclude each other"));
    }

    #[test]
    fn a_client_ca_is_read_resolved_and_needs_https_and_member_authorization() {
        let text = "clusters: [{metadata: {clusterName: a}}]\nauthentication: {clientCAFile: pki/ca.crt}\n";
        assert_eq!(load_str(text).unwrap().authentication.client_ca_file, "/etc/mc/pki/ca.crt");
        let plain = "clusters: [{metadata: {clusterName: a}}]\nserver: {plainHTTP: true}\nauthentication: {clientCAFile: /ca.crt}\n";
        let message = error_line(plain);
        assert!(message.contains("authentication.clientCAFile needs HTTPS"), "{message}");
        let roles = "clusters: [{metadata: {clusterName: a}}]\nauthorization: {mode: roles}\nauthentication: {clientCAFile: /ca.crt}\n";
        assert!(error_line(roles).contains("authorization.mode roles serves static tokens only"));
    }

    #[test]
    fn tls_sans_must_be_addresses_or_dns_names() {
        for ok in ["mc.example.com", "*.mc.example.com", "mc", "10.0.0.7", "fd00::7", "mc.example.com."] {
            assert_eq!(san_problem(ok), None, "{ok}");
        }
        for bad in ["", "mc example", "-mc.example.com", "mc..example.com", "a.*.example.com", "https://mc"] {
            assert!(san_problem(bad).is_some(), "{bad:?}");
        }
        let message = error_line(
            "clusters: [{metadata: {clusterName: a}}]\nserver: {tlsSANs: [ok.example.com, \"a b\"]}\n",
        );
        assert!(
            message.contains("server.tlsSANs[1] \"a b\" is neither an IP address nor a DNS name"),
            "{message}"
        );
    }

    #[test]
    fn an_empty_context_is_rejected() {
        let text = "clusters: [{metadata: {clusterName: a, context: \"\"}}]\n";
        assert!(error_line(text).contains("cluster \"a\": context is empty"));
    }

    #[test]
    fn yaml_errors_name_the_file_and_carry_the_line() {
        let text = "clusters:\n  - metadata:\n      clusterName: a\n      insecure: maybe\n";
        let err = load_str(text).unwrap_err();
        let message = err.to_string();
        assert_eq!(message, "config /etc/mc/config.yaml: invalid boolean at line 4, column 17");
        assert!(matches!(err, ConfigError::Yaml { line: Some(4), .. }), "{err:?}");
    }

    #[test]
    fn broken_yaml_syntax_is_one_line() {
        let message = error_line("clusters:\n  - metadata: {clusterName: a\n");
        assert!(message.starts_with("config /etc/mc/config.yaml: unclosed bracket"), "{message}");
    }

    #[test]
    fn relative_config_paths_resolve_against_the_config_directory() {
        let text = "clusters:\n  - metadata: {clusterName: a, configPath: kube/a.yaml}\n  - metadata: {clusterName: b, configPath: /abs/b}\nserver: {tlsCertFile: tls/c, tlsKeyFile: /k}\n";
        let config = load_str(text).unwrap();
        assert_eq!(config.clusters[0].metadata.config_path, "/etc/mc/kube/a.yaml");
        assert_eq!(config.clusters[1].metadata.config_path, "/abs/b");
        assert_eq!(config.server.tls_cert_file, "/etc/mc/tls/c");
    }

    #[test]
    fn home_relative_config_paths_use_the_home_directory() {
        let config =
            load_str("clusters: [{metadata: {clusterName: a, configPath: ~/.kube/config}}]\n").unwrap();
        if let Some(home) = dirs::home_dir() {
            assert_eq!(Path::new(&config.clusters[0].metadata.config_path), home.join(".kube/config"));
        }
    }

    #[test]
    fn an_empty_storage_url_means_the_default() {
        let config = load_str("clusters: [{metadata: {clusterName: a}}]\nstorage: {url: \"\"}\n").unwrap();
        assert_eq!(config.storage.url, None);
    }

    #[test]
    fn loading_a_missing_file_says_not_found() {
        let err = ServerConfig::load(Path::new("/nonexistent/mc/config.yaml")).unwrap_err();
        assert!(matches!(err, ConfigError::NotFound { .. }));
        assert_eq!(err.to_string(), "config /nonexistent/mc/config.yaml: file not found");
    }

    #[test]
    fn loading_from_disk_resolves_paths_next_to_the_file() {
        let dir = temp_dir("server");
        let file = dir.join("config.yaml");
        std::fs::write(&file, "clusters: [{metadata: {clusterName: a, configPath: a.kubeconfig}}]\n")
            .unwrap();
        let config = ServerConfig::load(&file).unwrap();
        assert_eq!(Path::new(&config.clusters[0].metadata.config_path), dir.join("a.kubeconfig"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn kubeconfig_errors_read_like_the_others() {
        let err = ConfigError::Kubeconfig {
            file: FILE.into(),
            cluster: "tencent1".into(),
            reason: "kubeconfig /root/.kube/config: context \"prod\" not found".into(),
        };
        assert_eq!(
            err.to_string(),
            "config /etc/mc/config.yaml: cluster \"tencent1\": kubeconfig /root/.kube/config: context \"prod\" not found"
        );
    }

    #[test]
    fn sync_skips_unwatchable_and_excluded_types() {
        let info = |group: &str, resource: &str, verbs: &[&str]| ResourceInfo {
            group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            singular: String::new(),
            kind: "K".into(),
            short_names: vec![],
            namespaced: true,
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            categories: Vec::new(),
        };
        let sync = SyncSection { exclude_groups: vec!["example.com".into()], ..Default::default() };
        assert!(sync.should_sync(&info("", "pods", &["list", "watch"])));
        assert!(!sync.should_sync(&info("", "pods", &["list"])));
        assert!(!sync.should_sync(&info("example.com", "widgets", &["list", "watch"])));
        assert!(!sync.should_sync(&info("metrics.k8s.io", "pods", &["list", "watch"])));
    }

    #[test]
    fn admin_namespaces_default_to_the_server_namespace() {
        let none = load_str("clusters: [{metadata: {clusterName: a}}]\n").unwrap();
        assert_eq!(none.dispatch, DispatchSection::default());
        assert_eq!(none.dispatch.admin_namespaces_or("mc-system"), ["mc-system"]);
        let listed = load_str(
            "clusters: [{metadata: {clusterName: a}}]\ndispatch: {adminNamespaces: [ops, default]}\n",
        )
        .unwrap();
        assert_eq!(listed.dispatch.admin_namespaces, ["ops", "default"]);
        assert_eq!(listed.dispatch.admin_namespaces_or("mc-system"), ["ops", "default"]);
    }

    #[test]
    fn an_admin_namespace_that_is_not_a_namespace_name_is_rejected() {
        let upper = error_line(
            "clusters: [{metadata: {clusterName: a}}]\ndispatch: {adminNamespaces: [ops, Kube-System]}\n",
        );
        assert!(
            upper.contains("dispatch.adminNamespaces[1] \"Kube-System\" is not a namespace name")
                && upper.contains("lowercase letters"),
            "{upper}"
        );
        let empty =
            error_line("clusters: [{metadata: {clusterName: a}}]\ndispatch: {adminNamespaces: [\"\"]}\n");
        assert!(
            empty.contains("dispatch.adminNamespaces[0] \"\" is not a namespace name: it must not be empty"),
            "{empty}"
        );
    }

    #[test]
    fn cluster_names_must_be_dns_labels() {
        for ok in ["a", "tencent1", "my-cluster", "0", &"a".repeat(63)] {
            assert_eq!(ClusterName::parse(ok).unwrap().as_str(), ok);
        }
        for bad in ["", "-a", "a-", "A", "a_b", "a.b", "a b", &"a".repeat(64)] {
            assert!(ClusterName::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            ClusterName::parse("a_b").unwrap_err().to_string(),
            "invalid cluster name \"a_b\": must consist of lowercase letters, digits and '-'"
        );
    }

    #[test]
    fn cluster_names_round_trip_through_serde_and_reject_bad_input() {
        let name: ClusterName = serde_json::from_str("\"tencent1\"").unwrap();
        assert_eq!(name, "tencent1");
        assert_eq!(serde_json::to_string(&name).unwrap(), "\"tencent1\"");
        assert!(serde_json::from_str::<ClusterName>("\"Bad\"").is_err());
        assert_eq!("x-1".parse::<ClusterName>().unwrap().to_string(), "x-1");
    }

    // --- CLI config --------------------------------------------------------------------------

    fn cli(text: &str) -> Result<CliConfig> {
        let dir = temp_dir("cli");
        let file = dir.join("config");
        std::fs::write(&file, text).unwrap();
        let result = CliConfig::load(&file);
        std::fs::remove_dir_all(dir).unwrap();
        result
    }

    #[test]
    fn the_go_projects_cli_config_loads() {
        let config =
            cli("serverIP: localhost\nserverPort: 31888\nmasterClusterKubeConfigPath: /root/.kube/config\n")
                .unwrap();
        assert_eq!(config.server_ip, "localhost");
        assert_eq!(config.server_port, 31888);
        assert_eq!(config.master_cluster_kube_config_path, "/root/.kube/config");
        assert_eq!(config.token, None);
        assert_eq!(config.server_url(), "http://localhost:31888");
    }

    #[test]
    fn a_quoted_port_is_accepted() {
        assert_eq!(cli("serverIP: 10.0.0.1\nserverPort: \"8080\"\n").unwrap().server_port, 8080);
        assert_eq!(cli("serverIP: 10.0.0.1\nserverPort: '8081'\n").unwrap().server_port, 8081);
    }

    #[test]
    fn a_bad_port_is_one_clear_line() {
        let err = cli("serverIP: x\nserverPort: abc\n").unwrap_err();
        let message = err.to_string();
        assert!(message.contains("port \"abc\" is not a number"), "{message}");
        assert!(!message.contains('\n'));
        assert!(cli("serverIP: x\nserverPort: 70000\n").unwrap_err().to_string().contains("out of range"));
    }

    #[test]
    fn the_port_defaults_to_31888_and_the_token_is_read() {
        let config = cli("serverIP: mc.local\ntoken: abc\n").unwrap();
        assert_eq!(config.server_port, 31888);
        assert_eq!(config.token.as_deref(), Some("abc"));
    }

    #[test]
    fn a_cli_config_without_server_ip_is_rejected() {
        assert!(cli("serverPort: 1\n").unwrap_err().to_string().contains("serverIP"));
        assert!(cli("serverIP: \"\"\n").unwrap_err().to_string().contains("serverIP is empty"));
        assert!(cli("").unwrap_err().to_string().ends_with("file is empty"));
    }

    #[test]
    fn a_missing_cli_config_is_not_found() {
        assert!(matches!(
            CliConfig::load(Path::new("/nonexistent/.multi-cluster-operator/config")),
            Err(ConfigError::NotFound { .. })
        ));
    }

    #[test]
    fn save_creates_the_directory_and_round_trips() {
        let dir = temp_dir("save");
        let file = dir.join(".multi-cluster-operator").join("config");
        let config = CliConfig {
            server_ip: "localhost".into(),
            server_port: 31888,
            master_cluster_kube_config_path: "/root/.kube/config".into(),
            token: Some("t".into()),
            certificate_authority: Some("/etc/mc/ca.crt".into()),
            insecure_skip_tls_verify: None,
            use_kubeconfig_user: None,
        };
        config.save(&file).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("serverIP: localhost"), "{text}");
        assert!(text.contains("serverPort: 31888"), "{text}");
        assert!(text.contains("masterClusterKubeConfigPath: /root/.kube/config"), "{text}");
        assert_eq!(CliConfig::load(&file).unwrap(), config);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn server_url_handles_ipv6_and_full_urls() {
        let with = |ip: &str| CliConfig {
            server_ip: ip.into(),
            server_port: 31888,
            master_cluster_kube_config_path: String::new(),
            token: None,
            certificate_authority: None,
            insecure_skip_tls_verify: None,
            use_kubeconfig_user: None,
        };
        assert_eq!(with("::1").server_url(), "http://[::1]:31888");
        assert_eq!(with("[::1]").server_url(), "http://[::1]:31888");
        assert_eq!(with("https://mc.example.com").server_url(), "https://mc.example.com:31888");
        assert_eq!(with("https://mc.example.com:443/").server_url(), "https://mc.example.com:443");
        assert_eq!(with("http://[::1]").server_url(), "http://[::1]:31888");
    }

    #[test]
    fn the_default_cli_path_is_under_home() {
        if let Some(home) = dirs::home_dir() {
            assert_eq!(CliConfig::default_path().unwrap(), home.join(".multi-cluster-operator/config"));
        }
    }
}
