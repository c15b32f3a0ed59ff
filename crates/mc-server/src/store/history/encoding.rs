//! How a revision's object is stored: its JSON text compressed on its own with zstd (level 1,
//! [`RawObject::compressed`], computed by the sync before the object reaches the writer),
//! needing no earlier revision to write or to read (see docs/adr/0024-history-revisions.md for
//! the measurements against deltas).

use super::super::{Error, RawObject, Result};

/// No object kept (`encoding` column).
pub(super) const NONE: i64 = 0;
/// zstd of the JSON text.
pub(super) const ZSTD: i64 = 1;
/// The JSON text as it is.
pub(super) const PLAIN: i64 = 2;

/// The stored form of `object` and its encoding.
pub(super) fn encode(object: &RawObject) -> (Vec<u8>, i64) {
    match object.compressed() {
        Some(bytes) => (bytes.to_vec(), ZSTD),
        // Compressing into memory fails only when memory does: keep the text.
        None => (object.text().as_bytes().to_vec(), PLAIN),
    }
}

/// Upper bound of an object's text kept: Kubernetes caps an object at about 1.5 MiB (etcd's
/// request limit); anything decoding to far more is not an object we wrote.
const MAX_TEXT: usize = 64 << 20;

/// The object of a revision `id` from its stored form.
pub(super) fn decode(id: i64, encoding: i64, bytes: Vec<u8>) -> Result<Option<RawObject>> {
    let corrupt = |why: String| Error::Corrupt(format!("object of revision {id}: {why}"));
    let text = match encoding {
        NONE => return Ok(None),
        ZSTD => zstd::bulk::decompress(&bytes, MAX_TEXT).map_err(|e| corrupt(e.to_string()))?,
        PLAIN => bytes,
        other => return Err(corrupt(format!("unknown encoding {other}"))),
    };
    let text = String::from_utf8(text).map_err(|e| corrupt(e.to_string()))?;
    RawObject::from_text(text).map(Some).map_err(|e| corrupt(e.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn objects_come_back_as_they_went_in() {
        let object =
            RawObject::from_text(r#"{"kind":"ConfigMap","data":{"a":"xxxxxxxxxxxxxxxxxxxxxxxx"}}"#.into())
                .unwrap();
        let (bytes, encoding) = encode(&object);
        assert_eq!(encoding, ZSTD);
        assert!(bytes.len() < object.text().len());
        assert_eq!(decode(1, encoding, bytes).unwrap(), Some(object.clone()));
        assert_eq!(decode(1, PLAIN, object.text().as_bytes().to_vec()).unwrap(), Some(object));
        assert_eq!(decode(1, NONE, Vec::new()).unwrap(), None);
        assert!(decode(1, ZSTD, b"not zstd".to_vec()).is_err());
        assert!(decode(1, 9, Vec::new()).is_err());
    }
}
