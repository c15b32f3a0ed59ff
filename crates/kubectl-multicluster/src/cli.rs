//! Command line: clap derive structs whose doc comments are the help text.
//!
//! The Go project's CLI spellings keep working: `--clusterName=x`, `--name=x`,
//! `--namespace=x`, `--file=x`, and a resource type without the `list` verb
//! (`kubectl multicluster v1/configmaps --clusterName=tencent2`, see [`normalize_args`]).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueHint};

use crate::created_since::CreatedSince;

/// Query, apply and join across many Kubernetes clusters through mc-server.
///
/// Reads ~/.multi-cluster-operator/config (serverIP, serverPort, masterClusterKubeConfigPath,
/// token, useKubeconfigUser), written by `config set`. --server/--token or MC_SERVER/MC_TOKEN
/// override it; KUBECTL_MULTICLUSTER_CONFIG names another config file.
#[derive(Debug, Parser)]
#[command(name = "kubectl-multicluster", bin_name = "kubectl multicluster", version, max_term_width = 100)]
pub struct Cli {
    /// mc-server URL (https://HOST:PORT, http://HOST:PORT or HOST:PORT); overrides the config
    /// file [env: MC_SERVER]
    #[arg(long, global = true, value_name = "URL")]
    pub server: Option<String>,

    /// Bearer token for mc-server; overrides the config file [env: MC_TOKEN]
    #[arg(long, global = true, value_name = "TOKEN")]
    pub token: Option<String>,

    /// PEM CA bundle that signs mc-server's HTTPS certificate; overrides certificateAuthority in
    /// the config file [env: MC_CERTIFICATE_AUTHORITY]
    #[arg(long, global = true, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub certificate_authority: Option<PathBuf>,

    /// Do not verify mc-server's HTTPS certificate (throwaway tests only) [env:
    /// MC_INSECURE_SKIP_TLS_VERIFY]
    #[arg(long, global = true)]
    pub insecure_skip_tls_verify: bool,

