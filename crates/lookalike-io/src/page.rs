//! The text of a page: contract: "give me a page's decoded markup and the options, I give you the
//! text `--extract` asks for, its title, the visible text when asked, and how the text was found".

use crate::html;
use crate::main_content::{MAX_MAIN_CONTENT_BYTES, extract_main};
use crate::options::{Extract, ReadOptions};

/// The text taken from a page, its title and how it was found.
pub(crate) struct HtmlText {
    pub(crate) text: String,
    /// All the visible text, one block a line, when asked for ([`ReadOptions::visible_text`]).
    pub(crate) visible: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) extraction: &'static str,
    /// Why main-content extraction was not attempted, when it was asked for.
    pub(crate) warning: Option<String>,
}

impl HtmlText {
    pub(crate) fn plain() -> HtmlText {
        HtmlText::plain_text(String::new())
    }

    /// A text that is not HTML, as it is.
    pub(crate) fn plain_text(text: String) -> HtmlText {
        HtmlText { text, visible: None, title: None, extraction: "plain", warning: None }
    }
}

/// The text of decoded HTML `markup` as `opts.extract` asks (with the visible text when
/// `opts.visible_text` asks for it); `url` (a WARC target URI) is passed to the main-content
/// extractor, whose text does not depend on it.
pub(crate) fn html_text(markup: String, opts: &ReadOptions, url: Option<&str>) -> HtmlText {
    match opts.extract {
        Extract::Main => {
            let warning = (markup.len() > MAX_MAIN_CONTENT_BYTES).then(|| {
                format!(
                    "main content not extracted: page of {:.1} MB is above the {} MiB limit, all \
                     visible text used",
                    markup.len() as f64 / 1e6,
                    MAX_MAIN_CONTENT_BYTES >> 20
                )
            });
            let (e, visible) = if opts.visible_text {
                let (e, visible) = crate::extract_main_and_visible(&markup, url);
                (e, Some(visible))
            } else {
                (extract_main(&markup, url), None)
            };
            HtmlText {
                text: e.text,
                visible,
                title: e.title,
                extraction: e.method.as_str(),
                warning,
            }
        }
        Extract::Text => HtmlText {
            text: html::extract(&markup),
            visible: None,
            title: None,
            extraction: "text",
            warning: None,
        },
        Extract::None => {
            HtmlText { text: markup, visible: None, title: None, extraction: "none", warning: None }
        }
    }
}
