//! Site boilerplate removal: the options of every subcommand that compares pages (`dedup`,
//! `extract`).

use clap::Args;
use lookalike::boilerplate::BoilerplateRule;
pub use lookalike_io::boilerplate::BoilerplateMode;
use lookalike_io::boilerplate::BoilerplateOptions;

/// Site boilerplate removal options.
#[derive(Debug, Args, Clone)]
pub struct BoilerplateArgs {
    /// Remove each site's template (menus, sidebars, footers, notices, generated lists): lines
    /// that repeat across many pages of the same site are taken out before comparing, and a page
    /// whose main content is the template gets its own visible text instead (a page with
    /// nothing of its own, a stub or a notice, is compared as it is). auto: web pages
    /// (HTML, WARC, docreader); all: every document; off: none. A site is the host of a
    /// URL (WARC, docreader), the folder of a file, or the --site-field of a JSONL/Parquet
    /// record. Reads the whole input before comparing (texts are held in a temporary file).
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        value_name = "MODE",
        help_heading = "Boilerplate options"
    )]
    pub boilerplate: BoilerplateMode,
    /// A line is template when it is in at least this many distinct pages of its site (copies
    /// of a page, and texts that differ only in numbers, count once); sites with fewer distinct
    /// pages keep everything.
    #[arg(long, default_value_t = BoilerplateRule::default().min_pages, value_name = "N", help_heading = "Boilerplate options")]
    pub boilerplate_min_pages: u32,
    /// ... and in at least this share of its site's distinct pages.
    #[arg(long, default_value_t = BoilerplateRule::default().min_share, value_name = "SHARE", value_parser = parse_share, help_heading = "Boilerplate options")]
    pub boilerplate_min_share: f64,
    /// JSONL/Parquet field naming each record's site (host, domain, collection) for boilerplate
    /// statistics; without it the site is the host of a record id that is a URL, else its file.
    #[arg(long, value_name = "FIELD", help_heading = "Boilerplate options")]
    pub site_field: Option<String>,
}

impl BoilerplateArgs {
    /// The statistical rule.
    pub fn rule(&self) -> BoilerplateRule {
        BoilerplateRule {
            min_pages: self.boilerplate_min_pages,
            min_share: self.boilerplate_min_share,
        }
    }

    /// The options as the readers take them.
    pub fn options(&self) -> BoilerplateOptions {
        BoilerplateOptions {
            mode: self.boilerplate,
            rule: self.rule(),
            site_field: self.site_field.clone(),
        }
    }
}

/// A `--boilerplate-min-share` value.
pub fn parse_share(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    BoilerplateRule::share(v)
}
