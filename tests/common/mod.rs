//! Test harness: a real `crossword serve` process on a free port with a temporary data
//! directory and fixture indexes, spoken to with the product's one HTTP client
//! (`service_kit::http_client`).

#![allow(dead_code)]

pub mod covers;
pub mod postgres;

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crossword_index::IndexWriter;
use crossword_lang::Language;
use serde_json::Value;
use service_kit::http_client::{Request, ResponseStream};

/// Writes small indexes for `codes` into `dir`.
pub fn fixture_indexes(dir: &Path, codes: &[&str]) {
    std::fs::create_dir_all(dir).unwrap();
    for code in codes {
        let language = Language::from_code(code).unwrap();
        let mut w = IndexWriter::new(language);
        let entries: &[(&str, u8)] = match *code {
            "en" => &[
                ("cat", 84),
                ("cut", 93),
                ("cot", 52),
                ("dog", 80),
                ("ice cream", 60),
                ("crème", 70),
                ("zebra", 40),
                // A 3x3 square (rows CAB ODE WET, columns COW ADE BET) and a better last row/column.
                ("cab", 60),
                ("ode", 60),
                ("wet", 20),
                ("cow", 60),
                ("ade", 60),
                ("bet", 20),
                ("wen", 70),
                ("ben", 70),
            ],
            "ru" => &[("луна", 90), ("лина", 60)],
            "pt" => &[("coração", 80), ("casa", 90)],
            "fr" => &[("café", 83), ("été", 100)],
            _ => &[],
        };
        for (t, s) in entries {
            w.insert(&language.normalize(t).unwrap(), *s).unwrap();
        }
        if *code == "it" {
            // A list that keeps the solver busy on an open 9x9 grid (long fills for the tests).
            for word in busy_words() {
                w.insert(&word, 50).unwrap();
            }
        }
        w.write_to(&dir.join(format!("{code}.cwi"))).unwrap();
        fixture_clues(dir, language);
    }
}

/// A small clue collection for English and Portuguese (other languages get none).
pub fn fixture_clues(dir: &Path, language: Language) {
    use crossword_clues::{ClueWriter, Kind, Source};
    let mut w = ClueWriter::new(language);
    let clues: &[(&str, &str, Source, Kind, u32)] = match language.code() {
        "en" => &[
            ("cat", "Feline pet", Source::Dictionary, Kind::Sense, 0),
            ("cat", "Tabby", Source::Dictionary, Kind::Synonym, 0),
            ("cat", "Mouser", Source::Dictionary, Kind::Synonym, 0),
            ("cat", "Jazz fan, old-style", Source::Published, Kind::Plain, 12),
            ("cat", "Catnap taker", Source::Published, Kind::Plain, 3),
            ("cat", "feline", Source::Dictionary, Kind::Hypernym, 0),
            ("cat", "dog", Source::Dictionary, Kind::Antonym, 0),
            ("ice cream", "Frozen dessert", Source::Dictionary, Kind::Sense, 0),
            ("ice cream", "Sundae base", Source::Published, Kind::Plain, 4),
            ("crème", "Brûlée base", Source::Published, Kind::Plain, 2),
            ("dog", "Loyal pet", Source::Dictionary, Kind::Sense, 0),
            ("dog", "Hound", Source::Dictionary, Kind::Synonym, 0),
            ("dog", "Canine", Source::Dictionary, Kind::Synonym, 0),
            ("dog", "Pooch", Source::Dictionary, Kind::Synonym, 0),
            ("dog", "Mutt", Source::Dictionary, Kind::Synonym, 0),
            ("dog", "Cur", Source::Dictionary, Kind::Synonym, 0),
            ("dog", "Bowwow", Source::Dictionary, Kind::Synonym, 0),
        ],
        "pt" => &[("coração", "Órgão que bate", Source::Dictionary, Kind::Sense, 0)],
        _ => return,
    };
    for (answer, text, source, kind, count) in clues {
        w.add(answer, text, *source, *kind, *count);
    }
    w.meta("templates", serde_json::json!({ "kind_of": ["Kind of {}"], "opposite": ["Opposite of {}"] }));
    w.write_to(&dir.join(format!("{}.cwc", language.code()))).unwrap();
}

