//! Text extraction for the corpus generator: HTML and plain-text files to paragraphs.
//!
//! The generator needs paragraph structure (documents are built from runs of paragraphs, and some
//! edits move or drop paragraphs), which a general main-text extractor flattens away. So this is a
//! deliberately small extractor of its own: every block-level tag ends a paragraph, `<head>`,
//! `<script>` and `<style>` are skipped, character references are decoded and whitespace is
//! collapsed. Navigation and other repeated boilerplate need no special handling: the pool
//! drops repeated paragraphs (see [`crate::pool`]).

/// Tags whose start or end closes the current paragraph.
const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "br",
    "caption",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "html",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "title",
    "tr",
    "ul",
];

/// Tags whose whole content is skipped.
const SKIP_TAGS: &[&str] = &["head", "script", "style", "noscript", "template", "svg"];

/// Splits an HTML page into paragraphs of visible text (whitespace collapsed, empty ones dropped).
pub fn html_paragraphs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let bytes = html.as_bytes();
    let mut i = 0;
    let mut text_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        push_text(&mut current, &html[text_start..i]);
        let rest = &html[i..];
        if rest.starts_with("<!--") {
            i = find_from(html, i + 4, "-->").map_or(bytes.len(), |e| e + 3);
        } else if rest.starts_with("<!") || rest.starts_with("<?") {
            i = find_byte(bytes, i + 2, b'>').map_or(bytes.len(), |e| e + 1);
        } else {
            let end = find_byte(bytes, i + 1, b'>').map_or(bytes.len(), |e| e + 1);
            let (name, closing) = tag_name(&html[i + 1..end.min(bytes.len())]);
            if name.is_empty() {
                // A lone '<' in text: keep it as text.
                push_text(&mut current, "<");
                i += 1;
                text_start = i;
                continue;
            }
            i = end;
            if !closing && SKIP_TAGS.contains(&name.as_str()) {
                let close = format!("</{name}");
                i = find_ascii_ci(html, i, &close)
                    .and_then(|s| find_byte(bytes, s, b'>'))
                    .map_or(bytes.len(), |e| e + 1);
            } else if BLOCK_TAGS.contains(&name.as_str()) {
                finish_paragraph(&mut current, &mut out);
            }
        }
        text_start = i;
    }
    if text_start < bytes.len() {
        push_text(&mut current, &html[text_start..]);
    }
    finish_paragraph(&mut current, &mut out);
    out
}

/// Splits plain text into paragraphs at blank lines (lines inside a paragraph are joined).
pub fn text_paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            finish_paragraph(&mut current, &mut out);
        } else {
            current.push(' ');
            current.push_str(line);
        }
    }
    finish_paragraph(&mut current, &mut out);
    out
}

/// Collapses runs of whitespace to one space and trims.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn finish_paragraph(current: &mut String, out: &mut Vec<String>) {
    let p = collapse_whitespace(current);
    if !p.is_empty() {
        out.push(p);
    }
    current.clear();
}

fn push_text(current: &mut String, raw: &str) {
    if raw.contains('&') {
        decode_entities_into(raw, current);
    } else {
        current.push_str(raw);
    }
}

/// The lower-cased name of a tag from the text between `<` and `>`, and whether it is a closing
/// tag. Empty when this is not a tag.
fn tag_name(inner: &str) -> (String, bool) {
    let (closing, rest) = match inner.strip_prefix('/') {
        Some(r) => (true, r),
        None => (false, inner),
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == ':')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return (String::new(), false);
    }
    (name, closing)
}

fn find_byte(bytes: &[u8], from: usize, b: u8) -> Option<usize> {
    bytes.get(from..)?.iter().position(|&x| x == b).map(|p| p + from)
}

fn find_from(s: &str, from: usize, needle: &str) -> Option<usize> {
    s.get(from..)?.find(needle).map(|p| p + from)
}

