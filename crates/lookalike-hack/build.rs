//! Empty: Cargo resolves `[build-dependencies]` only for a package with a build script, and this
//! package's build dependencies exist to unify the proc macros' features (see `Cargo.toml`).

fn main() {}