/// 3000 random nine-letter strings over A-D: no pruning at the root, a long search.
pub fn busy_words() -> Vec<String> {
    let mut rng = 0x1234_5678_9abc_def0u64;
    (0..3000)
        .map(|_| {
            (0..9)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    (b'A' + (rng % 4) as u8) as char
                })
                .collect()
        })
        .collect()
}

/// An open 9x9 grid as JSON rows.
pub fn open9() -> String {
    serde_json::to_string(&vec![".........".to_owned(); 9]).unwrap()
}

/// A live `text/event-stream` response read frame by frame.
pub struct EventStream {
    response: ResponseStream,
    buffer: String,
}

impl EventStream {
    /// Opens a streaming POST.
    pub fn open(addr: SocketAddr, path: &str, headers: &[(&str, &str)], body: &str) -> EventStream {
        let mut request = Request::new("POST", path).header("Accept", "text/event-stream").body(body);
        for (k, v) in headers {
            request = request.header(k, v);
        }
        EventStream { response: request.open(addr).unwrap(), buffer: String::new() }
    }

    /// A response header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.response.header(name)
    }

    /// The response status.
    pub fn status(&self) -> u16 {
        self.response.status
    }

    /// The next `data:` event as JSON, or None when the stream ends.
    pub fn next_event(&mut self) -> Option<Value> {
        loop {
            if let Some(start) = self.buffer.find("data: ") {
                if let Some(end) = self.buffer[start..].find("\n\n") {
                    let json = self.buffer[start + 6..start + end].to_owned();
                    self.buffer = self.buffer[start + end + 2..].to_owned();
                    return Some(serde_json::from_str(&json).unwrap());
                }
            }
            let bytes = self.response.read_some()?;
            self.buffer.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
}

/// A response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    /// Asserts a problem document with `status` and `code`, and returns it.
    pub fn problem(&self, status: u16, code: &str) -> Value {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(self.header("content-type"), Some("application/problem+json"), "{}", self.body);
        let doc = self.json();
        assert_eq!(doc["code"], code, "{doc}");
        assert_eq!(doc["status"], status);
        for field in ["type", "title", "detail", "instance"] {
            assert!(doc[field].is_string(), "missing {field}: {doc}");
        }
        assert!(doc["type"].as_str().unwrap().ends_with(&format!("/api/v1/errors#{code}")), "{doc}");
        doc
    }
}

/// Sends one request.
pub fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> Reply {
    let mut request = Request::new(method, path);
    for (k, v) in headers {
        request = request.header(k, v);
    }
    if let Some(b) = body {
        request = request.body(b);
    }
    let response = request.send(addr).unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    Reply { status: response.status, body: response.text(), headers: response.headers }
}

/// Sends one request; `None` when the connection fails (a server being killed, say).
pub fn try_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Option<Reply> {
    let mut request = Request::new(method, path).timeout(Duration::from_secs(20));
    for (k, v) in headers {
        request = request.header(k, v);
    }
    if let Some(b) = body {
        request = request.body(b);
    }
    let response = request.send(addr).ok()?;
    Some(Reply { status: response.status, body: response.text(), headers: response.headers })
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    pub index_dir: PathBuf,
    pub child: Child,
    config: Option<PathBuf>,
    _tmp: tempfile::TempDir,
}

