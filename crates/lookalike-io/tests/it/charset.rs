//! Charsets: Russian, Japanese and Chinese text encoded in legacy charsets with encoding_rs must
//! come out as the same text, whether the charset is declared (HTTP header, `<meta charset>`,
//! `<meta http-equiv>`) or has to be detected, in HTML files, text files and WARC records.

use encoding_rs::{EUC_JP, Encoding, GB18030, GBK, KOI8_R, SHIFT_JIS, WINDOWS_1251};
use lookalike_io::{Decoded, Input, Reader, decode, html_to_text};

use crate::common::{decode_file_charset, write};

const RUSSIAN: &str = "Широкая электрификация южных губерний даст мощный толчок подъёму \
                       сельского хозяйства. Съешь же ещё этих мягких французских булок, да выпей \
                       чаю. В чащах юга жил бы цитрус? Да, но фальшивый экземпляр!";
const JAPANESE: &str = "いろはにほへと ちりぬるを わかよたれそ つねならむ。日本語の文章を正しく読み込めるか\
                        どうかを確認するための試験です。東京都は日本の首都であり、多くの人々が暮らしています。";
const CHINESE: &str = "我能吞下玻璃而不伤身体。这是一段用于测试字符编码检测的中文文本。北京是中华人民共和国\
                       的首都，也是全国的政治和文化中心。";

/// (charset, text, top-level domain, the name detection may give instead: KOI8-U reads KOI8-R
/// text the same, GBK is what GB18030 text looks like).
fn cases() -> [(&'static Encoding, &'static str, &'static str, &'static str); 6] {
    [
        (WINDOWS_1251, RUSSIAN, "ru", "windows-1251"),
        (KOI8_R, RUSSIAN, "ru", "KOI8-U"),
        (SHIFT_JIS, JAPANESE, "jp", "Shift_JIS"),
        (EUC_JP, JAPANESE, "jp", "EUC-JP"),
        (GBK, CHINESE, "cn", "GBK"),
        (GB18030, CHINESE, "cn", "GBK"),
    ]
}

fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{} cannot encode the test text", encoding.name());
    bytes.into_owned()
}

#[test]
fn html_with_meta_charset() {
    let tmp = tempfile::tempdir().unwrap();
    for (encoding, text, _, _) in cases() {
        let name = encoding.name();
        let page = format!("<html><head><meta charset=\"{name}\"><title>T</title></head><p>{text}");
        let path = write(tmp.path(), &format!("{name}.html"), encode(encoding, &page));
        let (doc, warning, charset) = decode_file_charset(&path);
        assert_eq!(doc.text, format!("T\n{text}"), "{name}");
        assert_eq!((charset, warning), (name, None), "{name}");
    }
}

#[test]
fn html_with_meta_http_equiv() {
    let tmp = tempfile::tempdir().unwrap();
    for (encoding, text, _, _) in cases() {
        let name = encoding.name();
        let page = format!(
            "<!DOCTYPE html>\n<!-- <meta charset=\"utf-8\"> in a comment does not count -->\n\
             <html><head><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; \
             charset={name}\"></head><body><p>{text}</p></body></html>"
        );
        let path = write(tmp.path(), &format!("{name}.htm"), encode(encoding, &page));
        let (doc, warning, charset) = decode_file_charset(&path);
        assert_eq!(doc.text, text, "{name}");
        assert_eq!((charset, warning), (name, None), "{name}");
    }
}

#[test]
fn html_without_declaration_is_detected() {
    let tmp = tempfile::tempdir().unwrap();
    for (encoding, text, _, detected) in cases() {
        let page = format!("<html><body><p>{text}</p></body></html>");
        let name = encoding.name();
        let path = write(tmp.path(), &format!("{name}.html"), encode(encoding, &page));
        let (doc, warning, charset) = decode_file_charset(&path);
        assert_eq!(doc.text, text, "{name}");
        assert_eq!(charset, detected, "{name}");
        assert_eq!(warning, Some(format!("charset detected: {detected}")), "{name}");
    }
}

#[test]
fn text_files_are_detected_when_not_utf8() {
    let tmp = tempfile::tempdir().unwrap();
    for (encoding, text, _, detected) in cases() {
        let name = encoding.name();
        let path = write(tmp.path(), &format!("{name}.txt"), encode(encoding, text));
        let (doc, warning, charset) = decode_file_charset(&path);
        assert_eq!(doc.text, text, "{name}");
        assert_eq!(charset, detected, "{name}");
        assert_eq!(warning, Some(format!("charset detected: {detected}")), "{name}");
    }
    // UTF-8 text stays UTF-8, without a warning; a `<meta>` in a text file means nothing.
    let utf8 = format!("<meta charset=koi8-r> {RUSSIAN}");
    let path = write(tmp.path(), "utf8.txt", &utf8);
    let (doc, warning, charset) = decode_file_charset(&path);
    assert_eq!((doc.text.as_str(), warning, charset), (utf8.as_str(), None, "UTF-8"));
}

#[test]
fn html_to_text_reads_the_declared_charset() {
    let page = format!("<meta charset=shift_jis><p>{JAPANESE}");
    assert_eq!(html_to_text(&encode(SHIFT_JIS, &page)), JAPANESE);
}

fn warc_response(uri: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut block = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n").into_bytes();
    block.extend_from_slice(body);
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    out.extend(block);
    out.extend(b"\r\n\r\n");
    out
}

#[test]
fn warc_records_with_http_charset_meta_or_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    let mut expected = Vec::new();
    for (i, (encoding, text, tld, detected)) in cases().into_iter().enumerate() {
        let name = encoding.name();
        let page = encode(encoding, &format!("<p>{text}</p>"));
        let meta = encode(encoding, &format!("<meta charset={name}><p>{text}</p>"));
        let host = format!("http://site{i}.example.{tld}");
        bytes.extend(warc_response(
            &format!("{host}/http"),
            &format!("text/html; charset={name}"),
            &page,
        ));
        expected.push((format!("{host}/http"), text, name, None));
        // The HTTP header wins over a wrong <meta>.
        let wrong = encode(encoding, &format!("<meta charset=iso-8859-2><p>{text}</p>"));
        bytes.extend(warc_response(
            &format!("{host}/wrong-meta"),
            &format!("text/html; charset=\"{name}\""),
            &wrong,
        ));
        expected.push((format!("{host}/wrong-meta"), text, name, None));
        bytes.extend(warc_response(&format!("{host}/meta"), "text/html", &meta));
        expected.push((format!("{host}/meta"), text, name, None));
        bytes.extend(warc_response(&format!("{host}/none"), "text/html", &page));
        expected.push((
            format!("{host}/none"),
            text,
            detected,
            Some(format!("charset detected: {detected}")),
        ));
        bytes.extend(warc_response(
            &format!("{host}/plain"),
            "text/plain",
            &encode(encoding, text),
        ));
        expected.push((
            format!("{host}/plain"),
            text,
            detected,
            Some(format!("charset detected: {detected}")),
        ));
    }
    let path = write(tmp.path(), "charsets.warc", &bytes);
    let opts = crate::common::visible_text();
    let got: Vec<_> = Reader::new(vec![Input::Path(path)], opts.clone())
        .map(|r| match decode(&r.unwrap(), &opts) {
            Decoded::Doc { doc, warning, charset, .. } => (doc.id, doc.text, charset, warning),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got.len(), expected.len());
    for (got, (id, text, charset, warning)) in got.iter().zip(expected) {
        assert_eq!((&got.0, got.1.as_str(), got.2, &got.3), (&id, text, charset, &warning));
    }
}