    /// Act as the current kubeconfig context's user: send its bearer token (token, tokenFile or
    /// exec plugin, as kubectl gets it) instead of --token; mc-server answers as that user of
    /// the master cluster. =false turns useKubeconfigUser off [env: MC_KUBECONFIG_USER]
    #[arg(
        long,
        global = true,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true"
    )]
    pub kubeconfig_user: Option<bool>,

    /// Debug logs on stderr (-vv for more)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List objects of one or more resource types in every cluster, or `list clusters`.
    ///
    /// RESOURCE is any form of resource type: v1/pods, core/v1/pods, apps/v1/deployments,
    /// v1/apps/deployments, apps.v1.deployments, or a name the server resolves: pods, pod, po,
    /// Deployment, deployments.apps (against the Go project's server, which cannot, the plugin
    /// resolves it: built-in types, then the master cluster's discovery). Several types
    /// (deploy,svc,cm) or `all` (the types of kubectl's category all) print one table per type,
    /// names as kind.group/name, as kubectl prints them; -o json|yaml prints one List of all.
    #[command(visible_alias = "get")]
    List(ListArgs),
    /// Print objects as YAML, one document per cluster, headed `# cluster: NAME`.
    Describe(DescribeArgs),
    /// Create or update objects in the master cluster (server-side apply).
    Apply(ApplyArgs),
    /// Delete objects from the master cluster, by file or by type and name.
    Delete(DeleteArgs),
    /// Register a cluster with mc-server; it is synced from then on.
    Join(JoinArgs),
    /// Remove a cluster from mc-server and forget its objects.
    Unjoin(UnjoinArgs),
    /// Ask what a user may do in each cluster (`auth can-i`).
    Auth(AuthArgs),
    /// Print the logs of a pod, or of a workload's pods, in every cluster that has it
    ///
    /// TYPE/NAME is a pod (NAME or pod/NAME), or deploy/, sts/, ds/, rs/ or job/NAME: the pods
    /// its selector selects, in each cluster that has it. Every container of each pod unless
    /// --container. Lines of several streams are merged as they come, each prefixed
    /// [CLUSTER/POD/CONTAINER] (coloured on a terminal). -c is the cluster, as everywhere in
    /// this plugin; kubectl's -c (the container) is --container here. A cluster whose log
    /// cannot be read is said on stderr and the others go on; the exit code is then 1.
    ///
    ///   kubectl multicluster logs deploy/web -n shop -f --tail 10
    ///   kubectl multicluster logs web-7dbf7cc5-8llgr -c tencent1 --container web --since 1h
    #[command(verbatim_doc_comment)]
    Logs(LogsArgs),
    /// Print the CPU and memory use of pods or nodes in every cluster (kubectl top's columns)
    ///
    /// Read through mc-server from the metrics.k8s.io API of each member that serves it
    /// (metrics-server). Node percentages are of the node's allocatable, from the nodes mc-server
    /// has synced. Clusters without metrics are said on stderr; it is an error only when no
    /// cluster asked has any.
    ///
    ///   kubectl multicluster top pods -A -l app=web
    ///   kubectl multicluster top nodes -c tencent1
    #[command(verbatim_doc_comment)]
    Top(TopArgs),
    /// Print an object and what is related to it, one tree per cluster
    ///
    /// What it owns down to pods (any kind, through owner references), a Service's
    /// EndpointSlices and their Pods, an Ingress's Services, an autoscaler's target, then what
    /// each Pod uses: its Node, claims and volumes, ConfigMaps, Secrets and ServiceAccount (a
    /// missing one says Missing). A MultiClusterResource shows the object it applied in each
    /// placed cluster.
    ///
    ///   kubectl multicluster tree deploy/web -n shop
    ///   kubectl multicluster tree svc web -n shop -c tencent1 -o json
    #[command(verbatim_doc_comment)]
    Tree(TreeArgs),
    /// Find objects of every type by free text, in every cluster
    ///
    /// Looks in names, namespaces, label and annotation keys and values, container images and
    /// owner names; case is ignored; at least 3 characters. Best first: the name equal to the
    /// text, then starting with it, then containing it, then a match elsewhere; MATCHED says
    /// what matched. Only types you may list, in namespaces you may read.
    ///
    ///   kubectl multicluster search redis:6.2
    ///   kubectl multicluster search web -n shop --kind deploy,svc
    ///   kubectl multicluster search team-payments -c tencent1 -o wide
    #[command(verbatim_doc_comment)]
    Search(SearchArgs),
    /// Print the changes of an object, oldest first, in every cluster that has it
    ///
    /// REVISION, TIME, CHANGE (ADDED, MODIFIED, DELETED) and the fields each change touched, as
    /// JSON paths; a change found by listing after mc-server was not watching says since when.
    /// Revisions are kept by mc-server (history.maxAge, 7 days by default).
    ///
    ///   kubectl multicluster history deploy/web -n shop
    ///   kubectl multicluster history deploy/web -n shop --cluster tencent1 -o yaml
    #[command(verbatim_doc_comment)]
    History(HistoryArgs),
    /// Print two revisions of an object as a unified YAML diff
    ///
    /// --revision A..B compares revision A with B, --revision B compares B with the revision of
    /// the same object before it; without it, the object's last two revisions. Fields the API
    /// server changes with every write (resourceVersion, generation, managedFields) are left out.
    ///
    ///   kubectl multicluster diff deploy/web -n shop --cluster tencent1
    ///   kubectl multicluster diff deploy/web --revision 1041..1187
    #[command(verbatim_doc_comment)]
    Diff(DiffArgs),
    /// Print the Events of every cluster, kept after their cluster expired them, newest last
    ///
    ///   kubectl multicluster events -A --since 24h --type Warning
    ///   kubectl multicluster events -n shop --for deploy/web
    #[command(verbatim_doc_comment)]
    Events(EventsArgs),
    /// Count objects of one type in every cluster, by cluster, namespace, fields or columns
    ///
    /// --by takes keys separated by commas: cluster, namespace, a field path of the objects
    /// (status.phase, spec.containers[0].image, metadata.labels["app.kubernetes.io/name"]) or
    /// a column kubectl prints for the type (status, ready, nominated-node). mc-server counts
    /// fields in its database; a printed column, which kubectl computes (a pod's STATUS says
    /// CrashLoopBackOff where status.phase says Running), is computed object by object, as a
    /// list would. A missing value counts as <none>. Only what you may list is counted.
    ///
    ///   kubectl multicluster count pods --by cluster,status.phase
    ///   kubectl multicluster count pods -A --by namespace,status -l app=web
    ///   kubectl multicluster count configmaps --by cluster,namespace -o json
    #[command(verbatim_doc_comment)]
    Count(CountArgs),
    /// Print a kubeconfig for mc-server's read-only Kubernetes API
    ///
    /// Context `multicluster` reads every cluster, `multicluster-NAME` one cluster; all use the
    /// server URL, token and CA of this plugin's settings. kubectl sends a token only over
    /// https, so the server should run with TLS:
    ///
    ///   kubectl multicluster kubeconfig > ~/.kube/mc
    ///   KUBECONFIG=~/.kube/mc kubectl --context multicluster-tencent2 get pods -A
    #[command(verbatim_doc_comment)]
    Kubeconfig,
    /// Write or show the config file (~/.multi-cluster-operator/config).
    Config(ConfigArgs),
    /// Print a shell completion script.
    Completion(CompletionArgs),
    /// Completion candidates for kubectl's plugin completion (kubectl_complete-multicluster):
    /// the words typed after `kubectl multicluster`, the last one being completed.
    #[command(name = "__complete", hide = true)]
    Complete(CompleteArgs),
}

/// Arguments of `logs`.
#[derive(Debug, Args)]
pub struct LogsArgs {
    /// A pod's NAME, pod/NAME, or deploy/NAME, sts/NAME, ds/NAME, rs/NAME, job/NAME
    #[arg(value_name = "TYPE/NAME")]
    pub target: String,

    /// In this namespace
    #[arg(short, long, value_name = "NAMESPACE", default_value = "default")]
    pub namespace: String,

    /// Only these clusters: a,b (repeatable; default: every cluster)
    #[arg(
        short = 'c',
        long = "cluster",
        visible_aliases = ["clusterName", "cluster-name"],
        value_name = "CLUSTER",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,

    /// Only this container of each pod (default: every container)
    #[arg(long, value_name = "CONTAINER")]
    pub container: Option<String>,

    /// Keep streaming new lines until interrupted
    #[arg(short, long)]
    pub follow: bool,

    /// Only the last N lines of each log (default, or -1: all)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub tail: Option<i64>,

    /// Only lines newer than this: 30s, 5m, 2h
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<Duration>,

    /// Begin each line with its time (RFC 3339)
    #[arg(long)]
    pub timestamps: bool,

    /// Prefix each line with [CLUSTER/POD/CONTAINER]; =false prints the bare lines
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_value = "true",
        default_missing_value = "true"
    )]
    pub prefix: bool,
}