/// Starts `crossword serve` and waits until it accepts connections and has announced itself to
/// the admin command.
fn spawn(addr: SocketAddr, data_dir: &Path, index_dir: &Path, config: Option<&Path>) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_crossword"));
    cmd.arg("serve")
        .arg("--listen")
        .arg(addr.to_string())
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--index-dir")
        .arg(index_dir);
    if let Some(path) = config {
        cmd.arg("--config").arg(path);
    }
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let started = Instant::now();
    while TcpStream::connect(addr).is_err() || !data_dir.join("server.json").is_file() {
        assert!(started.elapsed() < Duration::from_secs(20), "server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs `crossword` with arguments and returns stdout (panics on failure).
pub fn crossword(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_crossword")).args(args).output().unwrap();
    assert!(out.status.success(), "crossword {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

impl Server {
    /// Starts a server with fixture indexes for `languages` and an optional TOML config.
    pub fn start(languages: &[&str], config: Option<&str>) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let data_dir = tmp.path().join("data");
        let index_dir = tmp.path().join("indexes");
        fixture_indexes(&index_dir, languages);
        let config = config.map(|toml| {
            let path = tmp.path().join("config.toml");
            std::fs::write(&path, toml).unwrap();
            path
        });
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let child = spawn(addr, &data_dir, &index_dir, config.as_deref());
        Server { addr, data_dir, index_dir, child, config, _tmp: tmp }
    }

    /// Stops the server (SIGTERM) and starts it again on the same data, indexes and address.
    pub fn restart(&mut self) {
        assert!(self.terminate().success());
        let _ = std::fs::remove_file(self.data_dir.join("server.json"));
        self.child = spawn(self.addr, &self.data_dir, &self.index_dir, self.config.as_deref());
    }

    /// Kills the server with SIGKILL (no shutdown at all) and starts it again on the same data,
    /// indexes and address; panics unless the database opens and the server answers.
    pub fn kill_and_restart(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let _ = std::fs::remove_file(self.data_dir.join("server.json"));
        self.child = spawn(self.addr, &self.data_dir, &self.index_dir, self.config.as_deref());
    }

    /// Starts the server again after [`Server::terminate`] (same data, indexes and address).
    pub fn restart_stopped(&mut self) {
        self.child = spawn(self.addr, &self.data_dir, &self.index_dir, self.config.as_deref());
    }

    pub fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        request(self.addr, "GET", path, headers, None)
    }

    pub fn post(&self, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        request(self.addr, "POST", path, headers, Some(body.as_bytes()))
    }

    /// `crossword admin ...` against this server's data directory; parsed JSON output.
    pub fn admin(&self, args: &[&str]) -> Value {
        let mut all = vec!["admin", "--data-dir", self.data_dir.to_str().unwrap()];
        all.extend_from_slice(args);
        serde_json::from_str(&crossword(&all)).unwrap()
    }

    /// A new account of `tier` and a key with `scopes` (empty: all); returns (account id, key).
    pub fn account_with_key(&self, tier: &str, scopes: &str) -> (String, String) {
        let account = self.admin(&["account", "create", "--tier", tier]);
        let id = account["id"].as_str().unwrap().to_owned();
        let mut args = vec!["key", "create", "--account", id.as_str()];
        if !scopes.is_empty() {
            args.extend_from_slice(&["--scopes", scopes]);
        }
        let key = self.admin(&args);
        (id, key["key"].as_str().unwrap().to_owned())
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "server did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

/// Python readers pinned for the format tests: PyPI `puzpy` (Across Lite `.puz`, verifies every
/// checksum), `ipuz` (validates ipuz documents field by field) and `jsonschema` (checks JSON
/// Schemas and validates documents against them). Installed once into a
/// virtual environment under `$CROSSWORD_CI_CACHE` (default `~/.cache/crossword-ci`); returns its
/// `python`.
pub fn python_readers() -> PathBuf {
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            const PINS: [&str; 3] = ["puzpy==0.7.0", "ipuz==1.0", "jsonschema==4.23.0"];
            let cache = std::env::var_os("CROSSWORD_CI_CACHE").map(PathBuf::from).unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/crossword-ci")
            });
            let venv = cache.join(format!("readers-{}", PINS.join("-").replace("==", "-")));
            let python = venv.join("bin/python");
            if !python.is_file() {
                let staging = cache.join(format!("readers-staging-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&staging);
                std::fs::create_dir_all(&cache).unwrap();
                let ok = Command::new("python3").arg("-m").arg("venv").arg(&staging).status().unwrap().success()
                    && Command::new(staging.join("bin/pip"))
                        .args(["install", "--quiet"])
                        .args(PINS)
                        .status()
                        .unwrap()
                        .success();
                assert!(ok, "installing the Python readers {PINS:?} failed");
                // Another process may have won the race; either copy is complete.
                if std::fs::rename(&staging, &venv).is_err() {
                    let _ = std::fs::remove_dir_all(&staging);
                }
            }
            python
        })
        .clone()
}

/// Width, height, whether a square `pHYs` in pixels per metre is there, and whether an `sRGB`
/// chunk is, of a PNG, read with Python's standard library chunk by chunk: `"W H True True"`.
pub fn read_png(path: &Path) -> String {
    run_python(
        "import sys, struct\nd = open(sys.argv[1], 'rb').read()\nassert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n'\ni = 8\nchunks = {}\nwhile i < len(d):\n    n, t = struct.unpack('>I4s', d[i:i+8]); chunks[t] = d[i+8:i+8+n]; i += 12 + n\nw, h = struct.unpack('>II', chunks[b'IHDR'][:8])\nx, y, unit = struct.unpack('>IIB', chunks[b'pHYs'])\nprint(w, h, unit == 1 and x == y and x > 0, b'sRGB' in chunks)",
        &[path.to_str().unwrap()],
    )
    .trim()
    .to_owned()
}

/// Runs `script` with the Python readers, `args` as `sys.argv[1:]`; returns stdout (panics with
/// stderr on failure).
pub fn run_python(script: &str, args: &[&str]) -> String {
    let out = Command::new(python_readers()).arg("-c").arg(script).args(args).output().unwrap();
    assert!(out.status.success(), "python failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The fonts of printed puzzles (`crossword_puzzle::fonts`), fetched once with
/// `apt-get download` by Debian package name into `$CROSSWORD_CI_CACHE/fonts` (default
/// `~/.cache/crossword-ci`), as `indexbuild fonts` does for a deployment. Returns the folder
/// holding the font files.
pub fn printed_fonts() -> PathBuf {
    use crossword_puzzle::fonts::{BOLD, REGULAR};
    static FONTS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FONTS
        .get_or_init(|| {
            let cache = std::env::var_os("CROSSWORD_CI_CACHE").map(PathBuf::from).unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/crossword-ci")
            });
            let dir = cache.join("fonts");
            std::fs::create_dir_all(&dir).unwrap();
            for font in REGULAR.iter().chain([&BOLD]) {
                if dir.join(font.file).is_file() {
                    continue;
                }
                let work = tempfile::tempdir().unwrap();
                let mut fetched =
                    Command::new("apt-get").args(["download", "-q", font.package]).current_dir(work.path()).status();
                if !fetched.as_ref().is_ok_and(|s| s.success()) {
                    let _ = Command::new("apt-get").args(["update", "-q"]).status();
                    fetched = Command::new("apt-get")
                        .args(["download", "-q", font.package])
                        .current_dir(work.path())
                        .status();
                }
                assert!(fetched.is_ok_and(|s| s.success()), "apt-get download {} failed", font.package);
                let deb = std::fs::read_dir(work.path())
                    .unwrap()
                    .flatten()
                    .find(|e| e.path().extension().is_some_and(|x| x == "deb"))
                    .unwrap();
                let root = work.path().join("root");
                assert!(Command::new("dpkg-deb").arg("-x").arg(deb.path()).arg(&root).status().unwrap().success());
                let found = Command::new("find").arg(&root).arg("-name").arg(font.file).output().unwrap();
                let found = String::from_utf8(found.stdout).unwrap();
                let source = found.lines().next().unwrap_or_else(|| panic!("{} has no {}", font.package, font.file));
                std::fs::copy(source, dir.join(font.file)).unwrap();
            }
            dir
        })
        .clone()
}

/// The browser test tools, pinned: npm `playwright-core` and `axe-core`, installed once into
/// `$CROSSWORD_CI_CACHE/browser-tools-VERSIONS` (default `~/.cache/crossword-ci`), and Debian's
/// `chromium` (installed with apt-get when missing). Returns the npm folder.
pub fn browser_tools() -> PathBuf {
    const PINS: [&str; 2] = ["playwright-core@1.65.1", "axe-core@4.14.1"];
    let cache = std::env::var_os("CROSSWORD_CI_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/crossword-ci"));
    let dir = cache.join(format!("browser-tools-{}", PINS.join("-").replace('@', "-")));
    if !dir.join("node_modules/axe-core/axe.min.js").is_file() || !dir.join("node_modules/playwright-core").is_dir() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("package.json"), "{\"name\":\"browser-tools\",\"private\":true}\n").unwrap();
        let ok = Command::new("npm")
            .args(["install", "--silent", "--no-audit", "--no-fund", "--no-save"])
            .args(PINS)
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "npm install {PINS:?} failed");
    }
    if !Path::new("/usr/bin/chromium").is_file() {
        let installed =
            Command::new("apt-get").args(["install", "-y", "-q", "chromium"]).status().is_ok_and(|s| s.success())
                || (Command::new("apt-get").args(["update", "-q"]).status().is_ok()
                    && Command::new("apt-get")
                        .args(["install", "-y", "-q", "chromium"])
                        .status()
                        .is_ok_and(|s| s.success()));
        assert!(installed, "installing Debian's chromium failed");
    }
    dir
}

