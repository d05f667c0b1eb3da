//! The online content providers, off unless the operator configures them: TMDB for movies and
//! shows, MusicBrainz with the Cover Art Archive for albums. Their terms, as we follow them:
//!
//! * **Attribution**: every title says where it comes from (TMDB's required notice "This product
//!   uses the TMDB API but is not endorsed or certified by TMDB."; MusicBrainz data is CC0 and the
//!   Cover Art Archive's images stay their owners').
//! * **User-Agent**: `covers/<version> ( <contact> )`, the form MusicBrainz asks for.
//! * **Rate limits**: at most one request per second to MusicBrainz (its published limit) and
//!   twenty per second to TMDB (below its documented ceiling), per process.
//! * **Disk cache**: every answer and image is kept under `<data-dir>/cache/<provider>/` for the
//!   configured time (a week by default), so a design renders again without asking twice.
//!
//! Parsing is separate from fetching (`*_title` functions read the documented JSON shapes), and
//! the tests serve those shapes from loopback fixtures, never the live services.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use covers_engine::content::{rank, Artwork, ContentProvider, ProviderError, Title, Track};
use covers_engine::intent::ContentType;
use parking_lot::Mutex;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Largest answer or image read from a provider.
const MAX_RESPONSE: u64 = 20 * 1024 * 1024;

/// HTTP GETs with a disk cache and a minimum interval between requests.
pub struct Fetcher {
    agent: ureq::Agent,
    cache_dir: PathBuf,
    ttl: Duration,
    min_interval: Duration,
    last: Mutex<Option<Instant>>,
}

impl Fetcher {
    /// A fetcher caching in `cache_dir` for `ttl`, at most one request per `min_interval`.
    pub fn new(cache_dir: PathBuf, ttl: Duration, min_interval: Duration, contact: &str) -> Fetcher {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(15)))
            .user_agent(format!("covers/{} ( {contact} )", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Fetcher { agent, cache_dir, ttl, min_interval, last: Mutex::new(None) }
    }

    /// The body at `url` (with `auth` as a bearer token), from the cache when fresh.
    pub fn get(&self, url: &str, auth: Option<&str>) -> Result<Vec<u8>, ProviderError> {
        let key = format!("{:x}", Sha256::digest(url.as_bytes()));
        let cached = self.cache_dir.join(&key);
        if let Ok(meta) = std::fs::metadata(&cached) {
            let fresh = meta
                .modified()
                .ok()
                .and_then(|m| SystemTime::now().duration_since(m).ok())
                .is_some_and(|age| age < self.ttl);
            if fresh {
                if let Ok(bytes) = std::fs::read(&cached) {
                    return Ok(bytes);
                }
            }
        }
        {
            // Space requests out: wait for the interval since the last one, holding the lock so
            // concurrent callers queue.
            let mut last = self.last.lock();
            if let Some(at) = *last {
                let since = at.elapsed();
                if since < self.min_interval {
                    std::thread::sleep(self.min_interval - since);
                }
            }
            *last = Some(Instant::now());
        }
        let mut request = self.agent.get(url);
        if let Some(token) = auth {
            request = request.header("Authorization", &format!("Bearer {token}"));
        }
        let fail = |e: ureq::Error| ProviderError(format!("{}: {e}", host_of(url)));
        let mut response = request.call().map_err(fail)?;
        let bytes = response.body_mut().with_config().limit(MAX_RESPONSE).read_to_vec().map_err(fail)?;
        // Write to a temporary name and rename, so a reader never sees half a file.
        if std::fs::create_dir_all(&self.cache_dir).is_ok() {
            let tmp = self.cache_dir.join(format!("{key}.{}.tmp", std::process::id()));
            if std::fs::write(&tmp, &bytes).is_ok() {
                let _ = std::fs::rename(&tmp, &cached);
            }
        }
        Ok(bytes)
    }

    fn json(&self, url: &str, auth: Option<&str>) -> Result<Value, ProviderError> {
        let bytes = self.get(url, auth)?;
        serde_json::from_slice(&bytes).map_err(|e| ProviderError(format!("{}: not JSON: {e}", host_of(url))))
    }

    /// An image as artwork, or `None` when it cannot be fetched or is not a PNG or JPEG.
    fn artwork(&self, url: &str, id: String, kind: &'static str) -> Option<Artwork> {
        let bytes = self.get(url, None).map_err(|e| tracing::warn!(error = %e.0, "artwork")).ok()?;
        let image = covers_engine::image::read(bytes).map_err(|e| tracing::warn!(url, error = %e, "artwork")).ok()?;
        Some(Artwork { id, kind, width_px: image.width, height_px: image.height, image: Some(Arc::new(image)) })
    }
}

