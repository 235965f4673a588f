//! The method registry: what each method is called, which options it reads and how its settings
//! are built from them. Contract: "give me a method's name and the option values a user wrote, I
//! give you the method's settings, or say which value is wrong".
//!
//! Each method file declares its [`MethodSpec`] (its kind, its options, the function that turns
//! option values into its [`MethodConfig`]) and the [`MethodOption`]s it owns (name, value, help,
//! default, parser); an option that several methods read (`num_perm`, `sample`, `lexicon`, ...)
//! is declared once, by the method that owns it, and listed by the others. [`METHODS`] lists the
//! specs once. The front ends read the registry: the CLI makes its method flags from the options
//! (`--num-perm` from `num_perm`, with the option's help and default), Python accepts them as
//! keyword arguments, and both build the settings with [`MethodConfig::from_options`]. A test
//! checks that every [`MethodKind`] has exactly one spec and that every option parses its own
//! default.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use clap::ValueEnum;
use clap::builder::{PossibleValue, TypedValueParser};

use super::MethodKind;
use super::doc_keyer::{Keying, KeyingInput};
use crate::config::MethodConfig;
use crate::lexical::collection::Lexicon;

/// A parsed option value (its type is the option's own: `usize`, `f64`, an enum, ...).
pub type Value = Arc<dyn Any + Send + Sync>;

/// One option of particular methods: `--num-perm N` on the command line, `num_perm=N` in Python.
#[derive(Debug)]
pub struct MethodOption {
    /// The option's name as Python spells it (`num_perm`); the CLI flag is [`MethodOption::flag`].
    pub name: &'static str,
    /// The placeholder of its value in `--help` (`N`); empty: the name in capitals (`NUM_PERM`).
    pub value_name: &'static str,
    /// What it does, as `--help` shows it.
    pub help: &'static str,
    /// What a value looks like, for error messages ("a non-negative integer").
    pub expected: &'static str,
    /// Its default as text, when it has one that does not depend on other settings.
    pub default: Option<fn() -> String>,
    /// An option that must be given with it.
    pub requires: Option<&'static str>,
    /// Reads a value from its text.
    pub parse: fn(&str) -> Result<Value, String>,
    /// The values it takes, when it is a choice.
    pub choices: Option<fn() -> Vec<PossibleValue>>,
}

impl MethodOption {
    /// An option whose value is a non-negative integer (`usize`).
    pub const fn count(name: &'static str, value_name: &'static str, help: &'static str) -> Self {
        Self::parsed(name, value_name, help, "a non-negative integer", parse::count)
    }

    /// An option whose value is a non-negative 32-bit integer.
    pub const fn small(name: &'static str, value_name: &'static str, help: &'static str) -> Self {
        Self::parsed(name, value_name, help, "a non-negative integer", parse::small)
    }

    /// An option whose value is a number (`f64`).
    pub const fn number(name: &'static str, value_name: &'static str, help: &'static str) -> Self {
        Self::parsed(name, value_name, help, "a number", parse::number)
    }

    /// An option whose value is a file path.
    pub const fn path(name: &'static str, value_name: &'static str, help: &'static str) -> Self {
        Self::parsed(name, value_name, help, "a file path", parse::path)
    }

