//! Exported files read by independent readers: `.puz` by PyPI `puzpy` (which verifies every
//! checksum), ipuz by PyPI `ipuz` (which validates each field), SVG and HTML by Python's own
//! XML and HTML parsers; imports round-trip; and what a format cannot hold is refused with a
//! 400 naming the field, never a corrupt file.

mod common;

use common::{bearer, request, run_python, Reply, Server};
use serde_json::{json, Value};

const PATRON: &str = "[tiers.patron]\nreads_per_minute = -1\n";

/// A standard-looking 15x15 pattern (rotationally symmetric, no run shorter than three).
const PATTERN_15: [&str; 15] = [
    "....#.....#....",
    "....#.....#....",
    "...............",
    "...#...#....###",
    "###....#.......",
    "......#...#....",
    ".....#....#....",
    "...#.......#...",
    "....#....#.....",
    "....#...#......",
    ".......#....###",
    "###....#...#...",
    "...............",
    "....#.....#....",
    "....#.....#....",
];

fn send(s: &Server, method: &str, path: &str, key: &str, body: Option<&[u8]>, extra: &[(&str, &str)]) -> Reply {
    let auth = bearer(key);
    let mut headers = vec![("Authorization", auth.as_str())];
    headers.extend_from_slice(extra);
    request(s.addr, method, path, &headers, body)
}

/// Fills a pattern with letters from `alphabet` (deterministic) and returns the rows.
fn letters(pattern: &[&str], alphabet: &[char]) -> Vec<String> {
    let mut state = 7u32;
    pattern
        .iter()
        .map(|row| {
            row.chars()
                .map(|c| {
                    if c == '#' {
                        '#'
                    } else {
                        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        alphabet[(state >> 16) as usize % alphabet.len()]
                    }
                })
                .collect()
        })
        .collect()
}

/// Creates a puzzle with every entry clued (`Clue N-dir` plus `extra` text), from the server's
/// own numbering (a draft first, to learn it).
fn clued_puzzle(s: &Server, key: &str, title: &str, language: &str, rows: &[String], extra: &str) -> Value {
    clued_puzzle_with(s, key, title, language, rows, &|num, dir| format!("Clue {num}-{dir}{extra}"))
}

