//! Side-by-side word-level diffs of two texts (the `similar` crate's Patience diff over words).
//!
//! The left side shows the first text with the words the second lacks in `<del>`, the right side
//! the second text with its own words in `<ins>`. Runs of words both texts share, in the same
//! order, that are at least one shingle long (`shingle_words` words) are wrapped in
//! `<span class="sh">`: every shingle inside such a run is a shingle both documents have. Shared
//! runs shorter than a shingle stay plain. `<del>` and `<ins>` carry meaning for screen readers
//! and are struck through and underlined by the page's CSS, so colour is not the only sign.

use std::fmt::Write;

use similar::{Algorithm, ChangeTag, TextDiff};

use super::escape;

/// The two sides of a diff, as HTML fragments, and its word counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideBySide {
    pub left: String,
    pub right: String,
    /// Words in shared runs of at least one shingle.
    pub shared_words: usize,
    /// Words only in the first text.
    pub removed_words: usize,
    /// Words only in the second text.
    pub added_words: usize,
}

fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

/// The word-level diff of `a` and `b`; shared runs of `shingle_words` words or more are marked.
pub fn side_by_side(a: &str, b: &str, shingle_words: usize) -> SideBySide {
    let diff = TextDiff::configure().algorithm(Algorithm::Patience).diff_words(a, b);
    let mut out = SideBySide {
        left: String::new(),
        right: String::new(),
        shared_words: 0,
        removed_words: 0,
        added_words: 0,
    };
    // Consecutive changes of one tag are gathered into one run, then written at once.
    let mut run = String::new();
    let mut tag: Option<ChangeTag> = None;
    let flush = |tag: Option<ChangeTag>, run: &mut String, out: &mut SideBySide| {
        if run.is_empty() {
            return;
        }
        let text = escape(run);
        match tag {
            Some(ChangeTag::Equal) => {
                let n = words(run);
                if n >= shingle_words.max(1) {
                    out.shared_words += n;
                    let _ = write!(out.left, "<span class=\"sh\">{text}</span>");
                    let _ = write!(out.right, "<span class=\"sh\">{text}</span>");
                } else {
                    out.left.push_str(&text);
                    out.right.push_str(&text);
                }
            }
            Some(ChangeTag::Delete) => {
                out.removed_words += words(run);
                let _ = write!(out.left, "<del>{text}</del>");
            }
            Some(ChangeTag::Insert) => {
                out.added_words += words(run);
                let _ = write!(out.right, "<ins>{text}</ins>");
            }
            None => {}
        }
        run.clear();
    };
    for change in diff.iter_all_changes() {
        let value = change.value();
        // White space between two changed words stays inside the changed run; white space at
        // the edge of a run of equal words belongs to the equal run on both sides.
        if Some(change.tag()) != tag {
            flush(tag, &mut run, &mut out);
            tag = Some(change.tag());
        }
        run.push_str(value);
    }
    flush(tag, &mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_word_is_deleted_left_and_inserted_right() {
        let d = side_by_side("a b c d e f g h", "a b c X e f g h", 3);
        assert_eq!(
            d.left,
            "<span class=\"sh\">a b c </span><del>d</del><span class=\"sh\"> e f g h</span>"
        );
        assert_eq!(
            d.right,
            "<span class=\"sh\">a b c </span><ins>X</ins><span class=\"sh\"> e f g h</span>"
        );
        assert_eq!((d.shared_words, d.removed_words, d.added_words), (7, 1, 1));
    }

    #[test]
    fn shared_runs_shorter_than_a_shingle_are_not_marked() {
        let d = side_by_side("one two x y z", "one two p q r", 3);
        assert_eq!(d.left, "one two <del>x y z</del>");
        assert_eq!(d.right, "one two <ins>p q r</ins>");
        assert_eq!((d.shared_words, d.removed_words, d.added_words), (0, 3, 3));
    }

    #[test]
    fn added_paragraph_appears_on_the_right_only() {
        let a = "the cat sat on the mat";
        let b = "the cat sat on the mat and then it slept";
        let d = side_by_side(a, b, 5);
        assert_eq!(d.left, "<span class=\"sh\">the cat sat on the mat</span>");
        assert_eq!(d.right, "<span class=\"sh\">the cat sat on the mat</span><ins> and then it slept</ins>");
        assert_eq!(d.added_words, 4);
    }

    #[test]
    fn markup_in_texts_is_escaped() {
        let d = side_by_side("<script>alert(1)</script> x", "<script>alert(2)</script> x", 1);
        assert!(!d.left.contains("<script>") && !d.right.contains("<script>"));
        assert!(d.left.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn identical_texts_are_one_shared_run() {
        let d = side_by_side("same words here", "same words here", 2);
        assert_eq!(d.left, d.right);
        assert_eq!((d.shared_words, d.removed_words, d.added_words), (3, 0, 0));
    }
}
