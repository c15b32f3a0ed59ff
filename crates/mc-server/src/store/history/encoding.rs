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

/// Decodes revisions' objects, one zstd context for all of them: a context costs about as much
/// to make as a small object does to decompress, and the output is sized from the frame's
/// header (the size `compressed` wrote) instead of the largest object allowed.
#[derive(Default)]
pub(super) struct Decoder {
    context: Option<zstd::bulk::Decompressor<'static>>,
}

impl Decoder {
    /// The object of a revision `id` from its stored form.
    pub(super) fn decode(&mut self, id: i64, encoding: i64, bytes: Vec<u8>) -> Result<Option<RawObject>> {
        let corrupt = |why: String| Error::Corrupt(format!("object of revision {id}: {why}"));
        let text = match encoding {
            NONE => return Ok(None),
            ZSTD => self.decompress(&bytes).map_err(corrupt)?,
            PLAIN => bytes,
            other => return Err(corrupt(format!("unknown encoding {other}"))),
        };
        let text = String::from_utf8(text).map_err(|e| corrupt(e.to_string()))?;
        RawObject::from_text(text).map(Some).map_err(|e| corrupt(e.to_string()))
    }

    fn decompress(&mut self, bytes: &[u8]) -> std::result::Result<Vec<u8>, String> {
        let size = match zstd::zstd_safe::get_frame_content_size(bytes) {
            Ok(Some(size)) if size <= MAX_TEXT as u64 => size as usize,
            Ok(Some(size)) => return Err(format!("{size} bytes of text, more than an object holds")),
            // A frame without its size (not one we wrote): read it as a stream, bounded.
            Ok(None) => return streamed(bytes),
            Err(_) => return Err("not a zstd frame".into()),
        };
        let context = match &mut self.context {
            Some(context) => context,
            None => self.context.insert(zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?),
        };
        let mut text = Vec::with_capacity(size);
        let written = context.decompress_to_buffer(bytes, &mut text).map_err(|e| e.to_string())?;
        if written != size {
            return Err(format!("{written} bytes of text, the frame says {size}"));
        }
        Ok(text)
    }
}

/// A zstd frame of unknown size decompressed, at most [`MAX_TEXT`] bytes.
fn streamed(bytes: &[u8]) -> std::result::Result<Vec<u8>, String> {
    use std::io::Read;
    let decoder = zstd::stream::read::Decoder::new(bytes).map_err(|e| e.to_string())?;
    let mut text = Vec::new();
    decoder.take(MAX_TEXT as u64 + 1).read_to_end(&mut text).map_err(|e| e.to_string())?;
    if text.len() > MAX_TEXT {
        return Err("more text than an object holds".into());
    }
    Ok(text)
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
        let mut d = Decoder::default();
        assert_eq!(d.decode(1, encoding, bytes.clone()).unwrap(), Some(object.clone()));
        // The context is used again.
        assert_eq!(d.decode(2, encoding, bytes).unwrap(), Some(object.clone()));
        assert_eq!(d.decode(1, PLAIN, object.text().as_bytes().to_vec()).unwrap(), Some(object.clone()));
        assert_eq!(d.decode(1, NONE, Vec::new()).unwrap(), None);
        assert!(d.decode(1, ZSTD, b"not zstd".to_vec()).is_err());
        assert!(d.decode(1, 9, Vec::new()).is_err());
        // A frame that does not say its size (a stream) still decodes, and one cut short does not.
        let streamed = zstd::stream::encode_all(object.text().as_bytes(), 1).unwrap();
        assert!(matches!(zstd::zstd_safe::get_frame_content_size(&streamed), Ok(None)));
        assert_eq!(d.decode(3, ZSTD, streamed).unwrap(), Some(object));
        let (bytes, _) = encode(&RawObject::from_text(format!(r#"{{"a":"{}"}}"#, "b".repeat(5000))).unwrap());
        assert!(d.decode(4, ZSTD, bytes[..bytes.len() - 3].to_vec()).is_err());
    }
}
