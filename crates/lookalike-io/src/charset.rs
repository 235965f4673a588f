//! Character sets: contract: "give me a page's bytes and what its HTTP header says about them, I
//! tell you which charset they are in and give you their text, with a warning when the charset
//! was a guess or some bytes were invalid in it".
//!
//! The order is the browsers' (the WHATWG encoding sniffing algorithm), with two departures that
//! make sense for archived pages read long after they were served:
//!
//! 1. A byte order mark (UTF-8, UTF-16LE, UTF-16BE) wins over everything.
//! 2. Declarations, in this order: the HTTP `Content-Type` charset; for HTML, a `<meta charset>`
//!    or `<meta http-equiv="Content-Type" content="...; charset=...">` found by the browsers'
//!    prescan of the first [`PRESCAN_LEN`] bytes (comments and other tags' attributes are
//!    skipped, so a `charset` in a comment or a script string does not count); for HTML, an
//!    XML declaration's `encoding`. Unknown labels are ignored.
//!    - Departure 1: a declared single-byte or legacy charset is overridden by UTF-8 when the
//!      bytes contain non-ASCII and are entirely valid UTF-8 (a server default of ISO-8859-1 in
//!      front of a UTF-8 page is common; legacy text is practically never valid UTF-8).
//!    - Departure 2: a UTF-8 declaration is believed only when the bytes are (nearly) UTF-8;
//!      otherwise the next declaration, or detection, decides.
//! 3. Without a usable declaration: UTF-8 if the bytes are valid UTF-8, or nearly so (at least
//!    ten valid non-ASCII characters per invalid sequence, or a sequence cut at the very end: a
//!    truncated record, not another charset); else `chardetng` (Firefox's detector), told the
//!    top-level domain of the page's URL when there is one. A detected charset is reported in
//!    the warning: `charset detected: windows-1251`.
//!
//! Plain text ([`Kind::Plain`]) has no markup to declare a charset: BOM, HTTP header (for WARC
//! records), UTF-8, then detection.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};
use memchr::memmem;

use crate::encoding::decode_as;

/// How many bytes of an HTML page are searched for a `<meta>` charset declaration. Browsers look
/// at 1024; pages whose head starts with long comments or scripts are common enough in crawls to
/// look a little further.
pub(crate) const PRESCAN_LEN: usize = 2048;

/// How many bytes the detector sees at most: enough for a confident guess, bounded time.
const DETECT_LEN: usize = 1 << 20;

/// What kind of document the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// HTML (and XHTML): `<meta>` and XML declarations count.
    Html,
    /// Plain text: only a BOM or an HTTP header can declare a charset.
    Plain,
}

/// Decoded text and how it was decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text {
    pub(crate) text: String,
    /// The WHATWG name of the charset used (`UTF-8`, `windows-1251`, `Shift_JIS`, ...).
    pub(crate) charset: &'static str,
    /// Set when the charset was detected rather than declared, or when invalid bytes were
    /// replaced; several warnings are joined with `; `.
    pub(crate) warning: Option<String>,
}

/// How a charset was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// By a byte order mark of this many bytes.
    Bom(usize),
    /// By a declaration (or the bytes being UTF-8).
    Known,
    /// By the detector; `declared_utf8` when a UTF-8 declaration was not believed.
    Detected { declared_utf8: bool },
}

/// Decodes a document's bytes; `http_charset` is the `charset` parameter of the HTTP
/// `Content-Type` (WARC records), `tld` the top-level domain of the document's URL (a hint for
/// the detector: lowercase ASCII, no dot; anything else is ignored).
pub(crate) fn decode(
    bytes: &[u8],
    kind: Kind,
    http_charset: Option<&str>,
    tld: Option<&str>,
) -> Text {
    let (encoding, how) = choose(bytes, kind, http_charset, tld);
    let body = match how {
        How::Bom(len) => &bytes[len..],
        _ => bytes,
    };
    let (text, invalid) = decode_as(body, encoding);
    let detected = match how {
        How::Detected { declared_utf8: false } => {
            Some(format!("charset detected: {}", encoding.name()))
        }
        How::Detected { declared_utf8: true } => Some(format!(
            "charset detected: {} (declared UTF-8, but the bytes are not)",
            encoding.name()
        )),
        _ => None,
    };
    let warning = match (detected, invalid) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Text { text, charset: encoding.name(), warning }
}