    /// An option whose value is one of the values of `E`.
    pub const fn choice<E: ValueEnum + Send + Sync + 'static>(
        name: &'static str,
        value_name: &'static str,
        help: &'static str,
        expected: &'static str,
    ) -> Self {
        let mut option = Self::parsed(name, value_name, help, expected, parse::choice::<E>);
        option.choices = Some(parse::choices::<E>);
        option
    }

    /// An option whose value `parse` reads from its text.
    pub const fn parsed(
        name: &'static str,
        value_name: &'static str,
        help: &'static str,
        expected: &'static str,
        parse: fn(&str) -> Result<Value, String>,
    ) -> Self {
        MethodOption {
            name,
            value_name,
            help,
            expected,
            default: None,
            requires: None,
            parse,
            choices: None,
        }
    }

    /// The option with a default, shown by `--help`.
    pub const fn with_default(mut self, default: fn() -> String) -> Self {
        self.default = Some(default);
        self
    }

    /// The option, to be given only with option `other`.
    pub const fn with_requires(mut self, other: &'static str) -> Self {
        self.requires = Some(other);
        self
    }

    /// The command-line flag: `--` and the name with `-` for `_`.
    pub fn flag(&self) -> String {
        format!("--{}", self.name.replace('_', "-"))
    }

    /// The methods that read this option, in [`METHODS`] order.
    pub fn users(&self) -> Vec<MethodKind> {
        METHODS
            .iter()
            .filter(|spec| spec.options.iter().any(|o| o.name == self.name))
            .map(|spec| spec.kind)
            .collect()
    }

    /// The option as a clap argument (id = [`MethodOption::name`]), its values read by
    /// [`MethodOption::parse`] and kept as the parsed [`Value`].
    pub fn arg(&'static self) -> clap::Arg {
        let mut arg = clap::Arg::new(self.name)
            .long(self.flag()[2..].to_owned())
            .help(self.help)
            .action(clap::ArgAction::Set);
        arg = arg.value_name(if self.value_name.is_empty() {
            self.name.to_uppercase()
        } else {
            self.value_name.to_owned()
        });
        if let Some(default) = self.default {
            arg = arg.default_value(default());
        }
        if let Some(other) = self.requires {
            arg = arg.requires(other);
        }
        match self.choices {
            Some(choices) => arg.value_parser(
                clap::builder::PossibleValuesParser::new(choices())
                    .try_map(move |s: String| (self.parse)(&s)),
            ),
            None => arg.value_parser(move |s: &str| (self.parse)(s)),
        }
    }
}

/// A method as the front ends know it: its kind, the options it reads, and how its settings are
/// built from their values.
#[derive(Debug)]
pub struct MethodSpec {
    /// The method.
    pub kind: MethodKind,
    /// The options it reads, in `--help` order.
    pub options: &'static [&'static MethodOption],
    /// Its settings from the option values (absent values take the method's defaults).
    pub config: fn(&OptionValues) -> Result<MethodConfig, String>,
    /// Whether an incremental index (`lookalike index`, `lookalike.Index`) can hold it.
    pub index: InIndex,
    /// Its keyer for documents alone (the Ray job's sketch stage, any engine grouping documents
    /// by key), or why it has none: [`DocKeyer`](super::DocKeyer) calls it.
    pub document_keys: fn(KeyingInput<'_>) -> Keying,
}

/// Whether an index, which decides each document as it arrives, can hold a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InIndex {
    /// Its keys depend on the document alone: an index holds it.
    Yes,
    /// It signs documents with statistics of the whole collection, which change as documents
    /// arrive: an index cannot hold it.
    CollectionStatistics,
    /// An index could hold it, but does not yet.
    NotYet,
}

/// The methods an index can hold, in [`METHODS`] order.
pub fn index_methods() -> Vec<MethodKind> {
    METHODS.iter().filter(|s| s.index == InIndex::Yes).map(|s| s.kind).collect()
}

pub use super::METHODS;

/// Every option of every method, once each, in the order the methods list them.
pub fn all_options() -> Vec<&'static MethodOption> {
    let mut out: Vec<&'static MethodOption> = Vec::new();
    for spec in METHODS {
        for &o in spec.options {
            if !out.iter().any(|x| x.name == o.name) {
                out.push(o);
            }
        }
    }
    out
}

/// The option named `name`, if a method reads it.
pub fn option(name: &str) -> Option<&'static MethodOption> {
    METHODS.iter().flat_map(|s| s.options.iter().copied()).find(|o| o.name == name)
}

impl MethodKind {
    /// The method's spec in [`METHODS`].
    pub fn spec(self) -> &'static MethodSpec {
        METHODS
            .iter()
            .find(|s| s.kind == self)
            .expect("every method has a spec (checked by a test)")
    }
}