/// What `top` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopKind {
    /// `pods`, `pod`, `po`.
    Pods,
    /// `nodes`, `node`, `no`.
    Nodes,
}

impl TopKind {
    /// kubectl's spellings.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "pods" | "pod" | "po" => Ok(TopKind::Pods),
            "nodes" | "node" | "no" => Ok(TopKind::Nodes),
            _ => Err(format!("{text:?}: top reads pods or nodes")),
        }
    }
}

/// Arguments of `count`.
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Resource type (pods, deploy, apps/v1/deployments, …)
    #[arg(value_name = "RESOURCE")]
    pub resource: String,

    /// What to count by, separated by commas: cluster, namespace, a field path (status.phase)
    /// or a printed column (status)
    #[arg(long, value_name = "KEYS", default_value = "cluster")]
    pub by: String,

    /// Only this namespace (default: all namespaces)
    #[arg(short, long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// All namespaces (the default; accepted for kubectl habits)
    #[arg(short = 'A', long = "all-namespaces", conflicts_with = "namespace")]
    pub all_namespaces: bool,

    /// Only these clusters: a,b (repeatable; default: every cluster)
    #[arg(
        short = 'c',
        long = "cluster",
        visible_aliases = ["clusterName", "cluster-name"],
        value_name = "CLUSTER",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,

    /// Only objects whose labels match: app=web,tier!=db
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Only objects whose fields match: status.phase=Running, spec.nodeName=
    #[arg(long = "field-selector", value_name = "SELECTOR")]
    pub field_selector: Option<String>,

    /// Output format (default: a table): json
    #[arg(short, long, value_name = "FORMAT", value_parser = ["json"])]
    pub output: Option<String>,

    /// Leave out the header line
    #[arg(long)]
    pub no_headers: bool,
}

/// Arguments of `top`.
#[derive(Debug, Args)]
pub struct TopArgs {
    /// pods (pod, po) or nodes (node, no)
    #[arg(value_name = "pods|nodes", value_parser = TopKind::parse)]
    pub kind: TopKind,

    /// Pods in this namespace
    #[arg(short, long, value_name = "NAMESPACE", default_value = "default")]
    pub namespace: String,

    /// Pods in every namespace
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Only objects whose labels match: app=web,tier!=db
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Only these clusters: a,b (repeatable; default: every cluster)
    #[arg(
        short = 'c',
        long = "cluster",
        visible_aliases = ["clusterName", "cluster-name"],
        value_name = "CLUSTER",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,
}

/// `search` arguments.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The text to find (3 to 253 characters)
    #[arg(value_name = "TEXT")]
    pub text: String,

    /// Only this namespace (default: all namespaces, as list)
    #[arg(short, long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// All namespaces (the default; accepted for kubectl habits)
    #[arg(short = 'A', long = "all-namespaces", conflicts_with = "namespace")]
    pub all_namespaces: bool,

    /// Only this cluster (default: every cluster)
    #[arg(short = 'c', long = "cluster", visible_aliases = ["clusterName", "cluster-name"], value_name = "CLUSTER")]
    pub cluster: Option<String>,

    /// Only these types: deploy,svc (any name list takes; repeatable)
    #[arg(long = "kind", value_name = "KIND", value_delimiter = ',')]
    pub kinds: Vec<String>,

    /// The best N objects (1 to 1000)
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub limit: u32,

    /// Output format (default: a table): wide, json, yaml or name
    #[arg(short, long, value_name = "FORMAT", value_parser = ["wide", "json", "yaml", "name"])]
    pub output: Option<String>,

    /// Leave out the header line
    #[arg(long)]
    pub no_headers: bool,
}

/// `tree` arguments.
#[derive(Debug, Args)]
pub struct TreeArgs {
    /// TYPE/NAME (deploy/web), or TYPE with NAME after it
    #[arg(value_name = "TYPE/NAME")]
    pub target: String,

    /// The name, when TYPE is given alone
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// The object's namespace
    #[arg(short, long, value_name = "NAMESPACE", default_value = "default")]
    pub namespace: String,

    /// Only this cluster (default: every cluster that has the object)
    #[arg(short = 'c', long = "cluster", value_name = "CLUSTER")]
    pub cluster: Option<String>,

    /// json or yaml (default: the tree as a table)
    #[arg(short, long, value_name = "FORMAT", value_parser = ["json", "yaml"])]
    pub output: Option<String>,
}

impl TreeArgs {
    /// `(type, name)` from `TYPE/NAME` or `TYPE NAME`.
    pub fn target(&self) -> anyhow::Result<(String, String)> {
        match (&self.name, self.target.rsplit_once('/')) {
            (Some(name), _) => Ok((self.target.clone(), name.clone())),
            (None, Some((t, n))) if !t.is_empty() && !n.is_empty() => Ok((t.to_string(), n.to_string())),
            _ => anyhow::bail!("tree needs TYPE/NAME (deploy/web) or TYPE NAME, got {:?}", self.target),
        }
    }
}

/// Output formats of `list`, as `-o` takes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// The table with extra columns.
    Wide,
    /// A YAML `List`; each item carries its cluster in an annotation.
    Yaml,
    /// A JSON `List`; each item carries its cluster in an annotation.
    Json,
    /// `CLUSTER/KIND.GROUP/NAME`, one per line.
    Name,
    /// `jsonpath=TEMPLATE`: kubectl's JSONPath template over the `-o json` List (checked when
    /// `list` runs, so a bad template is a one-line error).
    JsonPath(String),
    /// `custom-columns=HEADER:PATH,…`: one column per path (checked when `list` runs).
    CustomColumns(String),
    /// The table's columns as CSV (RFC 4180).
    Csv,
    /// The table's columns as TSV (tabs and newlines in cells escaped as `\t`, `\n`).
    Tsv,
}