/// Like [`clued_puzzle`], with each clue's text made by `clue(number, direction)`.
fn clued_puzzle_with(
    s: &Server,
    key: &str,
    title: &str,
    language: &str,
    rows: &[String],
    clue: &dyn Fn(u64, &str) -> String,
) -> Value {
    let draft =
        json!({ "title": title, "language": language, "grid": rows, "author": "Ann Author", "writeup": "Notes here." });
    let r = send(s, "POST", "/api/v1/puzzles", key, Some(draft.to_string().as_bytes()), &[]);
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let ipuz = send(s, "GET", &format!("/api/v1/puzzles/{id}/export?format=ipuz"), key, None, &[]).json();
    // Entries from the numbered layout: a number starts an across entry when the cell to its
    // left is a block or the edge, and likewise down.
    let layout = ipuz["puzzle"].as_array().unwrap();
    let n = layout.len();
    let white = |r: usize, c: usize| layout[r][c] != "#";
    let min = usize::from(crossword_lang::Language::from_code(language).unwrap().spec().min_slot_length);
    let (mut across, mut down) = (serde_json::Map::new(), serde_json::Map::new());
    for (r, row) in layout.iter().enumerate() {
        for (c, cell) in row.as_array().unwrap().iter().enumerate() {
            let Some(num) = cell.as_u64().filter(|&x| x > 0) else { continue };
            if (c == 0 || !white(r, c - 1)) && (c..n).take_while(|&x| white(r, x)).count() >= min {
                across.insert(num.to_string(), clue(num, "across").into());
            }
            if (r == 0 || !white(r - 1, c)) && (r..n).take_while(|&y| white(y, c)).count() >= min {
                down.insert(num.to_string(), clue(num, "down").into());
            }
        }
    }
    let patch = json!({ "clues": { "across": across, "down": down } });
    let r = send(s, "PATCH", &format!("/api/v1/puzzles/{id}"), key, Some(patch.to_string().as_bytes()), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    let r = send(s, "POST", &format!("/api/v1/puzzles/{id}/publish"), key, None, &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

/// The clues in Across Lite order that a `.puz` of `rows` must hold: every run of two or more
/// white cells by start cell, across first; runs the language does not count as answers get
/// the placeholder `-`.
fn across_lite_clues(rows: &[String], clues: &Value, min_len: usize) -> Vec<String> {
    let grid: Vec<Vec<char>> = rows.iter().map(|r| r.chars().collect()).collect();
    let n = grid.len();
    let white = |r: usize, c: usize| grid[r][c] != '#';
    let mut out = Vec::new();
    let mut number = 0;
    for r in 0..n {
        for c in 0..n {
            if !white(r, c) {
                continue;
            }
            let across_len = if c == 0 || !white(r, c - 1) { (c..n).take_while(|&x| white(r, x)).count() } else { 0 };
            let down_len = if r == 0 || !white(r - 1, c) { (r..n).take_while(|&y| white(y, c)).count() } else { 0 };
            if across_len >= min_len || down_len >= min_len {
                number += 1;
            }
            for (len, dir) in [(across_len, "across"), (down_len, "down")] {
                if len >= 2 {
                    let text = if len >= min_len {
                        clues[dir][number.to_string()].as_str().unwrap().to_owned()
                    } else {
                        "-".into()
                    };
                    out.push(text);
                }
            }
        }
    }
    out
}

const READ_PUZ: &str = r#"
import json, sys, puz
data = open(sys.argv[1], 'rb').read()
p = puz.load(data)  # raises on any wrong checksum
assert p.tobytes() == data, 're-serializes to the same bytes'
print(json.dumps({'width': p.width, 'height': p.height, 'solution': p.solution, 'clues': p.clues,
                  'title': p.title, 'author': p.author, 'notes': p.notes, 'version': p.version.decode()}))
"#;

fn read_puz(bytes: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.puz");
    std::fs::write(&path, bytes).unwrap();
    serde_json::from_str(&run_python(READ_PUZ, &[path.to_str().unwrap()])).unwrap()
}

fn export(s: &Server, key: &str, id: &str, query: &str) -> Reply {
    send(s, "GET", &format!("/api/v1/puzzles/{id}/export?{query}"), key, None, &[])
}

#[test]
fn puz_files_satisfy_an_independent_reader() {
    let s = Server::start(&["en", "es", "fi", "ru"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let az: Vec<char> = ('A'..='Z').collect();
    // A real-shaped 15x15, a 5x5 with two-cell runs, and Spanish and Finnish letters.
    let short_runs: Vec<String> = ["HE#ON", "ALOES", "#TEA#", "SOARS", "IN#GO"].map(String::from).to_vec();
    let spanish = letters(&["AÑO#.", ".....", ".....", ".....", ".#..."], &['A', 'Ñ', 'O', 'E', 'S']);
    let finnish = letters(&[".....", ".....", "..#..", ".....", "....."], &['Ä', 'Ö', 'Å', 'K', 'T']);
    let cases = [
        ("Standard fifteen", "en", letters(&PATTERN_15, &az), " (the usual)"),
        ("Two-letter runs", "en", short_runs, ""),
        ("Año nuevo", "es", spanish, " - ¿sí? «café»"),
        ("Kesä", "fi", finnish, " äö"),
    ];
    for (title, language, rows, extra) in cases {
        let p = clued_puzzle(&s, &key, title, language, &rows, extra);
        let id = p["id"].as_str().unwrap();
        let r = export(&s, &key, id, "format=puz");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.header("content-type"), Some("application/x-crossword"));
        let disposition = r.header("content-disposition").unwrap().to_owned();
        assert!(disposition.starts_with("attachment; filename=\"") && disposition.ends_with(".puz\""), "{disposition}");
        let bytes = request_bytes(&s, &key, &format!("/api/v1/puzzles/{id}/export?format=puz"));
        let read = read_puz(&bytes);
        let n = rows.len();
        assert_eq!((read["width"].as_u64(), read["height"].as_u64()), (Some(n as u64), Some(n as u64)));
        let grid: Vec<String> = p["grid"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_owned()).collect();
        assert_eq!(read["solution"], grid.concat().replace('#', "."), "{title}");
        let expected = across_lite_clues(&grid, &p["clues"], 3);
        assert_eq!(read["clues"], json!(expected), "{title}: clue count and order");
        assert_eq!(
            (read["title"].as_str(), read["author"].as_str(), read["version"].as_str()),
            (Some(title), Some("Ann Author"), Some("1.3"))
        );
        let notes = read["notes"].as_str().unwrap();
        assert!(notes.starts_with("Notes here.") && notes.contains("Made with Crossword Service"), "{notes}");
        if title == "Two-letter runs" {
            assert!(expected.iter().filter(|c| *c == "-").count() >= 6, "two-cell runs get placeholders");
        }
    }
    // What a .puz cannot hold is refused, naming why.
    let ru =
        clued_puzzle(&s, &key, "Луна", "ru", &letters(&["....", "....", "....", "...."], &['Л', 'У', 'Н', 'А']), "");
    assert_eq!(
        export(&s, &key, ru["id"].as_str().unwrap(), "format=puz").problem(400, "VALIDATION_ERROR")["field"],
        "format"
    );
    let tick = clued_puzzle(&s, &key, "Done ✓", "en", &letters(&["...", "...", "..."], &az), "");
    assert_eq!(
        export(&s, &key, tick["id"].as_str().unwrap(), "format=puz").problem(400, "VALIDATION_ERROR")["field"],
        "title"
    );
    let draft =
        send(&s, "POST", "/api/v1/puzzles", &key, Some(br#"{"title":"Draft","grid":["CA.","...","..."]}"#), &[]).json();
    let did = draft["id"].as_str().unwrap();
    assert_eq!(export(&s, &key, did, "format=puz").problem(400, "VALIDATION_ERROR")["field"], "grid");
}

/// The raw bytes of a GET (the harness's `Reply` holds text).
fn request_bytes(s: &Server, key: &str, path: &str) -> Vec<u8> {
    let response =
        service_kit::http_client::Request::new("GET", path).header("Authorization", &bearer(key)).send(s.addr).unwrap();
    assert_eq!(response.status, 200);
    response.body
}

#[test]
fn ipuz_svg_html_and_json_exports() {
    let s = Server::start(&["en", "he"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let az: Vec<char> = ('A'..='Z').collect();
    let p = clued_puzzle(&s, &key, "Fifteen & more", "en", &letters(&PATTERN_15, &az), "");
    let id = p["id"].as_str().unwrap();
    // JSON is exactly the puzzle; it is the default.
    assert_eq!(
        export(&s, &key, id, "").json(),
        send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json()
    );
    assert_eq!(export(&s, &key, id, "format=json").json(), p);
    // ipuz: validated field by field by the ipuz package.
    let r = export(&s, &key, id, "format=ipuz");
    assert_eq!(r.header("content-type"), Some("application/x-ipuz+json"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.ipuz");
    std::fs::write(&path, &r.body).unwrap();
    let checked = run_python(
        "import ipuz, json, sys\nd = ipuz.read(open(sys.argv[1]).read())\nprint(json.dumps({'title': d['title'], 'w': d['dimensions']['width'], 'across': len(d['clues']['Across']), 'down': len(d['clues']['Down'])}))",
        &[path.to_str().unwrap()],
    );
    let checked: Value = serde_json::from_str(&checked).unwrap();
    assert_eq!(checked["title"], "Fifteen & more");
    assert_eq!(checked["w"], 15);
    assert_eq!(checked["across"].as_u64().unwrap() as usize, p["clues"]["across"].as_object().unwrap().len());
    assert_eq!(checked["down"].as_u64().unwrap() as usize, p["clues"]["down"].as_object().unwrap().len());
    // SVG: well-formed XML, with numbers, and letters only with the solution.
    let svg = export(&s, &key, id, "format=svg");
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    std::fs::write(dir.path().join("blank.svg"), &svg.body).unwrap();
    let solved = export(&s, &key, id, "format=svg&solution=true");
    std::fs::write(dir.path().join("solved.svg"), &solved.body).unwrap();
    let count_texts = "import sys, xml.etree.ElementTree as ET\nroot = ET.parse(sys.argv[1]).getroot()\nprint(sum(1 for e in root.iter() if e.tag.endswith('text')))";
    let blank_texts: usize =
        run_python(count_texts, &[dir.path().join("blank.svg").to_str().unwrap()]).trim().parse().unwrap();
    let solved_texts: usize =
        run_python(count_texts, &[dir.path().join("solved.svg").to_str().unwrap()]).trim().parse().unwrap();
    let white = PATTERN_15.concat().chars().filter(|&c| c == '.').count();
    assert_eq!(solved_texts - blank_texts, white, "one letter per white cell");
    // HTML: one self-contained page with every clue under the language's headings.
    let html = export(&s, &key, id, "format=html&paper=a4");
    assert_eq!(html.header("content-type"), Some("text/html; charset=utf-8"));
    std::fs::write(dir.path().join("page.html"), &html.body).unwrap();
    let parsed = run_python(
        "import sys, json\nfrom html.parser import HTMLParser\nclass P(HTMLParser):\n    def __init__(self):\n        super().__init__(); self.text = []; self.external = []\n    def handle_starttag(self, tag, attrs):\n        self.external += [v for k, v in attrs if k in ('src', 'href') and v]\n    def handle_data(self, d):\n        self.text.append(d)\np = P(); p.feed(open(sys.argv[1]).read())\nprint(json.dumps({'text': ' '.join(p.text), 'external': p.external}))",
        &[dir.path().join("page.html").to_str().unwrap()],
    );
    let parsed: Value = serde_json::from_str(&parsed).unwrap();
    let text = parsed["text"].as_str().unwrap();
    assert_eq!(parsed["external"], json!([]), "no external requests");
    for needle in ["Fifteen & more", "Ann Author", "Across", "Down", "Clue 1-across", "Made with Crossword Service"] {
        assert!(text.contains(needle), "{needle} missing from the page");
    }
    let he = clued_puzzle(&s, &key, "תשבץ", "he", &letters(&["...", "...", "..."], &['א', 'ב', 'ג']), "");
    let page = export(&s, &key, he["id"].as_str().unwrap(), "format=html").body;
    assert!(page.contains("dir=\"rtl\"") && page.contains("מאוזן") && page.contains("מאונך"));
    // A draft without every clue cannot be printed; unknown formats and options are named.
    let draft =
        send(&s, "POST", "/api/v1/puzzles", &key, Some(br#"{"title":"D","grid":["CAT","ODE","WET"]}"#), &[]).json();
    let did = draft["id"].as_str().unwrap();
    let doc = export(&s, &key, did, "format=html").problem(400, "VALIDATION_ERROR");
    assert_eq!(doc["missingClues"].as_array().unwrap().len(), 6);
    assert_eq!(export(&s, &key, did, "format=ipuz").status, 200, "ipuz holds drafts");
    assert_eq!(export(&s, &key, id, "format=docx").problem(400, "VALIDATION_ERROR")["field"], "format");
    assert_eq!(export(&s, &key, id, "format=svg&paper=a5").problem(400, "VALIDATION_ERROR")["field"], "paper");
    assert_eq!(export(&s, &key, id, "format=svg&solution=yes").problem(400, "VALIDATION_ERROR")["field"], "solution");
    assert_eq!(export(&s, &key, id, "format=svg&colour=red").problem(400, "VALIDATION_ERROR")["field"], "colour");
}

#[test]
fn imports_round_trip_and_bad_files_are_refused() {
    let s = Server::start(&["en", "es"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let short_runs: Vec<String> = ["HE#ON", "ALOES", "#TEA#", "SOARS", "IN#GO"].map(String::from).to_vec();
    let p = clued_puzzle(&s, &key, "Round trip", "en", &short_runs, "");
    let id = p["id"].as_str().unwrap();
    let puz = request_bytes(&s, &key, &format!("/api/v1/puzzles/{id}/export?format=puz"));
    // .puz -> puzzle -> .puz: same solution and clues.
    let r = send(
        &s,
        "POST",
        "/api/v1/puzzles/import",
        &key,
        Some(&puz),
        &[("Content-Type", "application/x-crossword"), ("Idempotency-Key", "imp-1")],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert!(r.header("x-puzzle-quota-remaining").is_some());
    let imported = r.json();
    assert_eq!(
        (imported["status"].as_str(), imported["title"].as_str(), imported["author"].as_str()),
        (Some("draft"), Some("Round trip"), Some("Ann Author"))
    );
    assert_eq!(imported["grid"], p["grid"]);
    assert_eq!(imported["clues"], p["clues"]);
    let again =
        request_bytes(&s, &key, &format!("/api/v1/puzzles/{}/export?format=puz", imported["id"].as_str().unwrap()));
    let (a, b) = (read_puz(&puz), read_puz(&again));
    assert_eq!((a["solution"].clone(), a["clues"].clone()), (b["solution"].clone(), b["clues"].clone()));
    // Idempotent like a create; sniffed without a Content-Type.
    let replay = send(&s, "POST", "/api/v1/puzzles/import", &key, Some(&puz), &[("Idempotency-Key", "imp-1")]);
    assert_eq!((replay.status, replay.json()["id"].clone()), (200, imported["id"].clone()));
    // ipuz -> puzzle: the language comes from the file.
    let spanish = clued_puzzle(&s, &key, "Año", "es", &letters(&["...", "...", "..."], &['A', 'Ñ', 'O']), "");
    let ipuz = export(&s, &key, spanish["id"].as_str().unwrap(), "format=ipuz").body;
    let r = send(
        &s,
        "POST",
        "/api/v1/puzzles/import",
        &key,
        Some(ipuz.as_bytes()),
        &[("Content-Type", "application/x-ipuz+json")],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let back = r.json();
    assert_eq!(
        (back["language"].clone(), back["grid"].clone(), back["clues"].clone()),
        (json!("es"), spanish["grid"].clone(), spanish["clues"].clone())
    );
    // Bad files: a 400 that says what is wrong, and nothing stored.
    let before = send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json()["total"].clone();
    let mut damaged = puz.clone();
    let last = damaged.len() - 2;
    damaged[last] ^= 0x20;
    let doc = send(
        &s,
        "POST",
        "/api/v1/puzzles/import",
        &key,
        Some(&damaged),
        &[("Content-Type", "application/x-crossword")],
    )
    .problem(400, "VALIDATION_ERROR");
    assert!(doc["detail"].as_str().unwrap().contains("checksum"), "{doc}");
    assert_eq!(doc["field"], "body");
    for (body, content_type) in [
        (&b"not a puzzle"[..], "application/octet-stream"),
        (br#"{"version":"x"}"#, "application/json"),
        (b"", "application/x-crossword"),
    ] {
        send(&s, "POST", "/api/v1/puzzles/import", &key, Some(body), &[("Content-Type", content_type)])
            .problem(400, "VALIDATION_ERROR");
    }
    assert_eq!(send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json()["total"], before);
}

#[test]
fn the_command_line_exports_saved_puzzles() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let az: Vec<char> = ('A'..='Z').collect();
    let p = clued_puzzle(&s, &key, "Offline", "en", &letters(&PATTERN_15, &az), "");
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("offline.json");
    std::fs::write(&json_path, p.to_string()).unwrap();
    let out = dir.path().join("offline.puz");
    common::crossword(&[
        "puzzle",
        "export",
        json_path.to_str().unwrap(),
        "--format",
        "puz",
        "--out",
        out.to_str().unwrap(),
    ]);
    let read = read_puz(&std::fs::read(&out).unwrap());
    assert_eq!(read["title"], "Offline");
    assert_eq!(
        read["clues"].as_array().unwrap().len(),
        p["clues"]["across"].as_object().unwrap().len() + p["clues"]["down"].as_object().unwrap().len()
    );
    let pdf = dir.path().join("offline.pdf");
    let fonts = common::printed_fonts();
    let index_dir = fonts.parent().unwrap().to_str().unwrap().to_owned();
    common::crossword(&[
        "puzzle",
        "export",
        json_path.to_str().unwrap(),
        "--format",
        "pdf",
        "--paper",
        "a4",
        "--index-dir",
        &index_dir,
        "--out",
        pdf.to_str().unwrap(),
    ]);
    assert!(poppler("pdftotext", &[pdf.to_str().unwrap(), "-"]).contains("Offline"));
    let svg = common::crossword(&["puzzle", "export", json_path.to_str().unwrap(), "--format", "svg", "--solution"]);
    assert!(svg.starts_with("<svg") && svg.contains("</svg>"));
    let failed = std::process::Command::new(env!("CARGO_BIN_EXE_crossword"))
        .args(["puzzle", "export", json_path.to_str().unwrap(), "--format", "docx"])
        .output()
        .unwrap();
    assert!(!failed.status.success());
}

/// Runs a poppler-utils tool (Debian's `poppler-utils`) and returns its stdout.
fn poppler(tool: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} is needed (Debian package poppler-utils): {e}"));
    assert!(out.status.success(), "{tool} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Text as pdftotext gives it, without bidi embedding marks and with spaces collapsed.
fn plain(text: &str) -> String {
    let cleaned: String = text.chars().filter(|c| !('\u{202A}'..='\u{202E}').contains(c)).collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn pdf_pages_print_every_script() {
    let s = Server::start(&["en", "ru", "he", "ja", "hi"], Some(PATRON));
    let fonts = common::printed_fonts();
    std::fs::create_dir_all(s.index_dir.join("fonts")).unwrap();
    for f in std::fs::read_dir(&fonts).unwrap().flatten() {
        std::fs::copy(f.path(), s.index_dir.join("fonts").join(f.file_name())).unwrap();
    }
    let (_, key) = s.account_with_key("patron", "");
    let az: Vec<char> = ('A'..='Z').collect();
    let cases: Vec<(&str, &str, Vec<String>, &str)> = vec![
        ("Fifteen", "en", letters(&PATTERN_15, &az), " (easy?)"),
        (
            "Кроссворд",
            "ru",
            letters(&[".....", ".....", "..#..", ".....", "....."], &['К', 'О', 'Т', 'Ё', 'Ж']),
            " подсказка",
        ),
        ("תשבץ", "he", letters(&["....", "....", "....", "...."], &['א', 'ב', 'ג', 'ש']), " רמז"),
        ("クロスワード", "ja", letters(&["..#", "#..", "..#"], &['ア', 'イ', 'カ', 'ン']), "のヒント"),
        ("वर्ग पहेली", "hi", ["कमलकि", "क्षमलन", "लकिमन", "नमलक"].map(String::from).to_vec(), " संकेत"),
    ];
    let dir = tempfile::tempdir().unwrap();
    // Hebrew clues are all Hebrew (numbered with letters), as Hebrew puzzles print them.
    let hebrew = |num: u64, dir: &str| {
        let letter = "אבגדהוזחטיכלמנסעפצקרשת".chars().nth(num as usize % 22).unwrap();
        format!("רמז {letter} {}", if dir == "across" { "מאוזן" } else { "מאונך" })
    };
    for (title, language, rows, extra) in cases {
        let p = if language == "he" {
            clued_puzzle_with(&s, &key, title, language, &rows, &hebrew)
        } else {
            clued_puzzle(&s, &key, title, language, &rows, extra)
        };
        let id = p["id"].as_str().unwrap();
        let r = export(&s, &key, id, "format=pdf&paper=a4");
        assert_eq!(r.status, 200, "{language}: {}", r.body);
        assert_eq!(r.header("content-type"), Some("application/pdf"));
        assert!(r.header("content-disposition").unwrap().starts_with("attachment; filename=\""));
        let path = dir.path().join(format!("{language}.pdf"));
        std::fs::write(&path, request_bytes(&s, &key, &format!("/api/v1/puzzles/{id}/export?format=pdf&paper=a4")))
            .unwrap();
        let path = path.to_str().unwrap();
        // One A4 page.
        let info = poppler("pdfinfo", &[path]);
        assert!(info.contains("Pages:           1"), "{info}");
        assert!(info.contains("595.28 x 841.89"), "{language}: A4 expected: {info}");
        // Every font embedded and subset, with a Unicode map.
        let fonts = poppler("pdffonts", &[path]);
        let rows: Vec<&str> = fonts.lines().skip(2).collect();
        assert!(!rows.is_empty(), "{fonts}");
        for row in &rows {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let n = cols.len();
            assert_eq!(&cols[n - 5..n - 2], ["yes", "yes", "yes"], "{language}: emb sub uni: {row}");
            assert!(cols[0].as_bytes()[6] == b'+', "subset name: {row}");
        }
        // The title, both headings and every clue, as text.
        let text = plain(&poppler("pdftotext", &[path, "-"]));
        let heads = crossword_puzzle::labels::labels(crossword_lang::Language::from_code(language).unwrap());
        assert!(text.contains(&plain(title)), "{language}: title missing from {text}");
        assert!(text.contains(heads.across) && text.contains(heads.down), "{language}: headings missing from {text}");
        for dir_name in ["across", "down"] {
            for clue in p["clues"][dir_name].as_object().unwrap().values() {
                let clue = plain(clue.as_str().unwrap());
                assert!(text.contains(&clue), "{language}: {clue:?} missing from {text}");
            }
        }
        // Looked at as a picture: the grid's ink is on the page.
        let png = dir.path().join(language);
        poppler("pdftoppm", &["-r", "20", "-gray", "-singlefile", path, png.to_str().unwrap()]);
        let image = std::fs::read(png.with_extension("pgm")).unwrap();
        let dark = image.iter().rev().take(image.len() * 9 / 10).filter(|&&b| b < 100).count();
        assert!(dark > 20, "{language}: the page looks blank ({dark} dark pixels)");
    }
    // Letter by default; the answer key fills the letters in.
    let p = clued_puzzle(&s, &key, "Key", "en", &letters(&["...", "...", "..."], &['Q', 'X', 'Z']), "");
    let id = p["id"].as_str().unwrap();
    let path = dir.path().join("key.pdf");
    std::fs::write(&path, request_bytes(&s, &key, &format!("/api/v1/puzzles/{id}/export?format=pdf&solution=true")))
        .unwrap();
    let path = path.to_str().unwrap();
    assert!(poppler("pdfinfo", &[path]).contains("612 x 792"));
    let text = poppler("pdftotext", &[path, "-"]);
    let letters_in_grid = text.chars().filter(|c| ['Q', 'X', 'Z'].contains(c)).count();
    assert!(letters_in_grid >= 9, "the solution shows all nine letters: {text}");
    let blank = dir.path().join("blank.pdf");
    std::fs::write(&blank, request_bytes(&s, &key, &format!("/api/v1/puzzles/{id}/export?format=pdf"))).unwrap();
    let text = poppler("pdftotext", &[blank.to_str().unwrap(), "-"]);
    assert!(!text.chars().any(|c| ['Q', 'X', 'Z'].contains(&c)), "a blank grid shows no letters: {text}");
    // Drafts that cannot be printed say why.
    let draft =
        send(&s, "POST", "/api/v1/puzzles", &key, Some(br#"{"title":"D","grid":["CAT","ODE","WET"]}"#), &[]).json();
    let doc = export(&s, &key, draft["id"].as_str().unwrap(), "format=pdf").problem(400, "VALIDATION_ERROR");
    assert_eq!(doc["missingClues"].as_array().unwrap().len(), 6);
}
