//! Reads a list response as it arrives: each item of `items` is parsed once its last byte is in,
//! and only the item being read is held, so a list of any length is read in the memory of one
//! object.
//!
//! An API server answers a list without `limit` from its watch cache, which costs it less CPU
//! than the same list in pages (see `super::list_watch` and docs/adr/0002-unpaged-first-lists.md).
//! Read whole, such a list would hold every object at once; read with this, it holds one.

use std::fmt;

use serde::Deserialize;

use super::watched_object::WatchedObject;

/// Longest item accepted (the API server stores objects of at most 1.5 MiB by default).
const MAX_ITEM: usize = 64 << 20;
/// Longest top-level member other than `items` (`kind`, `apiVersion`, `metadata`).
const MAX_MEMBER: usize = 1 << 20;

/// Why a list response could not be read.
#[derive(Debug, PartialEq, Eq)]
pub struct ListError(String);

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reading the list response: {}", self.0)
    }
}

impl std::error::Error for ListError {}

/// The list's own metadata.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ListMeta {
    /// The version the list was read at: a watch from it misses nothing.
    #[serde(default)]
    pub resource_version: String,
    /// Set when the answer is only a page of the list.
    #[serde(default, rename = "continue")]
    pub continue_: Option<String>,
}

/// Where the reader is in the top-level object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Before the opening `{`.
    Start,
    /// Expecting a member's key (or the closing `}`).
    Key,
    /// Inside a member's key.
    InKey,
    /// After a key, before its `:`.
    Colon,
    /// After `:`, before the value.
    Value,
    /// Inside a member's value other than `items` (captured).
    InValue,
    /// Inside `items`, between two items.
    Items,
    /// Inside one item (captured).
    InItem,
    /// After a member's value, before `,` or `}`.
    Next,
    /// After the closing `}`.
    End,
}

/// An incremental reader of one list response body.
pub struct ListReader {
    at: At,
    /// Nesting inside the top-level object (1 directly in it).
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// Bytes of the key, value or item being read.
    buf: Vec<u8>,
    /// The key whose value is being read.
    key: String,
    /// A scalar value (number, `true`, …) ends at the next `,` or `}` rather than a bracket.
    scalar: bool,
    meta: Option<ListMeta>,
}

impl Default for ListReader {
    fn default() -> Self {
        Self {
            at: At::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            buf: Vec::new(),
            key: String::new(),
            scalar: false,
            meta: None,
        }
    }
}