/// Decodes the bytes of an HTML page: BOM, `<meta>` declaration, then detection (see the module
/// docs); the warning is `Some` when invalid bytes were replaced or the charset was guessed. Used
/// by [`crate::html_to_text`].
pub(crate) fn decode_text(bytes: &[u8]) -> (String, Option<String>) {
    let text = decode(bytes, Kind::Html, None, None);
    (text.text, text.warning)
}

fn choose(
    bytes: &[u8],
    kind: Kind,
    http_charset: Option<&str>,
    tld: Option<&str>,
) -> (&'static Encoding, How) {
    if let Some((encoding, len)) = Encoding::for_bom(bytes) {
        return (encoding, How::Bom(len));
    }
    let mut fit = None;
    let mut utf8_fit = || *fit.get_or_insert_with(|| utf8_fit(bytes));
    let mut declared_utf8 = false;
    let html = kind == Kind::Html;
    let declarations = [
        http_charset.and_then(|label| label_encoding(label.as_bytes())),
        if html { prescan(bytes) } else { None },
        if html { xml_declaration(bytes) } else { None },
    ];
    for encoding in declarations.into_iter().flatten() {
        if encoding == UTF_8 {
            if utf8_fit() != Fit::No {
                return (UTF_8, How::Known);
            }
            declared_utf8 = true;
        } else {
            let utf8_instead = encoding.is_ascii_compatible()
                && Encoding::ascii_valid_up_to(bytes) < bytes.len()
                && matches!(utf8_fit(), Fit::Valid | Fit::Cut);
            return (if utf8_instead { UTF_8 } else { encoding }, How::Known);
        }
    }
    match utf8_fit() {
        // Pure 7-bit ISO-2022-JP is valid UTF-8: ask the detector when there are escapes.
        Fit::Valid if memchr::memchr(0x1B, bytes).is_some() => {
            (detect(bytes, tld, true), How::Detected { declared_utf8 })
        }
        Fit::Valid | Fit::Cut | Fit::Mostly => (UTF_8, How::Known),
        Fit::No => (detect(bytes, tld, false), How::Detected { declared_utf8 }),
    }
}

/// How well bytes read as UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    Valid,
    /// Valid but for a sequence cut at the very end (a truncated record).
    Cut,
    /// A few invalid sequences among many valid non-ASCII characters: UTF-8 text with some damage, not text in another charset (in legacy charsets,
    /// non-ASCII bytes almost never form valid UTF-8 sequences).
    Mostly,
    No,
}

fn utf8_fit(bytes: &[u8]) -> Fit {
    let error = match std::str::from_utf8(bytes) {
        Ok(_) => return Fit::Valid,
        Err(e) => e,
    };
    if error.error_len().is_none() {
        return Fit::Cut;
    }
    let (mut non_ascii, mut invalid) = (0usize, 0usize);
    for chunk in bytes.utf8_chunks() {
        non_ascii += chunk.valid().bytes().filter(|&b| b >= 0xC0).count();
        invalid += usize::from(!chunk.invalid().is_empty());
    }
    if non_ascii >= 10 * invalid { Fit::Mostly } else { Fit::No }
}

fn detect(bytes: &[u8], tld: Option<&str>, allow_utf8: bool) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new();
    let n = bytes.len().min(DETECT_LEN);
    detector.feed(&bytes[..n], n == bytes.len());
    // chardetng panics on a TLD with a dot, upper case or non-ASCII: only pass a clean label.
    let tld = tld.filter(|t| {
        !t.is_empty()
            && t.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    });
    detector.guess(tld.map(str::as_bytes), allow_utf8)
}

/// The encoding a charset label names (WHATWG labels, any case, surrounding whitespace and
/// quotes ignored); `None` for unknown labels and for those that map to the `replacement`
/// encoding (ISO-2022-KR, HZ, ...), which would turn the whole page into one U+FFFD.
/// `x-user-defined` reads as windows-1252.
pub(crate) fn label_encoding(label: &[u8]) -> Option<&'static Encoding> {
    let label = label.trim_ascii();
    let label = label.strip_prefix(b"\"").unwrap_or(label);
    let label = label.strip_suffix(b"\"").unwrap_or(label);
    let encoding = Encoding::for_label_no_replacement(label)?;
    Some(if encoding == X_USER_DEFINED { WINDOWS_1252 } else { encoding })
}

