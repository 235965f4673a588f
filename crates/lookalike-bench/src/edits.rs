//! Realistic edits that turn a document into a planted near-duplicate.
//!
//! Each [`EditKind`] imitates one way copies of a page differ on the web: light or heavy word
//! changes (re-edited copies), moved or dropped paragraphs (re-templated pages), added headers and
//! footers (mirrors with their own navigation), changed numbers and dates (crawl snapshots),
//! truncation and excerpts (partial copies), and exact copies. Edits work on Unicode word
//! boundaries, so they are as meaningful for Japanese and Chinese (one word per character) as for
//! space-separated languages.

use unicode_segmentation::UnicodeSegmentation;

use crate::pool::LangPool;
use crate::rng::Rng;

/// Paragraph separator inside generated documents.
pub const PARAGRAPH_BREAK: &str = "\n\n";

/// One kind of planted edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EditKind {
    /// An identical copy.
    Exact,
    /// 1–5% of the words inserted, deleted or substituted.
    Light,
    /// 10–20% of the words inserted, deleted or substituted.
    Heavy,
    /// One to three paragraphs moved elsewhere.
    Move,
    /// One or more paragraphs (up to a fifth) dropped.
    Drop,
    /// Header and/or footer lines added (navigation, copyright, dates).
    Boilerplate,
    /// Numbers and dates changed (or a date line added when there is none).
    Numbers,
    /// The end cut off, keeping 70–95% of the words.
    Truncate,
    /// A contiguous excerpt of 30–60% of the words.
    Excerpt,
    /// Boilerplate, light word edits and changed numbers together.
    Mixed,
}

impl EditKind {
    /// Every kind with its weight among planted variants (weights add up to 100).
    pub const WEIGHTED: [(EditKind, u32); 10] = [
        (EditKind::Exact, 10),
        (EditKind::Light, 20),
        (EditKind::Heavy, 10),
        (EditKind::Move, 8),
        (EditKind::Drop, 8),
        (EditKind::Boilerplate, 12),
        (EditKind::Numbers, 8),
        (EditKind::Truncate, 10),
        (EditKind::Excerpt, 8),
        (EditKind::Mixed, 6),
    ];

    /// The kind's name, as written in the planted-pairs file.
    pub fn name(self) -> &'static str {
        match self {
            EditKind::Exact => "exact",
            EditKind::Light => "light",
            EditKind::Heavy => "heavy",
            EditKind::Move => "move",
            EditKind::Drop => "drop",
            EditKind::Boilerplate => "boilerplate",
            EditKind::Numbers => "numbers",
            EditKind::Truncate => "truncate",
            EditKind::Excerpt => "excerpt",
            EditKind::Mixed => "mixed",
        }
    }

    /// Draws a kind according to [`EditKind::WEIGHTED`].
    pub fn draw(rng: &mut Rng) -> EditKind {
        let total: u32 = Self::WEIGHTED.iter().map(|(_, w)| w).sum();
        let mut x = rng.below(u64::from(total)) as u32;
        for (kind, w) in Self::WEIGHTED {
            if x < w {
                return kind;
            }
            x -= w;
        }
        EditKind::Light
    }
}

/// Applies an edit of `kind` to `text` (a document in `lang`'s language, paragraphs separated by
/// [`PARAGRAPH_BREAK`]). Returns the new text and the kind actually applied: paragraph edits on
/// a document with too few paragraphs fall back to [`EditKind::Light`].
pub fn apply(kind: EditKind, text: &str, lang: &LangPool, rng: &mut Rng) -> (String, EditKind) {
    let spaceless = is_spaceless(&lang.lang);
    match kind {
        EditKind::Exact => (text.to_owned(), kind),
        EditKind::Light => {
            (word_edits(text, rng.range_f64(0.01, 0.05), lang, spaceless, rng), kind)
        }
        EditKind::Heavy => {
            (word_edits(text, rng.range_f64(0.10, 0.20), lang, spaceless, rng), kind)
        }
        EditKind::Move => match move_paragraphs(text, rng) {
            Some(t) => (t, kind),
            None => apply(EditKind::Light, text, lang, rng),
        },
        EditKind::Drop => match drop_paragraphs(text, rng) {
            Some(t) => (t, kind),
            None => apply(EditKind::Light, text, lang, rng),
        },
        EditKind::Boilerplate => (add_boilerplate(text, &lang.lang, rng), kind),
        EditKind::Numbers => (change_numbers(text, &lang.lang, rng), kind),
        EditKind::Truncate => {
            let keep = rng.range_f64(0.70, 0.95);
            let n = word_count(text);
            let end = word_offset(text, (keep * n as f64).ceil() as usize);
            (text[..end].trim_end().to_owned(), kind)
        }
        EditKind::Excerpt => {
            let frac = rng.range_f64(0.30, 0.60);
            let n = word_count(text);
            let len = ((frac * n as f64).round() as usize).max(1).min(n);
            let start = rng.index(n - len + 1);
            let (s, e) = (word_offset(text, start), word_offset(text, start + len));
            (text[s..e].trim().to_owned(), kind)
        }
        EditKind::Mixed => {
            let t = add_boilerplate(text, &lang.lang, rng);
            let t = word_edits(&t, rng.range_f64(0.01, 0.05), lang, spaceless, rng);
            (change_numbers(&t, &lang.lang, rng), kind)
        }
    }
}