impl OutputFormat {
    /// Parses `-o`: `wide`, `yaml`, `json`, `name`, `csv`, `tsv`, `jsonpath=TEMPLATE`,
    /// `custom-columns=SPEC`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (format, argument) = match text.split_once('=') {
            Some((format, argument)) => (format, Some(argument)),
            None => (text, None),
        };
        match (format, argument) {
            ("wide", None) => Ok(Self::Wide),
            ("yaml", None) => Ok(Self::Yaml),
            ("json", None) => Ok(Self::Json),
            ("name", None) => Ok(Self::Name),
            ("csv", None) => Ok(Self::Csv),
            ("tsv", None) => Ok(Self::Tsv),
            ("jsonpath", Some(template)) if !template.is_empty() => Ok(Self::JsonPath(template.to_owned())),
            ("custom-columns", Some(spec)) if !spec.is_empty() => Ok(Self::CustomColumns(spec.to_owned())),
            ("jsonpath", _) => {
                Err("jsonpath needs a template: -o jsonpath='{.items[*].metadata.name}'".into())
            }
            ("custom-columns", _) => {
                Err("custom-columns needs columns: -o custom-columns=NAME:.metadata.name".into())
            }
            _ => {
                Err("expected wide, yaml, json, name, csv, tsv, jsonpath=TEMPLATE or custom-columns=SPEC"
                    .into())
            }
        }
    }

    /// The clap parser of `-o`: [`OutputFormat::parse`], with the formats as possible values for
    /// help and shell completion.
    pub fn value_parser() -> OutputFormatParser {
        OutputFormatParser
    }

    /// Whether this is `-o wide`.
    pub fn is_wide(format: Option<&Self>) -> bool {
        format == Some(&Self::Wide)
    }
}

/// Parses `-o` through [`OutputFormat::parse`].
#[derive(Clone, Copy, Debug)]
pub struct OutputFormatParser;

impl clap::builder::TypedValueParser for OutputFormatParser {
    type Value = OutputFormat;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<OutputFormat, clap::Error> {
        let text = clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)?;
        OutputFormat::parse(&text).map_err(|reason| {
            let arg = arg.map_or_else(|| "--output".to_owned(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{arg}': {reason}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        use clap::builder::PossibleValue;
        Some(Box::new(
            [
                PossibleValue::new("wide").help("The table with extra columns"),
                PossibleValue::new("yaml")
                    .help("A YAML `List`; each item carries its cluster in an annotation"),
                PossibleValue::new("json")
                    .help("A JSON `List`; each item carries its cluster in an annotation"),
                PossibleValue::new("name").help("`CLUSTER/KIND.GROUP/NAME`, one per line"),
                PossibleValue::new("csv").help("The table's columns as CSV (RFC 4180, CRLF line ends)"),
                PossibleValue::new("tsv").help("The table's columns as TSV (\\t, \\n, \\r, \\\\ escaped)"),
                PossibleValue::new("jsonpath=").help("kubectl's JSONPath template over the -o json List"),
                PossibleValue::new("custom-columns=").help("HEADER:PATH,… columns"),
            ]
            .into_iter(),
        ))
    }
}

/// Filters shared by `list` and `describe`.
#[derive(Debug, Args)]
pub struct Filters {
    /// Only these clusters, listed in this order: a,b (repeatable)
    #[arg(
        short = 'c',
        long = "clusterName",
        visible_aliases = ["cluster-name", "cluster"],
        value_name = "CLUSTER",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,

    /// Only this namespace (default: all namespaces)
    #[arg(short, long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Only objects with this name (same as the NAME argument)
    #[arg(long = "name", value_name = "NAME")]
    pub name_flag: Option<String>,

    /// Label selector: app=web, env!=prod, tier in (a,b), !canary
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Field selector: metadata.name, metadata.namespace, status.phase, spec.nodeName
    #[arg(long = "field-selector", value_name = "SELECTOR")]
    pub field_selector: Option<String>,
}

/// `list` arguments.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Resource type (v1/pods, apps/v1/deployments, pods, deploy, …), several (deploy,svc,cm),
    /// `all`, or `clusters`
    #[arg(value_name = "RESOURCE")]
    pub resource: String,

    /// Only objects with this name
    #[arg(value_name = "NAME", conflicts_with = "name_flag")]
    pub name: Option<String>,

    /// Filters.
    #[command(flatten)]
    pub filters: Filters,

    /// Only objects created within this long (30m, 2h, 7d, 1h30m) or since this RFC 3339 time
    /// (2024-05-01T10:00:00Z)
    #[arg(long, value_name = "DURATION|TIME", value_parser = CreatedSince::parse)]
    pub created_since: Option<CreatedSince>,

    /// All namespaces (the default; accepted for kubectl habits)
    #[arg(short = 'A', long = "all-namespaces", conflicts_with = "namespace")]
    pub all_namespaces: bool,

    /// Only objects owned at any depth by this object, in each cluster: deploy/web lists the
    /// Pods of its ReplicaSets (one type; not with --watch, --deleted or --at)
    #[arg(long, value_name = "TYPE/NAME", conflicts_with_all = ["watch", "deleted", "at"])]
    pub owner: Option<String>,

    /// At most this many objects in all, across clusters and types, after --sort-by (default:
    /// all); a cut answer says so on stderr
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,

    /// Output format (default: a table): wide, yaml, json, name, csv, tsv, jsonpath=TEMPLATE,
    /// custom-columns=HEADER:PATH,…
    #[arg(short, long, value_name = "FORMAT", value_parser = OutputFormat::value_parser(), hide_possible_values = true)]
    pub output: Option<OutputFormat>,

    /// Add a column per label key to the table: -L app,app.kubernetes.io/version (repeatable)
    #[arg(short = 'L', long = "label-columns", value_name = "KEY", value_delimiter = ',')]
    pub label_columns: Vec<String>,

    /// Sort the rows of every cluster by a JSONPath (.metadata.name, {.status.phase}) or by a
    /// printed column (AGE, STATUS: ages and numbers by value)
    #[arg(long, value_name = "JSONPATH|COLUMN")]
    pub sort_by: Option<String>,

    /// After listing, keep printing objects as they change
    #[arg(short, long)]
    pub watch: bool,

    /// With --watch, prefix each row with the event type (ADDED, MODIFIED, DELETED)
    #[arg(long)]
    pub output_watch_events: bool,

    /// Leave out the header line
    #[arg(long)]
    pub no_headers: bool,

    /// The objects deleted since --since (default 1h), each as it last was, with when it went
    #[arg(long, conflicts_with_all = ["watch", "at"])]
    pub deleted: bool,

    /// With --deleted: since this time, RFC 3339 or a duration ago (2h, 30m, 7d)
    #[arg(long, value_name = "TIME", requires = "deleted")]
    pub since: Option<String>,

    /// The objects as they stood at this time: RFC 3339 or a duration ago (30m, 2h)
    #[arg(long, value_name = "TIME", conflicts_with = "watch")]
    pub at: Option<String>,
}

impl ListArgs {
    /// The name to filter on, from the argument or `--name`.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref().or(self.filters.name_flag.as_deref())
    }
}

/// Which object a history command is about: `TYPE/NAME` or `TYPE NAME`, and where.
#[derive(Debug, Args)]
pub struct ObjectArgs {
    /// deploy/web, pod/x, apps/v1/deployments/web, or a TYPE followed by NAME
    #[arg(value_name = "TYPE/NAME")]
    pub target: String,

