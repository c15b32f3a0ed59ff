//! Leader election through a `coordination.k8s.io/v1` Lease in the master cluster: only the
//! leader dispatches; every replica serves queries. (Sync data on a shared database is split per
//! cluster through Leases of its own: see `sync::shard`.)

use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::Client;
use kube::api::Api;
use tokio::sync::watch;
use tracing::{info, warn};

/// Lease name.
pub const LEASE_NAME: &str = "mc-server-leader";
/// How long a lease is valid without renewal: the hand-over time when a leader dies.
pub const LEASE_DURATION: Duration = crate::lease::DURATION;
/// How often the holder renews (and others try).
const RETRY: Duration = Duration::from_secs(2);

/// Keeps trying to hold the lease and publishes leadership on `tx`, until `shutdown` turns true:
/// then a held lease is released so another replica takes over at once.
pub async fn elect(
    client: Client,
    namespace: String,
    identity: String,
    tx: watch::Sender<bool>,
    mut shutdown: watch::Receiver<bool>,
) {
    let api: Api<Lease> = Api::namespaced(client, &namespace);
    loop {
        if *shutdown.borrow() {
            if *tx.borrow() {
                match release(&api, &identity).await {
                    Ok(()) => info!("lease released"),
                    Err(e) => warn!(error = %e, "releasing the lease failed"),
                }
                let _ = tx.send(false);
            }
            return;
        }
        let leading = match try_acquire(&api, &identity).await {
            Ok(l) => l,
            Err(e) => {
                warn!(error = %e, "lease update failed");
                // Without a successful renewal inside the lease duration we must step down.
                false
            }
        };
        if *tx.borrow() != leading {
            info!(identity = %identity, leading, "leadership changed");
            let _ = tx.send(leading);
        }
        tokio::select! {
            _ = tokio::time::sleep(RETRY) => {}
            _ = shutdown.changed() => {}
        }
    }
}

async fn release(api: &Api<Lease>, me: &str) -> kube::Result<()> {
    let Some(lease) = api.get_opt(LEASE_NAME).await? else { return Ok(()) };
    if lease.spec.as_ref().and_then(|s| s.holder_identity.as_deref()) != Some(me) {
        return Ok(());
    }
    crate::lease::release(api, lease).await.map(|_| ())
}

async fn try_acquire(api: &Api<Lease>, me: &str) -> kube::Result<bool> {
    let now = Timestamp::now();
    let secs = i32::try_from(LEASE_DURATION.as_secs()).unwrap_or(15);
    let written = match api.get_opt(LEASE_NAME).await? {
        None => crate::lease::create(api, LEASE_NAME, Default::default(), me).await,
        Some(lease) => {
            let spec = lease.spec.clone().unwrap_or_default();
            let holder = spec.holder_identity.clone().unwrap_or_default();
            let expired = spec.renew_time.as_ref().is_none_or(|t| {
                let dur = SignedDuration::from_secs(i64::from(spec.lease_duration_seconds.unwrap_or(secs)));
                t.0.checked_add(dur).map(|end| end < now).unwrap_or(true)
            });
            if holder != me && !expired && !holder.is_empty() {
                return Ok(false);
            }
            crate::lease::hold(api, lease, me).await
        }
    };
    match written {
        Ok(_) => Ok(true),
        // Another contender wrote first.
        Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
        Err(e) => Err(e),
    }
}

/// A unique identity for this process.
pub fn identity() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "mc-server".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{host}-{}-{nanos:08x}", std::process::id())
}
