//! No code. `lookalike-cli` and `lookalike-py` depend on this crate so that Cargo resolves the
//! same features for the dependencies they share, whichever of the two a command builds: the
//! Python wheel built after the README's main job then compiles only its own crates. See this
//! crate's `Cargo.toml`.
