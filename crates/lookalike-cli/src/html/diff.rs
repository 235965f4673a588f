//! Side-by-side word-level diffs of two texts (the `similar` crate's Patience diff over the
//! words of Unicode's word boundaries, UAX #29: in Chinese and Japanese every ideograph is a word,
//! as lookalike's own tokens are).
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
    /// Words (tokens other than white space and punctuation) in shared runs of at least one
    /// shingle.
    pub shared_words: usize,
    /// Words only in the first text.
    pub removed_words: usize,
    /// Words only in the second text.
    pub added_words: usize,
}

/// Whether a token of the diff is a word (not white space or punctuation alone).
fn is_word(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
}

/// One side's run of tokens of one kind, written at once when the kind changes.
#[derive(Default)]
struct Run {
    tag: Option<ChangeTag>,
    text: String,
    words: usize,
}

impl Run {
    fn push(
        &mut self,
        tag: ChangeTag,
        token: &str,
        html: &mut String,
        counts: &mut [usize; 3],
        w: usize,
    ) {
        if self.tag != Some(tag) {
            self.flush(html, counts, w);
            self.tag = Some(tag);
        }
        self.text.push_str(token);
        self.words += usize::from(is_word(token));
    }

    /// Writes the run; `counts` are the shared, removed and added words.
    fn flush(&mut self, html: &mut String, counts: &mut [usize; 3], w: usize) {
        if self.text.is_empty() {
            return;
        }
        let text = escape(&self.text);
        match self.tag {
            Some(ChangeTag::Equal) if self.words >= w.max(1) => {
                counts[0] += self.words;
                let _ = write!(html, "<span class=\"sh\">{text}</span>");
            }
            Some(ChangeTag::Equal) | None => html.push_str(&text),
            Some(ChangeTag::Delete) => {
                counts[1] += self.words;
                let _ = write!(html, "<del>{text}</del>");
            }
            Some(ChangeTag::Insert) => {
                counts[2] += self.words;
                let _ = write!(html, "<ins>{text}</ins>");
            }
        }
        self.text.clear();
        self.words = 0;
    }
}

/// The word-level diff of `a` and `b`; shared runs of `shingle_words` words or more are marked.
pub fn side_by_side(a: &str, b: &str, shingle_words: usize) -> SideBySide {
    let diff = TextDiff::configure().algorithm(Algorithm::Patience).diff_unicode_words(a, b);
    let changes: Vec<(ChangeTag, &str)> =
        diff.iter_all_changes().map(|c| (c.tag(), c.value())).collect();
    let (mut left, mut right) = (String::new(), String::new());
    let (mut lrun, mut rrun) = (Run::default(), Run::default());
    // Shared, removed, added words: shared ones are counted on the left side only.
    let mut counts = [0usize; 3];
    let mut ignored = [0usize; 3];
    for (i, &(tag, token)) in changes.iter().enumerate() {
        // White space or punctuation shared between two changed words joins the changes on both
        // sides, so that a changed phrase reads as one.
        let changed = |j: Option<usize>| {
            j.and_then(|j| changes.get(j)).is_some_and(|c| c.0 != ChangeTag::Equal)
        };
        let joins = tag == ChangeTag::Equal
            && !is_word(token)
            && changed(i.checked_sub(1))
            && changed(Some(i + 1));
        match tag {
            _ if joins => {
                lrun.push(ChangeTag::Delete, token, &mut left, &mut counts, shingle_words);
                rrun.push(ChangeTag::Insert, token, &mut right, &mut ignored, shingle_words);
            }
            ChangeTag::Equal => {
                lrun.push(tag, token, &mut left, &mut counts, shingle_words);
                rrun.push(tag, token, &mut right, &mut ignored, shingle_words);
            }
            ChangeTag::Delete => lrun.push(tag, token, &mut left, &mut counts, shingle_words),
            ChangeTag::Insert => rrun.push(tag, token, &mut right, &mut ignored, shingle_words),
        }
    }
    lrun.flush(&mut left, &mut counts, shingle_words);
    rrun.flush(&mut right, &mut ignored, shingle_words);
    SideBySide {
        left,
        right,
        shared_words: counts[0],
        removed_words: counts[1],
        added_words: ignored[2],
    }
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
        assert_eq!(
            d.right,
            "<span class=\"sh\">the cat sat on the mat</span><ins> and then it slept</ins>"
        );
        assert_eq!(d.added_words, 4);
    }

    #[test]
    fn markup_in_texts_is_escaped() {
        let d = side_by_side("<script>alert(1)</script> x", "<script>alert(2)</script> x", 5);
        assert!(!d.left.contains("<script>") && !d.right.contains("<script>"));
        assert!(
            d.left.starts_with("&lt;script&gt;alert(<del>1</del>)&lt;/script&gt;"),
            "{}",
            d.left
        );
        assert!(
            d.right.starts_with("&lt;script&gt;alert(<ins>2</ins>)&lt;/script&gt;"),
            "{}",
            d.right
        );
    }

    #[test]
    fn chinese_is_diffed_character_by_character() {
        let d = side_by_side("我们今天去北京看朋友", "我们今天去上海看朋友", 5);
        assert_eq!(d.left, "<span class=\"sh\">我们今天去</span><del>北京</del>看朋友");
        assert_eq!(d.right, "<span class=\"sh\">我们今天去</span><ins>上海</ins>看朋友");
        assert_eq!((d.shared_words, d.removed_words, d.added_words), (5, 2, 2));
    }

    #[test]
    fn identical_texts_are_one_shared_run() {
        let d = side_by_side("same words here", "same words here", 2);
        assert_eq!(d.left, d.right);
        assert_eq!((d.shared_words, d.removed_words, d.added_words), (3, 0, 0));
    }
}