/// Languages written without spaces between words.
pub fn is_spaceless(lang: &str) -> bool {
    matches!(lang, "ja" | "zh" | "th" | "lo" | "km" | "my")
}

/// Number of Unicode words in `text`.
pub fn word_count(text: &str) -> usize {
    text.unicode_words().count()
}

/// Byte offset of the start of word number `k` (0-based), or the text's length when it has no
/// more than `k` words.
pub fn word_offset(text: &str, k: usize) -> usize {
    text.unicode_word_indices().nth(k).map_or(text.len(), |(i, _)| i)
}

fn is_word(seg: &str) -> bool {
    seg.chars().any(char::is_alphanumeric)
}

/// Each word is, with probability `rate`, deleted, replaced by a random word of the language, or
/// followed by an inserted random word.
fn word_edits(text: &str, rate: f64, lang: &LangPool, spaceless: bool, rng: &mut Rng) -> String {
    let segs: Vec<&str> = text.split_word_bounds().collect();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut i = 0;
    while i < segs.len() {
        let seg = segs[i];
        if is_word(seg) && rng.chance(rate) {
            match rng.below(3) {
                0 => {
                    // Deleted: also drop the space after it, so no double space is left.
                    if !spaceless && segs.get(i + 1).is_some_and(|s| *s == " ") {
                        i += 1;
                    }
                }
                1 => out.push_str(lang.random_word(rng)),
                _ => {
                    out.push_str(seg);
                    if !spaceless {
                        out.push(' ');
                    }
                    out.push_str(lang.random_word(rng));
                }
            }
        } else {
            out.push_str(seg);
        }
        i += 1;
    }
    out
}

fn move_paragraphs(text: &str, rng: &mut Rng) -> Option<String> {
    let mut paras: Vec<&str> = text.split(PARAGRAPH_BREAK).collect();
    let n = paras.len();
    if n < 2 {
        return None;
    }
    let moves = rng.range_incl(1, 3.min(n - 1));
    for _ in 0..moves {
        let from = rng.index(n);
        let p = paras.remove(from);
        let mut to = rng.index(n - 1);
        if to >= from {
            to += 1;
        }
        paras.insert(to.min(n - 1), p);
    }
    Some(paras.join(PARAGRAPH_BREAK))
}

fn drop_paragraphs(text: &str, rng: &mut Rng) -> Option<String> {
    let mut paras: Vec<&str> = text.split(PARAGRAPH_BREAK).collect();
    let n = paras.len();
    if n < 3 {
        return None;
    }
    let drops = rng.range_incl(1, (n / 5).max(1));
    for _ in 0..drops {
        paras.remove(rng.index(paras.len()));
    }
    Some(paras.join(PARAGRAPH_BREAK))
}

/// Header lines (navigation, bylines) and footer lines (copyright, sharing) per language; `{y}`
/// is a year, `{d}` a date, `{n}` and `{m}` small numbers.
fn boilerplate_lines(lang: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match lang {
        "ru" => (
            &[
                "Главная | Новости | Статьи | О нас | Контакты",
                "Перейти к содержимому",
                "Опубликовано {d}, просмотров: {n}",
                "Вы здесь: Главная › Документация › Справка",
                "Обновлено {d}",
            ],
            &[
                "© {y} Все права защищены.",
                "Поделиться: ВКонтакте Telegram Почта",
                "Похожие статьи",
                "Страница {n} из {m}",
                "Комментарии ({n})",
                "Подпишитесь на нашу рассылку",
            ],
        ),
        "uk" => (
            &[
                "Головна | Новини | Статті | Про нас | Контакти",
                "Перейти до змісту",
                "Опубліковано {d}, переглядів: {n}",
                "Ви тут: Головна › Документація › Довідка",
                "Оновлено {d}",
            ],
            &[
                "© {y} Усі права захищено.",
                "Поділитися: Facebook Telegram Пошта",
                "Схожі статті",
                "Сторінка {n} з {m}",
                "Коментарі ({n})",
                "Підпишіться на нашу розсилку",
            ],
        ),
        "ja" => (
            &[
                "ホーム | ニュース | 記事 | 会社概要 | お問い合わせ",
                "本文へスキップ",
                "投稿日: {d} 閲覧数: {n}",
                "現在の位置: ホーム › ドキュメント › ヘルプ",
                "最終更新日: {d}",
            ],
            &[
                "Copyright © {y} All Rights Reserved.",
                "このページを共有する",
                "関連記事",
                "{n} / {m} ページ",
                "コメント ({n})",
                "ニュースレターを購読する",
            ],
        ),
        "zh" => (
            &[
                "首页 | 新闻 | 文章 | 关于我们 | 联系我们",
                "跳到主要内容",
                "发布于 {d} 阅读 {n}",
                "当前位置: 首页 › 文档 › 帮助",
                "最后更新: {d}",
            ],
            &[
                "版权所有 © {y} 保留所有权利。",
                "分享到: 微博 微信 邮件",
                "相关文章",
                "第 {n} 页，共 {m} 页",
                "评论 ({n})",
                "订阅我们的新闻通讯",
            ],
        ),
        _ => (
            &[
                "Home | News | Articles | About us | Contact",
                "Skip to main content",
                "Posted on {d} by admin, {n} views",
                "You are here: Home › Documentation › Help",
                "Last updated {d}",
            ],
            &[
                "Copyright © {y} All rights reserved.",
                "Share this page: Facebook Twitter Email",
                "Related articles",
                "Page {n} of {m}",
                "Comments ({n})",
                "Subscribe to our newsletter",
            ],
        ),
    }
}