/// The host of a URL, for messages (never the query, which may carry a key).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?']).next().unwrap_or(rest)
}

/// A query string value, percent-encoded.
fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The query's words and its year (a number from 1880 to 2100), apart.
fn split_year(query: &str) -> (String, Option<u16>) {
    let mut year = None;
    let mut words = Vec::new();
    for w in query.split_whitespace() {
        match w.trim_matches(|c: char| !c.is_ascii_digit()).parse::<u16>() {
            Ok(y) if (1880..=2100).contains(&y) && w.chars().all(|c| c.is_ascii_digit() || "()".contains(c)) => {
                year = Some(y)
            }
            _ => words.push(w),
        }
    }
    (words.join(" "), year)
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn year_of(date: &str) -> u16 {
    date.get(..4).and_then(|y| y.parse().ok()).unwrap_or(0)
}

/// TMDB's notice, required by its terms.
pub const TMDB_NOTICE: &str = "This product uses the TMDB API but is not endorsed or certified by TMDB.";

/// Movies and shows from TMDB.
pub struct Tmdb {
    config: crate::config::Tmdb,
    fetch: Fetcher,
}

impl Tmdb {
    /// The provider, caching under `cache_dir`.
    pub fn new(config: crate::config::Tmdb, cache_dir: PathBuf, ttl: Duration, contact: &str) -> Tmdb {
        Tmdb { config, fetch: Fetcher::new(cache_dir, ttl, Duration::from_millis(50), contact) }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.config.base_url.trim_end_matches('/'))
    }
}

/// A title from a TMDB search result or details (`GET /3/movie/{id}`, `GET /3/tv/{id}`), in the
/// shapes TMDB documents; artwork is listed by id, images are not fetched here.
pub fn tmdb_title(v: &Value, kind: ContentType) -> Option<Title> {
    let id = v.get("id")?.as_u64()?;
    let (name, date) = match kind {
        ContentType::Tv => (text(v, "name"), text(v, "first_air_date")),
        _ => (text(v, "title"), text(v, "release_date")),
    };
    if name.is_empty() {
        return None;
    }
    let key = format!("{}-{id}", if kind == ContentType::Tv { "tv" } else { "movie" });
    let crew = v.pointer("/credits/crew").and_then(Value::as_array);
    let director = crew
        .and_then(|c| c.iter().find(|p| p["job"] == "Director"))
        .map(|p| text(p, "name"))
        .or_else(|| v.get("created_by").and_then(Value::as_array).and_then(|c| c.first()).map(|p| text(p, "name")))
        .unwrap_or_default();
    let starring = v
        .pointer("/credits/cast")
        .and_then(Value::as_array)
        .map(|c| c.iter().take(4).map(|p| text(p, "name")).collect())
        .unwrap_or_default();
    let genre = v
        .get("genres")
        .and_then(Value::as_array)
        .map(|g| g.iter().map(|g| text(g, "name").to_lowercase()).collect())
        .unwrap_or_default();
    let runtime = v
        .get("runtime")
        .and_then(Value::as_u64)
        .or_else(|| v.get("episode_run_time").and_then(Value::as_array).and_then(|r| r.first()).and_then(Value::as_u64))
        .unwrap_or(0);
    let mut artwork = Vec::new();
    let listed = |kind: &'static str, w: u32, h: u32| Artwork {
        id: format!("tmdb:{kind}/{key}"),
        kind,
        width_px: w,
        height_px: h,
        image: None,
    };
    if v.get("poster_path").and_then(Value::as_str).is_some() {
        artwork.push(listed("poster", 780, 1170));
    }
    if v.get("backdrop_path").and_then(Value::as_str).is_some() {
        artwork.push(listed("still", 1280, 720));
    }
    Some(Title {
        id: format!("tmdb:{}/{id}", if kind == ContentType::Tv { "tv" } else { "movie" }),
        kind,
        title: name,
        year: year_of(&date),
        credit: director,
        starring,
        genre,
        runtime_minutes: u16::try_from(runtime).unwrap_or(0),
        tagline: text(v, "tagline"),
        synopsis: text(v, "overview"),
        tracks: Vec::new(),
        artwork,
        attribution: TMDB_NOTICE.to_owned(),
        public_domain: false,
    })
}

