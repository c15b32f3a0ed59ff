//! A compact JWS (`header.payload.signature`), taken apart before anything is trusted: bounded
//! in size and shape first, so a hostile token costs little.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mc_types::config::SigningAlg;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The longest token looked at, as the longest token sent for review.
pub const MAX_TOKEN: usize = crate::auth::MAX_REVIEWED_TOKEN;

/// Why a token is not a usable JWS (401, not retryable).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Too long, not three base64url parts, or a part that is not JSON of the right shape.
    #[error("malformed token: {0}")]
    Malformed(&'static str),
    /// Signed with an algorithm not in `signingAlgs` (`none` and HMAC never are).
    #[error("algorithm {0:?} is not accepted")]
    Algorithm(String),
    /// The header names extensions (`crit`) that must be understood, and none is.
    #[error("the token needs header extensions that are not supported")]
    Critical,
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A token's parts, its signature not yet checked.
#[derive(Debug)]
pub struct Token<'a> {
    /// How it is signed.
    pub alg: SigningAlg,
    /// The key it names, if any.
    pub kid: Option<String>,
    /// Its claims.
    pub claims: Map<String, Value>,
    /// What the signature covers: `header.payload`, as sent.
    pub signed: &'a [u8],
    /// The signature.
    pub signature: Vec<u8>,
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default)]
    crit: Option<Value>,
}

/// The three parts of `token`, when its size and shape are right.
fn parts(token: &str) -> Result<[&str; 3]> {
    if token.len() > MAX_TOKEN {
        return Err(Error::Malformed("too long"));
    }
    let mut parts = token.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(h), Some(p), Some(s), None) if !h.is_empty() && !p.is_empty() => Ok([h, p, s]),
        _ => Err(Error::Malformed("not three dot-separated parts")),
    }
}

fn decode(part: &str) -> Result<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(part).map_err(|_| Error::Malformed("a part is not base64url"))
}

/// Takes `token` apart, accepting only the algorithms of `algs`.
pub fn parse<'a>(token: &'a str, algs: &[SigningAlg]) -> Result<Token<'a>> {
    let [head, payload, signature] = parts(token)?;
    let signed = &token.as_bytes()[..head.len() + 1 + payload.len()];
    let header: Header =
        serde_json::from_slice(&decode(head)?).map_err(|_| Error::Malformed("the header is not JSON"))?;
    let alg = algs.iter().copied().find(|a| a.name() == header.alg).ok_or(Error::Algorithm(header.alg))?;
    if header.crit.is_some() {
        return Err(Error::Critical);
    }
    let claims = serde_json::from_slice(&decode(payload)?)
        .map_err(|_| Error::Malformed("the payload is not a JSON object"))?;
    let signature = decode(signature)?;
    if signature.is_empty() {
        return Err(Error::Malformed("no signature"));
    }
    Ok(Token { alg, kid: header.kid, claims, signed, signature })
}

/// The `iss` claim of a token of the right shape, unverified: only to choose who verifies it.
pub fn issuer(token: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Issuer {
        iss: String,
    }
    let [_, payload, _] = parts(token).ok()?;
    serde_json::from_slice::<Issuer>(&decode(payload).ok()?).ok().map(|c| c.iss)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn b64(json: &str) -> String {
        URL_SAFE_NO_PAD.encode(json)
    }

    #[test]
    fn a_token_is_three_base64url_parts_with_an_accepted_alg() {
        let token =
            format!("{}.{}.{}", b64(r#"{"alg":"ES256","kid":"k1"}"#), b64(r#"{"iss":"i"}"#), b64("sig"));
        let parsed = parse(&token, &[SigningAlg::RS256, SigningAlg::ES256]).unwrap();
        assert_eq!(parsed.alg, SigningAlg::ES256);
        assert_eq!(parsed.kid.as_deref(), Some("k1"));
        assert_eq!(parsed.claims["iss"], "i");
        assert_eq!(parsed.signature, b"sig");
        assert_eq!(parsed.signed, token.rsplit_once('.').unwrap().0.as_bytes());
        assert_eq!(issuer(&token).as_deref(), Some("i"));
    }

    #[test]
    fn none_hmac_and_unlisted_algorithms_are_refused() {
        for alg in ["none", "HS256", "RS256", "es256"] {
            let token = format!("{}.{}.{}", b64(&format!(r#"{{"alg":"{alg}"}}"#)), b64("{}"), b64("s"));
            assert!(matches!(parse(&token, &[SigningAlg::ES256]), Err(Error::Algorithm(_))), "{alg}");
        }
        let unsigned = format!("{}.{}.", b64(r#"{"alg":"ES256"}"#), b64("{}"));
        assert!(matches!(parse(&unsigned, &[SigningAlg::ES256]), Err(Error::Malformed(_))));
    }

    #[test]
    fn malformed_or_huge_tokens_are_refused_before_decoding() {
        let huge = format!("{}.{}.{}", b64(r#"{"alg":"ES256"}"#), "a".repeat(MAX_TOKEN), b64("s"));
        for token in ["", "a.b", "a.b.c.d", "..", "!!.e30.c2ln", &huge] {
            assert!(matches!(parse(token, &[SigningAlg::ES256]), Err(Error::Malformed(_))), "{token:.20}");
            assert_eq!(issuer(token), None);
        }
        let crit = format!("{}.{}.{}", b64(r#"{"alg":"ES256","crit":["b64"]}"#), b64("{}"), b64("s"));
        assert!(matches!(parse(&crit, &[SigningAlg::ES256]), Err(Error::Critical)));
        let array = format!("{}.{}.{}", b64(r#"{"alg":"ES256"}"#), b64("[1]"), b64("s"));
        assert!(matches!(parse(&array, &[SigningAlg::ES256]), Err(Error::Malformed(_))));
    }
}