    /// The name, when TYPE was given alone
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// In this namespace (default: every namespace)
    #[arg(short, long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Only these clusters: a,b (repeatable; default: every cluster)
    #[arg(
        short = 'c',
        long = "cluster",
        visible_aliases = ["clusterName", "cluster-name"],
        value_name = "CLUSTER",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,
}

impl ObjectArgs {
    /// The type and the name, or why they cannot be told apart.
    pub fn type_and_name(&self) -> Result<(&str, &str), String> {
        match (&self.name, self.target.rsplit_once('/')) {
            (Some(name), _) => Ok((self.target.as_str(), name.as_str())),
            (None, Some((kind, name))) if !kind.is_empty() && !name.is_empty() => Ok((kind, name)),
            _ => Err(format!(
                "expected TYPE/NAME (deploy/web) or TYPE NAME, got {:?}",
                self.target.chars().take(100).collect::<String>()
            )),
        }
    }
}

/// `history` arguments.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The object.
    #[command(flatten)]
    pub object: ObjectArgs,

    /// The newest N revisions of each cluster's object (default 100, at most 1000)
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,

    /// Output format (default: a table): yaml or json, each revision with its object
    #[arg(short, long, value_name = "FORMAT", value_parser = ["yaml", "json"])]
    pub output: Option<String>,

    /// Leave out the header line
    #[arg(long)]
    pub no_headers: bool,
}

/// `diff` arguments.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The object.
    #[command(flatten)]
    pub object: ObjectArgs,

    /// A..B (two revisions) or B (B and the revision before it)
    #[arg(long, value_name = "A..B")]
    pub revision: Option<String>,
}

/// `events` arguments.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// In this namespace (default: every namespace)
    #[arg(short, long, value_name = "NAMESPACE", conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,

    /// Every namespace (the default; accepted for kubectl habits)
    #[arg(short = 'A', long = "all-namespaces")]
    pub all_namespaces: bool,

    /// Only these clusters: a,b (repeatable; default: every cluster)
    #[arg(
        short = 'c',
        long = "cluster",
        visible_aliases = ["clusterName", "cluster-name"],
        value_name = "CLUSTER",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,

    /// Events seen since this time: RFC 3339 or a duration ago (default 1h; 24h, 7d)
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// Only Events about this object: TYPE/NAME (deploy/web, pod/x) or NAME
    #[arg(long = "for", value_name = "TYPE/NAME")]
    pub for_object: Option<String>,

    /// Only Events with this reason (BackOff, FailedScheduling, …)
    #[arg(long, value_name = "REASON")]
    pub reason: Option<String>,

    /// Only Events of this type: Normal or Warning
    #[arg(long = "type", value_name = "TYPE")]
    pub event_type: Option<String>,

    /// The newest N Events (default: every one, at most 50,000)
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,

    /// Output format (default: a table): yaml or json
    #[arg(short, long, value_name = "FORMAT", value_parser = ["yaml", "json"])]
    pub output: Option<String>,

    /// Leave out the header line
    #[arg(long)]
    pub no_headers: bool,
}

