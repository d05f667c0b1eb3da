//! The cover service's TOML configuration (`covers serve --config FILE`). Every setting has a
//! default, so no file is needed; an unknown key is an error, so typos do not pass silently.
//!
//! ```toml
//! [designs]
//! lifetime_days = 30            # composed designs without an account
//!
//! [content]
//! order = ["builtin", "local", "tmdb", "musicbrainz"]   # providers tried, in this order
//! local_dir = "catalogue"       # the local catalogue folder (relative: inside the data dir)
//! cache_ttl_hours = 168         # online answers and images kept on disk this long
//!
//! [content.tmdb]                # off unless this table is present
//! token = "…"                   # TMDB API read access token (v4 auth)
//!
//! [content.musicbrainz]         # off unless this table is present
//! contact = "admin@example.org" # MusicBrainz asks for a contact in the User-Agent
//!
//! [oauth]                       # the MCP connector's sign-in
//! code_seconds = 60
//! access_token_seconds = 3600
//! refresh_token_seconds = 2592000
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Composed designs.
    #[serde(default)]
    pub designs: Designs,
    /// Content providers.
    #[serde(default)]
    pub content: Content,
    /// The service itself.
    #[serde(default)]
    pub service: Service,
    /// Export jobs.
    #[serde(default)]
    pub exports: Exports,
    /// The built-in OAuth authorization server of the MCP connector.
    #[serde(default)]
    pub oauth: OAuth,
    /// Plan numbers, by plan name (`[plans.free]`, …); each key overrides one default.
    #[serde(default)]
    pub plans: std::collections::BTreeMap<String, PlanOverride>,
}

/// `[service]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Service {
    /// The public base URL used in links (`--public-base-url` wins over it).
    pub public_base_url: Option<String>,
    /// How long a browser session lasts, seconds.
    pub session_lifetime_seconds: u64,
}

impl Default for Service {
    fn default() -> Self {
        Service { public_base_url: None, session_lifetime_seconds: 14 * 86_400 }
    }
}

/// `[exports]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Exports {
    /// Render workers (each 600 DPI render takes about 150 MB).
    pub workers: usize,
    /// How long a download link is valid, seconds.
    pub link_lifetime_seconds: u64,
    /// How long an export file is kept, seconds; then the job reads `expired`.
    pub file_lifetime_seconds: u64,
    /// How often expired files are deleted, seconds.
    pub clean_every_seconds: u64,
}

impl Default for Exports {
    fn default() -> Self {
        Exports { workers: 1, link_lifetime_seconds: 3600, file_lifetime_seconds: 86_400, clean_every_seconds: 60 }
    }
}

/// `[oauth]`: lifetimes of the MCP connector's OAuth codes and tokens.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OAuth {
    /// Authorization codes, seconds.
    pub code_seconds: u64,
    /// Access tokens, seconds.
    pub access_token_seconds: u64,
    /// Refresh tokens, seconds (each refresh issues a new one).
    pub refresh_token_seconds: u64,
    /// Accept client metadata documents (CIMD) at `http://` loopback addresses as well as
    /// `https://` ones: for tests and local development only.
    pub allow_http_client_metadata: bool,
}

impl Default for OAuth {
    fn default() -> Self {
        OAuth {
            code_seconds: 60,
            access_token_seconds: 3600,
            refresh_token_seconds: 30 * 86_400,
            allow_http_client_metadata: false,
        }
    }
}

/// `[plans.<name>]`: any of the plan's numbers; `-1` means unlimited.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanOverride {
    /// Saved designs.
    pub designs: Option<i64>,
    /// Images in the uploads library.
    pub uploads_library: Option<i64>,
    /// Composes per day.
    pub daily_composes: Option<i64>,
    /// Uploads per day.
    pub daily_uploads: Option<i64>,
    /// Exports per day.
    pub daily_exports: Option<i64>,
    /// Outputs the plan may export.
    pub outputs: Option<Vec<String>>,
}

/// `[designs]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Designs {
    /// Days a composed design is kept without an account.
    #[serde(default = "thirty")]
    pub lifetime_days: u32,
}

fn thirty() -> u32 {
    30
}

impl Default for Designs {
    fn default() -> Self {
        Designs { lifetime_days: 30 }
    }
}

/// `[content]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Content {
    /// Providers in the order they are tried.
    #[serde(default = "default_order")]
    pub order: Vec<String>,
    /// The local catalogue folder (relative paths are inside the data directory).
    #[serde(default = "default_local_dir")]
    pub local_dir: PathBuf,
    /// Hours an online answer or image is kept in the disk cache.
    #[serde(default = "default_ttl")]
    pub cache_ttl_hours: u64,
    /// TMDB, when configured.
    pub tmdb: Option<Tmdb>,
    /// MusicBrainz and the Cover Art Archive, when configured.
    pub musicbrainz: Option<MusicBrainz>,
}

fn default_order() -> Vec<String> {
    ["builtin", "local", "tmdb", "musicbrainz"].map(str::to_owned).to_vec()
}