impl ContentProvider for Tmdb {
    fn namespace(&self) -> &'static str {
        "tmdb"
    }

    fn search(&self, kind: ContentType, query: &str) -> Result<Vec<Title>, ProviderError> {
        if kind == ContentType::Album {
            return Ok(Vec::new());
        }
        let (words, year) = split_year(query);
        let (path, year_param) =
            if kind == ContentType::Tv { ("tv", "first_air_date_year") } else { ("movie", "year") };
        let mut url = self.url(&format!(
            "/3/search/{path}?query={}&include_adult=false&language={}",
            encode(&words),
            encode(&self.config.language)
        ));
        if let Some(y) = year {
            url.push_str(&format!("&{year_param}={y}"));
        }
        let answer = self.fetch.json(&url, Some(&self.config.token))?;
        let titles = answer["results"]
            .as_array()
            .map(|r| r.iter().filter_map(|v| tmdb_title(v, kind)).collect())
            .unwrap_or_default();
        // TMDB ranks by popularity; our ranking keeps titles that match the words, year first.
        let ranked = rank(query, titles);
        Ok(ranked)
    }

    fn get(&self, id: &str) -> Result<Option<Title>, ProviderError> {
        let Some((kind_name, number)) = id.split_once('/') else { return Ok(None) };
        let kind = match kind_name {
            "movie" => ContentType::Movie,
            "tv" => ContentType::Tv,
            _ => return Ok(None),
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(None);
        }
        let url = self.url(&format!(
            "/3/{kind_name}/{number}?append_to_response=credits,images&include_image_language=en,null&language={}",
            encode(&self.config.language)
        ));
        let v = self.fetch.json(&url, Some(&self.config.token))?;
        let Some(mut title) = tmdb_title(&v, kind) else { return Ok(None) };
        let key = format!("{kind_name}-{number}");
        let images = self.config.image_base_url.trim_end_matches('/');
        let mut artwork = Vec::new();
        if let Some(p) = v["poster_path"].as_str() {
            artwork.extend(self.fetch.artwork(&format!("{images}/w780{p}"), format!("tmdb:poster/{key}"), "poster"));
        }
        // Logos: the first PNG (TMDB also has SVG logos, which we do not draw from outside).
        if let Some(p) = v
            .pointer("/images/logos")
            .and_then(Value::as_array)
            .and_then(|l| l.iter().filter_map(|x| x["file_path"].as_str()).find(|f| f.ends_with(".png")))
        {
            artwork.extend(self.fetch.artwork(&format!("{images}/w500{p}"), format!("tmdb:logo/{key}"), "logo"));
        }
        if let Some(p) = v["backdrop_path"].as_str() {
            artwork.extend(self.fetch.artwork(&format!("{images}/w1280{p}"), format!("tmdb:still/{key}"), "still"));
        }
        title.artwork = artwork;
        Ok(Some(title))
    }
}

/// Albums from MusicBrainz, cover art from the Cover Art Archive.
pub struct MusicBrainz {
    config: crate::config::MusicBrainz,
    fetch: Fetcher,
}

/// Where MusicBrainz titles come from.
pub const MUSICBRAINZ_NOTICE: &str =
    "Data from MusicBrainz (CC0); cover art from the Cover Art Archive, its rights with their owners.";

impl MusicBrainz {
    /// The provider, caching under `cache_dir`, one request per second.
    pub fn new(config: crate::config::MusicBrainz, cache_dir: PathBuf, ttl: Duration) -> MusicBrainz {
        let fetch = Fetcher::new(cache_dir, ttl, Duration::from_secs(1), &config.contact);
        MusicBrainz { config, fetch }
    }
}