/// `describe` arguments.
#[derive(Debug, Args)]
pub struct DescribeArgs {
    /// Resource type (v1/pods, apps/v1/deployments, pods, deploy, …)
    #[arg(value_name = "RESOURCE")]
    pub resource: String,

    /// Name of the object (same as --name); without one, every matching object
    #[arg(value_name = "NAME", conflicts_with = "name_flag")]
    pub name: Option<String>,

    /// Filters.
    #[command(flatten)]
    pub filters: Filters,

    /// After each object, its neighbours one step away in its cluster: owner, owned objects,
    /// and what it links to (node, volumes, ConfigMaps, Secrets, endpoints, backends, …)
    #[arg(long)]
    pub related: bool,
}

impl DescribeArgs {
    /// The name to filter on, from the argument or `--name`.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref().or(self.filters.name_flag.as_deref())
    }
}

/// How to reach the master cluster.
#[derive(Debug, Args)]
pub struct MasterArgs {
    /// Kubeconfig of the master cluster (default: masterClusterKubeConfigPath from the config)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub kubeconfig: Option<PathBuf>,

    /// Context in that kubeconfig (default: its current context)
    #[arg(long, value_name = "CONTEXT")]
    pub context: Option<String>,
}

/// `apply` arguments.
#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// YAML or JSON manifest, directory of manifests, or - for stdin (repeatable)
    #[arg(short, long = "file", value_name = "FILE", required = true, value_hint = ValueHint::AnyPath)]
    pub files: Vec<String>,

    /// Namespace for objects that name none (default: the kubeconfig's, else default)
    #[arg(short, long)]
    pub namespace: Option<String>,

    /// The master cluster.
    #[command(flatten)]
    pub master: MasterArgs,
}

/// `delete` arguments.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// Resource type, then one or more names (instead of -f)
    #[arg(value_name = "RESOURCE NAME", conflicts_with = "files")]
    pub target: Vec<String>,

    /// Delete the objects of these manifests (repeatable; - for stdin)
    #[arg(short, long = "file", value_name = "FILE", value_hint = ValueHint::AnyPath)]
    pub files: Vec<String>,

    /// Namespace of the objects (default: the kubeconfig's, else default)
    #[arg(short, long)]
    pub namespace: Option<String>,

    /// A missing object is not an error
    #[arg(long)]
    pub ignore_not_found: bool,

    /// Wait until the objects are gone (finalizers done)
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub wait: bool,

    /// How long --wait waits, e.g. 30s, 5m
    #[arg(long, default_value = "5m", value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Duration,

    /// The master cluster.
    #[command(flatten)]
    pub master: MasterArgs,
}

/// `join` arguments.
#[derive(Debug, Args)]
pub struct JoinArgs {
    /// Name for the cluster (a DNS label, e.g. tencent4)
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Kubeconfig of the cluster
    #[arg(short, long, value_name = "KUBECONFIG", value_hint = ValueHint::FilePath)]
    pub file: PathBuf,

    /// Skip TLS verification of the cluster's API server
    #[arg(long)]
    pub insecure: bool,

    /// Context in the kubeconfig (default: its current context)
    #[arg(long, value_name = "CONTEXT")]
    pub context: Option<String>,

    /// Wait until the cluster is Synced (every type listed and stored), showing progress
    #[arg(long)]
    pub wait: bool,

    /// How long --wait waits, e.g. 90s or 5m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: Duration,
}

/// `unjoin` arguments.
#[derive(Debug, Args)]
pub struct UnjoinArgs {
    /// The cluster to remove
    #[arg(value_name = "NAME")]
    pub name: String,
}

/// `auth` arguments.
#[derive(Debug, Args)]
pub struct AuthArgs {
    /// The question.
    #[command(subcommand)]
    pub command: AuthCommand,
}

/// `auth` verbs.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Whether an action is allowed, cluster by cluster, as each cluster's RBAC decides
    ///
    /// Asks mc-server, which answers from each member's Roles and bindings as that member would
    /// answer `kubectl auth can-i`, for the caller: the user of the token sent (with
    /// --kubeconfig-user, the current kubeconfig context's user). Prints one line per cluster;
    /// exits 0 when the action is allowed in every cluster asked, 1 otherwise.
    ///
    ///   kubectl multicluster auth can-i list pods -n team-a
    ///   kubectl multicluster auth can-i get configmaps app-config -n team-a -c tencent2
    ///   kubectl multicluster auth can-i get pods --subresource log -n team-a
    ///   kubectl multicluster auth can-i list secrets -A --as alice --as-group dev   (admin token)
    #[command(name = "can-i", verbatim_doc_comment)]
    CanI(CanIArgs),
}

/// `auth can-i` arguments.
#[derive(Debug, Args)]
pub struct CanIArgs {
    /// The verb: get, list, watch, or any other (create, delete, *)
    #[arg(value_name = "VERB")]
    pub verb: String,

    /// Resource type (pods, v1/pods, deploy, deployments.apps, …)
    #[arg(value_name = "TYPE")]
    pub resource: String,

    /// Of this object only
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// In this namespace (default: across every namespace, where only ClusterRoleBindings count)
    #[arg(short, long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Across every namespace (the default; accepted for kubectl habits)
    #[arg(short = 'A', long = "all-namespaces", conflicts_with = "namespace")]
    pub all_namespaces: bool,

    /// Only these clusters, in this order: a,b (repeatable; default: every cluster)
    #[arg(
        short = 'c',
        long = "cluster",
        visible_aliases = ["clusterName", "cluster-name"],
        value_name = "CLUSTER",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,

