//! Text handling. Contract: "give me a document's text, I give you its normalized tokens and its
//! language".
//!
//! [`normalize`]: NFKC, case and punctuation folding, tokens, CJK characters (or dictionary words)
//! as tokens. [`lang`]: language detection and stopword lists.

pub mod lang;
pub mod normalize;
mod swar;
