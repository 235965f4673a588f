//! HTML to text: contract: "give me an HTML page, I give you the text a reader sees on it".
//!
//! Built on the html5ever *tokenizer*, not its tree builder: no DOM is allocated, any byte soup
//! tokenizes, and the cost is one pass over the input. What the tree builder would have done for
//! us is done here with a few counters:
//!
//! - the contents of `script`, `style`, `noscript`, `iframe`, `noembed` and `noframes` are
//!   skipped, by switching the tokenizer to its raw-text states as the tree builder does (so that
//!   `if (a<b)` in a script is not read as a tag); `textarea`, `xmp` and `plaintext` switch state
//!   the same way but their text is kept;
//! - `head` is skipped except for the first `title`, which becomes the first line; like a browser,
//!   the head ends at `</head>`, at `<body>`, at a start tag that cannot be in a head, or at
//!   non-blank text;
//! - `svg` (left early by an HTML start tag like `<p>` or `<div>`, as browsers do), `template`,
//!   `video`, `audio`, `canvas` and `datalist` are not visible text;
//! - block-level elements (`p`, `div`, `li`, `h1`..`h6`, `tr`, `br`, ...) start a new line, table
//!   cells are separated by a space, inline elements join their text as written;
//! - whitespace runs collapse to one space (to one newline across blocks; newlines are kept
//!   inside `pre`); soft hyphens and zero-width spaces are dropped; entities are decoded by the
//!   tokenizer; comments and the doctype are ignored.

use std::cell::RefCell;

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use crate::charset::decode_text;

/// The visible text of an HTML page, one line per block, title first.
///
/// The bytes are decoded as UTF-8 (a UTF-16 byte order mark is honoured; invalid bytes become
/// U+FFFD; other charsets are not detected yet). Never fails: broken markup gives the text a
/// browser would most likely show.
pub fn html_to_text(html: &[u8]) -> String {
    extract(&decode_text(html).0)
}

/// Pieces the markup is fed in: tendrils are limited to 4 GiB, and smaller buffers are copied
/// without a large second allocation.
const PIECE: usize = 1 << 20;

/// [`html_to_text`] for markup already decoded.
pub(crate) fn extract(markup: &str) -> String {
    let tokenizer = Tokenizer::new(Sink::default(), TokenizerOpts::default());
    let queue = BufferQueue::default();
    let mut rest = markup;
    while !rest.is_empty() {
        let mut end = rest.len().min(PIECE);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        queue.push_back(StrTendril::from_slice(&rest[..end]));
        rest = &rest[end..];
    }
    // The sink never asks to pause (no scripts run, no encoding switches), so this loop ends
    // after one round; it is a loop only to honour the tokenizer's contract.
    while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
    tokenizer.end();
    tokenizer.sink.0.take().finish()
}

#[derive(Default)]
struct Sink(RefCell<Extractor>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut ex = self.0.borrow_mut();
        match token {
            Token::CharacterTokens(text) => {
                ex.characters(&text);
                TokenSinkResult::Continue
            }
            Token::TagToken(tag) => ex.tag(&tag),
            // A NUL is not text; everything else carries no visible text.
            Token::NullCharacterToken
            | Token::CommentToken(_)
            | Token::DoctypeToken(_)
            | Token::ParseError(_)
            | Token::EOFToken => TokenSinkResult::Continue,
        }
    }
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Ordinary content.
    #[default]
    Text,
    /// Inside the document's title (RCDATA).
    Title,
    /// Inside a raw-text element whose content is not visible; ends at its end tag.
    Skip,
}

#[derive(Default)]
struct Extractor {
    body: Collector,
    title: Collector,
    have_title: bool,
    mode: Mode,
    in_head: bool,
    /// Depth of `svg` elements (foreign content).
    svg: u32,
    /// Depth of other invisible elements (`template`, `video`, ...).
    hidden: u32,
    /// Depth of `pre`-like elements, where newlines are kept.
    pre: u32,
}