/// The official MCP Python SDK, pinned (PyPI `mcp==2.3.0`), in a virtual environment under
/// `$CROSSWORD_CI_CACHE/mcp-VERSION` (default `~/.cache/crossword-ci`), created once. Returns its
/// `python`.
pub fn mcp_python() -> PathBuf {
    const VERSION: &str = "2.3.0";
    let cache = std::env::var_os("CROSSWORD_CI_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/crossword-ci"));
    let venv = cache.join(format!("mcp-{VERSION}"));
    let python = venv.join("bin/python");
    let ready = Command::new(&python)
        .args(["-c", &format!("import mcp, importlib.metadata as m; assert m.version('mcp') == '{VERSION}'")])
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        std::fs::create_dir_all(&cache).unwrap();
        let made = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().is_ok_and(|s| s.success());
        assert!(made, "python3 -m venv failed (Debian: apt-get install python3-venv)");
        let ok = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", &format!("mcp=={VERSION}")])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "pip install mcp=={VERSION} failed");
    }
    python
}

/// Runs `n` copies of `call` at once (released together by a barrier); their results in order.
pub fn at_once<T: Send>(n: usize, call: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let barrier = std::sync::Barrier::new(n);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (barrier, call) = (&barrier, &call);
                scope.spawn(move || {
                    barrier.wait();
                    call(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// How many replies succeeded, and the distinct `status code` pairs of the refusals.
pub fn tally(replies: &[Reply]) -> (usize, Vec<String>) {
    let ok = replies.iter().filter(|r| r.status < 300).count();
    let mut codes: Vec<String> = replies
        .iter()
        .filter(|r| r.status >= 300)
        .map(|r| format!("{} {}", r.status, r.json()["code"].as_str().unwrap_or("?")))
        .collect();
    codes.sort();
    codes.dedup();
    (ok, codes)
}

/// Sends raw bytes and returns the status of the first response (None: closed without one).
pub fn raw_status(addr: SocketAddr, bytes: &[u8]) -> Option<u16> {
    use std::io::{Read, Write};
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = stream.write_all(bytes);
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(2).any(|w| w == b"\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&head).split(' ').nth(1).and_then(|code| code.parse().ok())
}

/// A small xorshift generator for tests that need spread, not quality (they print their seed).
pub struct Rng(pub u64);

impl Rng {
    /// The next number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A complete 3x3 English puzzle body (answers CAT ODE WET / COW ADE TET), every answer clued.
pub fn mini(title: &str) -> Value {
    serde_json::json!({
        "title": title,
        "author": "Ann",
        "grid": ["CAT", "ODE", "WET"],
        "clues": {
            "across": { "1": "Pet", "4": "Poem", "5": "Damp" },
            "down": { "1": "Milk source", "2": "Citrus drink", "3": "Vietnamese new year" }
        }
    })
}

/// A keyed request (`Authorization: Bearer key`) with an optional JSON body and extra headers.
pub fn send(s: &Server, method: &str, path: &str, key: &str, body: Option<&Value>, extra: &[(&str, &str)]) -> Reply {
    let auth = bearer(key);
    let mut headers = vec![("Authorization", auth.as_str())];
    headers.extend_from_slice(extra);
    let body = body.map(|b| b.to_string());
    request(s.addr, method, path, &headers, body.as_deref().map(str::as_bytes))
}
