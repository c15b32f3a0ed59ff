//! Writing `coordination.k8s.io/v1` Leases, for leader election and for sharded sync: created
//! held, renewed or taken, handed back. Every write is a create or a `replace` that carries the
//! resourceVersion, so two contenders can never both win.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use kube::api::{Api, PostParams};

/// How long a Lease stays valid without renewal: the hand-over time when its holder dies.
pub const DURATION: Duration = Duration::from_secs(15);

/// Creates the Lease `name` (with `labels`), held by `me`.
pub async fn create(
    api: &Api<Lease>,
    name: &str,
    labels: BTreeMap<String, String>,
    me: &str,
) -> kube::Result<Lease> {
    let now = MicroTime(Timestamp::now());
    let lease: Lease = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": labels},
        "spec": {"holderIdentity": me, "leaseDurationSeconds": DURATION.as_secs(),
                 "acquireTime": now, "renewTime": now, "leaseTransitions": 0}
    }))
    .map_err(kube::Error::SerdeError)?;
    api.create(&PostParams::default(), &lease).await
}

/// Writes `lease` as held by `me`: renewed when `me` holds it, taken (a new acquire time, one
/// more transition) otherwise.
pub async fn hold(api: &Api<Lease>, mut lease: Lease, me: &str) -> kube::Result<Lease> {
    let now = MicroTime(Timestamp::now());
    let spec = lease.spec.get_or_insert_with(Default::default);
    if spec.holder_identity.as_deref() != Some(me) {
        spec.acquire_time = Some(now.clone());
        spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
    }
    spec.holder_identity = Some(me.to_string());
    spec.lease_duration_seconds = Some(DURATION.as_secs() as i32);
    spec.renew_time = Some(now);
    api.replace(&lease.name_any(), &PostParams::default(), &lease).await
}

/// Hands `lease` back: no holder, so another contender takes it at once.
pub async fn release(api: &Api<Lease>, mut lease: Lease) -> kube::Result<Lease> {
    if let Some(spec) = lease.spec.as_mut() {
        spec.holder_identity = None;
        spec.renew_time = None;
    }
    api.replace(&lease.name_any(), &PostParams::default(), &lease).await
}