impl MethodConfig {
    /// The settings of method `kind` from option values: the method's [`MethodSpec::config`]. An
    /// error names the option and says what is wrong.
    pub fn from_options(kind: MethodKind, values: &OptionValues) -> Result<MethodConfig, String> {
        (kind.spec().config)(values)
    }
}

/// The option values a user gave (an absent option takes its default), and the lexicon the
/// caller loaded from the `lexicon` option's file (loading needs the run's seed and
/// segmentation, which are not method options).
#[derive(Clone, Default)]
pub struct OptionValues {
    given: BTreeMap<&'static str, Value>,
    lexicon: Option<Arc<Lexicon>>,
}

impl fmt::Debug for OptionValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OptionValues")
            .field("given", &self.given.keys().collect::<Vec<_>>())
            .field("lexicon", &self.lexicon.is_some())
            .finish()
    }
}

impl OptionValues {
    /// Sets `option` from its text; the error says what a value looks like.
    pub fn set(&mut self, option: &'static MethodOption, text: &str) -> Result<(), String> {
        self.insert(option, (option.parse)(text)?);
        Ok(())
    }

    /// Sets `option` to a value its parser made (as the clap argument of
    /// [`MethodOption::arg`] holds it).
    pub fn insert(&mut self, option: &'static MethodOption, value: Value) {
        self.given.insert(option.name, value);
    }

    /// The value of the option `name`, if given.
    ///
    /// # Panics
    /// When `T` is not the option's type: a mistake in a method's spec, which the registry's
    /// tests find.
    pub fn get<T: Clone + 'static>(&self, name: &str) -> Option<T> {
        self.given.get(name).map(|v| {
            v.downcast_ref::<T>()
                .unwrap_or_else(|| panic!("option {name} read with the wrong type"))
                .clone()
        })
    }

    /// Whether the option `name` was given.
    pub fn contains(&self, name: &str) -> bool {
        self.given.contains_key(name)
    }

    /// The names of the options given, in name order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.given.keys().copied()
    }

    /// Adds the values given in `other` (they replace those given here under the same names).
    pub fn extend(&mut self, other: &OptionValues) {
        self.given.extend(other.given.iter().map(|(k, v)| (*k, v.clone())));
        if other.lexicon.is_some() {
            self.lexicon.clone_from(&other.lexicon);
        }
    }

    /// Sets the lexicon loaded from the `lexicon` option's file.
    pub fn set_lexicon(&mut self, lexicon: Arc<Lexicon>) {
        self.lexicon = Some(lexicon);
    }

    /// The loaded lexicon, if any.
    pub fn lexicon(&self) -> Option<Arc<Lexicon>> {
        self.lexicon.clone()
    }
}

/// Value parsers of the options, shared by the method files.
pub(crate) mod parse {
    use super::*;

    fn boxed<T: Any + Send + Sync>(v: T) -> Value {
        Arc::new(v)
    }

    /// A non-negative integer (`usize`).
    pub fn count(s: &str) -> Result<Value, String> {
        s.trim().parse::<usize>().map(boxed).map_err(|e| e.to_string())
    }

    /// A non-negative 32-bit integer.
    pub fn small(s: &str) -> Result<Value, String> {
        s.trim().parse::<u32>().map(boxed).map_err(|e| e.to_string())
    }

    /// A number (`f64`).
    pub fn number(s: &str) -> Result<Value, String> {
        s.trim().parse::<f64>().map(boxed).map_err(|e| e.to_string())
    }

    /// A file path.
    pub fn path(s: &str) -> Result<Value, String> {
        Ok(boxed(PathBuf::from(s)))
    }