impl ListReader {
    /// Reads the next bytes of the body; appends the items completed by them to `items`.
    pub fn feed(&mut self, chunk: &[u8], items: &mut Vec<WatchedObject>) -> Result<(), ListError> {
        let mut i = 0;
        // Start of the bytes of `chunk` that belong to what is being captured.
        let mut from = self.capturing().then_some(0);
        while i < chunk.len() {
            if self.in_string {
                // Skip to the next quote or backslash at once: strings are most of the bytes.
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                match memchr::memchr2(b'"', b'\\', &chunk[i..]) {
                    None => i = chunk.len(),
                    Some(n) => {
                        i += n;
                        if chunk[i] == b'\\' {
                            self.escaped = true;
                        } else {
                            self.in_string = false;
                            if self.at == At::InKey {
                                self.take(chunk, &mut from, i + 1);
                                self.key = serde_json::from_slice::<String>(&self.buf)
                                    .map_err(|e| ListError(format!("a key: {e}")))?;
                                self.buf.clear();
                                self.at = At::Colon;
                                i += 1;
                                continue;
                            }
                        }
                        i += 1;
                    }
                }
                continue;
            }
            let b = chunk[i];
            match (self.at, b) {
                (_, b' ' | b'\t' | b'\n' | b'\r') => {}
                (At::Start, b'{') => {
                    self.depth = 1;
                    self.at = At::Key;
                }
                (At::Key, b'"') => {
                    self.in_string = true;
                    self.at = At::InKey;
                    from = Some(i);
                }
                (At::Key | At::Next, b'}') => {
                    self.depth = 0;
                    self.at = At::End;
                }
                (At::Colon, b':') => self.at = At::Value,
                (At::Next, b',') => self.at = At::Key,
                (At::Value, b'[') if self.key == "items" => {
                    self.depth = 2;
                    self.at = At::Items;
                }
                (At::Value, _) => {
                    // Any other value is captured whole: a string, an object, an array or a scalar.
                    self.at = At::InValue;
                    from = Some(i);
                    self.scalar = false;
                    // A string or a scalar ends at the next `,` or `}`, an object or array at its
                    // closing bracket.
                    match b {
                        b'"' => {
                            self.in_string = true;
                            self.scalar = true;
                        }
                        b'{' | b'[' => self.depth += 1,
                        _ => self.scalar = true,
                    }
                }
                (At::InValue, b',' | b'}') if self.scalar && self.depth == 1 => {
                    self.take(chunk, &mut from, i);
                    self.member()?;
                    self.at = At::Next;
                    // The `,` or `}` is read again as what follows the value.
                    continue;
                }
                (At::InValue, b'{' | b'[') => self.depth += 1,
                (At::InValue, b'}' | b']') => {
                    self.depth -= 1;
                    if self.depth == 1 {
                        self.take(chunk, &mut from, i + 1);
                        self.member()?;
                        self.at = At::Next;
                    }
                }
                (At::InValue, b'"') => self.in_string = true,
                (At::Items, b'{') => {
                    self.depth = 3;
                    self.at = At::InItem;
                    from = Some(i);
                }
                (At::Items, b',') => {}
                (At::Items, b']') => {
                    self.depth = 1;
                    self.at = At::Next;
                }
                (At::InItem, b'"') => self.in_string = true,
                (At::InItem, b'{' | b'[') => self.depth += 1,
                (At::InItem, b'}' | b']') => {
                    self.depth -= 1;
                    if self.depth == 2 {
                        self.take(chunk, &mut from, i + 1);
                        let item = serde_json::from_slice::<WatchedObject>(&self.buf)
                            .map_err(|e| ListError(format!("an item: {e}")))?;
                        self.buf.clear();
                        items.push(item);
                        self.at = At::Items;
                    }
                }
                (At::InValue | At::InItem, _) => {}
                (At::End, _) => return Err(ListError("bytes after the end of the list".into())),
                (at, b) => {
                    return Err(ListError(format!("unexpected {:?} ({at:?})", char::from(b))));
                }
            }
            i += 1;
        }
        // What is being captured continues in the next chunk.
        if let Some(start) = from
            && self.capturing()
        {
            self.buf.extend_from_slice(&chunk[start..]);
            let limit = if self.at == At::InItem { MAX_ITEM } else { MAX_MEMBER };
            if self.buf.len() > limit {
                return Err(ListError(format!("a value of more than {limit} bytes")));
            }
        }
        Ok(())
    }

    /// The list's metadata, once the whole body was read.
    pub fn finish(self) -> Result<ListMeta, ListError> {
        if self.at != At::End {
            return Err(ListError("the response ended before the list did".into()));
        }
        self.meta.ok_or_else(|| ListError("the list has no metadata".into()))
    }

    fn capturing(&self) -> bool {
        matches!(self.at, At::InKey | At::InValue | At::InItem)
    }

    /// Moves the captured bytes of `chunk` up to `end` into the buffer.
    fn take(&mut self, chunk: &[u8], from: &mut Option<usize>, end: usize) {
        if let Some(start) = from.take() {
            self.buf.extend_from_slice(&chunk[start..end]);
        }
    }

