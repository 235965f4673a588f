//! The page as a compact tree: contract: "give me HTML, I give you one arena of nodes (parent,
//! first child, last child, next sibling as indices) built in one pass, whatever the markup".
//!
//! The html5ever *tokenizer* feeds a small tree builder of our own rather than html5ever's tree
//! builder: that one allocates a reference-counted DOM and checks element scopes by walking the
//! stack of open elements, which makes deep nesting quadratic. Here every decision the HTML
//! standard takes by walking that stack (is a `p` open in button scope? an `li` in list-item
//! scope? is there any open element of this name for an end tag?) is answered in constant time
//! from counters kept per tag as elements are pushed and popped, so building the tree costs one
//! push and at most one pop per element. What the standard does that is left out (the adoption
//! agency's re-opening of formatting elements, foster parenting of text in tables) moves text
//! within the tree but never drops it.
//!
//! Nodes are created in document order and a parent before its children, so a node's index is
//! smaller than its descendants': a forward loop over the arena visits parents first (inherited
//! properties) and a backward loop visits children first (sums over subtrees), with no recursion.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag as HtmlTag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
    TokenizerOpts,
};
use html5ever::{Attribute, TokenizerResult};

/// No node (as a parent, child or sibling index).
pub(crate) const NONE: u32 = u32::MAX;

/// The elements the extractor tells apart; every other name is [`Tag::Other`] (its flags still
/// say whether it is a block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    /// The root (no element).
    Document,
    /// A run of text.
    Text,
    Html,
    Head,
    Body,
    A,
    P,
    Div,
    Section,
    Article,
    Main,
    Pre,
    Blockquote,
    Table,
    Tr,
    Td,
    Li,
    Ul,
    Ol,
    Dl,
    Dt,
    Dd,
    Heading(u8),
    Nav,
    Aside,
    Footer,
    Header,
    Form,
    Figure,
    Figcaption,
    Br,
    Noscript,
    Option,
    Button,
    Address,
    Other,
}

/// Starts and ends a line of text.
pub(crate) const BLOCK: u16 = 1;
/// Not visible text: the subtree is skipped (forms' controls, media, ruby annotations, ...).
pub(crate) const INVISIBLE: u16 = 1 << 1;
/// Hidden by its attributes (`hidden`, `aria-hidden=true`, `display:none`).
pub(crate) const HIDDEN: u16 = 1 << 2;
/// A link with a target.
pub(crate) const LINK: u16 = 1 << 3;
/// `itemprop=articleBody` (or `text`), `role=main`/`article`.
pub(crate) const MARKED_CONTENT: u16 = 1 << 4;
/// `role=navigation`/`complementary`/`contentinfo`/`banner`/`menu`/`dialog`/`alert`.
pub(crate) const MARKED_BOILERPLATE: u16 = 1 << 5;
/// Inside `pre` (or `plaintext`): line breaks are kept.
pub(crate) const PRE: u16 = 1 << 6;
/// A class or id that names a boilerplate container (comments, sidebar, footer, related,
/// share, ...): nothing inside is a candidate for the article.
pub(crate) const STRONG_NEGATIVE: u16 = 1 << 7;
/// A class that names a caption or a picture credit: dropped even when inline.
pub(crate) const CAPTION: u16 = 1 << 8;

/// One node of the arena.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub parent: u32,
    pub first_child: u32,
    pub last_child: u32,
    pub next_sibling: u32,
    pub tag: Tag,
    pub flags: u16,
    /// The class/id weight: positive for names of content, negative for boilerplate.
    pub weight: i16,
    /// For text nodes, the byte range of the text in [`Dom::text`].
    pub start: u32,
    pub end: u32,
}

/// The parsed page.
#[derive(Debug, Default)]
pub(crate) struct Dom {
    pub nodes: Vec<Node>,
    /// The text of all text nodes, as written (entities decoded, whitespace not collapsed).
    pub text: String,
    /// The first `<title>` outside `svg`.
    pub title: Option<String>,
    /// `og:title`, `twitter:title` or the like, the first found.
    pub meta_title: Option<String>,
    /// Bytes of attribute values and tag names read (for the work counter).
    pub attr_bytes: usize,
    /// The tag name, class and id of each element (byte ranges into [`Dom::labels`]), for
    /// [`super::explain`].
    pub labels: String,
    pub label_of: Vec<(u32, u32)>,
}

impl Dom {
    /// The tag name, class and id of element `n` (for [`super::explain`]).
    pub(crate) fn label(&self, n: u32) -> &str {
        match self.label_of.get(n as usize) {
            Some(&(a, b)) => &self.labels[a as usize..b as usize],
            None => "",
        }
    }

