//! The cover service's content providers over HTTP, through `covers serve --config`: the local
//! catalogue folder, and TMDB and MusicBrainz + Cover Art Archive served by a loopback fixture in
//! their documented JSON shapes (never the live services): search, lookups, artwork as decals,
//! the bearer token and User-Agent they ask for, the disk cache and MusicBrainz's one request
//! per second.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::covers::start;
use common::request;
use serde_json::json;

const MBID: &str = "0a1b2c3d-0000-4000-8000-00000000abcd";

/// A 16 × 9 PNG of one colour.
fn png(rgb: [u8; 3]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 16, 9);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&rgb.repeat(16 * 9)).unwrap();
    writer.finish().unwrap();
    out
}

/// What the fixture saw: path with query, User-Agent, Authorization, when.
type Seen = Arc<Mutex<Vec<(String, String, String, Instant)>>>;

/// Serves the fixtures until the test ends.
fn fixture() -> (SocketAddr, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Seen = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = log.clone();
            std::thread::spawn(move || serve(stream, &log));
        }
    });
    (addr, seen)
}

fn serve(mut stream: TcpStream, log: &Seen) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let target = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let (mut agent, mut auth) = (String::new(), String::new());
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        let lower = h.to_ascii_lowercase();
        if lower.starts_with("user-agent:") {
            agent = h[11..].trim().to_owned();
        } else if lower.starts_with("authorization:") {
            auth = h[14..].trim().to_owned();
        }
    }
    log.lock().unwrap().push((target.clone(), agent, auth.clone(), Instant::now()));
    let path = target.split('?').next().unwrap_or("");
    let (status, kind, body): (&str, &str, Vec<u8>) = match path {
        "/3/search/movie" if auth == "Bearer test-token" => (
            "200 OK",
            "application/json",
            json!({ "page": 1, "total_results": 2, "results": [
                { "id": 101, "title": "Harbor Lights", "release_date": "1999-04-01", "overview": "Lights over the harbor.", "poster_path": "/poster.png", "backdrop_path": "/back.png" },
                { "id": 102, "title": "Unrelated", "release_date": "1999-01-01" }
            ] })
            .to_string()
            .into_bytes(),
        ),
        "/3/movie/101" if auth == "Bearer test-token" => (
            "200 OK",
            "application/json",
            json!({ "id": 101, "title": "Harbor Lights", "release_date": "1999-04-01", "runtime": 97, "tagline": "Every light a signal",
                "overview": "Lights over the harbor.", "genres": [{ "id": 18, "name": "Drama" }], "poster_path": "/poster.png", "backdrop_path": "/back.png",
                "credits": { "cast": [{ "name": "R. Lane" }], "crew": [{ "job": "Director", "name": "K. Osei" }] },
                "images": { "logos": [{ "file_path": "/logo.svg" }, { "file_path": "/logo.png" }] } })
            .to_string()
            .into_bytes(),
        ),
        "/t/p/w780/poster.png" => ("200 OK", "image/png", png([200, 30, 30])),
        "/t/p/w500/logo.png" => ("200 OK", "image/png", png([30, 200, 30])),
        "/t/p/w1280/back.png" => ("200 OK", "image/png", png([30, 30, 200])),
        "/ws/2/release" => (
            "200 OK",
            "application/json",
            json!({ "count": 1, "releases": [{ "id": MBID, "score": 100, "title": "Tidal Tapes", "date": "1986",
                "artist-credit": [{ "name": "The Fixtures" }] }] })
            .to_string()
            .into_bytes(),
        ),
        p if p == format!("/ws/2/release/{MBID}") => (
            "200 OK",
            "application/json",
            json!({ "id": MBID, "title": "Tidal Tapes", "date": "1986-06-01", "artist-credit": [{ "name": "The Fixtures" }],
                "media": [{ "position": 1, "tracks": [{ "title": "Low Tide", "length": 201000 }, { "title": "High Tide", "length": 187000 }] }] })
            .to_string()
            .into_bytes(),
        ),
        p if p == format!("/release/{MBID}/front-500") => {
            let _ = write!(stream, "HTTP/1.1 307 Temporary Redirect\r\nLocation: /images/cover.png\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            return;
        }
        "/images/cover.png" => ("200 OK", "image/png", png([240, 200, 40])),
        _ => ("404 Not Found", "application/json", b"{}".to_vec()),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&body);
}

