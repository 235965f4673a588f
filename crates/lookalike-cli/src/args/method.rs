//! The options of the methods. Each flag of a particular method (`--num-perm`, `--sample`,
//! `--weights`, ...) is made from the library's method registry
//! ([`lookalike::method::options`]): its name, help, default and parser are defined once, by the
//! method that owns it, and Python reads the same definitions. The groups here only say where
//! the flags appear in `--help` (`dedup`, `params`, `index create`, `compare` share them).

use std::marker::PhantomData;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, FromArgMatches};
use lookalike::Measure;
use lookalike::method::options::{self, OptionValues, Value};
use lookalike::sketch::simhash::DEFAULT_MAX_DISTANCE;
use lookalike::sketch::supershingles::SuperShingleConfig;

/// Which registry options a group of flags holds, and under which `--help` heading.
pub trait FlagGroup: Send + Sync + 'static {
    /// The options' names, in `--help` order.
    const NAMES: &'static [&'static str];
    /// Their heading (`None`: the heading in force where the group is flattened).
    const HEADING: Option<&'static str>;
}

/// The flags of a [`FlagGroup`]: the values given on the command line (an absent flag takes
/// the method's default when the settings are built).
pub struct MethodFlags<G> {
    /// The values given.
    pub values: OptionValues,
    group: PhantomData<G>,
}

impl<G> Clone for MethodFlags<G> {
    fn clone(&self) -> Self {
        MethodFlags { values: self.values.clone(), group: PhantomData }
    }
}

impl<G> Default for MethodFlags<G> {
    fn default() -> Self {
        MethodFlags { values: OptionValues::default(), group: PhantomData }
    }
}

impl<G> std::fmt::Debug for MethodFlags<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.values.fmt(f)
    }
}

impl<G: FlagGroup> MethodFlags<G> {
    fn options() -> impl Iterator<Item = &'static options::MethodOption> {
        G::NAMES.iter().map(|name| {
            options::option(name).unwrap_or_else(|| panic!("{name} is not a method option"))
        })
    }

    /// The value of option `name` when given.
    pub fn get<T: Clone + 'static>(&self, name: &str) -> Option<T> {
        self.values.get(name)
    }
}

impl<G: FlagGroup> FromArgMatches for MethodFlags<G> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = MethodFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for option in Self::options() {
            if matches.value_source(option.name) != Some(ValueSource::CommandLine) {
                continue;
            }
            // Parsed once, by the argument's own parser (`MethodOption::arg`).
            if let Some(value) = matches.get_one::<Value>(option.name) {
                self.values.insert(option, value.clone());
            }
        }
        Ok(())
    }
}

impl<G: FlagGroup> Args for MethodFlags<G> {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for option in Self::options() {
            let mut arg = option.arg();
            if let Some(heading) = G::HEADING {
                arg = arg.help_heading(heading);
            }
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// The heading of the options every method shares.
const METHOD: &str = "Method options";

/// MinHash's signature length and banding.
#[derive(Debug, Clone, Copy)]
pub struct Banding;
impl FlagGroup for Banding {
    const NAMES: &'static [&'static str] = &["num_perm", "bands", "rows", "fp_weight", "fn_weight"];
    const HEADING: Option<&'static str> = Some(METHOD);
}

/// MinHash's scheme and largest bucket.
#[derive(Debug, Clone, Copy)]
pub struct MinHashRest;
impl FlagGroup for MinHashRest {
    const NAMES: &'static [&'static str] = &["minhash", "max_bucket"];
    const HEADING: Option<&'static str> = Some(METHOD);
}

/// Super-shingles' shape.
#[derive(Debug, Clone, Copy)]
pub struct SuperShingleFlags;
impl FlagGroup for SuperShingleFlags {
    const NAMES: &'static [&'static str] = &["super_hashes", "super_groups", "super_mode"];
    const HEADING: Option<&'static str> = None;
}

/// SimHash's distance and tables.
#[derive(Debug, Clone, Copy)]
pub struct SimHashFlags;
impl FlagGroup for SimHashFlags {
    const NAMES: &'static [&'static str] = &["max_distance", "simhash_blocks"];
    const HEADING: Option<&'static str> = None;
}

