//! The open connections: caps (in all and per client address), and which connection gives way
//! when a cap is reached.
//!
//! A connection that has not sent a request, or has none in flight, costs its client nothing to
//! open again, so at a cap the oldest such connection is closed to make room; the new one is
//! refused only when every slot holds a request in flight. Silent connections therefore cannot
//! keep anyone else out, whoever opened them and from wherever.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// How many connections may be open at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// In all.
    pub total: usize,
    /// From one client address.
    pub per_address: usize,
}

/// Every open connection, by id.
pub(crate) struct Table {
    caps: Caps,
    /// The clock connections read their idle times against.
    epoch: Instant,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    open: HashMap<u64, (IpAddr, Arc<Connection>)>,
    per_address: HashMap<IpAddr, usize>,
}

/// What one connection's task and its requests share.
pub(crate) struct Connection {
    epoch: Instant,
    /// Requests whose answer is not sent yet.
    in_flight: AtomicUsize,
    /// Whether a request has come in.
    served: AtomicBool,
    /// Milliseconds after `epoch` since when nothing is in flight (or the connection is ready
    /// for its first request).
    idle_since: AtomicU64,
    /// Told when the connection must close to make room.
    evicted: Notify,
}

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full;

/// A connection's place in the table; dropping it frees the place.
pub(crate) struct Slot {
    table: Arc<Table>,
    id: u64,
    connection: Arc<Connection>,
}

impl Table {
    pub(crate) fn new(caps: Caps) -> Arc<Self> {
        Arc::new(Table { caps, epoch: Instant::now(), inner: Mutex::default() })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place for a new connection from `addr`, made by closing an idle connection when a cap
    /// is reached; [`Full`] when every connection that counts against the cap is busy.
    pub(crate) fn admit(self: &Arc<Self>, addr: IpAddr) -> Result<Slot, Full> {
        let mut inner = self.lock();
        if inner.per_address.get(&addr).copied().unwrap_or(0) >= self.caps.per_address {
            evict_one(&mut inner, Some(addr)).ok_or(Full)?;
        }
        if inner.open.len() >= self.caps.total {
            evict_one(&mut inner, None).ok_or(Full)?;
        }
        inner.next_id += 1;
        let id = inner.next_id;
        let connection = Arc::new(Connection {
            epoch: self.epoch,
            in_flight: AtomicUsize::new(0),
            served: AtomicBool::new(false),
            idle_since: AtomicU64::new(0),
            evicted: Notify::new(),
        });
        connection.restart_clock();
        inner.open.insert(id, (addr, connection.clone()));
        *inner.per_address.entry(addr).or_default() += 1;
        Ok(Slot { table: self.clone(), id, connection })
    }

    /// Connections open now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().open.len()
    }
}

/// Closes the connection that is cheapest to lose (of `addr`, or of anyone): one that never
/// sent a request, the oldest first; else the one idle the longest. `None` when all are busy.
fn evict_one(inner: &mut Inner, addr: Option<IpAddr>) -> Option<()> {
    let (&id, _) = inner
        .open
        .iter()
        .filter(|(_, (a, c))| addr.is_none_or(|addr| *a == addr) && c.in_flight.load(Ordering::Acquire) == 0)
        .min_by_key(|(id, (_, c))| {
            (c.served.load(Ordering::Relaxed), c.idle_since.load(Ordering::Relaxed), **id)
        })?;
    forget(inner, id)?.evicted.notify_one();
    Some(())
}

/// Removes a connection from the counts (once: an evicted connection is forgotten at once,
/// and its slot's drop later finds nothing).
fn forget(inner: &mut Inner, id: u64) -> Option<Arc<Connection>> {
    let (addr, connection) = inner.open.remove(&id)?;
    if let Some(n) = inner.per_address.get_mut(&addr) {
        *n -= 1;
        if *n == 0 {
            inner.per_address.remove(&addr);
        }
    }
    Some(connection)
}

impl Drop for Slot {
    fn drop(&mut self) {
        forget(&mut self.table.lock(), self.id);
    }
}

impl Slot {
    /// What the connection's task and its requests share.
    pub(crate) fn connection(&self) -> &Arc<Connection> {
        &self.connection
    }
}

impl Connection {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The connection is ready for its first request from now (after a TLS handshake).
    pub(crate) fn restart_clock(&self) {
        self.idle_since.store(self.now(), Ordering::Relaxed);
    }