    pub(crate) fn text_of(&self, node: &Node) -> &str {
        &self.text[node.start as usize..node.end as usize]
    }

    /// The next node after `n` in document order within the subtree of `root`, skipping the
    /// children of `n` when `descend` is false.
    pub(crate) fn next_in(&self, root: u32, n: u32, descend: bool) -> Option<u32> {
        let node = &self.nodes[n as usize];
        if descend && node.first_child != NONE {
            return Some(node.first_child);
        }
        let mut at = n;
        loop {
            if at == root {
                return None;
            }
            let node = &self.nodes[at as usize];
            if node.next_sibling != NONE {
                return Some(node.next_sibling);
            }
            at = node.parent;
            if at == NONE {
                return None;
            }
        }
    }
}

/// Pieces the markup is fed in (tendrils are limited to 4 GiB).
const PIECE: usize = 1 << 20;

/// Parses `markup` into a [`Dom`]; with `labels`, each element's tag, class and id are kept
/// for [`Dom::label`].
pub(crate) fn parse(markup: &str, labels: bool) -> Dom {
    let tokenizer = Tokenizer::new(Builder::new(markup.len(), labels), TokenizerOpts::default());
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
    // The sink never pauses the tokenizer (no scripts run), so one round consumes the input.
    while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
    tokenizer.end();
    std::mem::take(&mut tokenizer.sink.0.borrow_mut().dom)
}

/// What the tokenizer's text currently goes to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Mode {
    #[default]
    Normal,
    /// The content of a raw-text element that is not kept (`script`, `style`, ...).
    Skip,
    /// The page's title.
    Title,
    /// A title that is not the page's (a second one, or one in `svg`).
    OtherTitle,
}

/// Counters of open elements by kind, so that scope checks cost O(1).
#[derive(Debug, Default)]
struct Open {
    /// Stack positions of open elements of each tracked kind.
    p: Vec<u32>,
    li: Vec<u32>,
    dtdd: Vec<u32>,
    a: Vec<u32>,
    option: Vec<u32>,
    cell: Vec<u32>,
    tr: Vec<u32>,
    /// Boundaries of the "button scope" (tables, cells, buttons, ...): a `p` beyond one is not
    /// closed by a block start tag.
    scope: Vec<u32>,
    /// Lists: the boundaries of the list-item scope.
    list: Vec<u32>,
    /// Tables: the boundaries of the table scope.
    table: Vec<u32>,
    /// Open elements per name, for end tags.
    names: std::collections::HashMap<html5ever::LocalName, u32>,
}

#[derive(Debug)]
struct State {
    dom: Dom,
    /// The stack of open elements (node indices); `stack[0]` is the document.
    stack: Vec<u32>,
    /// The tag names of the open elements, parallel to `stack`.
    names: Vec<html5ever::LocalName>,
    open: Open,
    mode: Mode,
    /// Depth of foreign content (`svg`, `math`).
    foreign: u32,
    /// Whether the last node added is a text node that more text may extend.
    text_open: bool,
    have_title: bool,
    /// The stack position of the open `head`, while it is open.
    head: Option<u32>,
    /// Whether to record each element's label (tag, class, id) for [`super::explain`].
    labels: bool,
}

#[derive(Debug)]
struct Builder(RefCell<State>);

impl Builder {
    fn new(len: usize, labels: bool) -> Builder {
        let mut dom = Dom { nodes: Vec::with_capacity(len / 40 + 16), ..Dom::default() };
        dom.text.reserve(len / 3);
        dom.nodes.push(Node {
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            tag: Tag::Document,
            flags: BLOCK,
            weight: 0,
            start: 0,
            end: 0,
        });
        Builder(RefCell::new(State {
            dom,
            stack: vec![0],
            names: vec![html5ever::LocalName::from("")],
            open: Open::default(),
            mode: Mode::Normal,
            foreign: 0,
            text_open: false,
            have_title: false,
            head: None,
            labels,
        }))
    }
}

impl TokenSink for Builder {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut st = self.0.borrow_mut();
        match token {
            Token::CharacterTokens(text) => {
                st.characters(&text);
                TokenSinkResult::Continue
            }
            Token::TagToken(tag) => st.tag(tag),
            Token::NullCharacterToken
            | Token::CommentToken(_)
            | Token::DoctypeToken(_)
            | Token::ParseError(_)
            | Token::EOFToken => TokenSinkResult::Continue,
        }
    }
}

