//! The health of one type's list+watch, decided without I/O: what a list started or finished, a
//! change, an expired watch, a failure or a quiet watch mean for the type's marks and its next
//! list. The type's task ([`super::watch`]) reads the clock, passes the time in, and carries out
//! what is decided.

use std::time::{Duration, Instant};

/// Failures in a row that mark a type: fewer are left to the watcher's backoff.
const MARK_AFTER: u32 = 3;

/// The waits before listing again a type whose watch keeps failing (the first is at once): the
/// second, and the longest; and how long without such a list makes the next one the first again
/// (longer than the longest wait, so a watch that never works keeps its interval).
pub const RELIST_FIRST: Duration = Duration::from_secs(10);
/// The longest wait before listing again a type whose watch keeps failing.
pub const RELIST_MAX: Duration = Duration::from_secs(300);
/// How long without a list for failures makes the next one the first (at once) again.
pub const RELIST_QUIET: Duration = Duration::from_secs(600);

/// How long a watch runs after its list (or its last failure) without failing before a type
/// marked unwatched is unmarked (a type that changes is unmarked at its first change). A refused
/// watch fails within a second of its list, and its retries follow within the watcher's backoff
/// (0.8 s, then twice that, jittered): the failures that mark it come well within this.
pub const WATCH_PROVEN: Duration = Duration::from_secs(20);

/// How failures mark a type in the cluster's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Its list keeps failing: the store may miss its objects or hold stale ones. The writer lifts
    /// it when a list of the type is written.
    Unlisted,
    /// Listed, but its changes do not come: lifted by a change, by [`WATCH_PROVEN`] of quiet
    /// watch, or by a list that finds its API server back.
    Unwatched,
}

/// What a failure makes the type's task do, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Log the failure as a warning: the first in a row, then at powers of two, so that a type
    /// that keeps failing does not flood the log.
    Warn,
    /// Mark the type, the failure as its reason, and stop holding the cluster's readiness back for
    /// it, in one change of the cluster's state: a type that cannot be listed must not keep its
    /// cluster unready forever, and answers about it say what is wrong instead.
    Mark(Mark),
    /// Start a new list+watch of the type after `wait`: a watch that keeps failing after its list
    /// leaves the rows as they were listed, so they follow the cluster at each list instead, as
    /// client-go's reflector does.
    Relist {
        /// How long to wait before the list.
        wait: Duration,
    },
}

/// One type's health: its failures in a row, its unwatched mark, and its lists for failures.
#[derive(Clone, Debug)]
pub struct TypeHealth {
    /// Failures in a row (a list, a watch or its start); only a finished list or a change ends a
    /// row: a list that fails after its first page starts over with a new list.
    failures: u32,
    /// Whether a list is being read (or waited for): a failure then means the store may miss the
    /// type's objects or hold stale ones.
    listing: bool,
    /// Lists started because the watch kept failing, and when the last one was: the first at
    /// once (an API server that was away for a moment), each next one in a row after twice the
    /// wait before, from [`RELIST_FIRST`] up to [`RELIST_MAX`]; after [`RELIST_QUIET`], at once
    /// again.
    relists: u32,
    last_relist: Option<Instant>,
    /// Whether this task marked the type unwatched, and since when its watch has not failed (its
    /// last list or failure): the watcher retries a failed watch itself, without a new list, so
    /// a quiet watch is one that works.
    unwatched: bool,
    quiet_since: Instant,
    /// Whether the failures that marked it were its API server being away (unreachable, or its
    /// connection cut): the list that finds the server back lifts that mark at once; a watch that
    /// still fails marks it again.
    away: bool,
}

impl TypeHealth {
    /// A type whose first list is about to start at `now`.
    pub fn new(now: Instant) -> Self {
        TypeHealth {
            failures: 0,
            listing: true,
            relists: 0,
            last_relist: None,
            unwatched: false,
            quiet_since: now,
            away: false,
        }
    }

    /// Failures in a row so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// A list started (`Init`): failures from now on are the list's.
    pub fn list_started(&mut self) {
        self.listing = true;
    }

    /// A list was read to its end (`InitDone`) at `now`: the failures in a row are over, and the
    /// watch's quiet time starts. Returns whether the list lifts an unwatched mark its API server's
    /// absence made (`back`: the writer lifts it once the list is written).
    #[must_use]
    pub fn list_done(&mut self, now: Instant) -> bool {
        (self.failures, self.listing) = (0, false);
        self.quiet_since = now;
        let back = self.unwatched && self.away;
        if back {
            (self.unwatched, self.away) = (false, false);
        }
        back
    }