    /// Of this subresource: log, status, scale, …
    #[arg(long, value_name = "SUBRESOURCE")]
    pub subresource: Option<String>,

    /// Ask for this user instead of yourself, as kubectl's --as (needs an admin token)
    #[arg(long = "as", value_name = "USER")]
    pub as_user: Option<String>,

    /// With --as: a group of that user (repeatable), as kubectl's --as-group
    #[arg(long = "as-group", value_name = "GROUP", requires = "as_user")]
    pub as_groups: Vec<String>,

    /// Print nothing: the exit code answers (0 allowed everywhere asked, 1 not)
    #[arg(short, long)]
    pub quiet: bool,
}

/// `completion` arguments.
#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `config` arguments.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// What to do with the config file.
    #[command(subcommand)]
    pub command: ConfigCommand,
}

/// `config` verbs.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Write the config file, creating it (mode 0600) or changing only the settings given
    ///
    /// The global flags say what to write: --server URL (https://HOST:PORT, http://HOST:PORT or
    /// HOST:PORT), --token TOKEN (empty removes it), --certificate-authority FILE (clears
    /// insecure-skip-tls-verify), --insecure-skip-tls-verify (clears the CA) and
    /// --kubeconfig-user[=false] (useKubeconfigUser); plus --master-kubeconfig. The file is $KUBECTL_MULTICLUSTER_CONFIG, else
    /// ~/.multi-cluster-operator/config.
    ///
    ///   kubectl multicluster config set --server https://mc.example.com:31888 --token T \
    ///     --certificate-authority ca.crt --master-kubeconfig ~/.kube/config
    #[command(verbatim_doc_comment)]
    Set(ConfigSetArgs),
    /// Print the config file, with the token shown as <redacted>.
    View,
}

/// `config set` arguments besides the global flags.
#[derive(Debug, Args)]
pub struct ConfigSetArgs {
    /// Kubeconfig of the master cluster, used by apply and delete (masterClusterKubeConfigPath)
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub master_kubeconfig: Option<PathBuf>,
}

/// `__complete` arguments.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// The words after `kubectl multicluster`; the last is the one being completed (may be empty)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub words: Vec<String>,
}

/// `30s`, `5m`, `1h`, `250ms`, or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number.parse().map_err(|_| format!("invalid duration {text:?}: expected e.g. 30s or 5m"))?;
    let seconds = match unit {
        "" | "s" => n,
        "ms" => return Ok(Duration::from_millis(n)),
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(format!("invalid duration {text:?}: unit must be ms, s, m or h")),
    };
    Ok(Duration::from_secs(seconds))
}

/// The verbs, as typed.
const VERBS: &[&str] = &[
    "list",
    "get",
    "describe",
    "apply",
    "delete",
    "join",
    "unjoin",
    "auth",
    "logs",
    "top",
    "history",
    "diff",
    "events",
    "count",
    "tree",
    "search",
    "kubeconfig",
    "config",
    "completion",
    "__complete",
    "help",
];