/// Finds an ASCII needle case-insensitively (tag names may be upper case in old HTML).
fn find_ascii_ci(s: &str, from: usize, needle: &str) -> Option<usize> {
    let hay = s.as_bytes();
    let n = needle.as_bytes();
    if n.is_empty() || hay.len() < n.len() {
        return None;
    }
    (from..=hay.len() - n.len()).find(|&i| hay[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// Decodes HTML character references (numeric ones and the common named ones) in `raw`,
/// appending to `out`. Unknown references are kept as written.
pub fn decode_entities_into(raw: &str, out: &mut String) {
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.find(';').filter(|&s| s <= 10);
        let decoded = semi.and_then(|s| decode_entity(&after[..s]).map(|c| (c, s)));
        match decoded {
            Some((c, s)) => {
                out.push(c);
                rest = &after[s + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

fn decode_entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "laquo" => '«',
        "raquo" => '»',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "bull" => '•',
        "middot" => '·',
        "rarr" => '→',
        "larr" => '←',
        "times" => '×',
        "deg" => '°',
        _ => return None,
    })
}

/// Script counts of a paragraph's letters, used to keep each language's pool in its own script
/// (translated manuals leave many paragraphs untranslated).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ScriptCounts {
    /// All alphabetic characters.
    pub letters: usize,
    /// Latin letters.
    pub latin: usize,
    /// Cyrillic letters.
    pub cyrillic: usize,
    /// Han ideographs.
    pub han: usize,
    /// Hiragana and Katakana.
    pub kana: usize,
    /// Hangul syllables and jamo.
    pub hangul: usize,
}

impl ScriptCounts {
    /// Counts the letters of `s` by script.
    pub fn of(s: &str) -> Self {
        let mut c = ScriptCounts::default();
        for ch in s.chars() {
            if !ch.is_alphabetic() {
                continue;
            }
            c.letters += 1;
            match ch as u32 {
                0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => c.latin += 1,
                0x400..=0x52F => c.cyrillic += 1,
                0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => c.han += 1,
                0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => c.kana += 1,
                0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => c.hangul += 1,
                _ => {}
            }
        }
        c
    }
}

/// Whether a paragraph is written in the script of `lang` (a BCP 47-like code such as `en`,
/// `ru`, `ja`, `zh`). Languages this function does not know are always accepted.
pub fn fits_language(paragraph: &str, lang: &str) -> bool {
    let c = ScriptCounts::of(paragraph);
    if c.letters == 0 {
        return false;
    }
    let frac = |n: usize| n as f64 / c.letters as f64;
    match lang {
        "ru" | "uk" | "be" | "bg" | "sr" | "mk" | "kk" => frac(c.cyrillic) >= 0.6,
        "ja" => c.kana > 0 && frac(c.han + c.kana) >= 0.6,
        "zh" => c.kana == 0 && frac(c.han) >= 0.6,
        "ko" => frac(c.hangul) >= 0.6,
        "en" | "de" | "fr" | "es" | "it" | "pt" | "nl" | "sv" | "da" | "nb" | "pl" | "cs"
        | "ro" | "hr" | "ca" | "id" | "tr" | "vi" => frac(c.latin) >= 0.9,
        _ => true,
    }
}

/// Language codes that [`language_from_path`] recognises in a path component.
const KNOWN_LANGUAGES: &[&str] = &[
    "ar", "be", "bg", "ca", "cs", "da", "de", "el", "en", "es", "fa", "fr", "hr", "id", "it", "ja",
    "kk", "ko", "mk", "nb", "nl", "pl", "pt", "ro", "ru", "sr", "sv", "tr", "uk", "vi", "zh",
];

/// Guesses a language code from a path such as `/usr/share/gimp/2.0/help/zh_CN` or
/// `.../html/ru-RU`: the last path component that looks like a language tag.
pub fn language_from_path(path: &std::path::Path) -> Option<String> {
    path.components().rev().find_map(|comp| {
        let s = comp.as_os_str().to_str()?;
        let primary = s.split(['-', '_']).next()?;
        let ok = KNOWN_LANGUAGES.contains(&primary) && s.len() <= 8;
        ok.then(|| primary.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn html_blocks_become_paragraphs_and_skipped_parts_vanish() {
        let html = "<html><head><title>T</title><style>p{}</style></head><body>\
            <div class=nav>Prev &amp; Next</div><p>First <b>bold</b>\n  para&nbsp;one.</p>\
            <script>var x = '<p>no</p>';</script><!-- <p>hidden</p> -->\
            <P>Second&#x20;&#1078;&lt;3</P><ul><li>item</li></ul>tail</body></html>";
        assert_eq!(
            html_paragraphs(html),
            vec!["Prev & Next", "First bold para one.", "Second ж<3", "item", "tail"]
        );
    }

    #[test]
    fn broken_html_does_not_panic() {
        for s in ["<", "<p", "a < b", "<script>never closed", "&#xFFFFFFFF;", "<!-- open", "&"] {
            let _ = html_paragraphs(s);
        }
        assert_eq!(html_paragraphs("a < b &unknown; c"), vec!["a < b &unknown; c"]);
    }

    #[test]
    fn text_paragraphs_split_at_blank_lines() {
        let t = "one\ntwo\n\n\n  three  \n";
        assert_eq!(text_paragraphs(t), vec!["one two", "three"]);
    }

    #[test]
    fn scripts_and_languages() {
        assert!(fits_language("The quick brown fox", "en"));
        assert!(!fits_language("Быстрая лиса jumps", "en"));
        assert!(fits_language("Быстрая рыжая лиса", "ru"));
        assert!(fits_language("これは日本語の文です", "ja"));
        assert!(!fits_language("这是中文句子", "ja"));
        assert!(fits_language("这是中文句子", "zh"));
        assert!(!fits_language("1234", "en"));
        assert_eq!(language_from_path(Path::new("/usr/share/gimp/2.0/help/zh_CN")).unwrap(), "zh");
        assert_eq!(language_from_path(Path::new("/x/html/ru-RU")).unwrap(), "ru");
        assert_eq!(language_from_path(Path::new("/x/html/en-US/")).unwrap(), "en");
        assert_eq!(language_from_path(Path::new("/tmp/some/dir")), None);
    }
}