impl State {
    fn current(&self) -> u32 {
        *self.stack.last().expect("the document is never popped")
    }

    fn characters(&mut self, text: &str) {
        match self.mode {
            Mode::Skip | Mode::OtherTitle => {}
            Mode::Title => self.dom.title.get_or_insert_with(String::new).push_str(text),
            Mode::Normal => {
                if self.foreign > 0 {
                    return;
                }
                if let Some(pos) = self.head {
                    // Text ends the head, as in a browser; blanks do not.
                    if text.chars().all(char::is_whitespace) {
                        return;
                    }
                    self.pop_to(pos);
                }
                let at = self.dom.text.len() as u32;
                self.dom.text.push_str(text);
                let end = self.dom.text.len() as u32;
                if self.text_open
                    && let Some(last) = self.dom.nodes.last_mut()
                {
                    last.end = end;
                    return;
                }
                let parent = self.current();
                // Text inside `<pre>` keeps its line breaks when written out.
                let pre = self.dom.nodes[parent as usize].flags & PRE;
                self.append(parent, Tag::Text, pre, 0, at, end);
                self.text_open = true;
            }
        }
    }

    fn append(
        &mut self,
        parent: u32,
        tag: Tag,
        flags: u16,
        weight: i16,
        start: u32,
        end: u32,
    ) -> u32 {
        let id = self.dom.nodes.len() as u32;
        self.dom.nodes.push(Node {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            tag,
            flags,
            weight,
            start,
            end,
        });
        let p = &mut self.dom.nodes[parent as usize];
        let prev = p.last_child;
        p.last_child = id;
        if prev == NONE {
            p.first_child = id;
        } else {
            self.dom.nodes[prev as usize].next_sibling = id;
        }
        self.text_open = false;
        id
    }

    fn tag(&mut self, tag: HtmlTag) -> TokenSinkResult<()> {
        if self.mode != Mode::Normal {
            // In a raw-text state the tokenizer emits no tag but the element's own end tag.
            if tag.kind == TagKind::EndTag {
                self.mode = Mode::Normal;
            }
            return TokenSinkResult::Continue;
        }
        self.dom.attr_bytes += tag.name.len();
        match tag.kind {
            TagKind::StartTag => self.start_tag(tag),
            TagKind::EndTag => {
                self.end_tag(&tag.name);
                TokenSinkResult::Continue
            }
        }
    }

    fn start_tag(&mut self, tag: HtmlTag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        if self.foreign > 0 {
            if crate::html::breaks_out_of_foreign_content(name) {
                self.close_foreign();
            } else {
                self.foreign_tag(&tag);
                return TokenSinkResult::Continue;
            }
        }
        let raw = |st: &mut State, mode: Mode, kind: RawKind| {
            if tag.self_closing {
                TokenSinkResult::Continue
            } else {
                st.mode = mode;
                st.text_open = false;
                TokenSinkResult::RawData(kind)
            }
        };
        match name {
            "script" => return raw(self, Mode::Skip, RawKind::ScriptData),
            "style" | "iframe" | "noembed" | "noframes" | "xmp" => {
                return raw(self, Mode::Skip, RawKind::Rawtext);
            }
            "textarea" => return raw(self, Mode::Skip, RawKind::Rcdata),
            "title" => {
                let mode = if self.have_title { Mode::OtherTitle } else { Mode::Title };
                self.have_title = true;
                return raw(self, mode, RawKind::Rcdata);
            }
            "meta" => {
                self.meta(&tag.attrs);
                return TokenSinkResult::Continue;
            }
            "svg" | "math" => {
                if !tag.self_closing {
                    self.foreign = 1;
                }
                return TokenSinkResult::Continue;
            }
            "html" | "body" | "head" if self.open.names.contains_key(&tag.name) => {
                return TokenSinkResult::Continue;
            }
            _ => {}
        }
        if let Some(pos) = self.head
            && !crate::html::is_head_content(name)
        {
            self.pop_to(pos);
        }
        let (t, mut flags) = classify(name);
        if flags & (CLOSES_P | BLOCK) != 0 || t == Tag::P {
            self.close_p();
        }
        match t {
            Tag::Li => {
                let bound = top(&self.open.list).max(top(&self.open.scope));
                self.close_last(|o| &o.li, bound);
            }
            Tag::Dt | Tag::Dd => {
                let bound = top(&self.open.list).max(top(&self.open.scope));
                self.close_last(|o| &o.dtdd, bound);
            }
            Tag::Option => self.close_last(|o| &o.option, top(&self.open.scope)),
            // A ruby annotation ends at the next one (the HTML standard's implied end tags).
            Tag::Other
                if matches!(name, "rt" | "rp" | "rb" | "rtc")
                    && self.names.last().is_some_and(|n| matches!(&**n, "rt" | "rp" | "rb")) =>
            {
                self.pop();
            }
            Tag::A => self.close_last(|o| &o.a, top(&self.open.scope)),
            Tag::Tr => {
                self.close_last(|o| &o.tr, top(&self.open.table));
            }
            Tag::Td => self.close_last(|o| &o.cell, top(&self.open.table)),
            Tag::Heading(_) => {
                if let Some(&cur) = self.stack.last()
                    && matches!(self.dom.nodes[cur as usize].tag, Tag::Heading(_))
                {
                    self.pop();
                }
            }
            _ => {}
        }
        let (attr_flags, weight) = self.attributes(t, is_inline(name), &tag.attrs);
        flags |= attr_flags;
        let parent = self.current();
        if self.dom.nodes[parent as usize].flags & PRE != 0 {
            flags |= PRE;
        }
        let id = self.append(parent, t, flags & !(VOID | CLOSES_P | SCOPE), weight, 0, 0);
        if self.labels {
            self.label(id, name, &tag.attrs);
        }
        if name == "plaintext" {
            self.push(id, tag.name, t, flags | PRE);
            self.dom.nodes[id as usize].flags |= PRE;
            return TokenSinkResult::Plaintext;
        }
        if flags & VOID == 0 {
            if t == Tag::Head {
                self.head = Some(self.stack.len() as u32);
            }
            self.push(id, tag.name, t, flags);
        }
        TokenSinkResult::Continue
    }

