//! A `SelfSubjectAccessReview` in Kubernetes' protobuf encoding, read as far as its question.
//!
//! client-go's generated clients send built-in types as protobuf (and fall back to JSON only
//! from CBOR), so `kubectl auth can-i` and k9s post their reviews as
//! `application/vnd.kubernetes.protobuf`: the bytes `k8s\0`, then a `runtime.Unknown` whose
//! `raw` field holds the object. Only the review's spec is read; everything else is skipped,
//! as protobuf readers skip unknown fields. Answers go back as JSON, which client-go accepts.

use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};

/// The media type of Kubernetes' protobuf encoding.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// What starts every protobuf-encoded Kubernetes object.
const MAGIC: &[u8] = b"k8s\0";

/// Why the body is not a protobuf `SelfSubjectAccessReview`; none is retryable (the same
/// bytes fail the same way).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// The body does not start with `k8s\0`.
    #[error("the body does not start with Kubernetes' protobuf prefix")]
    NoMagic,
    /// A field runs past the end of its message.
    #[error("the protobuf message ends in the middle of a field")]
    Truncated,
    /// A wire type protobuf does not have (or the deprecated groups).
    #[error("protobuf wire type {0} is not supported")]
    WireType(u64),
    /// A string field is not UTF-8.
    #[error("a string field is not UTF-8")]
    NotUtf8,
    /// The envelope holds another kind.
    #[error("the body is a {0}, not a SelfSubjectAccessReview")]
    Kind(String),
}

/// The review the body encodes (its spec; metadata and status are left out).
pub fn self_subject_access_review(body: &[u8]) -> Result<SelfSubjectAccessReview, Error> {
    let envelope = body.strip_prefix(MAGIC).ok_or(Error::NoMagic)?;
    let mut kind = String::new();
    let mut raw: &[u8] = &[];
    for field in Fields(envelope) {
        match field? {
            (1, Value::Bytes(type_meta)) => {
                for f in Fields(type_meta) {
                    if let (2, Value::Bytes(k)) = f? {
                        kind = text(k)?;
                    }
                }
            }
            (2, Value::Bytes(bytes)) => raw = bytes,
            _ => {}
        }
    }
    if kind != "SelfSubjectAccessReview" {
        return Err(Error::Kind(if kind.is_empty() { "object without a kind".into() } else { kind }));
    }
    let mut spec = SelfSubjectAccessReviewSpec::default();
    for field in Fields(raw) {
        if let (2, Value::Bytes(bytes)) = field? {
            for f in Fields(bytes) {
                match f? {
                    (1, Value::Bytes(b)) => spec.resource_attributes = Some(resource_attributes(b)?),
                    (2, Value::Bytes(b)) => spec.non_resource_attributes = Some(non_resource_attributes(b)?),
                    _ => {}
                }
            }
        }
    }
    Ok(SelfSubjectAccessReview { spec, ..Default::default() })
}

fn resource_attributes(bytes: &[u8]) -> Result<ResourceAttributes, Error> {
    let mut r = ResourceAttributes::default();
    for field in Fields(bytes) {
        let (number, Value::Bytes(b)) = field? else { continue };
        let slot = match number {
            1 => &mut r.namespace,
            2 => &mut r.verb,
            3 => &mut r.group,
            4 => &mut r.version,
            5 => &mut r.resource,
            6 => &mut r.subresource,
            7 => &mut r.name,
            // Field and label selectors: RBAC does not look at them.
            _ => continue,
        };
        *slot = Some(text(b)?);
    }
    Ok(r)
}

fn non_resource_attributes(bytes: &[u8]) -> Result<NonResourceAttributes, Error> {
    let mut n = NonResourceAttributes::default();
    for field in Fields(bytes) {
        match field? {
            (1, Value::Bytes(b)) => n.path = Some(text(b)?),
            (2, Value::Bytes(b)) => n.verb = Some(text(b)?),
            _ => {}
        }
    }
    Ok(n)
}

fn text(bytes: &[u8]) -> Result<String, Error> {
    String::from_utf8(bytes.to_vec()).map_err(|_| Error::NotUtf8)
}