/// An MBID: 36 characters of hex digits and dashes.
fn is_mbid(id: &str) -> bool {
    id.len() == 36 && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// A title from a MusicBrainz release (search result or lookup with `inc=recordings+artist-credits`).
pub fn musicbrainz_title(v: &Value) -> Option<Title> {
    let mbid = v.get("id")?.as_str().filter(|id| is_mbid(id))?;
    let artist: String = v
        .get("artist-credit")
        .and_then(Value::as_array)
        .map(|credits| credits.iter().map(|c| format!("{}{}", text(c, "name"), text(c, "joinphrase"))).collect())
        .unwrap_or_default();
    let tracks = v
        .get("media")
        .and_then(Value::as_array)
        .map(|media| {
            media
                .iter()
                .flat_map(|m| m["tracks"].as_array().cloned().unwrap_or_default())
                .map(|t| Track { title: text(&t, "title"), seconds: (t["length"].as_u64().unwrap_or(0) / 1000) as u32 })
                .collect()
        })
        .unwrap_or_default();
    Some(Title {
        id: format!("mb:album/{mbid}"),
        kind: ContentType::Album,
        title: text(v, "title"),
        year: year_of(&text(v, "date")),
        credit: artist,
        starring: Vec::new(),
        genre: Vec::new(),
        runtime_minutes: 0,
        tagline: String::new(),
        synopsis: String::new(),
        tracks,
        artwork: vec![Artwork {
            id: format!("mb:cover/{mbid}"),
            kind: "cover",
            width_px: 500,
            height_px: 500,
            image: None,
        }],
        attribution: MUSICBRAINZ_NOTICE.to_owned(),
        public_domain: false,
    })
}

impl ContentProvider for MusicBrainz {
    fn namespace(&self) -> &'static str {
        "mb"
    }

    fn search(&self, kind: ContentType, query: &str) -> Result<Vec<Title>, ProviderError> {
        if kind != ContentType::Album {
            return Ok(Vec::new());
        }
        let (words, year) = split_year(query);
        // Lucene syntax: the words as one phrase-free group, so special characters are escaped.
        let escaped: String =
            words.chars().map(|c| if "+-&|!(){}[]^\"~*?:\\/".contains(c) { ' ' } else { c }).collect();
        let mut lucene = format!("release:({escaped})");
        if let Some(y) = year {
            lucene.push_str(&format!(" AND date:{y}"));
        }
        let url = format!(
            "{}/ws/2/release?query={}&fmt=json&limit=5",
            self.config.base_url.trim_end_matches('/'),
            encode(&lucene)
        );
        let answer = self.fetch.json(&url, None)?;
        let titles =
            answer["releases"].as_array().map(|r| r.iter().filter_map(musicbrainz_title).collect()).unwrap_or_default();
        Ok(rank(query, titles))
    }

    fn get(&self, id: &str) -> Result<Option<Title>, ProviderError> {
        let Some(mbid) = id.strip_prefix("album/").filter(|m| is_mbid(m)) else { return Ok(None) };
        let url = format!(
            "{}/ws/2/release/{mbid}?inc=recordings+artist-credits&fmt=json",
            self.config.base_url.trim_end_matches('/')
        );
        let v = self.fetch.json(&url, None)?;
        let Some(mut title) = musicbrainz_title(&v) else { return Ok(None) };
        let cover = format!("{}/release/{mbid}/front-500", self.config.cover_art_url.trim_end_matches('/'));
        title.artwork = self.fetch.artwork(&cover, format!("mb:cover/{mbid}"), "cover").into_iter().collect();
        Ok(Some(title))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn documented_shapes_become_titles() {
        let movie = json!({ "id": 19, "title": "Metropolis", "release_date": "1927-02-06", "runtime": 153, "tagline": "T",
            "overview": "O", "genres": [{ "id": 878, "name": "Science Fiction" }], "poster_path": "/p.jpg",
            "credits": { "cast": [{ "name": "Brigitte Helm" }], "crew": [{ "job": "Writer", "name": "W" }, { "job": "Director", "name": "Fritz Lang" }] } });
        let t = tmdb_title(&movie, ContentType::Movie).unwrap();
        assert_eq!(
            (t.id.as_str(), t.year, t.credit.as_str(), t.runtime_minutes),
            ("tmdb:movie/19", 1927, "Fritz Lang", 153)
        );
        assert_eq!((t.genre[0].as_str(), t.artwork[0].id.as_str()), ("science fiction", "tmdb:poster/movie-19"));
        assert_eq!(t.attribution, TMDB_NOTICE);
        let show = json!({ "id": 7, "name": "Show", "first_air_date": "1990-01-01", "episode_run_time": [45], "created_by": [{ "name": "C" }] });
        let s = tmdb_title(&show, ContentType::Tv).unwrap();
        assert_eq!((s.id.as_str(), s.runtime_minutes, s.credit.as_str()), ("tmdb:tv/7", 45, "C"));
        let release = json!({ "id": "0a1b2c3d-0000-4000-8000-00000000abcd", "title": "Album", "date": "1986-05",
            "artist-credit": [{ "name": "A", "joinphrase": " & " }, { "name": "B" }],
            "media": [{ "tracks": [{ "title": "One", "length": 215000 }] }, { "tracks": [{ "title": "Two", "length": null }] }] });
        let a = musicbrainz_title(&release).unwrap();
        assert_eq!((a.credit.as_str(), a.year, a.tracks.len(), a.tracks[0].seconds), ("A & B", 1986, 2, 215));
        assert_eq!(a.artwork[0].id, "mb:cover/0a1b2c3d-0000-4000-8000-00000000abcd");
        assert!(musicbrainz_title(&json!({ "id": "../etc" })).is_none());
        assert_eq!(split_year("Metropolis 1927"), ("Metropolis".to_owned(), Some(1927)));
        assert_eq!(split_year("2001 A Space Odyssey (1968)").1, Some(1968));
        assert_eq!(host_of("https://api.example.org/3/search?api_key=secret"), "api.example.org");
    }
}
