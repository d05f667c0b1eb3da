//! Service configuration: plan limits (the contract's table by default) and operational limits,
//! overridable by a TOML file.
//!
//! ```toml
//! [tiers.free]
//! reads_per_minute = 30
//! fills_per_month = 30
//! puzzles_per_month = 30
//! max_grid = 13
//! ai_clues_per_month = 0
//!
//! [limits]
//! fills_per_account = 2        # concurrent fills per account
//! solver_threads = 2           # global cap on concurrent solves (default: the cores)
//! open_per_minute = 120        # per-IP limit of GET /status and GET /languages
//! index_memory_mb = 1024       # mapped index budget before least-recently-used eviction
//! public_base_url = "https://crosswords.example.org"   # used in links (upgradeUrl, ...)
//! service_name = "Crossword Service"    # credited on puzzle pages, embeds and printed puzzles
//!
//! [clue_generator]             # optional: POST /clues/generate asks this model server
//! url = "http://127.0.0.1:8081/v1"   # OpenAI-compatible; plain http (posts to URL/chat/completions)
//! model = "llama3.1"
//! api_key = "..."              # optional, sent as a Bearer token
//! timeout_secs = 20
//!
//! [storage]                    # optional: where accounts, keys, quotas and puzzles live
//! backend = "postgres"         # "redb" (the default: one file in the data directory) or "postgres"
//! url = "postgres://crossword:secret@db.internal:5432/crossword"   # or CROSSWORD_DATABASE_URL
//! ```
//!
//! Without `[clue_generator]`, generated clues come from the built-in offline generator.
//!
//! A limit of -1 means "no limit". Every field is optional; unknown fields are an error, so a
//! typo does not silently leave a default in force.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::clue_model::{ChatCompletionsConfig, ChatCompletionsGenerator};

/// An account's plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The free plan.
    Free,
    /// The first paid plan.
    Starter,
    /// The middle paid plan.
    Partner,
    /// The largest plan.
    Patron,
}

impl Tier {
    /// Every tier, cheapest first.
    pub const ALL: [Tier; 4] = [Tier::Free, Tier::Starter, Tier::Partner, Tier::Patron];

    /// The lower-case name used in the API and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Free => "free",
            Tier::Starter => "starter",
            Tier::Partner => "partner",
            Tier::Patron => "patron",
        }
    }

    /// Parses a tier name.
    pub fn parse(s: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// The limits of one plan. `-1` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanLimits {
    /// Read requests per one-minute window.
    pub reads_per_minute: i64,
    /// Fills and clean-ups per calendar month.
    pub fills_per_month: i64,
    /// New puzzles per calendar month.
    pub puzzles_per_month: i64,
    /// Largest grid side allowed.
    pub max_grid: u32,
    /// AI clue requests per calendar month.
    pub ai_clues_per_month: i64,
}

impl PlanLimits {
    /// The contract's table.
    pub fn contract(tier: Tier) -> PlanLimits {
        let (reads, monthly, grid, ai) = match tier {
            Tier::Free => (30, 30, 13, 0),
            Tier::Starter => (60, 200, 23, 250),
            Tier::Partner => (120, 600, 23, 1_200),
            Tier::Patron => (300, 2_000, 23, 5_000),
        };
        PlanLimits {
            reads_per_minute: reads,
            fills_per_month: monthly,
            puzzles_per_month: monthly,
            max_grid: grid,
            ai_clues_per_month: ai,
        }
    }
}

/// Optional per-field overrides of a plan, as read from TOML.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanOverrides {
    reads_per_minute: Option<i64>,
    fills_per_month: Option<i64>,
    puzzles_per_month: Option<i64>,
    max_grid: Option<u32>,
    ai_clues_per_month: Option<i64>,
}

/// Operational limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Concurrent fills per account (the contract's two).
    pub fills_per_account: u32,
    /// Global cap on concurrent solves.
    pub solver_threads: u32,
    /// Requests per minute per IP address on GET /status and GET /languages.
    pub open_per_minute: i64,
    /// Mapped index budget in MiB before least-recently-used languages are evicted.
    pub index_memory_mb: u64,
    /// Public base URL of the service (no trailing slash), used in links such as `upgradeUrl`
    /// and the problem documents' `type`. Empty: derived from the listen address.
    pub public_base_url: String,
    /// The service's name as puzzle pages, embeds and printed puzzles credit it.
    pub service_name: String,
}

impl Default for Limits {
    fn default() -> Limits {
        let cores = std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(2);
        Limits {
            fills_per_account: 2,
            solver_threads: cores,
            open_per_minute: 120,
            index_memory_mb: 1024,
            public_base_url: String::new(),
            service_name: "Crossword Service".to_owned(),
        }
    }
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    plans: [PlanLimits; 4],
    /// Operational limits.
    pub limits: Limits,
    /// The model server for generated clues, when one is configured.
    pub clue_generator: Option<ChatCompletionsConfig>,
    /// Where stored state lives.
    pub storage: Storage,
}