/// Inserts `list` when the first argument is a resource type rather than a verb: the Go
/// project's README runs `main.go v1/configmaps --clusterName=tencent2 …` without `list`.
pub fn normalize_args(args: Vec<OsString>) -> Vec<OsString> {
    let mut i = 1;
    while i < args.len() {
        let Some(arg) = args[i].to_str() else { return args };
        match arg {
            "--server" | "--token" | "--certificate-authority" => i += 2,
            "--insecure-skip-tls-verify" | "--kubeconfig-user" => i += 1,
            _ if arg.starts_with("--server=")
                || arg.starts_with("--token=")
                || arg.starts_with("--certificate-authority=")
                || arg.starts_with("--kubeconfig-user=") =>
            {
                i += 1
            }
            _ if arg.starts_with('-') => return args,
            _ if VERBS.contains(&arg) => return args,
            _ => {
                let mut out = args;
                out.insert(i, OsString::from("list"));
                return out;
            }
        }
    }
    args
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let args = normalize_args(args.iter().map(OsString::from).collect());
        Cli::try_parse_from(args)
    }

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_go_projects_spellings_parse() {
        let cli = parse(&[
            "kubectl-multicluster",
            "list",
            "core/v1/pods",
            "--clusterName=tencent2",
            "--namespace=default",
            "--name=myredis-0",
        ])
        .unwrap();
        let Command::List(list) = cli.command else { panic!("not list") };
        assert_eq!(list.filters.clusters, ["tencent2"]);
        assert_eq!(list.filters.namespace.as_deref(), Some("default"));
        assert_eq!(list.name(), Some("myredis-0"));
    }

    #[test]
    fn cluster_name_has_kebab_case_aliases() {
        for flag in ["--cluster-name", "--cluster", "--clusterName"] {
            let cli = parse(&["k", "list", "pods", flag, "c1"]).unwrap();
            let Command::List(list) = cli.command else { panic!("not list") };
            assert_eq!(list.filters.clusters, ["c1"]);
        }
    }

    #[test]
    fn cluster_names_split_on_commas_and_the_flag_repeats() {
        let cli = parse(&["k", "list", "pods", "--clusterName", "b,a", "--cluster=c"]).unwrap();
        let Command::List(list) = cli.command else { panic!("not list") };
        assert_eq!(list.filters.clusters, ["b", "a", "c"]);
    }

    #[test]
    fn output_takes_kubectl_s_templates_and_columns() {
        let output = |o: &str| {
            let Command::List(list) = parse(&["k", "list", "pods", "-o", o]).unwrap().command else {
                panic!("not list")
            };
            list.output
        };
        assert_eq!(output("wide"), Some(OutputFormat::Wide));
        assert_eq!(output("jsonpath={.a}={b}"), Some(OutputFormat::JsonPath("{.a}={b}".into())));
        assert_eq!(output("custom-columns=N:.x"), Some(OutputFormat::CustomColumns("N:.x".into())));
        for bad in ["xml", "jsonpath", "jsonpath=", "custom-columns", "wide=1"] {
            assert!(parse(&["k", "list", "pods", "-o", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_resource_type_without_a_verb_means_list() {
        let cli = parse(&["k", "v1/configmaps", "--clusterName=tencent2"]).unwrap();
        assert!(matches!(cli.command, Command::List(ref l) if l.resource == "v1/configmaps"));
        let cli = parse(&["k", "--server", "http://x:1", "pods"]).unwrap();
        assert!(matches!(cli.command, Command::List(_)));
        assert_eq!(cli.server.as_deref(), Some("http://x:1"));
    }

    #[test]
    fn verbs_are_left_alone() {
        let args: Vec<OsString> = ["k", "describe", "pods"].iter().map(OsString::from).collect();
        assert_eq!(normalize_args(args.clone()), args);
        let args: Vec<OsString> = ["k", "--version"].iter().map(OsString::from).collect();
        assert_eq!(normalize_args(args.clone()), args);
    }

    #[test]
    fn config_kubeconfig_and_complete_are_verbs_not_resource_types() {
        let cli =
            parse(&["k", "--server", "https://mc:1", "config", "set", "--master-kubeconfig", "/k"]).unwrap();
        let Command::Config(ConfigArgs { command: ConfigCommand::Set(set) }) = cli.command else {
            panic!("not config set")
        };
        assert_eq!(set.master_kubeconfig, Some(PathBuf::from("/k")));
        assert!(matches!(parse(&["k", "kubeconfig"]).unwrap().command, Command::Kubeconfig));
        let cli = parse(&["k", "__complete", "list", "pods", "--clusterName", ""]).unwrap();
        let Command::Complete(complete) = cli.command else { panic!("not __complete") };
        assert_eq!(complete.words, ["list", "pods", "--clusterName", ""]);
    }

    #[test]
    fn join_takes_the_go_projects_file_flag() {
        let cli = parse(&["k", "join", "tencent4", "--file=/tmp/k", "--insecure"]).unwrap();
        let Command::Join(join) = cli.command else { panic!("not join") };
        assert_eq!(join.file, PathBuf::from("/tmp/k"));
        assert!(join.insecure);
    }

    #[test]
    fn auth_can_i_takes_kubectls_arguments() {
        let cli = parse(&[
            "k",
            "auth",
            "can-i",
            "get",
            "configmaps",
            "cm-a1",
            "-n",
            "team",
            "-c",
            "a,b",
            "--subresource",
            "status",
            "--as",
            "alice",
            "--as-group",
            "dev",
            "--as-group",
            "ops",
            "-q",
        ])
        .unwrap();
        let Command::Auth(AuthArgs { command: AuthCommand::CanI(can_i) }) = cli.command else {
            panic!("not auth can-i")
        };
        assert_eq!((can_i.verb.as_str(), can_i.resource.as_str()), ("get", "configmaps"));
        assert_eq!(can_i.name.as_deref(), Some("cm-a1"));
        assert_eq!(can_i.namespace.as_deref(), Some("team"));
        assert_eq!(can_i.clusters, ["a", "b"]);
        assert_eq!(can_i.subresource.as_deref(), Some("status"));
        assert_eq!(can_i.as_user.as_deref(), Some("alice"));
        assert_eq!(can_i.as_groups, ["dev", "ops"]);
        assert!(can_i.quiet);
        assert!(
            parse(&["k", "auth", "can-i", "get", "pods", "--as-group", "dev"]).is_err(),
            "--as-group needs --as"
        );
        assert!(parse(&["k", "auth", "can-i", "get"]).is_err(), "a type is needed");
    }

    #[test]
    fn kubeconfig_user_is_a_global_switch_that_takes_an_optional_value() {
        let cli = parse(&["k", "--kubeconfig-user", "pods"]).unwrap();
        assert_eq!(cli.kubeconfig_user, Some(true));
        assert!(
            matches!(cli.command, Command::List(ref l) if l.resource == "pods"),
            "a type after it means list"
        );
        let cli = parse(&["k", "list", "pods", "--kubeconfig-user=false"]).unwrap();
        assert_eq!(cli.kubeconfig_user, Some(false));
        assert_eq!(parse(&["k", "list", "pods"]).unwrap().kubeconfig_user, None);
    }

    #[test]
    fn all_namespaces_and_a_namespace_conflict() {
        assert!(parse(&["k", "list", "pods", "-A", "-n", "x"]).is_err());
    }

    #[test]
    fn delete_takes_files_or_a_type_and_names() {
        let cli = parse(&["k", "delete", "configmaps", "a", "b", "-n", "x"]).unwrap();
        let Command::Delete(d) = cli.command else { panic!("not delete") };
        assert_eq!(d.target, ["configmaps", "a", "b"]);
        assert!(d.wait);
        assert!(parse(&["k", "delete", "configmaps", "a", "-f", "x.yaml"]).is_err());
    }

    #[test]
    fn durations_parse_like_kubectl() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse_duration("x").is_err());
        assert!(parse_duration("5d").is_err());
    }
}