    /// The watch brought a change (`Apply`, `Delete`): it works. Returns whether that lifts the
    /// type's unwatched mark.
    #[must_use]
    pub fn changed(&mut self) -> bool {
        (self.failures, self.relists) = (0, 0);
        std::mem::take(&mut self.unwatched)
    }

    /// The version the watch resumed from is gone (`410`: an API server restarted, or a long gap):
    /// the watcher lists again by itself, as a watch is meant to. Not a failure, so nothing is
    /// marked: every type of a restarted API server would otherwise look unwatched until its
    /// watch proved itself.
    pub fn expired(&self) {}

    /// A list, a watch or its start failed at `now`; `unreachable`: its API server did not answer
    /// (not reached, or its connection cut), rather than answering about the type.
    pub fn failed(&mut self, now: Instant, unreachable: bool) -> Vec<Effect> {
        self.failures = self.failures.saturating_add(1);
        self.quiet_since = now;
        let mut effects = Vec::new();
        if self.failures == 1 || self.failures.is_power_of_two() {
            effects.push(Effect::Warn);
        }
        if self.failures < MARK_AFTER {
            return effects;
        }
        if self.listing {
            effects.push(Effect::Mark(Mark::Unlisted));
            return effects;
        }
        effects.push(Effect::Mark(Mark::Unwatched));
        if self.last_relist.is_some_and(|at| now.saturating_duration_since(at) > RELIST_QUIET) {
            self.relists = 0;
        }
        let wait = match self.relists {
            0 => Duration::ZERO,
            n => RELIST_FIRST.saturating_mul(1 << (n - 1).min(8)).min(RELIST_MAX),
        };
        self.relists = self.relists.saturating_add(1);
        self.last_relist = Some(now);
        (self.listing, self.unwatched, self.away) = (true, true, unreachable);
        effects.push(Effect::Relist { wait });
        effects
    }

    /// When a quiet watch lifts the unwatched mark: [`WATCH_PROVEN`] after its list or its last
    /// failure. `None` while the type is not marked, or a list is being read.
    pub fn quiet_deadline(&self) -> Option<Instant> {
        (self.unwatched && !self.listing).then(|| self.quiet_since + WATCH_PROVEN)
    }

