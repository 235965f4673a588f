//! The README's build (`cargo build --release --bin lookalike`: every default member), the CLI
//! alone (`cargo install --path crates/lookalike-cli`) and the Python extension (the wheel)
//! resolve the same features for every crate they share (what `lookalike-hack` is for):
//! otherwise the wheel built after the main job compiles those crates, and all above them, again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// `name version` → features, for every crate in the graph of `packages` (none: the default
/// members; normal and build edges, this machine's target), as `cargo tree` resolves them.
fn features(packages: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(cargo)
        .current_dir(&root)
        .args(["tree", "--offline", "--locked", "-e", "normal,build"])
        .args(packages.iter().flat_map(|p| ["-p", p]))
        .args(["--prefix", "none", "-f", "{p} [{f}]"])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {packages:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).expect("UTF-8").lines() {
        let Some((crate_at, rest)) = line.split_once(" [") else { continue };
        let Some((feats, _)) = rest.split_once(']') else { continue };
        // `name vX.Y.Z` (a path dependency adds its folder in parentheses).
        let key: Vec<&str> = crate_at.split(' ').take(2).collect();
        let entry = graph.entry(key.join(" ")).or_default();
        entry.extend(feats.split(',').filter(|f| !f.is_empty()).map(str::to_owned));
    }
    graph
}

/// What differs between two graphs, crate by crate (only crates both have).
fn differences(
    (a, a_name): (&BTreeMap<String, BTreeSet<String>>, &str),
    (b, b_name): (&BTreeMap<String, BTreeSet<String>>, &str),
) -> Vec<String> {
    let only = |x: &BTreeSet<String>, y: &BTreeSet<String>| {
        x.difference(y).cloned().collect::<Vec<_>>().join(",")
    };
    a.iter()
        .filter_map(|(name, ours)| {
            let theirs = b.get(name)?;
            (ours != theirs).then(|| {
                format!(
                    "{name}: {a_name} only [{}], {b_name} only [{}]",
                    only(ours, theirs),
                    only(theirs, ours)
                )
            })
        })
        .collect()
}

#[test]
fn the_readme_build_the_cli_and_the_python_extension_share_one_feature_set() {
    let readme = features(&[]);
    let cli = features(&["lookalike-cli"]);
    let py = features(&["lookalike-py"]);
    for (graph, n) in [(&readme, "default members"), (&cli, "CLI"), (&py, "Python")] {
        assert!(graph.len() > 100, "{n}: a graph of {} crates", graph.len());
    }
    let mut differ = differences((&readme, "README build"), (&py, "Python"));
    differ.extend(differences((&cli, "CLI"), (&py, "Python")));
    differ.extend(differences((&readme, "README build"), (&cli, "CLI")));
    assert!(
        differ.is_empty(),
        "add these features to crates/lookalike-hack/Cargo.toml:\n{}",
        differ.join("\n")
    );
}
