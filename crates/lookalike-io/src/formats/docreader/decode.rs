//! Decoding a docreader record: contract: "give me a docreader record, I give you the page in it
//! (its url as the id, its body as HTML or else its text) or the reason there is none".

use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;

use super::wire::scan;
use crate::charset::{self, Kind};
use crate::options::ReadOptions;
use crate::page::{HtmlText, html_text};
use crate::record::{Decoded, RawRecord};
use crate::skip::SkipReason;
use crate::sniff::magic_type;

/// Decodes a [`Format::Docreader`](crate::Format::Docreader) record (see
/// [`DocreaderReader`](crate::DocreaderReader)).
pub(crate) fn decode(rec: &RawRecord, opts: &ReadOptions) -> Decoded {
    let fallback = || rec.origin().to_string();
    let m = match scan(&rec.bytes, rec.bytes.len()) {
        Ok(m) => m,
        Err(e) => {
            let reason = SkipReason::damaged(format!("malformed protobuf: {e}"));
            return Decoded::Skip { id: fallback(), reason };
        }
    };
    let Some(url) = m.url.filter(|u| !u.is_empty()) else {
        return Decoded::Skip {
            id: fallback(),
            reason: SkipReason::missing_field(
                "no url: a message without field 1 (url), which is required",
            ),
        };
    };
    let mut warnings = Vec::new();
    let id = match std::str::from_utf8(url) {
        Ok(url) => url.to_owned(),
        Err(_) => {
            warnings.push("url is not valid UTF-8: invalid bytes replaced with U+FFFD".to_owned());
            String::from_utf8_lossy(url).into_owned()
        }
    };
    let tld = charset::tld(&id);
    let (payload, kind) = match (m.body.filter(|b| !b.is_empty()), m.text) {
        (Some(body), _) => (body, Kind::Html),
        (None, Some(text)) if !text.is_empty() => (text, Kind::Plain),
        _ => {
            return Decoded::Skip {
                id,
                reason: SkipReason::empty("empty record: no body (field 2) and no text (field 3)"),
            };
        }
    };
    if let Some(media) = magic_type(payload) {
        return Decoded::Skip { id, reason: SkipReason::binary_payload(media) };
    }
    let decoded = charset::decode(payload, kind, None, tld.as_deref());
    warnings.extend(decoded.warning);
    let page = match kind {
        Kind::Html => html_text(decoded.text, opts, Some(&id)),
        Kind::Plain => HtmlText::plain_text(decoded.text),
    };
    warnings.extend(page.warning);
    let doc = Document {
        id,
        text: page.text,
        raw_fingerprint: Some(raw_fingerprint(payload)),
        raw_len: rec.bytes.len() as u64,
    };
    Decoded::Doc {
        doc,
        warning: (!warnings.is_empty()).then(|| warnings.join("; ")),
        charset: decoded.charset,
        title: page.title,
        extraction: page.extraction,
        visible: page.visible,
        site: None,
    }
}