    /// Records the tag name, class and id of element `id` (for [`super::explain`]).
    fn label(&mut self, id: u32, name: &str, attrs: &[Attribute]) {
        let dom = &mut self.dom;
        if dom.label_of.len() < dom.nodes.len() {
            dom.label_of.resize(dom.nodes.len(), (0, 0));
        }
        let start = dom.labels.len() as u32;
        dom.labels.push_str(name);
        for a in attrs {
            if matches!(&*a.name.local, "class" | "id") {
                dom.labels.push(if &*a.name.local == "id" { '#' } else { '.' });
                dom.labels.push_str(a.value.trim());
            }
        }
        dom.label_of[id as usize] = (start, dom.labels.len() as u32);
    }

    /// A start tag inside `svg` or `math`: nothing is built, but nesting is followed so that the
    /// foreign content ends at its own end tag.
    fn foreign_tag(&mut self, tag: &HtmlTag) {
        if !tag.self_closing && matches!(&*tag.name, "svg" | "math") {
            self.foreign += 1;
        }
    }

    fn close_foreign(&mut self) {
        self.foreign = 0;
    }

    fn push(&mut self, id: u32, name: html5ever::LocalName, t: Tag, flags: u16) {
        let pos = self.stack.len() as u32;
        let o = &mut self.open;
        match t {
            Tag::P => o.p.push(pos),
            Tag::Li => o.li.push(pos),
            Tag::Dt | Tag::Dd => o.dtdd.push(pos),
            Tag::A => o.a.push(pos),
            Tag::Option => o.option.push(pos),
            Tag::Td => o.cell.push(pos),
            Tag::Tr => o.tr.push(pos),
            Tag::Ul | Tag::Ol => o.list.push(pos),
            _ => {}
        }
        if flags & SCOPE != 0 {
            o.scope.push(pos);
        }
        if t == Tag::Table || t == Tag::Html {
            o.table.push(pos);
        }
        *o.names.entry(name.clone()).or_insert(0) += 1;
        self.stack.push(id);
        self.names.push(name);
    }

    fn pop(&mut self) {
        if self.stack.len() <= 1 {
            return;
        }
        let pos = (self.stack.len() - 1) as u32;
        let id = self.stack.pop().expect("checked above");
        let name = self.names.pop().expect("parallel to the stack");
        let o = &mut self.open;
        for v in [
            &mut o.p,
            &mut o.li,
            &mut o.dtdd,
            &mut o.a,
            &mut o.option,
            &mut o.cell,
            &mut o.tr,
            &mut o.scope,
            &mut o.list,
            &mut o.table,
        ] {
            if v.last() == Some(&pos) {
                v.pop();
            }
        }
        if let Some(count) = o.names.get_mut(&name) {
            *count -= 1;
            if *count == 0 {
                o.names.remove(&name);
            }
        }
        if self.dom.nodes[id as usize].tag == Tag::Head {
            self.head = None;
        }
        self.text_open = false;
    }

