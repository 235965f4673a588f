//! The seeds (Japanese, Ukrainian, Russian, Chinese) and edited copies of them.

use crate::common::*;

#[test]
#[ignore = "needs ../shared/seeds"]
fn seeds_in_four_languages_match_their_edited_copies_and_not_each_other() {
    let shared = shared("seeds");
    let tmp = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(shared.join("seeds")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        write(tmp.path(), &format!("seeds/{name}"), text.as_bytes());
        // The copy: a new first line, every 40th line dropped, and full-width digits.
        let copy: String = text
            .lines()
            .enumerate()
            .filter(|(i, _)| i % 40 != 39)
            .map(|(_, l)| format!("{}\n", l.replace('1', "１")))
            .collect();
        write(tmp.path(), &format!("copies/{name}"), format!("Saved copy\n{copy}").as_bytes());
        names.push(name);
    }
    assert_eq!(names.len(), 5);
    let o =
        run(&["dedup", "seeds", "copies", "--threshold", "0.7", "--pairs", "-"], None, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let p = pairs(&stdout(&o));
    let mut got: Vec<(String, String)> = p.iter().map(|(a, b, _)| (a.clone(), b.clone())).collect();
    got.sort();
    let mut want: Vec<(String, String)> =
        names.iter().map(|n| (format!("seeds/{n}"), format!("copies/{n}"))).collect();
    want.sort();
    // Each seed pairs with its own copy only (ids print as given: copies/ sorts before seeds/).
    let got_set: std::collections::BTreeSet<(String, String)> =
        got.into_iter().map(|(a, b)| if a < b { (b, a) } else { (a, b) }).collect();
    let want_set: std::collections::BTreeSet<(String, String)> = want.into_iter().collect();
    assert_eq!(got_set, want_set, "{}", stdout(&o));
}