impl Extractor {
    fn characters(&mut self, text: &str) {
        match self.mode {
            Mode::Title => self.title.push(text, false),
            Mode::Skip => {}
            Mode::Text => {
                if self.svg > 0 || self.hidden > 0 {
                    return;
                }
                if self.in_head {
                    if text.chars().all(char::is_whitespace) {
                        return;
                    }
                    self.in_head = false;
                }
                self.body.push(text, self.pre > 0);
            }
        }
    }

    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        if self.mode != Mode::Text {
            // In a raw-text state the tokenizer emits no tag but the element's own end tag.
            if tag.kind == TagKind::EndTag {
                self.mode = Mode::Text;
            }
            return TokenSinkResult::Continue;
        }
        match tag.kind {
            TagKind::StartTag => self.start_tag(tag),
            TagKind::EndTag => {
                self.end_tag(&tag.name);
                TokenSinkResult::Continue
            }
        }
    }

    fn start_tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        if self.in_head && !is_head_content(name) {
            self.in_head = false;
        }
        if self.svg > 0 && breaks_out_of_foreign_content(name) {
            self.svg = 0;
        }
        // An XHTML-style `<script/>` has no content: do not wait for an end tag.
        let raw = |mode: Mode, kind: RawKind, ex: &mut Extractor| {
            if tag.self_closing {
                TokenSinkResult::Continue
            } else {
                ex.mode = mode;
                TokenSinkResult::RawData(kind)
            }
        };
        match name {
            "script" => raw(Mode::Skip, RawKind::ScriptData, self),
            "style" | "noscript" | "iframe" | "noembed" | "noframes" => {
                raw(Mode::Skip, RawKind::Rawtext, self)
            }
            "title" => {
                if self.have_title || self.svg > 0 || self.hidden > 0 {
                    raw(Mode::Skip, RawKind::Rcdata, self)
                } else {
                    self.have_title = !tag.self_closing;
                    raw(Mode::Title, RawKind::Rcdata, self)
                }
            }
            "textarea" | "xmp" => {
                self.body.gap(Gap::Newline);
                let kind = if name == "xmp" { RawKind::Rawtext } else { RawKind::Rcdata };
                raw(Mode::Text, kind, self)
            }
            "plaintext" => {
                self.body.gap(Gap::Newline);
                TokenSinkResult::Plaintext
            }
            _ => {
                match name {
                    "head" => self.in_head = !tag.self_closing,
                    "svg" if !tag.self_closing => self.svg += 1,
                    _ if is_hidden(name) && !tag.self_closing => self.hidden += 1,
                    _ => {}
                }
                if is_pre(name) && !tag.self_closing {
                    self.pre += 1;
                }
                self.boundary(name);
                TokenSinkResult::Continue
            }
        }
    }

    fn end_tag(&mut self, name: &str) {
        match name {
            "head" => self.in_head = false,
            "svg" => self.svg = self.svg.saturating_sub(1),
            // `</p>` and `</br>` break out of foreign content like their start tags.
            "p" | "br" => self.svg = 0,
            _ if is_hidden(name) => self.hidden = self.hidden.saturating_sub(1),
            _ => {}
        }
        if is_pre(name) {
            self.pre = self.pre.saturating_sub(1);
        }
        self.boundary(name);
    }

    /// The separation an element's start or end puts between the texts around it.
    fn boundary(&mut self, name: &str) {
        if is_block(name) {
            self.body.gap(Gap::Newline);
        } else if matches!(name, "td" | "th") {
            self.body.gap(Gap::Space);
        }
    }

    fn finish(self) -> String {
        let (title, body) = (self.title.text, self.body.text);
        match (title.is_empty(), body.is_empty()) {
            (true, _) => body,
            (false, true) => title,
            (false, false) => title + "\n" + &body,
        }
    }
}

/// Elements that may appear in a document's head; any other start tag ends the head.
pub(crate) fn is_head_content(name: &str) -> bool {
    matches!(
        name,
        "html"
            | "head"
            | "base"
            | "basefont"
            | "bgsound"
            | "link"
            | "meta"
            | "title"
            | "noscript"
            | "noframes"
            | "style"
            | "script"
            | "template"
    )
}

/// Containers whose content is not shown as text.
fn is_hidden(name: &str) -> bool {
    matches!(name, "template" | "video" | "audio" | "canvas" | "datalist")
}

fn is_pre(name: &str) -> bool {
    matches!(name, "pre" | "listing" | "textarea" | "xmp")
}

/// HTML start tags that end `svg` foreign content (HTML standard, "parsing main in foreign
/// content"; `font` only with some attributes there, always here).
pub(crate) fn breaks_out_of_foreign_content(name: &str) -> bool {
    matches!(
        name,
        "b" | "big"
            | "blockquote"
            | "body"
            | "br"
            | "center"
            | "code"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "em"
            | "embed"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "hr"
            | "i"
            | "img"
            | "li"
            | "listing"
            | "menu"
            | "meta"
            | "nobr"
            | "ol"
            | "p"
            | "pre"
            | "ruby"
            | "s"
            | "small"
            | "span"
            | "strong"
            | "strike"
            | "sub"
            | "sup"
            | "table"
            | "tt"
            | "u"
            | "ul"
            | "var"
            | "font"
    )
}

/// Elements rendered as blocks (or line breaks): their edges separate lines.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "br"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "frameset"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "legend"
            | "li"
            | "listing"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "optgroup"
            | "option"
            | "p"
            | "pre"
            | "search"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "textarea"
            | "tfoot"
            | "thead"
            | "tr"
            | "ul"
            | "xmp"
    )
}

/// The separation owed before the next visible character.
#[derive(Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    #[default]
    None,
    Space,
    Newline,
}