    /// Pops the stack down to (and including) position `pos`.
    fn pop_to(&mut self, pos: u32) {
        while self.stack.len() as u32 > pos && self.stack.len() > 1 {
            self.pop();
        }
    }

    /// Closes the innermost open element tracked by `which` when it lies beyond the boundary
    /// position `bound` (the innermost scope boundary; 0 for none).
    fn close_last(&mut self, which: impl Fn(&Open) -> &Vec<u32>, bound: u32) {
        if let Some(&pos) = which(&self.open).last()
            && pos > bound
        {
            self.pop_to(pos);
        }
    }

    fn close_p(&mut self) {
        let bound = top(&self.open.scope);
        self.close_last(|o| &o.p, bound);
    }

    fn end_tag(&mut self, name: &html5ever::LocalName) {
        let s: &str = name;
        if self.foreign > 0 {
            if matches!(s, "svg" | "math") {
                self.foreign -= 1;
            } else if matches!(s, "p" | "br") {
                self.close_foreign();
            } else {
                return;
            }
            if self.foreign > 0 || matches!(s, "svg" | "math") {
                return;
            }
        }
        match s {
            // `</br>` is read as `<br>`, as browsers do.
            "br" => {
                let parent = self.current();
                let id = self.append(parent, Tag::Br, BLOCK, 0, 0, 0);
                if self.labels {
                    self.label(id, "br", &[]);
                }
                return;
            }
            "p" => {
                self.close_p();
                return;
            }
            // The body and the document end only at the end of the input: text after them
            // still belongs to the body, as in a browser.
            "body" | "html" => return,
            _ => {}
        }
        if !self.open.names.contains_key(name) {
            return;
        }
        // Pop to the innermost open element of this name. Each popped element was pushed once,
        // so all the pops of a page cost at most one per element.
        while self.stack.len() > 1 {
            let done = self.names.last() == Some(name);
            self.pop();
            if done {
                break;
            }
        }
    }

    /// Reads the attributes that matter: class and id (their weight), role, itemprop, hidden,
    /// style, href.
    fn attributes(&mut self, t: Tag, inline: bool, attrs: &[Attribute]) -> (u16, i16) {
        let mut flags = 0;
        let mut weight = 0i16;
        for a in attrs {
            let value: &str = &a.value;
            self.dom.attr_bytes += a.name.local.len() + value.len();
            match &*a.name.local {
                "class" | "id" if !matches!(t, Tag::Html | Tag::Body) => {
                    // Inline elements are never dropped by class but for captions: skip the
                    // word lists for them (syntax-highlighted code has a class per token).
                    if !inline {
                        let (w, strong) = class_weight(value);
                        weight = weight.saturating_add(w);
                        if strong {
                            flags |= STRONG_NEGATIVE;
                        }
                    }
                    if is_caption(value) {
                        flags |= CAPTION;
                    }
                }
                "role" => match value.trim().to_ascii_lowercase().as_str() {
                    "main" | "article" => flags |= MARKED_CONTENT,
                    "navigation" | "complementary" | "contentinfo" | "banner" | "menu"
                    | "menubar" | "dialog" | "alert" | "alertdialog" | "search" | "toolbar" => {
                        flags |= MARKED_BOILERPLATE
                    }
                    _ => {}
                },
                "itemprop" => {
                    let v = value.trim();
                    if v.eq_ignore_ascii_case("articleBody") || v.eq_ignore_ascii_case("text") {
                        flags |= MARKED_CONTENT;
                    } else if ["url", "image", "width", "height", "publisher", "logo"]
                        .iter()
                        .any(|m| v.eq_ignore_ascii_case(m))
                        && t != Tag::A
                    {
                        // Microdata written out for machines (an image's address and size,
                        // the publisher), usually hidden by a style sheet.
                        flags |= HIDDEN;
                    }
                }
                "hidden" => flags |= HIDDEN,
                "aria-hidden" if value.trim().eq_ignore_ascii_case("true") => {
                    // Icons and decorations say this; a block of text hidden this way is rare
                    // but does occur (duplicated mobile menus): both are not read aloud.
                    flags |= HIDDEN;
                }
                "style" if style_hides(value) => {
                    flags |= HIDDEN;
                }
                "href" if t == Tag::A => flags |= LINK,
                _ => {}
            }
        }
        (flags, weight)
    }