/// The options of the other methods, in `dedup --help` order.
#[derive(Debug, Clone, Copy)]
pub struct Particular;
impl FlagGroup for Particular {
    const NAMES: &'static [&'static str] = &[
        "sample",
        "max_docs_per_shingle",
        "frequent_shingles",
        "super_hashes",
        "super_groups",
        "super_mode",
        "max_distance",
        "simhash_blocks",
        "weights",
        "features",
        "lexicon",
        "nidf_low",
        "nidf_high",
        "min_terms",
        "extra_lexicons",
        "drop_fraction",
        "lists",
        "min_shared",
        "ridf_words",
        "sentences",
        "refwords",
        "refwords_distance",
        "refwords_min_bits",
        "spot_chain",
    ];
    const HEADING: Option<&'static str> = None;
}

/// Options shared by `dedup` and `params` that decide the MinHash/LSH setting.
#[derive(Debug, Args, Clone)]
pub struct SketchArgs {
    /// Similarity threshold: pairs with Jaccard resemblance at or above it are duplicates.
    #[arg(long, short = 't', default_value_t = 0.8, help_heading = "Method options")]
    pub threshold: f64,
    #[command(flatten)]
    pub banding: MethodFlags<Banding>,
}

impl SketchArgs {
    /// `--num-perm` (default: MinHash's).
    pub fn num_perm(&self) -> usize {
        self.banding.get("num_perm").unwrap_or(lookalike::MinHashConfig::default().num_perm)
    }

    /// `--bands` and `--rows`, when given (clap requires them together).
    pub fn banding(&self) -> Option<(usize, usize)> {
        Some((self.banding.get("bands")?, self.banding.get("rows")?))
    }
}

/// Options of the syntactic methods other than MinHash: containment, sampling, super-shingles,
/// Broder's algorithm, SimHash.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Options of particular methods")]
pub struct MethodArgs {
    /// What similarity means: jaccard (resemblance |A∩B|/|A∪B|) or containment (|A∩B|/|A| of the
    /// smaller document A: finds excerpts, quoted articles, print versions; pairs are written
    /// contained-first). Containment works with --method mod-m (the default then) or broder with
    /// a mod:M sample, and keeps the longest document of a cluster unless --keep says otherwise.
    #[arg(long, value_enum, default_value = "jaccard", help_heading = "Method options")]
    pub measure: Measure,
    #[command(flatten)]
    pub particular: MethodFlags<Particular>,
}

/// The shape of super-shingles (`--super-*`) in `params`.
pub type SuperShingleArgs = MethodFlags<SuperShingleFlags>;

impl SuperShingleArgs {
    /// The super-shingle shape: `super_hashes / super_groups` values per group (not checked: the
    /// engine and `params` check it).
    pub fn config(&self) -> SuperShingleConfig {
        let d = SuperShingleConfig::default();
        let minhashes = self.get("super_hashes").unwrap_or(d.minhashes);
        let groups = self.get("super_groups").unwrap_or(d.groups);
        SuperShingleConfig {
            minhashes,
            groups,
            per_group: minhashes.checked_div(groups).unwrap_or(0),
            mode: self.get("super_mode").unwrap_or(d.mode),
        }
    }
}

/// The Hamming distance of SimHash and the layout of its tables in `params`.
pub type SimHashArgs = MethodFlags<SimHashFlags>;

impl SimHashArgs {
    /// The SimHash method's distance: the one given, `None` for `auto`, else
    /// [`DEFAULT_MAX_DISTANCE`].
    pub fn simhash_distance(&self) -> Option<u32> {
        self.get::<Option<u32>>("max_distance").unwrap_or(Some(DEFAULT_MAX_DISTANCE))
    }

    /// `--simhash-blocks`, when given.
    pub fn simhash_blocks(&self) -> Option<usize> {
        self.get("simhash_blocks")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A method option the registry declares but no group of `dedup` shows would not be a flag:
    /// a new option must be placed in one of them.
    #[test]
    fn every_registry_option_is_a_dedup_flag_once() {
        let groups = [Banding::NAMES, MinHashRest::NAMES, Particular::NAMES];
        for option in options::all_options() {
            let n = groups.iter().flat_map(|g| g.iter()).filter(|&&n| n == option.name).count();
            assert_eq!(n, 1, "{} is in {n} of dedup's flag groups", option.name);
        }
        let names: Vec<&str> = options::all_options().iter().map(|o| o.name).collect();
        for name in groups.iter().flat_map(|g| g.iter()) {
            assert!(names.contains(name), "{name} is not a registry option");
        }
    }
}
