//! Ports for test servers (shared with the e2e tests of the plugin).

/// A port nothing listens on right now, below the kernel's ephemeral range (32768 and up): a
/// port picked by binding port 0 is an ephemeral one, and an outgoing connection of any process
/// can take it before the server binds it (a CI run failed on "Address already in use"). Ports
/// are handed out in turn from a start that differs per process, and skipped when taken.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 12_000;
    const COUNT: u32 = 14_000; // below testenv's and testdb's ports (26300 and up)
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let _ = NEXT.compare_exchange(
        0,
        std::process::id().wrapping_mul(7919).wrapping_add(nanos) % COUNT + 1,
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    loop {
        let port = (FIRST + NEXT.fetch_add(1, Ordering::SeqCst) % COUNT) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}
