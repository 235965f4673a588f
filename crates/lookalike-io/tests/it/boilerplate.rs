//! A site template learned from a collection ([`boilerplate::learn`]) and applied to each page
//! alone ([`boilerplate::clean_learned`], [`boilerplate::decode_alone`]: what an index does)
//! gives every page the text the two passes of `dedup` give it, on random sites.

use std::path::Path;

use lookalike_io::boilerplate::{
    self, BoilerplateMode, BoilerplateOptions, SitePass, clean_learned, decode_alone, first,
};
use lookalike_io::{
    BatchLimits, BoilerplateRemoved, Decoded, DecodedBatches, Extract, Format, Input, ReadOptions,
};

use crate::common::write;

/// A small xorshift generator: the test's inputs are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn words(&mut self, n: u64) -> String {
        const WORDS: [&str; 24] = [
            "river", "stone", "lamp", "garden", "window", "cloud", "paper", "engine", "violin",
            "harbor", "meadow", "copper", "lantern", "orchard", "signal", "thread", "valley",
            "marble", "falcon", "timber", "glacier", "canvas", "pepper", "saddle",
        ];
        (0..n).map(|_| WORDS[self.below(24) as usize]).collect::<Vec<_>>().join(" ")
    }
}

/// A page of a site: its menu (most pages), a notice (some), its own paragraphs, sometimes a
/// paragraph that other pages of the site have too, and a footer.
fn page(rng: &mut Rng, site: usize, title: &str, menu: &[String], shared: &[String]) -> String {
    let nav: String = if rng.below(5) > 0 {
        menu.iter().map(|m| format!("<li>{m}</li>")).collect()
    } else {
        String::new()
    };
    let notice = if rng.below(3) == 0 {
        format!("<div><p>Notice of site {site}: this manual may describe another version</p></div>")
    } else {
        String::new()
    };
    let own: String = (0..rng.below(4) + 1)
        .map(|_| match rng.below(6) {
            0 => format!("<p>{}</p>", shared[rng.below(shared.len() as u64) as usize]),
            _ => {
                let n = rng.below(30) + 3;
                format!("<p>{}</p>", rng.words(n))
            }
        })
        .collect();
    // Sites 2 and 3 have their menu inside `<main>`, as documentation themes do.
    let (outside, inside) = if site >= 2 { (String::new(), nav) } else { (nav, String::new()) };
    format!(
        "<html><head><title>{title}</title></head><body><nav><ul>{outside}</ul></nav>{notice}\
         <main><ul>{inside}</ul><h1>{title}</h1>{own}</main><footer><p>Copyright site {site} \
         and its authors</p></footer></body></html>"
    )
}

/// Random sites in folders (some too small for a template), HTML pages with copies, and a JSON
/// Lines file of records with URL ids on two hosts.
fn collection(dir: &Path, rng: &mut Rng) {
    for site in 0..4 {
        let menu: Vec<String> =
            (0..rng.below(12) + 2).map(|i| format!("Chapter {i} {}", rng.words(2))).collect();
        let shared: Vec<String> = (0..3).map(|_| rng.words(8)).collect();
        let folder = if site == 3 { "s3/deep/er".to_owned() } else { format!("s{site}") };
        let pages = [2, 7, 15, 30][site];
        for p in 0..pages {
            let title = format!("Page {p} {}", rng.words(2));
            let html = page(rng, site, &title, &menu, &shared);
            write(dir, &format!("{folder}/p{p}.html"), &html);
            if rng.below(6) == 0 {
                write(dir, &format!("{folder}/p{p}-copy.html"), &html);
            }
        }
    }
    let mut jsonl = String::new();
    for r in 0..40 {
        let host = ["a.example", "b.example"][r % 2];
        let text = format!("Home | Docs | Blog\n{}\nAll rights reserved by {host}", rng.words(12));
        let line = serde_json::json!({"id": format!("https://{host}/p{r}"), "text": text});
        jsonl.push_str(&format!("{line}\n"));
    }
    write(dir, "records.jsonl", jsonl);
}

fn expand(path: &Path) -> Vec<Input> {
    lookalike_io::expand_inputs(&[path.display().to_string()]).unwrap().inputs
}

type Page = (String, Option<String>, Option<BoilerplateRemoved>);

fn page_of(decoded: Decoded, removed: Option<BoilerplateRemoved>) -> Page {
    match decoded {
        Decoded::Doc { doc, .. } => (doc.id, Some(doc.text), removed),
        Decoded::Skip { id, .. } => (id, None, removed),
    }
}