/// Accumulates text with collapsed whitespace: no leading or trailing whitespace, one space or
/// one newline between words.
#[derive(Default)]
struct Collector {
    text: String,
    pending: Gap,
}

impl Collector {
    fn gap(&mut self, gap: Gap) {
        self.pending = self.pending.max(gap);
    }

    fn push(&mut self, text: &str, keep_newlines: bool) {
        for c in text.chars() {
            if c.is_whitespace() {
                self.gap(if keep_newlines && c == '\n' { Gap::Newline } else { Gap::Space });
            } else if matches!(c, '\u{AD}' | '\u{200B}' | '\u{FEFF}') {
                // Soft hyphen, zero-width space, stray byte order mark: invisible.
            } else {
                if !self.text.is_empty() {
                    match self.pending {
                        Gap::None => {}
                        Gap::Space => self.text.push(' '),
                        Gap::Newline => self.text.push('\n'),
                    }
                }
                self.pending = Gap::None;
                self.text.push(c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        html_to_text(html.as_bytes())
    }

    #[test]
    fn title_first_then_blocks() {
        let html = "<html><head><title> My  page </title><meta charset=utf-8></head>\
                    <body><h1>Head</h1><p>One <b>bold</b> word.</p><p>Two</p></body></html>";
        assert_eq!(text(html), "My page\nHead\nOne bold word.\nTwo");
    }

    #[test]
    fn scripts_styles_and_comments_are_skipped() {
        let html = "<p>a</p><script>if (a<b && c>d) { document.write('<p>x</p>') }</script>\
                    <style>p { color: red }</style><!-- <p>hidden</p> --><noscript>enable JS\
                    </noscript><p>b</p>";
        assert_eq!(text(html), "a\nb");
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(
            text("<p>Fish &amp; chips &mdash; &#8364;5&nbsp;only &lt;3</p>"),
            "Fish & chips — €5 only <3"
        );
    }

    #[test]
    fn whitespace_collapses_and_pre_keeps_lines() {
        assert_eq!(text("<div>\n  a \t b\n\n</div>\n<div>c</div>"), "a b\nc");
        assert_eq!(text("<pre>x  y\nz</pre>"), "x y\nz");
        assert_eq!(text("a<br>b<br/>c</br>d"), "a\nb\nc\nd");
    }

    #[test]
    fn table_cells_are_separated() {
        let html = "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>";
        assert_eq!(text(html), "a b\nc d");
    }

    #[test]
    fn hidden_containers() {
        assert_eq!(text("<p>a<svg><text>chart</text></svg>b</p>"), "ab");
        assert_eq!(text("<template><p>t</p></template><p>x</p>"), "x");
        // An unclosed svg ends at the next HTML block, as in browsers.
        assert_eq!(text("<svg><path d='M0'>icon<div>visible</div>"), "visible");
    }

    #[test]
    fn head_text_rules() {
        // Text in a head ends it, as in a browser; only the first title is taken.
        assert_eq!(text("<head><title>T</title>loose text"), "T\nloose text");
        assert_eq!(text("<title>T1</title><p>x</p><title>T2</title>"), "T1\nx");
        assert_eq!(text("<title/><p>x</p>"), "x");
    }

    #[test]
    fn broken_markup_never_fails() {
        assert_eq!(text("<p>unclosed <b>bold <i>both</p>after"), "unclosed bold both\nafter");
        assert_eq!(text("<div <p>>text</div"), ">text");
        assert_eq!(text("a < b and c > d"), "a < b and c > d");
        assert_eq!(text("<script>never closed <p>x</p>"), "");
        assert_eq!(text(""), "");
        assert_eq!(text("<<<>>>&&&;;;"), "<<<>>>&&&;;;");
        assert_eq!(text("x\u{AD}y\u{200B}z"), "xyz");
    }

    #[test]
    fn self_closing_raw_elements_do_not_swallow_the_page() {
        assert_eq!(text("<script src='a.js'/><p>kept</p>"), "kept");
    }

    #[test]
    fn textarea_and_plaintext_are_kept_verbatim() {
        assert_eq!(text("<textarea><b>not a tag</b></textarea>"), "<b>not a tag</b>");
        assert_eq!(text("<p>a</p><plaintext><p>b"), "a\n<p>b");
    }

    #[test]
    fn large_input_is_fed_in_pieces() {
        let word = "wörd ";
        let html = format!("<p>{}</p>", word.repeat(PIECE / word.len() * 3));
        let out = text(&html);
        assert_eq!(out.split(' ').count(), PIECE / word.len() * 3);
        assert!(out.split(' ').all(|w| w == "wörd"));
    }

    #[test]
    fn utf16_html() {
        let mut bytes = vec![0xFF, 0xFE];
        for u in "<p>héllo</p>".encode_utf16() {
            bytes.extend(u.to_le_bytes());
        }
        assert_eq!(html_to_text(&bytes), "héllo");
    }
}