fn random_date(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}",
        rng.range_incl(2005, 2025),
        rng.range_incl(1, 12),
        rng.range_incl(1, 28)
    )
}

fn fill(template: &str, rng: &mut Rng) -> String {
    let mut s = template.to_owned();
    if s.contains("{y}") {
        s = s.replace("{y}", &rng.range_incl(2005, 2025).to_string());
    }
    if s.contains("{d}") {
        s = s.replace("{d}", &random_date(rng));
    }
    if s.contains("{m}") {
        let m = rng.range_incl(2, 40);
        s = s.replace("{m}", &m.to_string());
        s = s.replace("{n}", &rng.range_incl(1, m).to_string());
    }
    if s.contains("{n}") {
        s = s.replace("{n}", &rng.range_incl(1, 5000).to_string());
    }
    s
}

/// Picks `k` distinct lines of `lines` in random order, filled in.
fn pick_lines(lines: &[&str], k: usize, rng: &mut Rng) -> Vec<String> {
    let mut idx: Vec<usize> = (0..lines.len()).collect();
    (0..k.min(lines.len()))
        .map(|_| {
            let j = idx.remove(rng.index(idx.len()));
            fill(lines[j], rng)
        })
        .collect()
}

fn add_boilerplate(text: &str, lang: &str, rng: &mut Rng) -> String {
    let (headers, footers) = boilerplate_lines(lang);
    let (h, f) = match rng.below(3) {
        0 => (rng.range_incl(1, 3), 0),
        1 => (0, rng.range_incl(1, 3)),
        _ => (rng.range_incl(1, 3), rng.range_incl(1, 3)),
    };
    let mut out = String::with_capacity(text.len() + 200);
    if h > 0 {
        out.push_str(&pick_lines(headers, h, rng).join("\n"));
        out.push_str(PARAGRAPH_BREAK);
    }
    out.push_str(text);
    if f > 0 {
        out.push_str(PARAGRAPH_BREAK);
        out.push_str(&pick_lines(footers, f, rng).join("\n"));
    }
    out
}

/// Changes the digits of about 60% of the numbers (at least one); adds a date line to a text
/// without numbers.
fn change_numbers(text: &str, lang: &str, rng: &mut Rng) -> String {
    let segs: Vec<&str> = text.split_word_bounds().collect();
    let numeric: Vec<usize> =
        (0..segs.len()).filter(|&i| segs[i].bytes().any(|b| b.is_ascii_digit())).collect();
    if numeric.is_empty() {
        let (headers, _) = boilerplate_lines(lang);
        let dated = headers.iter().rev().find(|l| l.contains("{d}")).copied().unwrap_or("{d}");
        return format!("{}{PARAGRAPH_BREAK}{text}", fill(dated, rng));
    }
    let forced = numeric[rng.index(numeric.len())];
    let mut out = String::with_capacity(text.len());
    for (i, seg) in segs.iter().enumerate() {
        if numeric.binary_search(&i).is_ok() && (i == forced || rng.chance(0.6)) {
            let original = *seg;
            let mut changed = String::with_capacity(seg.len());
            for (k, c) in seg.chars().enumerate() {
                if c.is_ascii_digit() {
                    let lead = k == 0 && c != '0';
                    let d = if lead { rng.range_incl(1, 9) } else { rng.range_incl(0, 9) };
                    changed.push(char::from(b'0' + d as u8));
                } else {
                    changed.push(c);
                }
            }
            if changed == original {
                // Make sure the forced number really changes: bump its last digit.
                changed = bump_last_digit(original);
            }
            out.push_str(&changed);
        } else {
            out.push_str(seg);
        }
    }
    out
}

