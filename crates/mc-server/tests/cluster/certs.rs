//! Certificates for HTTPS tests, made with openssl: a CA and a server certificate it signed.
//! For the tests of a configured certificate; by default mc-server makes its own.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").current_dir(dir).args(args).output().expect("openssl");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A CA and a server certificate for 127.0.0.1/localhost signed by it: (ca.crt, tls.crt, tls.key).
pub fn issue(dir: &Path, tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let (ca_key, ca, key, csr, crt) = (
        format!("{tag}-ca.key"),
        format!("{tag}-ca.crt"),
        format!("{tag}.key"),
        format!("{tag}.csr"),
        format!("{tag}.crt"),
    );
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &ca_key,
            "-out",
            &ca,
            "-days",
            "2",
            "-subj",
            &format!("/CN=mc-test-ca-{tag}"),
        ],
    );
    openssl(
        dir,
        &["req", "-newkey", "rsa:2048", "-nodes", "-keyout", &key, "-out", &csr, "-subj", "/CN=mc-server"],
    );
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-out",
            &crt,
            "-days",
            "2",
            "-extfile",
            "san.ext",
        ],
    );
    (dir.join(ca), dir.join(crt), dir.join(key))
}

/// A client certificate for `subject` (e.g. `/CN=alice/O=team-a`) signed by the CA that
/// [`issue`] made under `tag` in `dir`: returns the certificate and key files.
pub fn client(dir: &Path, tag: &str, name: &str, subject: &str) -> (PathBuf, PathBuf) {
    let (key, csr, crt) = (format!("{name}.key"), format!("{name}.csr"), format!("{name}.crt"));
    openssl(dir, &["req", "-newkey", "rsa:2048", "-nodes", "-keyout", &key, "-out", &csr, "-subj", subject]);
    std::fs::write(dir.join("client.ext"), "keyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n")
        .unwrap();
    let (ca, ca_key) = (format!("{tag}-ca.crt"), format!("{tag}-ca.key"));
    openssl(
        dir,
        &["x509", "-req", "-in", &csr, "-CA", &ca, "-CAkey", &ca_key, "-CAcreateserial", "-out", &crt]
            .into_iter()
            .chain(["-days", "2", "-extfile", "client.ext"])
            .collect::<Vec<_>>(),
    );
    (dir.join(crt), dir.join(key))
}
