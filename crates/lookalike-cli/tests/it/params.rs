//! `lookalike params`.

use crate::common::*;

#[test]
fn params_prints_the_choice_and_the_s_curve() {
    let o = run(
        &["params", "--threshold", "0.8", "--num-perm", "128"],
        None,
        std::path::Path::new("."),
    );
    assert!(o.status.success());
    let out = stdout(&o);
    // The default banding finds a pair at the threshold + 0.05 with probability 0.999.
    assert!(out.contains("18 bands × 7 rows"), "{out}");
    assert!(out.contains("at s = 0.85: 0.9990"), "{out}");
    assert!(out.contains("P(candidate) ≥ 0.999 at s = 0.850"), "{out}");
    // Weights choose by the weighted error areas, as before the default changed.
    let o = run(
        &["params", "--threshold", "0.8", "--fp-weight", "0.1", "--fn-weight", "0.9"],
        None,
        std::path::Path::new("."),
    );
    let out = stdout(&o);
    assert!(out.contains("14 bands × 9 rows") && out.contains("weights 0.1 / 0.9"), "{out}");

    let o = run(
        &["params", "--threshold", "0.8", "--bands", "16", "--rows", "8", "--json"],
        None,
        std::path::Path::new("."),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["bands"], 16);
    assert_eq!(v["chosen"], false);
    let p = v["s_curve"][16]["probability"].as_f64().unwrap(); // s = 0.8
    assert!((p - (1.0 - (1.0 - 0.8f64.powi(8)).powi(16))).abs() < 1e-12);
}