fn bump_last_digit(s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    if let Some(c) = chars.iter_mut().rev().find(|c| c.is_ascii_digit()) {
        let d = c.to_digit(10).unwrap_or(0);
        *c = char::from(b'0' + ((d + 1) % 10) as u8);
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(lang: &str, paras: &[&str]) -> LangPool {
        let words: Vec<u32> = paras.iter().map(|p| word_count(p) as u32).collect();
        LangPool {
            lang: lang.into(),
            paragraphs: paras.iter().map(|s| (*s).to_owned()).collect(),
            total_words: words.iter().map(|&w| u64::from(w)).sum(),
            words,
        }
    }

    const DOC: &str = "The first paragraph has seven words.\n\nSecond one mentions 2019 and 42 \
        apples.\n\nThird paragraph is here.\n\nFourth and last paragraph.";

    #[test]
    fn exact_and_paragraph_edits_keep_paragraphs_whole() {
        let lp = pool("en", &["filler words for substitution only"]);
        let mut rng = Rng::new(3);
        assert_eq!(apply(EditKind::Exact, DOC, &lp, &mut rng).0, DOC);
        let (moved, k) = apply(EditKind::Move, DOC, &lp, &mut rng);
        assert_eq!(k, EditKind::Move);
        let mut a: Vec<&str> = DOC.split(PARAGRAPH_BREAK).collect();
        let mut b: Vec<&str> = moved.split(PARAGRAPH_BREAK).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        let (dropped, k) = apply(EditKind::Drop, DOC, &lp, &mut rng);
        assert_eq!(k, EditKind::Drop);
        let kept: Vec<&str> = dropped.split(PARAGRAPH_BREAK).collect();
        assert_eq!(kept.len(), 3);
        assert!(kept.iter().all(|p| DOC.contains(p)));
        // One paragraph: nothing to move, falls back to light word edits.
        assert_eq!(apply(EditKind::Move, "one two three", &lp, &mut rng).1, EditKind::Light);
    }

    #[test]
    fn truncation_and_excerpts_are_contiguous_and_sized() {
        let lp = pool("en", &["x y z"]);
        let text: String = (0..200).map(|i| format!("w{i} ")).collect();
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let (t, _) = apply(EditKind::Truncate, &text, &lp, &mut rng);
            assert!(text.starts_with(&t));
            let n = word_count(&t);
            assert!((140..=190).contains(&n), "{n}");
            let (e, _) = apply(EditKind::Excerpt, &text, &lp, &mut rng);
            assert!(text.contains(&e));
            let n = word_count(&e);
            assert!((60..=120).contains(&n), "{n}");
        }
    }

    #[test]
    fn numbers_change_and_boilerplate_is_added() {
        let lp = pool("en", &["x y z"]);
        let mut rng = Rng::new(9);
        let (t, _) = apply(EditKind::Numbers, DOC, &lp, &mut rng);
        assert_ne!(t, DOC);
        assert_eq!(word_count(&t), word_count(DOC));
        let (t, _) = apply(EditKind::Numbers, "no digits here", &lp, &mut rng);
        assert!(t.ends_with("no digits here") && t.bytes().any(|b| b.is_ascii_digit()));
        let (t, _) = apply(EditKind::Boilerplate, DOC, &lp, &mut rng);
        assert!(t.contains(DOC) && t.len() > DOC.len());
    }

    #[test]
    fn word_edits_change_about_the_rate() {
        let lp = pool("en", &["replacement tokens come from this pool of text"]);
        let text: String = (0..2000).map(|i| format!("w{i} ")).collect();
        let mut rng = Rng::new(5);
        let (t, _) = apply(EditKind::Heavy, &text, &lp, &mut rng);
        let kept = t.split_whitespace().filter(|w| w.starts_with('w')).count();
        // 10–20% edited, two thirds of the edits remove the word: 133 to 267 fewer.
        assert!((1720..=1880).contains(&kept), "{kept}");
        assert!(!t.contains("  "));
    }

    #[test]
    fn cjk_edits_insert_without_spaces() {
        let lp = pool("zh", &["这是一个用于替换的中文段落"]);
        let text = "重复文档检测是搜索引擎的重要问题。".repeat(20);
        let mut rng = Rng::new(1);
        let (t, _) = apply(EditKind::Heavy, &text, &lp, &mut rng);
        assert_ne!(t, text);
        assert!(!t.contains(' '));
    }

    #[test]
    fn draw_covers_every_kind() {
        let mut rng = Rng::new(11);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            seen.insert(EditKind::draw(&mut rng));
        }
        assert_eq!(seen.len(), EditKind::WEIGHTED.len());
    }
}