    /// A request came in; its answer is in flight until the guard is dropped.
    pub(crate) fn begin(self: &Arc<Self>) -> InFlight {
        self.served.store(true, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(self.clone())
    }

    /// When the connection is to close for having been idle: `first` after it became ready if
    /// it never sent a request, `idle` after its last answer otherwise; `None` while a request
    /// is in flight.
    pub(crate) fn deadline(&self, first: Duration, idle: Duration) -> Option<Instant> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let wait = if self.served.load(Ordering::Relaxed) { idle } else { first };
        Some(self.epoch + Duration::from_millis(self.idle_since.load(Ordering::Relaxed)) + wait)
    }

    /// Resolves when the connection must close to make room for another.
    pub(crate) async fn evicted(&self) {
        self.evicted.notified().await;
    }
}

/// A request in flight; dropped once its answer is sent (or abandoned).
pub(crate) struct InFlight(Arc<Connection>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.idle_since.store(self.0.now(), Ordering::Relaxed);
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

    fn table(total: usize, per_address: usize) -> Arc<Table> {
        Table::new(Caps { total, per_address })
    }

    #[tokio::test]
    async fn at_the_cap_the_oldest_silent_connection_makes_room() {
        let t = table(2, 10);
        let first = t.admit(A).unwrap();
        let second = t.admit(A).unwrap();
        let third = t.admit(B).unwrap();
        assert_eq!(t.len(), 2);
        // The first was told to close; the others were not.
        tokio::time::timeout(Duration::from_millis(100), first.connection().evicted()).await.unwrap();
        let told = tokio::time::timeout(Duration::from_millis(50), second.connection().evicted()).await;
        assert!(told.is_err(), "the second connection was evicted too");
        drop((first, third));
        assert_eq!(t.len(), 1, "dropping an evicted slot frees nothing twice");
    }

    #[tokio::test]
    async fn a_connection_that_served_gives_way_after_the_silent_ones() {
        let t = table(2, 10);
        let used = t.admit(A).unwrap();
        drop(used.connection().begin());
        let silent = t.admit(A).unwrap();
        let _new = t.admit(A).unwrap();
        tokio::time::timeout(Duration::from_millis(100), silent.connection().evicted()).await.unwrap();
        let told = tokio::time::timeout(Duration::from_millis(50), used.connection().evicted()).await;
        assert!(told.is_err(), "a connection that served was closed before a silent one");
    }

    #[test]
    fn connections_with_a_request_in_flight_are_never_closed_and_the_cap_holds() {
        let t = table(2, 10);
        let a = t.admit(A).unwrap();
        let b = t.admit(B).unwrap();
        let _busy = (a.connection().begin(), b.connection().begin());
        assert_eq!(t.admit(A).err(), Some(Full));
        assert_eq!(t.len(), 2);
    }

    #[tokio::test]
    async fn one_address_cannot_take_more_than_its_share() {
        let t = table(10, 2);
        let a1 = t.admit(A).unwrap();
        let _a2 = t.admit(A).unwrap();
        let _b = t.admit(B).unwrap();
        let _a3 = t.admit(A).unwrap();
        assert_eq!(t.len(), 3, "the third connection from A replaced A's first");
        tokio::time::timeout(Duration::from_millis(100), a1.connection().evicted()).await.unwrap();
        let _idle = t.admit(A).unwrap();
        let busy = t.admit(A).unwrap();
        let _g = busy.connection().begin();
        // A's idle slot is replaced; with both of A's slots busy, A is refused while B is not.
        let other = t.admit(A).unwrap();
        let _h = other.connection().begin();
        assert_eq!(t.admit(A).err(), Some(Full));
        assert!(t.admit(B).is_ok());
    }

    #[test]
    fn the_deadline_waits_for_answers_in_flight_and_is_longer_once_served() {
        let t = table(1, 1);
        let slot = t.admit(A).unwrap();
        let c = slot.connection();
        let (first, idle) = (Duration::from_secs(10), Duration::from_secs(90));
        let silent = c.deadline(first, idle).unwrap();
        assert!(silent <= Instant::now() + first);
        let guard = c.begin();
        assert_eq!(c.deadline(first, idle), None);
        drop(guard);
        assert!(c.deadline(first, idle).unwrap() > Instant::now() + first);
    }
}