    fn meta(&mut self, attrs: &[Attribute]) {
        if self.dom.meta_title.is_some() {
            return;
        }
        let mut is_title = false;
        let mut content = None;
        for a in attrs {
            self.dom.attr_bytes += a.name.local.len() + a.value.len();
            match &*a.name.local {
                "property" | "name" | "itemprop" => {
                    let v = a.value.trim();
                    is_title |= ["og:title", "twitter:title", "dc.title", "headline"]
                        .iter()
                        .any(|t| v.eq_ignore_ascii_case(t));
                }
                "content" => content = Some(a.value.trim().to_owned()),
                _ => {}
            }
        }
        if is_title {
            self.dom.meta_title = content.filter(|c| !c.is_empty());
        }
    }
}

/// The innermost position in `v`, or 0 (the document, below every element) when empty.
fn top(v: &[u32]) -> u32 {
    v.last().copied().unwrap_or(0)
}

/// Closes an open `p`: not stored on nodes (the builder's own flag).
const CLOSES_P: u16 = 1 << 12;
/// A void element: never has children.
const VOID: u16 = 1 << 13;
/// A boundary of the "button scope" of the HTML standard (simplified).
const SCOPE: u16 = 1 << 14;

/// The tag and flags of an element name.
fn classify(name: &str) -> (Tag, u16) {
    match name {
        "html" => (Tag::Html, BLOCK | SCOPE),
        "head" => (Tag::Head, INVISIBLE),
        "body" => (Tag::Body, BLOCK),
        "a" => (Tag::A, 0),
        "p" => (Tag::P, BLOCK),
        "div" => (Tag::Div, BLOCK),
        "section" => (Tag::Section, BLOCK),
        "article" => (Tag::Article, BLOCK),
        "main" => (Tag::Main, BLOCK),
        "pre" | "listing" | "plaintext" => (Tag::Pre, BLOCK | PRE),
        "blockquote" => (Tag::Blockquote, BLOCK),
        "table" => (Tag::Table, BLOCK | SCOPE),
        "tr" => (Tag::Tr, BLOCK),
        "td" | "th" => (Tag::Td, SCOPE),
        "caption" => (Tag::Other, BLOCK | SCOPE),
        "li" => (Tag::Li, BLOCK),
        "ul" => (Tag::Ul, BLOCK),
        "ol" => (Tag::Ol, BLOCK),
        "dl" => (Tag::Dl, BLOCK),
        "dt" => (Tag::Dt, BLOCK),
        "dd" => (Tag::Dd, BLOCK),
        "h1" => (Tag::Heading(1), BLOCK),
        "h2" => (Tag::Heading(2), BLOCK),
        "h3" => (Tag::Heading(3), BLOCK),
        "h4" => (Tag::Heading(4), BLOCK),
        "h5" => (Tag::Heading(5), BLOCK),
        "h6" => (Tag::Heading(6), BLOCK),
        "nav" => (Tag::Nav, BLOCK),
        "aside" => (Tag::Aside, BLOCK),
        "footer" => (Tag::Footer, BLOCK),
        "header" => (Tag::Header, BLOCK),
        "form" => (Tag::Form, BLOCK),
        "figure" => (Tag::Figure, BLOCK),
        "figcaption" => (Tag::Figcaption, BLOCK),
        "address" => (Tag::Address, BLOCK),
        "noscript" => (Tag::Noscript, 0),
        "br" => (Tag::Br, BLOCK | VOID),
        "hr" => (Tag::Other, BLOCK | VOID),
        "wbr" | "img" | "image" | "input" | "link" | "base" | "basefont" | "bgsound" | "area"
        | "col" | "embed" | "frame" | "keygen" | "param" | "source" | "track" => {
            (Tag::Other, VOID | INVISIBLE)
        }
        "button" => (Tag::Button, INVISIBLE | SCOPE),
        "option" => (Tag::Option, INVISIBLE),
        "select" | "datalist" | "optgroup" | "template" | "video" | "audio" | "canvas"
        | "object" | "applet" | "map" | "rt" | "rp" | "dialog" | "menu" | "marquee" => {
            let scope = if matches!(name, "template" | "object" | "applet" | "marquee") {
                SCOPE
            } else {
                0
            };
            (Tag::Other, INVISIBLE | scope)
        }
        "details" | "dir" | "fieldset" | "hgroup" | "search" | "center" | "summary" | "legend"
        | "tbody" | "thead" | "tfoot" | "frameset" => (Tag::Other, BLOCK),
        _ => (Tag::Other, 0),
    }
}