    /// A top-level member other than `items` is complete: only `metadata` is kept.
    fn member(&mut self) -> Result<(), ListError> {
        if self.key == "metadata" {
            let meta = serde_json::from_slice::<ListMeta>(&self.buf)
                .map_err(|e| ListError(format!("the list's metadata: {e}")))?;
            self.meta = Some(meta);
        }
        self.buf.clear();
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(body: &[u8], split: &[usize]) -> Result<(Vec<WatchedObject>, ListMeta), ListError> {
        let mut reader = ListReader::default();
        let mut items = Vec::new();
        let mut at = 0;
        for &n in split {
            let end = (at + n).min(body.len());
            reader.feed(&body[at..end], &mut items)?;
            at = end;
        }
        reader.feed(&body[at..], &mut items)?;
        Ok((items, reader.finish()?))
    }

    fn names(items: &[WatchedObject]) -> Vec<String> {
        items.iter().map(|o| o.metadata.name.clone().unwrap_or_default()).collect()
    }

    const LIST: &str = r#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42","remainingItemCount":0},"items":[{"metadata":{"name":"a","uid":"1"},"data":{"k":"v } ] \" \\ {"}},{"metadata":{"name":"b","uid":"2","labels":{"x":"y"}},"binaryData":{},"immutable":true}]}"#;

    #[test]
    fn reads_items_and_metadata_in_one_piece() {
        let (items, meta) = read(LIST.as_bytes(), &[]).unwrap();
        assert_eq!(names(&items), ["a", "b"]);
        assert_eq!(meta.resource_version, "42");
        assert_eq!(meta.continue_, None);
        let data = items[0].fields.iter().find(|(k, _)| k == "data").unwrap().1.get();
        assert_eq!(data, r#"{"k":"v } ] \" \\ {"}"#, "brackets and quotes inside strings are text");
    }

    #[test]
    fn reads_the_same_in_pieces_of_every_size() {
        for size in 1..LIST.len() {
            let split: Vec<usize> = std::iter::repeat_n(size, LIST.len() / size).collect();
            let (items, meta) = read(LIST.as_bytes(), &split).unwrap();
            assert_eq!((names(&items), meta.resource_version.as_str()), (vec!["a".into(), "b".into()], "42"));
        }
    }

    #[test]
    fn members_in_any_order_with_whitespace() {
        let body = "{ \"items\" : [ { \"metadata\" : { \"name\" : \"a\" } } , {\"metadata\":{\"name\":\"b\"}} ] ,\n\
                    \"metadata\" : { \"resourceVersion\" : \"7\", \"continue\": \"c\" }, \"n\": 12, \"t\": true,\n\
                    \"s\": \"x,}\", \"kind\" : \"List\" }";
        let (items, meta) = read(body.as_bytes(), &[3, 5, 7]).unwrap();
        assert_eq!(names(&items), ["a", "b"]);
        assert_eq!(meta, ListMeta { resource_version: "7".into(), continue_: Some("c".into()) });
    }

    #[test]
    fn an_empty_list_has_no_items() {
        let (items, meta) =
            read(br#"{"kind":"PodList","metadata":{"resourceVersion":"3"},"items":[]}"#, &[]).unwrap();
        assert!(items.is_empty());
        assert_eq!(meta.resource_version, "3");
        let (items, _) = read(br#"{"metadata":{"resourceVersion":"3"},"items":null}"#, &[]).unwrap();
        assert!(items.is_empty());
    }

    #[test]
    fn broken_or_cut_bodies_are_errors() {
        let cut = &LIST.as_bytes()[..LIST.len() - 3];
        assert!(read(cut, &[]).unwrap_err().0.contains("ended before"));
        assert!(read(br#"{"metadata":{"resourceVersion":"1"},"items":[{"metadata":1}]}"#, &[]).is_err());
        assert!(read(br#"{"metadata":{"resourceVersion":"1"},"items":[]}{}"#, &[]).is_err());
        assert!(read(br#"[1,2]"#, &[]).is_err());
        assert!(read(br#"{"items":[]}"#, &[]).unwrap_err().0.contains("no metadata"));
    }

    fn object(i: usize, text: &str) -> serde_json::Value {
        serde_json::json!({
            "metadata": {"name": format!("o-{i}"), "namespace": "ns", "uid": format!("u-{i}"),
                         "labels": {"k": text}, "annotations": {"a": format!("{text}{{[\"")}},
            "data": {"x": text, "nested": [[{}], {"y": [1, 2.5, null, false]}]},
        })
    }

    proptest! {
        /// Whatever the objects' text and however the body is cut, the reader gives what reading
        /// the whole body at once gives.
        #[test]
        fn agrees_with_reading_the_whole_body(
            texts in proptest::collection::vec("[ -~\\u{e9}\\u{1f600}]{0,40}", 0..12),
            cuts in proptest::collection::vec(1usize..64, 0..40),
        ) {
            let items: Vec<serde_json::Value> = texts.iter().enumerate().map(|(i, t)| object(i, t)).collect();
            let body = serde_json::to_vec(&serde_json::json!({
                "kind": "ConfigMapList", "apiVersion": "v1",
                "metadata": {"resourceVersion": "99"}, "items": items,
            })).unwrap();
            let whole: kube::core::ObjectList<WatchedObject> = serde_json::from_slice(&body).unwrap();
            let (read_items, meta) = read(&body, &cuts).unwrap();
            prop_assert_eq!(meta.resource_version.as_str(), "99");
            prop_assert_eq!(read_items.len(), whole.items.len());
            for (a, b) in read_items.iter().zip(&whole.items) {
                prop_assert_eq!(&a.metadata, &b.metadata);
                let fa: Vec<(&str, &str)> = a.fields.iter().map(|(k, v)| (k.as_str(), v.get())).collect();
                let fb: Vec<(&str, &str)> = b.fields.iter().map(|(k, v)| (k.as_str(), v.get())).collect();
                prop_assert_eq!(fa, fb);
            }
        }
    }
}
