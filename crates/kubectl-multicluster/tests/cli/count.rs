//! `count`: what is refused before anything is asked.

use crate::commands::{Home, stderr};

#[test]
fn a_bad_count_key_is_one_line_and_nothing_is_asked() {
    // Nothing listens there: an error about the key shows that no request was made.
    let home = Home::for_server("http://127.0.0.1:9", None);
    for (key, says) in [
        ("spec.containers[*].image", "only an index"),
        ("status.phase,status.phase", "given twice"),
        ("a..b", "empty key"),
    ] {
        let out = home.cmd().args(["count", "pods", "--by", key]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{key}");
        let message = stderr(&out);
        assert_eq!(message.lines().count(), 1, "{message}");
        assert!(
            message.starts_with("error: invalid count key") && message.contains(says),
            "{key}: {message}"
        );
    }
    let out = home.cmd().args(["count", "pods", "-o", "yaml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "only json is an output format of count");
}