#[test]
fn a_learned_template_cleans_each_page_as_the_two_passes_do() {
    let mut cleaned_pages = 0;
    for seed in 1..=6u64 {
        let tmp = tempfile::tempdir().unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
        collection(tmp.path(), &mut rng);
        let inputs = || expand(tmp.path());
        let mode = if seed % 2 == 0 { BoilerplateMode::All } else { BoilerplateMode::Auto };
        let options = BoilerplateOptions { mode, ..BoilerplateOptions::default() };
        let extract = if seed % 3 == 0 { Extract::Text } else { Extract::Main };
        let opts = ReadOptions { extract, ..ReadOptions::default() };
        let limits = BatchLimits::records(16);

        // The two passes, as `dedup` runs them.
        let mut pass = SitePass::new(&options, tmp.path()).unwrap();
        let first_of = |rec: &lookalike_io::RawRecord, d: Decoded| first(mode, rec, d, None);
        let batches =
            DecodedBatches::spawn(inputs(), options.read_options(opts.clone()), limits, first_of)
                .unwrap();
        for batch in batches {
            for item in batch {
                pass.hold(item).unwrap();
            }
        }
        let mut cleaned = pass.finish(16).unwrap();
        let mut want: Vec<Page> = Vec::new();
        while let Some(batch) = cleaned.next_batch().unwrap() {
            for second in batch {
                let second = second.unwrap();
                want.push(page_of(second.decoded, second.removed));
            }
        }

        // The template learned, then every page cleaned alone.
        let learned =
            boilerplate::learn(inputs(), opts.clone(), &options, limits, |e| panic!("{e}"))
                .unwrap();
        assert_eq!(learned.records, want.len() as u64);
        let template = &learned.template;
        let alone = |rec: &lookalike_io::RawRecord, mut d: Decoded| {
            let c = clean_learned(template, rec, &mut d);
            page_of(d, c.map(|c| c.removed))
        };
        let batches =
            DecodedBatches::spawn(inputs(), options.read_options(opts.clone()), limits, alone)
                .unwrap();
        let got: Vec<Page> = batches.flatten().map(Result::unwrap).collect();
        assert_eq!(got, want, "seed {seed}");
        let removed = got.iter().filter(|p| p.2.is_some_and(|r| r.removed_bytes > 0)).count();
        assert!(removed > 20, "seed {seed}: only {removed} pages lost template lines");
        cleaned_pages += removed;

        // A page sent alone (to `serve`, to `lookalike.Index`), named by its path.
        if extract == Extract::Main {
            for (id, text, _) in want.iter().filter(|p| p.0.ends_with(".html")) {
                let bytes = std::fs::read(id).unwrap();
                let d = decode_alone("request", id.clone(), Format::Html, bytes, Some(template));
                assert_eq!(page_of(d, None).1, *text, "seed {seed}: {id}");
            }
        }
    }
    assert!(cleaned_pages > 200, "{cleaned_pages}");
}

#[test]
fn a_page_of_a_site_the_sample_did_not_have_is_left_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(77);
    collection(tmp.path(), &mut rng);
    let options = BoilerplateOptions::default();
    let sample = expand(&tmp.path().join("s2"));
    let learned =
        boilerplate::learn(sample, ReadOptions::default(), &options, BatchLimits::default(), |e| {
            panic!("{e}")
        })
        .unwrap();
    assert!(learned.template.figures().1 >= 1, "s2 has a template");
    // The same page in folders the sample never saw (the four nearest are a page's sites) is
    // compared as it is.
    let elsewhere = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(tmp.path().join("s2/p1.html")).unwrap();
    let moved = write(elsewhere.path(), "a/b/c/d/p1.html", bytes);
    let s2 = tmp.path().join("s2/p1.html");
    for (path, cleaned) in [(s2, true), (moved, false)] {
        let path = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let with =
            decode_alone("r", path.clone(), Format::Html, bytes.clone(), Some(&learned.template));
        let without = decode_alone("r", path.clone(), Format::Html, bytes, None);
        let text = |d: Decoded| match d {
            Decoded::Doc { doc, .. } => doc.text,
            Decoded::Skip { reason, .. } => panic!("{path}: {reason}"),
        };
        let (with, without) = (text(with), text(without));
        assert_eq!(with != without, cleaned, "{path}:\n{with}\n--\n{without}");
    }
    // A URL id names its host: the JSONL sample's template cleans a page of that host.
    let options =
        BoilerplateOptions { mode: BoilerplateMode::All, ..BoilerplateOptions::default() };
    let sample = expand(&tmp.path().join("records.jsonl"));
    let learned =
        boilerplate::learn(sample, ReadOptions::default(), &options, BatchLimits::default(), |e| {
            panic!("{e}")
        })
        .unwrap();
    let page =
        "Home | Docs | Blog\ncopper lantern orchard signal\nAll rights reserved by a.example";
    let d = decode_alone(
        "r",
        "https://a.example/new".into(),
        Format::Text,
        page.into(),
        Some(&learned.template),
    );
    let Decoded::Doc { doc, .. } = d else { panic!("skipped") };
    assert_eq!(doc.text, "copper lantern orchard signal");
}