#[test]
fn local_tmdb_and_musicbrainz_providers() {
    let (fixture, seen) = fixture();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let catalogue = data.join("catalogue");
    std::fs::create_dir_all(&catalogue).unwrap();
    std::fs::write(catalogue.join("night-ferry.png"), png([10, 10, 10])).unwrap();
    std::fs::write(
        catalogue.join("night-ferry.json"),
        json!({ "type": "movie", "title": "Night Ferry", "year": 2003, "credit": "Our Club", "synopsis": "A club film.",
            "artwork": { "poster": "night-ferry.png" }, "attribution": "Made by our film club." })
        .to_string(),
    )
    .unwrap();
    let config = dir.path().join("covers.toml");
    std::fs::write(
        &config,
        format!(
            "[designs]\nlifetime_days = 2\n[content]\norder = [\"local\", \"tmdb\", \"musicbrainz\", \"builtin\"]\n\
             [content.tmdb]\ntoken = \"test-token\"\nbase_url = \"http://{fixture}\"\nimage_base_url = \"http://{fixture}/t/p\"\n\
             [content.musicbrainz]\ncontact = \"ops@example.org\"\nbase_url = \"http://{fixture}\"\ncover_art_url = \"http://{fixture}\"\n"
        ),
    )
    .unwrap();
    let c = start(&data, &config);
    let get = |path: &str| request(c.addr, "GET", path, &[], None);

    // The local catalogue: found first, its image served and usable.
    let found = get("/api/v1/content/search?type=movie&q=night%20ferry").json();
    let first = &found["items"][0];
    assert_eq!(
        (first["id"].as_str(), first["attribution"].as_str()),
        (Some("local:movie/night-ferry"), Some("Made by our film club."))
    );
    let url = first["artwork"][0]["previewUrl"].as_str().unwrap();
    let art = get(&url[url.find("/api/v1/").unwrap()..]);
    assert_eq!((art.status, art.header("content-type")), (200, Some("image/png")));

    // TMDB: search by title and year, the bearer token sent, then the full record with its images.
    let found = get("/api/v1/content/search?type=movie&q=Harbor%20Lights%201999").json();
    let first = &found["items"][0];
    assert_eq!((first["id"].as_str(), first["year"].as_u64()), (Some("tmdb:movie/101"), Some(1999)));
    assert!(first["attribution"].as_str().unwrap().contains("not endorsed or certified by TMDB"));
    let movie = get("/api/v1/content/movie/tmdb:101").json();
    assert_eq!((movie["credit"].as_str(), movie["runtimeMinutes"].as_u64()), (Some("K. Osei"), Some(97)));
    let kinds: Vec<&str> = movie["artwork"].as_array().unwrap().iter().map(|a| a["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["poster", "logo", "still"], "the PNG logo, not the SVG one");
    // Compose with the title's logo as a decal; a logo it does not have is an error, never a blank.
    let body = json!({ "format": "dvd-cover", "content": { "type": "movie", "query": "Harbor Lights 1999" },
        "decals": [{ "id": "tmdb:logo/movie-101", "x": 75, "y": 20, "width": 30 }] });
    let r = request(c.addr, "POST", "/api/compose", &[], Some(body.to_string().as_bytes()));
    assert_eq!(r.status, 200, "{}", r.body);
    let design = r.json()["url"].as_str().unwrap().to_owned();
    let design = &design[design.find("/design/").unwrap()..];
    let svg = get(&format!("{design}/preview.svg")).body;
    assert!(svg.contains("data:image/png;base64,"), "the provider's images are inlined, never fetched by the renderer");
    let preview = get(&format!("{design}/preview.png"));
    assert_eq!((preview.status, preview.header("content-type")), (200, Some("image/png")));
    let wrong = json!({ "format": "dvd-cover", "content": { "type": "movie", "query": "Harbor Lights 1999" },
        "decals": [{ "id": "tmdb:logo/movie-999" }] });
    let r = request(c.addr, "POST", "/api/compose", &[], Some(wrong.to_string().as_bytes()));
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["field"].as_str()),
        (422, Some("UNKNOWN_DECAL"), Some("decals[0].id"))
    );

    // MusicBrainz: search, the release with its tracks, the cover through the archive's redirect.
    let found = get("/api/v1/content/search?type=album&q=Tidal%20Tapes").json();
    assert_eq!(found["items"][0]["id"], format!("mb:album/{MBID}"));
    let album = get(&format!("/api/v1/content/album/mb:{MBID}")).json();
    assert_eq!((album["credit"].as_str(), album["tracks"].as_array().unwrap().len()), (Some("The Fixtures"), 2));
    assert_eq!(album["artwork"][0]["widthPx"], 16, "the cover's real size, read from the image");
    // A second lookup comes from the disk cache: the fixture sees no new request.
    let before = seen.lock().unwrap().len();
    let again = get(&format!("/api/v1/content/album/mb:{MBID}")).json();
    assert_eq!(again["title"], "Tidal Tapes");
    let again = get("/api/v1/content/movie/tmdb:101").json();
    assert_eq!(again["title"], "Harbor Lights");
    assert_eq!(seen.lock().unwrap().len(), before, "cached answers and images");
    let cached = std::fs::read_dir(data.join("cache/musicbrainz")).unwrap().count();
    assert!(cached >= 3, "{cached} files in the MusicBrainz cache");

    let log = seen.lock().unwrap().clone();
    // The User-Agent names the service and the operator's contact, on every request.
    assert!(
        log.iter().all(|(_, agent, _, _)| agent.starts_with("covers/") && agent.contains("ops@example.org")),
        "{log:?}"
    );
    // MusicBrainz requests (web service and cover archive) are at least one second apart.
    let mb: Vec<Instant> =
        log.iter().filter(|(p, ..)| p.starts_with("/ws/2/") || p.starts_with("/release/")).map(|e| e.3).collect();
    assert!(mb.len() >= 3, "{mb:?}");
    for pair in mb.windows(2) {
        assert!(pair[1].duration_since(pair[0]) >= Duration::from_millis(950), "{:?}", pair[1].duration_since(pair[0]));
    }
    // The TMDB token never goes to the image server.
    assert!(log.iter().filter(|(p, ..)| p.starts_with("/t/p/")).all(|(_, _, auth, _)| auth.is_empty()));
    // Unknown ids are 404s, not errors of the provider.
    assert_eq!(get("/api/v1/content/album/mb:not-an-mbid").status, 404);
    assert_eq!(get("/api/v1/content/movie/tmdb:abc").status, 404);
}

#[test]
fn a_bad_configuration_stops_the_start_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[content]\norder = [\"netflix\"]\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_covers"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown provider \"netflix\""));
}
