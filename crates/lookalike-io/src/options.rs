//! Reading options shared by the reader and the decoder.

use crate::Format;

/// How records are read and decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// The JSONL field that holds a record's id (default `id`). A string is used as is, a number
    /// or boolean as its JSON text; when absent or null the id is `source:line`.
    pub id_field: String,
    /// The JSONL field that holds a record's text (default `text`); it must be a string.
    pub text_field: String,
    /// Warn about a record without the [`ReadOptions::id_field`] (its id is then its position):
    /// the decoded document carries a warning naming the fields the record has. Default false
    /// (a missing id is the position, silently); the CLI sets it when `--id-field` is given.
    pub warn_missing_id: bool,
    /// Read every input in this format instead of detecting it (default `None`: detect by
    /// extension for files, by content for stdin).
    pub format: Option<Format>,
    /// What text is taken from HTML pages (HTML files and WARC responses); default the main
    /// content.
    pub extract: Extract,
    /// With [`Extract::Main`], also keep each HTML page's visible text, one block a line
    /// ([`Decoded::Doc`]'s `visible`), for the collection's boilerplate statistics (default
    /// false: it costs a second walk over each page).
    ///
    /// [`Decoded::Doc`]: crate::Decoded::Doc
    pub visible_text: bool,
    /// The JSONL/Parquet field naming a record's site (host, domain, collection) for boilerplate
    /// statistics ([`Decoded::Doc`]'s `site`); `None`: not read.
    ///
    /// [`Decoded::Doc`]: crate::Decoded::Doc
    pub site_field: Option<String>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            id_field: "id".to_owned(),
            text_field: "text".to_owned(),
            warn_missing_id: false,
            format: None,
            extract: Extract::default(),
            visible_text: false,
            site_field: None,
        }
    }
}

/// What text is taken from an HTML page.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Extract {
    /// The main content, boilerplate (menus, footers, banners) removed, with all visible text
    /// as the fallback ([`crate::extract_main`]); the title is kept apart.
    #[default]
    Main,
    /// All visible text ([`crate::html_to_text`]), title first.
    Text,
    /// The decoded markup as it is (compare layouts, not texts).
    None,
}

impl Extract {
    /// The name used on the command line: `main`, `text` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            Extract::Main => "main",
            Extract::Text => "text",
            Extract::None => "none",
        }
    }
}

impl std::str::FromStr for Extract {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "main" => Ok(Extract::Main),
            "text" => Ok(Extract::Text),
            "none" => Ok(Extract::None),
            _ => Err(format!("unknown extraction {s:?}: expected main, text or none")),
        }
    }
}
