//! A client certificate and its key to present to mc-server (the kubeconfig user's, with
//! `--kubeconfig-user`), kept out of every printout.

/// A client certificate chain and its private key, in PEM; never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientIdentity(Vec<u8>);

impl ClientIdentity {
    /// From the certificates and the key, in PEM.
    pub fn from_pem(pem: Vec<u8>) -> Self {
        ClientIdentity(pem)
    }

    /// The certificates and the key, in PEM.
    pub fn pem(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientIdentity(<client certificate and key>)")
    }
}