    /// A value of a choice, by name or alias (case-insensitive, as Python has always taken it).
    pub fn choice<E: ValueEnum + Send + Sync + 'static>(s: &str) -> Result<Value, String> {
        E::from_str(s, true).map(boxed).map_err(|_| {
            let names: Vec<String> =
                choices::<E>().iter().map(|v| v.get_name().to_owned()).collect();
            format!("`{s}` is not one of: {}", names.join(", "))
        })
    }

    /// The visible values of a choice, with their help.
    pub fn choices<E: ValueEnum>() -> Vec<PossibleValue> {
        E::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .filter(|v| !v.is_hide_set())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_one_spec_and_every_spec_one_method() {
        for &kind in MethodKind::ALL {
            let n = METHODS.iter().filter(|s| s.kind == kind).count();
            assert_eq!(n, 1, "{kind}: {n} specs");
        }
        assert_eq!(METHODS.len(), MethodKind::ALL.len());
    }

    /// A method's name is written once, in the `methods!` list, and given to clap's value,
    /// serde's renames on `MethodKind` and `MethodConfig` and `MethodKind::name`: they agree,
    /// and `ALL` lists every variant.
    #[test]
    fn a_method_is_spelled_the_same_everywhere() {
        assert_eq!(MethodKind::value_variants(), MethodKind::ALL);
        for &kind in MethodKind::ALL {
            let name = kind.name();
            let clap = kind.to_possible_value().expect("no hidden method");
            assert_eq!(clap.get_name(), name);
            assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(name));
            let back: MethodKind = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(back, kind);
            // `{"NAME": {settings}}`, or "NAME" for a method without settings.
            let tag = match serde_json::to_value(MethodConfig::from(kind)).unwrap() {
                serde_json::Value::Object(m) => m.keys().cloned().collect::<Vec<_>>(),
                serde_json::Value::String(s) => vec![s],
                other => panic!("{kind}: {other}"),
            };
            assert_eq!(tag, [name], "{kind}: MethodConfig's tag");
        }
    }

    #[test]
    fn every_option_parses_its_default_and_every_method_builds_from_its_own() {
        for spec in METHODS {
            // Defaults alone: the method's default settings.
            let config = MethodConfig::from_options(spec.kind, &OptionValues::default()).unwrap();
            assert_eq!(
                format!("{config:?}"),
                format!("{:?}", MethodConfig::from(spec.kind)),
                "{}",
                spec.kind
            );
            // Every option given as its default text (or a valid value): the same settings, and
            // no option read with the wrong type (that panics).
            let mut values = OptionValues::default();
            for &o in spec.options {
                let text = match (o.default, o.choices) {
                    (Some(d), _) => d(),
                    (None, Some(c)) => c()[0].get_name().to_owned(),
                    (None, None) => sample_text(o.name).to_owned(),
                };
                values.set(o, &text).unwrap_or_else(|e| panic!("{}: {text:?}: {e}", o.name));
            }
            MethodConfig::from_options(spec.kind, &values)
                .unwrap_or_else(|e| panic!("{}: {e}", spec.kind));
        }
    }

    /// A valid value of the options without a default.
    fn sample_text(name: &str) -> &'static str {
        match name {
            "bands" => "16",
            "rows" => "8",
            "fp_weight" | "fn_weight" => "0.5",
            "sample" => "mod:4",
            "max_distance" => "auto",
            "simhash_blocks" => "6",
            "features" => "tokens",
            "lexicon" => "lexicon.json",
            "spot_chain" => "3",
            other => panic!("option {other} has no default: give it a value in this test"),
        }
    }

    #[test]
    fn an_option_is_declared_once_and_knows_its_users() {
        let all = all_options();
        let names: std::collections::BTreeSet<&str> = all.iter().map(|o| o.name).collect();
        assert_eq!(names.len(), all.len());
        let num_perm = option("num_perm").unwrap();
        assert_eq!(num_perm.users(), [MethodKind::MinHash, MethodKind::Combined]);
        assert_eq!(num_perm.flag(), "--num-perm");
        let mut values = OptionValues::default();
        assert!(values.set(num_perm, "many").is_err());
        values.set(num_perm, "64").unwrap();
        match MethodConfig::from_options(MethodKind::MinHash, &values).unwrap() {
            MethodConfig::MinHash(m) => assert_eq!(m.num_perm, 64),
            other => panic!("{other:?}"),
        }
    }
}