/// Whether an inline style hides the element.
fn style_hides(style: &str) -> bool {
    let mut compact = [0u8; 64];
    let mut n = 0;
    for b in style.bytes() {
        if !b.is_ascii_whitespace() {
            compact[n % 64] = b.to_ascii_lowercase();
            n += 1;
            let w = &compact[..n.min(64)];
            if n <= 64 && (w.ends_with(b"display:none") || w.ends_with(b"visibility:hidden")) {
                return true;
            }
            if n == 64 {
                // Long styles: fall back to a lower-case copy (rare).
                let lower: String = style
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_ascii_lowercase();
                return lower.contains("display:none") || lower.contains("visibility:hidden");
            }
        }
    }
    false
}

/// The weight of a class or id value: names of content count up, names of boilerplate down.
///
/// Matched on the lower-cased value's words (split at anything but letters and digits); the
/// long names also inside words (`relatedPosts`, `sidebar-left`).
pub(crate) fn class_weight(value: &str) -> (i16, bool) {
    if value.is_empty() {
        return (0, false);
    }
    let lower = value.to_ascii_lowercase();
    let (mut neg, mut strong, mut pos) = (false, false, false);
    let mut previous = "";
    for word in lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        // `no-sidebar`, `has-comments`, `with-related`: a page setting, not a container.
        let negated = matches!(previous, "no" | "has" | "with" | "without" | "show" | "enable");
        previous = word;
        if negated {
            continue;
        }
        if STRONG_PARTS.iter().any(|p| word.contains(p)) || STRONG_WORDS.contains(&word) {
            neg = true;
            strong = true;
        } else if NEGATIVE_WORDS.contains(&word) || NEGATIVE_PARTS.iter().any(|p| word.contains(p))
        {
            neg = true;
        } else if POSITIVE_WORDS.contains(&word) || POSITIVE_PARTS.iter().any(|p| word.contains(p))
        {
            pos = true;
        }
    }
    (if neg { -25 } else { 0 } + if pos { 25 } else { 0 }, strong)
}

/// Whether a class or id names a caption or a credit.
fn is_caption(value: &str) -> bool {
    let has =
        |word: &[u8]| value.as_bytes().windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    has(b"caption") || has(b"credit")
}

/// Phrasing elements: their class never makes them boilerplate (only a caption class does).
fn is_inline(name: &str) -> bool {
    matches!(
        name,
        "span"
            | "a"
            | "code"
            | "em"
            | "strong"
            | "b"
            | "i"
            | "small"
            | "sub"
            | "sup"
            | "abbr"
            | "time"
            | "mark"
            | "q"
            | "cite"
            | "label"
            | "font"
            | "u"
            | "s"
            | "kbd"
            | "var"
            | "samp"
            | "dfn"
            | "bdi"
            | "bdo"
            | "tt"
            | "big"
            | "ins"
            | "del"
    )
}

/// Parts of class names that mark a container of boilerplate, whose content is never the
/// article.
const STRONG_PARTS: &[&str] = &[
    "comment",
    "sidebar",
    "related",
    "footer",
    "share",
    "social",
    "newsletter",
    "cookie",
    "breadcrumb",
    "outbrain",
    "taboola",
    "disqus",
    "recommend",
    "trending",
    "navbar",
];

/// Whole words of class names that mark a container of boilerplate.
const STRONG_WORDS: &[&str] = &["nav", "menu", "ad", "ads", "advert", "promo"];

/// Whole words of class names that mark boilerplate.
const NEGATIVE_WORDS: &[&str] = &[
    "adv",
    "tags",
    "tag",
    "meta",
    "byline",
    "author",
    "hidden",
    "hide",
    "print",
    "popup",
    "modal",
    "masthead",
    "skip",
    "rating",
    "toolbar",
    "pager",
    "pagination",
    "outbrain",
    "taboola",
    "disqus",
    "signup",
    "login",
    "rss",
];

/// Parts of class names that mark boilerplate.
const NEGATIVE_PARTS: &[&str] = &[
    "navigation",
    "sharing",
    "promo",
    "banner",
    "caption",
    "credit",
    "gallery",
    "slideshow",
    "carousel",
    "consent",
    "subscribe",
    "widget",
    "sponsor",
    "advert",
    "popular",
    "gdpr",
];

/// Whole words of class names that mark content.
const POSITIVE_WORDS: &[&str] = &["main", "post", "entry", "story", "text", "body", "blog"];

