//! The near-duplicate methods. Contract: "name a method, I tell you what it compares".
//!
//! Every method shares the pipeline's inputs, text handling, exact-duplicate stage, verification,
//! clustering and outputs; they differ in the signature computed per document and in how
//! candidate pairs are found.

use std::fmt;

/// A near-duplicate detection method.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Method {
    /// MinHash signatures, LSH banding, verification (Broder et al. 1998; MMDS ch. 3).
    #[default]
    #[cfg_attr(feature = "clap", value(name = "minhash"))]
    #[serde(rename = "minhash")]
    MinHash,
    /// Exact copies only: equal raw bytes or equal normalized text (128-bit fingerprints).
    Exact,
}

impl Method {
    /// Every method, in the order `lookalike compare` runs them.
    pub const ALL: &'static [Method] = &[Method::MinHash, Method::Exact];

    /// The name used on the command line and in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Method::MinHash => "minhash",
            Method::Exact => "exact",
        }
    }

    /// Whether the method needs MinHash signatures.
    pub fn uses_minhash(self) -> bool {
        matches!(self, Method::MinHash)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