/// A charset declared in markup is read by an ASCII-compatible decoder: a UTF-16 declaration
/// there is wrong by construction, and means UTF-8 (as in browsers).
fn in_markup(encoding: &'static Encoding) -> &'static Encoding {
    if encoding == UTF_16LE || encoding == UTF_16BE { UTF_8 } else { encoding }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The WHATWG prescan of an HTML byte stream for a `<meta>` charset declaration, over the first
/// [`PRESCAN_LEN`] bytes.
fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let b = &bytes[..bytes.len().min(PRESCAN_LEN)];
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            // The comment ends at the first `-->`, which may share its dashes with `<!--`.
            i += 2 + memmem::find(&rest[2..], b"-->")? + 2;
        } else if rest.len() > 5
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_space(rest[5]) || rest[5] == b'/')
        {
            i += 5;
            if let Some(encoding) = meta(b, &mut i) {
                return Some(encoding);
            }
        } else if rest[0] == b'<'
            && (rest.get(1).is_some_and(u8::is_ascii_alphabetic)
                || (rest.get(1) == Some(&b'/') && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            // Another tag: skip its name and attributes, so that `charset=` in an attribute
            // value of another element does not count.
            while i < b.len() && !is_space(b[i]) && b[i] != b'>' {
                i += 1;
            }
            while attribute(b, &mut i).is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i += 2 + memchr::memchr(b'>', &rest[2..])?;
        }
        i += 1;
    }
    None
}

/// The attributes of a `<meta` tag, from just after its name: the charset it declares, if any.
fn meta(b: &[u8], i: &mut usize) -> Option<&'static Encoding> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    // None: no charset-bearing attribute yet; Some(true): from `content`, which needs
    // `http-equiv="content-type"`; Some(false): from `charset`.
    let mut need_pragma: Option<bool> = None;
    // None: not set; Some(None): set to an unknown label.
    let mut charset: Option<Option<&'static Encoding>> = None;
    while let Some((name, value)) = attribute(b, i) {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value == b"content-type",
            b"content" if charset.is_none() => {
                if let Some(encoding) = charset_in_content(&value) {
                    charset = Some(Some(encoding));
                    need_pragma = Some(true);
                }
            }
            b"charset" if charset.is_none() => {
                charset = Some(label_encoding(&value));
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    match (need_pragma, charset) {
        (Some(true), _) if !got_pragma => None,
        (Some(_), Some(Some(encoding))) => Some(in_markup(encoding)),
        _ => None,
    }
}

/// The WHATWG "get an attribute" step of the prescan: the next attribute's lower-cased name and
/// value, or `None` at the end of the tag (`>`, position left on it) or of the input.
fn attribute(b: &[u8], i: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
    while is_space(*b.get(*i)?) || b[*i] == b'/' {
        *i += 1;
    }
    if b[*i] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    loop {
        match *b.get(*i)? {
            b'=' if !name.is_empty() => {
                *i += 1;
                return attribute_value(b, i, name);
            }
            b'/' | b'>' => return Some((name, Vec::new())),
            c if is_space(c) => break,
            c => {
                name.push(c.to_ascii_lowercase());
                *i += 1;
            }
        }
    }
    while is_space(*b.get(*i)?) {
        *i += 1;
    }
    if b[*i] != b'=' {
        return Some((name, Vec::new()));
    }
    *i += 1;
    attribute_value(b, i, name)
}

fn attribute_value(b: &[u8], i: &mut usize, name: Vec<u8>) -> Option<(Vec<u8>, Vec<u8>)> {
    while is_space(*b.get(*i)?) {
        *i += 1;
    }
    let mut value = Vec::new();
    let quote = b[*i];
    if quote == b'"' || quote == b'\'' {
        *i += 1;
        loop {
            let c = *b.get(*i)?;
            *i += 1;
            if c == quote {
                return Some((name, value));
            }
            value.push(c.to_ascii_lowercase());
        }
    }
    loop {
        let c = *b.get(*i)?;
        if is_space(c) || c == b'>' {
            return Some((name, value));
        }
        value.push(c.to_ascii_lowercase());
        *i += 1;
    }
}

/// The charset named in a `<meta http-equiv="Content-Type">`'s `content` value
/// (`text/html; charset=koi8-r`), by the WHATWG extraction algorithm.
fn charset_in_content(content: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    loop {
        pos += find_ignore_case(&content[pos..], b"charset")? + b"charset".len();
        while content.get(pos).is_some_and(|&c| is_space(c)) {
            pos += 1;
        }
        if content.get(pos) == Some(&b'=') {
            pos += 1;
            break;
        }
    }
    while content.get(pos).is_some_and(|&c| is_space(c)) {
        pos += 1;
    }
    let rest = &content[pos..];
    let value = match *rest.first()? {
        quote @ (b'"' | b'\'') => &rest[1..1 + memchr::memchr(quote, &rest[1..])?],
        _ => {
            let end = rest.iter().position(|&c| is_space(c) || c == b';').unwrap_or(rest.len());
            &rest[..end]
        }
    };
    label_encoding(value)
}

/// The `encoding` of an XML declaration at the very start (`<?xml version="1.0"
/// encoding="Shift_JIS"?>`), as XHTML pages declare it.
fn xml_declaration(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(1024)];
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let decl = &head[..memmem::find(head, b"?>")?];
    let mut pos = memmem::find(decl, b"encoding")? + b"encoding".len();
    while decl.get(pos).is_some_and(|&c| is_space(c)) {
        pos += 1;
    }
    if decl.get(pos) != Some(&b'=') {
        return None;
    }
    pos += 1;
    while decl.get(pos).is_some_and(|&c| is_space(c)) {
        pos += 1;
    }
    let quote = *decl.get(pos).filter(|&&q| q == b'"' || q == b'\'')?;
    let rest = &decl[pos + 1..];
    let value = &rest[..memchr::memchr(quote, rest)?];
    label_encoding(value).map(in_markup)
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle))
}

