//! Decoding a text or HTML file: contract: "give me a whole file's bytes, I give you its text (in
//! the charset its bytes say, the page's main content or visible text for HTML) or the reason it
//! is not text".

use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;

use crate::charset::{self, Kind};
use crate::encoding::decode_as;
use crate::format::Format;
use crate::options::ReadOptions;
use crate::page::{HtmlText, html_text};
use crate::record::{Decoded, RawRecord, position_id};
use crate::skip::SkipReason;
use crate::sniff;

/// Decodes a [`Format::Text`] or [`Format::Html`] record (see [`crate::decode`]).
pub(crate) fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    if let Some(reason) = sniff::binary_content(&rec.bytes) {
        return Decoded::Skip { id: position_id(rec), reason: SkipReason::not_a_document(reason) };
    }
    let kind = if rec.format == Format::Html { Kind::Html } else { Kind::Plain };
    let mut text = match sniff::utf16_without_bom(&rec.bytes) {
        Some(encoding) => {
            let (text, invalid) = decode_as(&rec.bytes, encoding);
            let detected = format!("charset detected: {} (no byte order mark)", encoding.name());
            let warning = Some(match invalid {
                Some(invalid) => format!("{detected}; {invalid}"),
                None => detected,
            });
            charset::Text { text, charset: encoding.name(), warning }
        }
        None => charset::decode(&rec.bytes, kind, None, None),
    };
    let page = match kind {
        Kind::Html => html_text(std::mem::take(&mut text.text), opts, None),
        Kind::Plain => HtmlText::plain(),
    };
    whole_file(rec, text, page)
}

/// A text or HTML file as one document: `page` holds the HTML's text, or is
/// [`HtmlText::plain`] for a text file (whose text is `text`'s).
fn whole_file(rec: &RawRecord, text: charset::Text, page: HtmlText) -> Decoded {
    let body = if page.extraction == "plain" { text.text } else { page.text };
    let doc = Document {
        id: position_id(rec),
        text: body,
        raw_fingerprint: Some(raw_fingerprint(&rec.bytes)),
        raw_len: rec.bytes.len() as u64,
    };
    let warning = match (text.warning, page.warning) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Decoded::Doc {
        doc,
        warning,
        charset: text.charset,
        title: page.title,
        extraction: page.extraction,
        visible: page.visible,
        site: None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn doc(d: Decoded) -> Document {
        match d {
            Decoded::Doc { doc, warning: None, .. } => doc,
            other => panic!("expected a document, got {other:?}"),
        }
    }

    #[test]
    fn text_and_html_records() {
        let opts = ReadOptions::default();
        let rec = RawRecord {
            source: Arc::from("d/a.txt"),
            line: None,
            format: Format::Text,
            bytes: b"\xEF\xBB\xBFhello".to_vec(),
            warc: None,
        };
        let d = doc(decode(&rec, &opts));
        assert_eq!((d.id.as_str(), d.text.as_str(), d.raw_len), ("d/a.txt", "hello", 8));
        assert_eq!(d.raw_fingerprint, Some(raw_fingerprint(&rec.bytes)));

        let rec = RawRecord { format: Format::Html, bytes: b"<p>a\xFF</p>".to_vec(), ..rec };
        match decode(&rec, &opts) {
            Decoded::Doc { doc, warning, charset, .. } => {
                assert_eq!((doc.text.as_str(), charset), ("a\u{FF}", "windows-1252"));
                assert_eq!(warning.as_deref(), Some("charset detected: windows-1252"));
            }
            other => panic!("{other:?}"),
        }
        let mut bytes = "<p>Всё в UTF-8, кроме одного байта: ".as_bytes().to_vec();
        bytes.extend(b"\xFF</p>");
        let rec = RawRecord { bytes, ..rec };
        match decode(&rec, &opts) {
            Decoded::Doc { doc, warning, charset, .. } => {
                assert_eq!(doc.text, "Всё в UTF-8, кроме одного байта: \u{FFFD}");
                assert_eq!(charset, "UTF-8");
                assert_eq!(warning.as_deref(), Some("invalid UTF-8 replaced with U+FFFD: 1 byte"));
            }
            other => panic!("{other:?}"),
        }
    }
}