/// The storage backend: the embedded redb file, or PostgreSQL shared by several nodes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// One redb file in the data directory (one node).
    #[default]
    Redb,
    /// A PostgreSQL database at [`Storage::url`] (one or more nodes).
    Postgres,
}

/// The `[storage]` section.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    /// Which backend.
    #[serde(default)]
    pub backend: Backend,
    /// The PostgreSQL connection string (URL or key=value form); the `CROSSWORD_DATABASE_URL`
    /// environment variable, when set, takes its place.
    #[serde(default)]
    pub url: String,
}

/// The environment variable that overrides `[storage] url`.
pub const DATABASE_URL_VARIABLE: &str = "CROSSWORD_DATABASE_URL";

impl Storage {
    /// The connection string in force: the environment's, else the file's.
    pub fn url(&self) -> String {
        match std::env::var(DATABASE_URL_VARIABLE) {
            Ok(url) if !url.trim().is_empty() => url,
            _ => self.url.clone(),
        }
    }
}

/// Never prints the connection string, which may hold a password.
impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage").field("backend", &self.backend).field("url", &"(hidden)").finish()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    tiers: std::collections::BTreeMap<String, PlanOverrides>,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    clue_generator: Option<ChatCompletionsConfig>,
    #[serde(default)]
    storage: Storage,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            plans: Tier::ALL.map(PlanLimits::contract),
            limits: Limits::default(),
            clue_generator: None,
            storage: Storage::default(),
        }
    }
}

impl Config {
    /// Parses a TOML configuration; absent fields keep their defaults.
    pub fn from_toml(text: &str) -> anyhow::Result<Config> {
        let file: ConfigFile = toml::from_str(text)?;
        if let Some(g) = &file.clue_generator {
            ChatCompletionsGenerator::new(g.clone()).map_err(|e| anyhow::anyhow!("[clue_generator] {e}"))?;
        }
        let mut config = Config {
            limits: file.limits,
            clue_generator: file.clue_generator,
            storage: file.storage,
            ..Config::default()
        };
        for (name, o) in file.tiers {
            let tier = Tier::parse(&name).ok_or_else(|| anyhow::anyhow!("unknown tier [tiers.{name}]"))?;
            let plan = &mut config.plans[tier as usize];
            plan.reads_per_minute = o.reads_per_minute.unwrap_or(plan.reads_per_minute);
            plan.fills_per_month = o.fills_per_month.unwrap_or(plan.fills_per_month);
            plan.puzzles_per_month = o.puzzles_per_month.unwrap_or(plan.puzzles_per_month);
            plan.max_grid = o.max_grid.unwrap_or(plan.max_grid);
            plan.ai_clues_per_month = o.ai_clues_per_month.unwrap_or(plan.ai_clues_per_month);
            if !(3..=23).contains(&plan.max_grid) {
                anyhow::bail!("[tiers.{name}] max_grid must be 3 to 23");
            }
        }
        if config.limits.fills_per_account == 0 || config.limits.solver_threads == 0 {
            anyhow::bail!("[limits] fills_per_account and solver_threads must be at least 1");
        }
        config.limits.public_base_url = config.limits.public_base_url.trim_end_matches('/').to_owned();
        Ok(config)
    }

    /// Reads a TOML configuration file.
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Config::from_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// The limits of a plan.
    pub fn plan(&self, tier: Tier) -> PlanLimits {
        self.plans[tier as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_contract() {
        let c = Config::default();
        assert_eq!(c.plan(Tier::Free), PlanLimits::contract(Tier::Free));
        assert_eq!(c.plan(Tier::Free).max_grid, 13);
        assert_eq!(c.plan(Tier::Patron).ai_clues_per_month, 5_000);
        assert_eq!(c.limits.fills_per_account, 2);
    }

    #[test]
    fn overrides_apply_field_by_field() {
        let c = Config::from_toml(
            "[tiers.free]\nreads_per_minute = 3\n[tiers.patron]\nfills_per_month = -1\n[limits]\nopen_per_minute = 5\npublic_base_url = \"https://x.example/\"\n",
        )
        .unwrap();
        assert_eq!(c.plan(Tier::Free).reads_per_minute, 3);
        assert_eq!(c.plan(Tier::Free).fills_per_month, 30);
        assert_eq!(c.plan(Tier::Patron).fills_per_month, -1);
        assert_eq!(c.limits.open_per_minute, 5);
        assert_eq!(c.limits.public_base_url, "https://x.example");
        assert!(Config::from_toml("[tiers.gold]\nmax_grid = 5\n").is_err());
        assert!(Config::from_toml("[tiers.free]\nreads_per_minut = 5\n").is_err());
        assert!(Config::from_toml("[tiers.free]\nmax_grid = 40\n").is_err());
    }
}