    /// The watch has not failed until `now`. Returns whether that lifts the unwatched mark (at
    /// [`Self::quiet_deadline`] or later).
    #[must_use]
    pub fn quiet_until(&mut self, now: Instant) -> bool {
        let lifted = self.quiet_deadline().is_some_and(|at| now >= at);
        if lifted {
            self.unwatched = false;
        }
        lifted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What happens to the type: a list started or read, a change, an expired watch, a failure
    /// (its API server unreachable, or answering with a refusal), the quiet timer looking.
    #[derive(Clone, Copy, Debug)]
    enum Input {
        Init,
        InitDone,
        Change,
        Gone,
        Unreachable,
        Forbidden,
        Quiet,
    }
    use Input::*;

    /// What the task does, as a transcript.
    #[derive(Debug, PartialEq, Eq)]
    enum Did {
        Warn,
        Mark(Mark),
        Relist(u64),
        WatchedAgain,
        Back,
    }

    /// Drives a new type's health through `script` (seconds from its start, input) and returns
    /// what it did and when.
    fn run(health: &mut TypeHealth, start: Instant, script: &[(u64, Input)]) -> Vec<(u64, Did)> {
        let mut did = Vec::new();
        for &(secs, input) in script {
            let now = start + Duration::from_secs(secs);
            match input {
                Init => health.list_started(),
                InitDone => {
                    if health.list_done(now) {
                        did.push((secs, Did::Back));
                    }
                }
                Change => {
                    if health.changed() {
                        did.push((secs, Did::WatchedAgain));
                    }
                }
                Gone => health.expired(),
                Unreachable | Forbidden => {
                    for effect in health.failed(now, matches!(input, Unreachable)) {
                        did.push((
                            secs,
                            match effect {
                                Effect::Warn => Did::Warn,
                                Effect::Mark(mark) => Did::Mark(mark),
                                Effect::Relist { wait } => Did::Relist(wait.as_secs()),
                            },
                        ));
                    }
                }
                Quiet => {
                    if health.quiet_until(now) {
                        did.push((secs, Did::WatchedAgain));
                    }
                }
            }
        }
        did
    }

    /// A type listed at 0 s, whose health starts at `start`.
    fn listed(start: Instant) -> TypeHealth {
        let mut health = TypeHealth::new(start);
        assert!(run(&mut health, start, &[(0, Init), (0, InitDone)]).is_empty());
        health
    }

    /// Three refused watches at `at`, then the list they start, read at once.
    fn refused_and_relisted(at: u64) -> [(u64, Input); 5] {
        [(at, Forbidden), (at, Forbidden), (at, Forbidden), (at, Init), (at, InitDone)]
    }

    #[test]
    fn three_failures_after_a_list_mark_the_type_unwatched_and_relist_at_once_then_after_doubling_waits() {
        let start = Instant::now();
        let mut health = listed(start);
        let did = run(&mut health, start, &[(1, Forbidden), (2, Forbidden), (3, Forbidden)]);
        assert_eq!(
            did,
            [(1, Did::Warn), (2, Did::Warn), (3, Did::Mark(Mark::Unwatched)), (3, Did::Relist(0))]
        );

        let mut waits = Vec::new();
        for at in (4..).step_by(5).take(8) {
            let mut script = refused_and_relisted(at).to_vec();
            script.rotate_left(3); // the relist above is read first
            for (_, did) in run(&mut health, start, &script) {
                if let Did::Relist(wait) = did {
                    waits.push(wait);
                }
            }
        }
        assert_eq!(waits, [10, 20, 40, 80, 160, 300, 300, 300]);
    }

    #[test]
    fn lists_for_failures_start_at_once_again_after_ten_quiet_minutes() {
        let start = Instant::now();
        let mut health = listed(start);
        let mut relists = |at| {
            let did = run(&mut health, start, &refused_and_relisted(at));
            did.into_iter().find_map(|(_, did)| if let Did::Relist(wait) = did { Some(wait) } else { None })
        };
        assert_eq!(relists(1), Some(0));
        assert_eq!(relists(2), Some(10));
        assert_eq!(relists(600), Some(20), "598 s after the last relist is not quiet enough");
        assert_eq!(relists(1201), Some(0));
    }

    #[test]
    fn a_change_lifts_the_unwatched_mark_and_the_next_relist_is_at_once() {
        let start = Instant::now();
        let mut health = listed(start);
        run(&mut health, start, &refused_and_relisted(1));
        run(&mut health, start, &refused_and_relisted(2));
        let did = run(&mut health, start, &[(3, Change), (4, Change)]);
        assert_eq!(did, [(3, Did::WatchedAgain)], "lifted once");
        assert_eq!(health.quiet_deadline(), None);
        let did = run(&mut health, start, &[(5, Forbidden), (5, Forbidden), (5, Forbidden)]);
        assert_eq!(did.last(), Some(&(5, Did::Relist(0))));
    }

    #[test]
    fn twenty_seconds_of_quiet_watch_after_its_list_lift_the_mark() {
        let start = Instant::now();
        let mut health = listed(start);
        let did = run(&mut health, start, &[(1, Forbidden), (1, Forbidden), (1, Forbidden)]);
        assert_eq!(did.last(), Some(&(1, Did::Relist(0))));
        assert_eq!(health.quiet_deadline(), None, "not while its list is waited for");
        let did = run(&mut health, start, &[(2, Init), (5, InitDone), (24, Quiet)]);
        assert!(did.is_empty(), "19 s of quiet: {did:?}");
        assert_eq!(health.quiet_deadline(), Some(start + Duration::from_secs(25)));
        let did = run(&mut health, start, &[(25, Quiet), (50, Quiet)]);
        assert_eq!(did, [(25, Did::WatchedAgain)]);
        assert_eq!(health.quiet_deadline(), None);
    }

    #[test]
    fn a_failure_after_the_list_starts_the_quiet_time_again() {
        let start = Instant::now();
        let mut health = listed(start);
        run(&mut health, start, &refused_and_relisted(1));
        let did = run(&mut health, start, &[(10, Forbidden), (21, Quiet), (29, Quiet)]);
        assert_eq!(did, [(10, Did::Warn)]);
        assert_eq!(health.quiet_deadline(), Some(start + Duration::from_secs(30)));
        assert_eq!(run(&mut health, start, &[(30, Quiet)]), [(30, Did::WatchedAgain)]);
    }

    #[test]
    fn a_list_that_finds_the_api_server_back_lifts_the_mark_its_absence_made() {
        let start = Instant::now();
        let mut health = listed(start);
        let did = run(&mut health, start, &[(1, Unreachable), (2, Unreachable), (3, Unreachable)]);
        assert_eq!(did[2..], [(3, Did::Mark(Mark::Unwatched)), (3, Did::Relist(0))]);
        // The API server restarts: the list fails until it is back.
        let did = run(&mut health, start, &[(3, Init), (4, Unreachable), (8, Init), (9, InitDone)]);
        assert_eq!(did, [(4, Did::Warn), (4, Did::Mark(Mark::Unlisted)), (9, Did::Back)]);
        assert_eq!(health.quiet_deadline(), None, "no longer marked");
        assert!(!health.changed(), "no mark left to lift");
    }

    #[test]
    fn a_list_after_refused_watches_leaves_the_mark_to_a_quiet_watch() {
        let start = Instant::now();
        let mut health = listed(start);
        let did = run(&mut health, start, &refused_and_relisted(1));
        assert!(!did.contains(&(1, Did::Back)));
        assert_eq!(health.quiet_deadline(), Some(start + Duration::from_secs(21)));
    }

    #[test]
    fn a_watch_refused_after_its_api_server_came_back_is_marked_again() {
        let start = Instant::now();
        let mut health = listed(start);
        run(&mut health, start, &[(1, Unreachable), (1, Unreachable), (1, Unreachable), (2, Init)]);
        let did = run(&mut health, start, &[(3, InitDone), (4, Forbidden), (5, Forbidden), (6, Forbidden)]);
        assert_eq!(did.first(), Some(&(3, Did::Back)));
        assert_eq!(did[did.len() - 2..], [(6, Did::Mark(Mark::Unwatched)), (6, Did::Relist(10))]);
        let did = run(&mut health, start, &[(16, Init), (17, InitDone)]);
        assert!(did.is_empty(), "refused, not away: {did:?}");
    }

    #[test]
    fn failures_while_listing_mark_the_type_unlisted_and_never_relist() {
        let start = Instant::now();
        let mut health = TypeHealth::new(start);
        let script: Vec<_> = (1..=8).map(|at| (at, Forbidden)).collect();
        let did = run(&mut health, start, &script);
        let marks = did.iter().filter(|(_, did)| *did == Did::Mark(Mark::Unlisted)).count();
        assert_eq!(marks, 6, "from the third failure on, each refreshes the mark: {did:?}");
        assert!(
            did.iter().all(|(_, did)| !matches!(did, Did::Relist(_))),
            "the watcher retries the list: {did:?}"
        );
        assert_eq!(health.quiet_deadline(), None);
        // Its list written at last: the writer lifts the unlisted mark; nothing else is marked.
        assert!(run(&mut health, start, &[(9, Init), (10, InitDone), (40, Quiet)]).is_empty());
    }

    #[test]
    fn warnings_thin_out_to_powers_of_two() {
        let start = Instant::now();
        let mut health = TypeHealth::new(start);
        let script: Vec<_> = (1..=33).map(|at| (at, Unreachable)).collect();
        let warned: Vec<u64> = run(&mut health, start, &script)
            .into_iter()
            .filter(|(_, did)| *did == Did::Warn)
            .map(|(at, _)| at)
            .collect();
        assert_eq!(warned, [1, 2, 4, 8, 16, 32]);
        assert_eq!(health.failures(), 33);
    }

    #[test]
    fn an_expired_watch_is_not_a_failure_and_marks_nothing() {
        let start = Instant::now();
        let mut health = listed(start);
        // An API server restarts: the watch is cut twice, then its version is gone.
        let did =
            run(&mut health, start, &[(1, Unreachable), (2, Unreachable), (3, Gone), (3, Gone), (3, Gone)]);
        assert_eq!(did, [(1, Did::Warn), (2, Did::Warn)]);
        assert_eq!(health.failures(), 2);
        let did = run(
            &mut health,
            start,
            &[(3, Init), (4, InitDone), (5, Gone), (5, Gone), (5, Gone), (30, Quiet)],
        );
        assert!(did.is_empty(), "{did:?}");
        assert_eq!(health.failures(), 0);
        assert_eq!(
            run(&mut health, start, &[(31, Forbidden)]),
            [(31, Did::Warn)],
            "a row starts again at one"
        );
    }
}