/// Parts of class names that mark content.
const POSITIVE_PARTS: &[&str] = &["article", "content", "entry", "story", "post-body", "postbody"];

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree as nested tags (text as its content), for comparing shapes.
    fn shape(markup: &str) -> String {
        let dom = parse(markup, true);
        let mut out = String::new();
        let mut stack = vec![(0u32, false)];
        while let Some((n, closing)) = stack.pop() {
            let node = &dom.nodes[n as usize];
            if closing {
                out.push(')');
                continue;
            }
            if node.tag == Tag::Text {
                out.push_str(&format!("{:?}", dom.text_of(node)));
                continue;
            }
            if n != 0 {
                out.push_str(dom.label(n));
                out.push('(');
                stack.push((n, true));
            }
            let mut children = Vec::new();
            let mut c = node.first_child;
            while c != NONE {
                children.push(c);
                c = dom.nodes[c as usize].next_sibling;
            }
            stack.extend(children.into_iter().rev().map(|c| (c, false)));
        }
        out
    }

    #[test]
    fn implied_end_tags() {
        assert_eq!(shape("<p>a<p>b<div>c</div>"), r#"p("a")p("b")div("c")"#);
        assert_eq!(shape("<ul><li>a<li>b</ul>c"), r#"ul(li("a")li("b"))"c""#);
        assert_eq!(shape("<ul><li>a<ul><li>b</ul>c</ul>"), r#"ul(li("a"ul(li("b"))"c"))"#);
        assert_eq!(shape("<dl><dt>a<dd>b<dt>c</dl>"), r#"dl(dt("a")dd("b")dt("c"))"#);
        assert_eq!(
            shape("<table><tr><td>a<td>b<tr><td>c</table>"),
            r#"table(tr(td("a")td("b"))tr(td("c")))"#
        );
        // A table closes an open `p`; a `p` inside one of its cells ends with the table.
        assert_eq!(shape("<p>x<table><td><p>y</table>z"), r#"p("x")table(td(p("y")))"z""#);
        assert_eq!(shape("<h1>a<h2>b</h2>"), r#"h1("a")h2("b")"#);
        assert_eq!(shape("<a href=1>a<a href=2>b</a>"), r#"a("a")a("b")"#);
    }

    #[test]
    fn stray_end_tags_and_raw_text() {
        // Text around an ignored end tag is one run, as in a browser.
        assert_eq!(shape("</div>a</span><b>b</i>c</b>d"), r#""a"b("bc")"d""#);
        assert_eq!(shape("<p>a</br>b</p></p>"), r#"p("a"br()"b")"#);
        assert_eq!(
            shape("<script>if (a<b) {}</script><style>p{}</style><textarea><p>t</textarea>x"),
            r#""x""#
        );
        assert_eq!(shape("<title>T</title><title>U</title>b"), r#""b""#);
        assert_eq!(
            parse("<title>T</title><svg><title>icon</title></svg>", false).title.as_deref(),
            Some("T")
        );
    }

    #[test]
    fn foreign_content_is_not_built_and_ends_at_html() {
        assert_eq!(shape("<p>a<svg><text>chart</text><g/></svg>b</p>"), r#"p("ab")"#);
        assert_eq!(shape("<svg><path d=x>icon<div>visible</div>"), r#"div("visible")"#);
        assert_eq!(shape("<math><mi>x</mi></math>y"), r#""y""#);
    }

    #[test]
    fn head_ends_at_body_content() {
        let dom =
            parse("<head><meta property='og:title' content=' OG '><title>T</title>text<p>p", false);
        assert_eq!(dom.meta_title.as_deref(), Some("OG"));
        assert_eq!(dom.title.as_deref(), Some("T"));
        assert_eq!(shape("<head><link><div>x</div>"), r#"head(link())div("x")"#);
    }

    #[test]
    fn attributes_set_flags_and_weights() {
        let dom = parse(
            "<div class='post-content'>a</div><div id='sidebar'>b</div><div class='no-sidebar'>c</div>\
             <div hidden>d</div><div style='display: none'>e</div><span class='wp-caption-text'>f</span>\
             <div itemprop=articleBody>g</div><nav role=navigation>h</nav><a href=x>i</a>",
            false,
        );
        let els: Vec<&Node> =
            dom.nodes.iter().filter(|n| n.tag != Tag::Text && n.tag != Tag::Document).collect();
        assert_eq!(els[0].weight, 25);
        assert_eq!((els[1].weight, els[1].flags & STRONG_NEGATIVE != 0), (-25, true));
        assert_eq!(els[2].weight, 0);
        assert!(els[3].flags & HIDDEN != 0 && els[4].flags & HIDDEN != 0);
        assert!(els[5].flags & CAPTION != 0);
        assert!(els[6].flags & MARKED_CONTENT != 0);
        assert!(els[7].flags & MARKED_BOILERPLATE != 0);
        assert!(els[8].flags & LINK != 0);
    }
}