/// The top-level domain of a URL's host, lower-cased, for the charset detector; `None` for IP
/// addresses and non-ASCII (not Punycode) labels.
pub(crate) fn tld(uri: &str) -> Option<String> {
    let rest = uri.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    if host.starts_with('[') {
        return None;
    }
    let host = host.split(':').next()?.trim_end_matches('.');
    let label = host.rsplit('.').next()?;
    let ok = !label.is_empty()
        && !label.bytes().all(|b| b.is_ascii_digit())
        && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| label.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use encoding_rs::{EUC_JP, GBK, KOI8_R, SHIFT_JIS, WINDOWS_1251};

    use super::*;

    fn html(bytes: &[u8]) -> Text {
        decode(bytes, Kind::Html, None, None)
    }

    #[test]
    fn prescan_finds_meta_declarations() {
        let p = |s: &str| prescan(s.as_bytes()).map(Encoding::name);
        assert_eq!(p(r#"<meta charset="koi8-r">"#), Some("KOI8-R"));
        assert_eq!(p("<META CHARSET=Shift_JIS>"), Some("Shift_JIS"));
        assert_eq!(p("<meta charset='gb2312'/>"), Some("GBK"));
        assert_eq!(
            p(r#"<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">"#),
            Some("windows-1251")
        );
        assert_eq!(
            p(r#"<meta content='text/html; charset="euc-jp"' http-equiv=content-type>"#),
            Some("EUC-JP")
        );
        // `content` without the pragma does not count; an unknown label does not either.
        assert_eq!(p(r#"<meta content="text/html; charset=koi8-r">"#), None);
        assert_eq!(p(r#"<meta charset="no-such-charset"><meta charset="utf-8">"#), Some("UTF-8"));
        // A UTF-16 declaration in ASCII markup means UTF-8; x-user-defined means windows-1252.
        assert_eq!(p(r#"<meta charset="utf-16le">"#), Some("UTF-8"));
        assert_eq!(p(r#"<meta charset="x-user-defined">"#), Some("windows-1252"));
    }

    #[test]
    fn prescan_skips_comments_attributes_and_late_declarations() {
        let p = |s: &str| prescan(s.as_bytes()).map(Encoding::name);
        assert_eq!(p(r#"<!-- <meta charset="koi8-r"> --><meta charset="big5">"#), Some("Big5"));
        assert_eq!(p(r#"<!--><meta charset="big5">"#), Some("Big5"));
        assert_eq!(p(r#"<div title='<meta charset="koi8-r">'></div>"#), None);
        assert_eq!(p(r#"<?php echo '<meta charset=koi8-r>' ?>"#), None);
        assert_eq!(p(r#"<meta name="x" charset="koi8-r" charset="big5">"#), Some("KOI8-R"));
        assert_eq!(p("<meta charset=\"koi8-r"), None);
        assert_eq!(p("<!-- unterminated <meta charset=koi8-r>"), None);
        let late = format!("{}<meta charset=koi8-r>", " ".repeat(PRESCAN_LEN));
        assert_eq!(p(&late), None);
        assert_eq!(p("<metadata charset=koi8-r>"), None);
    }

    #[test]
    fn content_attribute_extraction() {
        let c = |s: &str| charset_in_content(s.as_bytes()).map(Encoding::name);
        assert_eq!(c("text/html; charset=koi8-r"), Some("KOI8-R"));
        assert_eq!(c("text/html;charset = 'sjis' ; x"), Some("Shift_JIS"));
        assert_eq!(c("charsetcharset=big5"), Some("Big5"));
        assert_eq!(c("text/html; charset=\"koi8-r"), None);
        assert_eq!(c("text/html"), None);
    }

    #[test]
    fn xml_declarations() {
        let x = |s: &str| xml_declaration(s.as_bytes()).map(Encoding::name);
        assert_eq!(x(r#"<?xml version="1.0" encoding="Shift_JIS"?><html>"#), Some("Shift_JIS"));
        assert_eq!(x("<?xml version='1.0' encoding = 'utf-16'?>"), Some("UTF-8"));
        assert_eq!(x(r#"<?xml version="1.0"?>"#), None);
        assert_eq!(x(r#" <?xml encoding="koi8-r"?>"#), None);
    }

    #[test]
    fn bom_wins_over_declarations() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(r#"<meta charset="koi8-r">Ж"#.as_bytes());
        let t = decode(&bytes, Kind::Html, Some("windows-1251"), None);
        assert_eq!((t.charset, t.warning), ("UTF-8", None));
        assert!(t.text.ends_with('Ж'));
    }

    #[test]
    fn http_charset_wins_over_meta() {
        let (bytes, _, _) = KOI8_R.encode("<meta charset=windows-1251>Привет");
        let t = decode(&bytes, Kind::Html, Some("koi8-r"), None);
        assert_eq!((t.text.as_str(), t.charset, t.warning), (&*t.text, "KOI8-R", None));
        assert!(t.text.ends_with("Привет"));
        // An unknown HTTP label is ignored.
        let t = decode(&bytes, Kind::Html, Some("bogus"), None);
        assert_eq!(t.charset, "windows-1251");
    }

    #[test]
    fn declared_legacy_charset_yields_to_valid_utf8() {
        let t = decode("Grüße aus Zürich".as_bytes(), Kind::Plain, Some("iso-8859-1"), None);
        assert_eq!((t.text.as_str(), t.charset, t.warning), ("Grüße aus Zürich", "UTF-8", None));
        // Even when cut inside the last character.
        let bytes = "Grüße aus Zürich".as_bytes();
        let t = decode(&bytes[..bytes.len() - 5], Kind::Plain, Some("iso-8859-1"), None);
        assert_eq!((t.text.as_str(), t.charset), ("Grüße aus Z\u{FFFD}", "UTF-8"));
        // Pure ASCII keeps the declared name.
        let t = decode(b"plain", Kind::Plain, Some("iso-8859-1"), None);
        assert_eq!(t.charset, "windows-1252");
    }

    #[test]
    fn declared_utf8_that_is_not_utf8_is_detected() {
        let (bytes, _, _) = WINDOWS_1251.encode(
            "Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация.",
        );
        let t = decode(&bytes, Kind::Html, Some("utf-8"), Some("ru"));
        assert_eq!(t.charset, "windows-1251");
        assert!(t.text.starts_with("Съешь же ещё"), "{}", t.text);
        assert_eq!(
            t.warning.as_deref(),
            Some("charset detected: windows-1251 (declared UTF-8, but the bytes are not)")
        );
    }

    #[test]
    fn nearly_utf8_stays_utf8() {
        let mut bytes = "Это текст в UTF-8, почти целый. ".repeat(3).into_bytes();
        bytes.push(0xFF);
        let t = html(&bytes);
        assert_eq!(t.charset, "UTF-8");
        assert_eq!(t.warning.as_deref(), Some("invalid UTF-8 replaced with U+FFFD: 1 byte"));
        // Cut inside the last character.
        let cut = "日本語".as_bytes();
        let t = html(&cut[..cut.len() - 1]);
        assert_eq!((t.text.as_str(), t.charset), ("日本\u{FFFD}", "UTF-8"));
    }

    #[test]
    fn detection_of_legacy_charsets() {
        let cases: [(&'static Encoding, &str, &str); 4] = [
            (SHIFT_JIS, "日本語のテキストです。これは文字コードの検出のテストです。", "jp"),
            (EUC_JP, "日本語のテキストです。これは文字コードの検出のテストです。", "jp"),
            (GBK, "这是一个中文文本。我们正在测试字符编码的自动检测。", "cn"),
            (KOI8_R, "Съешь же ещё этих мягких французских булок, да выпей чаю.", "ru"),
        ];
        for (encoding, text, tld) in cases {
            let (bytes, _, _) = encoding.encode(text);
            for tld in [Some(tld), None] {
                let t = decode(&bytes, Kind::Plain, None, tld);
                assert_eq!(t.text, text, "{tld:?}");
                // KOI8-U is KOI8-R plus a few Ukrainian letters: the same text here.
                let expected = if encoding == KOI8_R { "KOI8-U" } else { encoding.name() };
                assert_eq!(t.charset, expected, "{tld:?}");
                assert_eq!(t.warning, Some(format!("charset detected: {expected}")), "{tld:?}");
            }
        }
    }

    #[test]
    fn iso_2022_jp_is_detected_though_valid_utf8() {
        let (bytes, _, _) = encoding_rs::ISO_2022_JP.encode("日本語のテキストです。");
        assert!(std::str::from_utf8(&bytes).is_ok());
        let t = html(&bytes);
        assert_eq!((t.text.as_str(), t.charset), ("日本語のテキストです。", "ISO-2022-JP"));
    }

    #[test]
    fn bad_tlds_are_not_passed_to_the_detector() {
        let (bytes, _, _) = WINDOWS_1251.encode("Привет, мир! Как дела? Всё хорошо.");
        for tld in ["RU", "co.uk", "рф", ""] {
            let t = decode(&bytes, Kind::Plain, None, Some(tld));
            assert_eq!(t.text, "Привет, мир! Как дела? Всё хорошо.");
        }
    }

    #[test]
    fn labels() {
        let l = |s: &str| label_encoding(s.as_bytes()).map(Encoding::name);
        assert_eq!(l(" \"UTF-8\" "), Some("UTF-8"));
        assert_eq!(l("cp1251"), Some("windows-1251"));
        assert_eq!(l("iso-2022-kr"), None);
        assert_eq!(l("x-user-defined"), Some("windows-1252"));
        assert_eq!(l(""), None);
    }

    #[test]
    fn tlds() {
        assert_eq!(tld("http://www.example.ru/a?b").as_deref(), Some("ru"));
        assert_eq!(tld("https://user@Example.JP:8080/").as_deref(), Some("jp"));
        assert_eq!(tld("http://example.com./").as_deref(), Some("com"));
        assert_eq!(tld("http://192.168.0.1/"), None);
        assert_eq!(tld("http://[::1]/"), None);
        assert_eq!(tld("http://пример.рф/"), None);
        assert_eq!(tld("no scheme"), None);
    }

    const UTF16LE_BOM: &[u8] = b"\xFF\xFE";
    const UTF16BE_BOM: &[u8] = b"\xFE\xFF";

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        let mut out = if big_endian { UTF16BE_BOM.to_vec() } else { UTF16LE_BOM.to_vec() };
        for u in text.encode_utf16() {
            out.extend(if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
        }
        out
    }

    #[test]
    fn utf8_with_and_without_bom() {
        assert_eq!(decode_text(b"caf\xC3\xA9"), ("café".to_owned(), None));
        assert_eq!(decode_text(b"\xEF\xBB\xBFcaf\xC3\xA9"), ("café".to_owned(), None));
        assert_eq!(decode_text(b""), (String::new(), None));
    }

    #[test]
    fn utf16_both_endians() {
        let text = "Grüße, мир 😀";
        assert_eq!(decode_text(&utf16(text, false)), (text.to_owned(), None));
        assert_eq!(decode_text(&utf16(text, true)), (text.to_owned(), None));
    }

    #[test]
    fn broken_utf16_is_replaced() {
        // A lone high surrogate, then an odd trailing byte.
        let (text, warning) = decode_text(b"\xFF\xFEa\x00\x00\xD8b\x00c");
        assert_eq!(text, "a\u{FFFD}b\u{FFFD}");
        assert_eq!(warning.as_deref(), Some("invalid UTF-16 replaced with U+FFFD: 2 code units"));
    }
}
