//! An issuer's signing keys (a JWKS document) and the signatures they verify, with `ring`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mc_types::config::SigningAlg;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde::Deserialize;

/// Why a JWKS document cannot be used (not retryable: the issuer or the file must change).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Not a JSON object with a `keys` array.
    #[error("not a JWKS document (a JSON object with a keys array)")]
    NotJwks,
    /// No key in it can verify a signature of the accepted algorithms.
    #[error("no RSA or EC signing key in it")]
    NoKeys,
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The keys of one issuer that can verify signatures.
#[derive(Debug, Default)]
pub struct KeySet {
    keys: Vec<Key>,
}

/// One public key.
#[derive(Debug)]
struct Key {
    kid: Option<String>,
    /// The one algorithm the JWK allows, when it names one.
    alg: Option<String>,
    material: Material,
}

#[derive(Debug)]
enum Material {
    Rsa {
        n: Vec<u8>,
        e: Vec<u8>,
    },
    /// The uncompressed point `0x04 || x || y`.
    Ec {
        curve: Curve,
        point: Vec<u8>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curve {
    P256,
    P384,
}

#[derive(Deserialize)]
struct Jwks {
    keys: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct Jwk {
    kty: String,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default, rename = "use")]
    usage: Option<String>,
    #[serde(default)]
    alg: Option<String>,
    #[serde(default)]
    n: Option<String>,
    #[serde(default)]
    e: Option<String>,
    #[serde(default)]
    crv: Option<String>,
    #[serde(default)]
    x: Option<String>,
    #[serde(default)]
    y: Option<String>,
}

impl KeySet {
    /// The signing keys of a JWKS document; keys for encryption, of other types or malformed
    /// are left out, as an issuer may publish those too.
    pub fn parse(json: &[u8]) -> Result<KeySet> {
        let jwks: Jwks = serde_json::from_slice(json).map_err(|_| Error::NotJwks)?;
        let keys: Vec<Key> = jwks
            .keys
            .into_iter()
            .filter_map(|v| serde_json::from_value::<Jwk>(v).ok())
            .filter_map(Key::from_jwk)
            .collect();
        if keys.is_empty() {
            return Err(Error::NoKeys);
        }
        Ok(KeySet { keys })
    }

    /// Whether a key of this id is here (any key, when the token names none).
    pub fn has(&self, kid: Option<&str>) -> bool {
        kid.is_none_or(|kid| self.keys.iter().any(|k| k.kid.as_deref() == Some(kid)))
    }

    /// Whether a key named `kid` (or, with no `kid`, any key of `alg`'s type) verifies
    /// `signature` of `message` under `alg`.
    pub fn verify(&self, alg: SigningAlg, kid: Option<&str>, message: &[u8], signature: &[u8]) -> bool {
        self.keys
            .iter()
            .filter(|k| kid.is_none() || k.kid.as_deref() == kid)
            .any(|k| k.verify(alg, message, signature))
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }
}

impl Key {
    fn from_jwk(jwk: Jwk) -> Option<Key> {
        if jwk.usage.as_deref().is_some_and(|u| u != "sig") {
            return None;
        }
        let bytes = |part: Option<String>| part.and_then(|p| URL_SAFE_NO_PAD.decode(p).ok());
        let material = match jwk.kty.as_str() {
            "RSA" => Material::Rsa { n: bytes(jwk.n)?, e: bytes(jwk.e)? },
            "EC" => {
                let (curve, size) = match jwk.crv.as_deref()? {
                    "P-256" => (Curve::P256, 32),
                    "P-384" => (Curve::P384, 48),
                    _ => return None,
                };
                let (x, y) = (bytes(jwk.x)?, bytes(jwk.y)?);
                if x.len() != size || y.len() != size {
                    return None;
                }
                let mut point = Vec::with_capacity(1 + 2 * size);
                point.push(0x04);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                Material::Ec { curve, point }
            }
            _ => return None,
        };
        Some(Key { kid: jwk.kid, alg: jwk.alg, material })
    }

    fn verify(&self, alg: SigningAlg, message: &[u8], signature: &[u8]) -> bool {
        if self.alg.as_deref().is_some_and(|a| a != alg.name()) {
            return false;
        }
        match &self.material {
            Material::Rsa { n, e } => {
                let params: &signature::RsaParameters = match alg {
                    SigningAlg::RS256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    SigningAlg::RS384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    SigningAlg::RS512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    SigningAlg::PS256 => &signature::RSA_PSS_2048_8192_SHA256,
                    SigningAlg::PS384 => &signature::RSA_PSS_2048_8192_SHA384,
                    SigningAlg::PS512 => &signature::RSA_PSS_2048_8192_SHA512,
                    SigningAlg::ES256 | SigningAlg::ES384 => return false,
                };
                RsaPublicKeyComponents { n, e }.verify(params, message, signature).is_ok()
            }
            Material::Ec { curve, point } => {
                let params: &signature::EcdsaVerificationAlgorithm = match (alg, curve) {
                    (SigningAlg::ES256, Curve::P256) => &signature::ECDSA_P256_SHA256_FIXED,
                    (SigningAlg::ES384, Curve::P384) => &signature::ECDSA_P384_SHA384_FIXED,
                    _ => return false,
                };
                UnparsedPublicKey::new(params, point).verify(message, signature).is_ok()
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ring::rand::SystemRandom;
    use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};

    use super::*;

    fn es256() -> (EcdsaKeyPair, serde_json::Value) {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
        let point = pair.public_key().as_ref();
        let jwk = serde_json::json!({"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..])});
        (pair, jwk)
    }

    #[test]
    fn an_ec_key_verifies_its_signatures_only() {
        let (pair, jwk) = es256();
        let keys = KeySet::parse(serde_json::json!({"keys": [jwk]}).to_string().as_bytes()).unwrap();
        let signature = pair.sign(&SystemRandom::new(), b"message").unwrap();
        assert!(keys.verify(SigningAlg::ES256, Some("k1"), b"message", signature.as_ref()));
        assert!(keys.verify(SigningAlg::ES256, None, b"message", signature.as_ref()), "any key without kid");
        assert!(!keys.verify(SigningAlg::ES256, Some("k2"), b"message", signature.as_ref()));
        assert!(!keys.verify(SigningAlg::ES256, Some("k1"), b"massage", signature.as_ref()));
        assert!(
            !keys.verify(SigningAlg::RS256, Some("k1"), b"message", signature.as_ref()),
            "not an RSA key"
        );
        assert!(keys.has(Some("k1")) && keys.has(None) && !keys.has(Some("k2")));
    }

    #[test]
    fn encryption_keys_and_unknown_types_are_left_out() {
        let (_, mut jwk) = es256();
        jwk["use"] = "enc".into();
        let doc = serde_json::json!({"keys": [jwk, {"kty": "oct", "k": "c2VjcmV0"}, {"kty": "RSA"}]});
        assert!(matches!(KeySet::parse(doc.to_string().as_bytes()), Err(Error::NoKeys)));
        assert!(matches!(KeySet::parse(b"[]"), Err(Error::NotJwks)));
    }
}
