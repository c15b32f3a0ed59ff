//! The hashes kube-apiserver writes for its OpenAPI documents.

/// SHA-512 of `text` in upper-case hex, as kube-apiserver writes its hashes.
pub fn hex(text: &str) -> String {
    ring::digest::digest(&ring::digest::SHA512, text.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect()
}