fn default_local_dir() -> PathBuf {
    PathBuf::from("catalogue")
}

fn default_ttl() -> u64 {
    168
}

impl Default for Content {
    fn default() -> Self {
        Content {
            order: default_order(),
            local_dir: default_local_dir(),
            cache_ttl_hours: default_ttl(),
            tmdb: None,
            musicbrainz: None,
        }
    }
}

/// `[content.tmdb]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tmdb {
    /// The API read access token, sent as a bearer token.
    pub token: String,
    /// The API's address.
    #[serde(default = "tmdb_api")]
    pub base_url: String,
    /// The image server's address (sizes such as `w780` are appended).
    #[serde(default = "tmdb_images")]
    pub image_base_url: String,
    /// Language of titles and overviews.
    #[serde(default = "english")]
    pub language: String,
}

fn tmdb_api() -> String {
    "https://api.themoviedb.org".into()
}

fn tmdb_images() -> String {
    "https://image.tmdb.org/t/p".into()
}

fn english() -> String {
    "en-US".into()
}

/// `[content.musicbrainz]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MusicBrainz {
    /// A contact (e-mail or URL) for the User-Agent, as MusicBrainz asks.
    pub contact: String,
    /// The web service's address.
    #[serde(default = "mb_api")]
    pub base_url: String,
    /// The Cover Art Archive's address.
    #[serde(default = "caa")]
    pub cover_art_url: String,
}

fn mb_api() -> String {
    "https://musicbrainz.org".into()
}

fn caa() -> String {
    "https://coverartarchive.org".into()
}

impl Config {
    /// A plan's numbers: the defaults with this file's overrides.
    pub fn plan(&self, plan: crate::accounts::Plan) -> crate::accounts::PlanLimits {
        let mut limits = crate::accounts::PlanLimits::default_for(plan);
        if let Some(o) = self.plans.get(plan.name()) {
            let number = |v: i64| u64::try_from(v).ok();
            for (target, value) in [
                (&mut limits.designs, o.designs),
                (&mut limits.uploads_library, o.uploads_library),
                (&mut limits.daily_composes, o.daily_composes),
                (&mut limits.daily_uploads, o.daily_uploads),
                (&mut limits.daily_exports, o.daily_exports),
            ] {
                if let Some(v) = value {
                    *target = number(v);
                }
            }
            if let Some(outputs) = &o.outputs {
                limits.outputs.clone_from(outputs);
            }
        }
        limits
    }

    /// Reads the file; `None` gives the defaults.
    pub fn load(path: Option<&Path>) -> anyhow::Result<Config> {
        use anyhow::Context;
        let Some(path) = path else { return Ok(Config::default()) };
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let config: Config =
            toml::from_str(&text).with_context(|| format!("{} is not a valid configuration", path.display()))?;
        for name in &config.content.order {
            anyhow::ensure!(
                ["builtin", "local", "tmdb", "musicbrainz"].contains(&name.as_str()),
                "content.order: unknown provider {name:?} (builtin, local, tmdb, musicbrainz)"
            );
        }
        anyhow::ensure!(config.designs.lifetime_days >= 1, "designs.lifetime_days is at least 1");
        for (name, o) in &config.plans {
            anyhow::ensure!(
                crate::accounts::Plan::named(name).is_some(),
                "plans.{name}: the plans are free, starter, partner and patron"
            );
            for output in o.outputs.iter().flatten() {
                anyhow::ensure!(
                    ["preview", "png", "pdf"].contains(&output.as_str()),
                    "plans.{name}.outputs: {output:?} is not preview, png or pdf"
                );
            }
        }
        if let Some(mb) = &config.content.musicbrainz {
            anyhow::ensure!(!mb.contact.trim().is_empty(), "content.musicbrainz.contact is required");
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_a_full_file() {
        let c = Config::default();
        assert_eq!((c.designs.lifetime_days, c.content.order.len(), c.content.tmdb.is_none()), (30, 4, true));
        let c: Config = toml::from_str(
            "[designs]\nlifetime_days = 7\n[content]\norder = [\"tmdb\", \"builtin\"]\n[content.tmdb]\ntoken = \"t\"\n[content.musicbrainz]\ncontact = \"a@b.c\"\n",
        )
        .unwrap();
        assert_eq!((c.designs.lifetime_days, c.content.order[0].as_str()), (7, "tmdb"));
        assert_eq!(c.content.tmdb.unwrap().base_url, "https://api.themoviedb.org");
        assert!(toml::from_str::<Config>("[designs]\nlifetime_dayz = 7\n").is_err(), "typos are errors");
        let c: Config =
            toml::from_str("[plans.free]\ndesigns = 5\ndaily_exports = -1\noutputs = [\"preview\", \"png\"]\n")
                .unwrap();
        let free = c.plan(crate::accounts::Plan::Free);
        assert_eq!(
            (free.designs, free.daily_exports, free.outputs.len(), free.uploads_library),
            (Some(5), None, 2, Some(10))
        );
    }
}