/// A field's value: only length-delimited ones are read; numbers are skipped.
enum Value<'a> {
    Bytes(&'a [u8]),
    Skipped,
}

/// The fields of one message, in order: `(number, value)`.
struct Fields<'a>(&'a [u8]);

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            // Nothing after a broken field can be read.
            self.0 = &[];
        }
        Some(field)
    }
}

impl<'a> Fields<'a> {
    fn field(&mut self) -> Result<(u64, Value<'a>), Error> {
        let key = self.varint()?;
        let value = match key & 7 {
            0 => {
                self.varint()?;
                Value::Skipped
            }
            1 => {
                self.take(8)?;
                Value::Skipped
            }
            2 => {
                let len = usize::try_from(self.varint()?).map_err(|_| Error::Truncated)?;
                Value::Bytes(self.take(len)?)
            }
            5 => {
                self.take(4)?;
                Value::Skipped
            }
            other => return Err(Error::WireType(other)),
        };
        Ok((key >> 3, value))
    }

    fn varint(&mut self) -> Result<u64, Error> {
        let mut value = 0u64;
        for (i, byte) in self.0.iter().enumerate().take(10) {
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                self.0 = &self.0[i + 1..];
                return Ok(value);
            }
        }
        Err(Error::Truncated)
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], Error> {
        if len > self.0.len() {
            return Err(Error::Truncated);
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Ok(head)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;

    /// A length-delimited field.
    fn field(number: u8, bytes: &[u8]) -> Vec<u8> {
        let mut out = vec![(number << 3) | 2, u8::try_from(bytes.len()).unwrap_or(u8::MAX)];
        out.extend_from_slice(bytes);
        out
    }

    /// The bytes client-go sends for a review of these resource attributes (`(number, text)`),
    /// empty strings included as gogo-protobuf writes them.
    pub(crate) fn encoded(kind: &str, attributes: &[(u8, &str)]) -> Vec<u8> {
        let attrs: Vec<u8> = attributes.iter().flat_map(|(n, t)| field(*n, t.as_bytes())).collect();
        let spec = field(1, &attrs);
        let mut object = field(1, &[]);
        object.extend(field(2, &spec));
        object.extend(field(3, &[0x08, 0x00])); // status {allowed: false}
        let mut type_meta = field(1, b"authorization.k8s.io/v1");
        type_meta.extend(field(2, kind.as_bytes()));
        let mut body = MAGIC.to_vec();
        body.extend(field(1, &type_meta));
        body.extend(field(2, &object));
        body.extend(field(3, b""));
        body.extend(field(4, b""));
        body
    }

    #[test]
    fn a_review_as_client_go_encodes_it_is_read() {
        let body =
            encoded("SelfSubjectAccessReview", &[(1, ""), (2, "list"), (3, "apps"), (5, "deployments")]);
        let review = self_subject_access_review(&body).unwrap();
        let r = review.spec.resource_attributes.unwrap();
        assert_eq!(
            (r.namespace.as_deref(), r.verb.as_deref(), r.group.as_deref(), r.resource.as_deref()),
            (Some(""), Some("list"), Some("apps"), Some("deployments"))
        );
        assert!(review.spec.non_resource_attributes.is_none());
    }

    #[test]
    fn other_kinds_and_broken_bytes_are_errors() {
        assert_eq!(self_subject_access_review(&encoded("Pod", &[])).unwrap_err(), Error::Kind("Pod".into()));
        assert_eq!(self_subject_access_review(b"{}").unwrap_err(), Error::NoMagic);
        let mut cut = encoded("SelfSubjectAccessReview", &[(2, "get")]);
        cut.truncate(cut.len() - 6);
        assert_eq!(self_subject_access_review(&cut).unwrap_err(), Error::Truncated);
        assert_eq!(self_subject_access_review(b"k8s\0\x0b").unwrap_err(), Error::WireType(3));
        assert_eq!(self_subject_access_review(b"k8s\0\x08\xff").unwrap_err(), Error::Truncated);
    }
}
