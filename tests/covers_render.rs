//! The cover renderer through the `covers render` command: every format as a 600 DPI PNG (size,
//! `pHYs` and `sRGB` read by Python), print PDFs read by poppler's `pdfinfo` and `pdffonts`, and
//! the pictures of `docs/covers/pictures/` as golden renders compared pixel by pixel within a
//! tolerance. `COVERS_UPDATE_PICTURES=1 cargo test --test covers_render` rewrites the pictures.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

/// The intent each format's picture is drawn from: the built-in catalogue's titles.
fn picture_intent(slug: &str) -> Value {
    let content = match slug {
        "slipcover" => json!({ "type": "movie", "query": "Nosferatu 1922" }),
        "dvd-cover" => json!({ "type": "movie", "query": "Metropolis 1927" }),
        "bluray-cover" => json!({ "type": "movie", "query": "Night of the Living Dead 1968" }),
        "vinyl" | "cd-insert" | "cd" | "minidisc-jcard" => json!({ "type": "album", "query": "Backyard Frequencies" }),
        _ => json!({ "type": "album", "query": "Midnight Static" }),
    };
    let mut intent = json!({ "v": 1, "format": slug, "content": content, "style": { "seed": 7 } });
    if slug == "dvd-cover" {
        intent["decals"] = json!([{ "id": "stickers/new", "x": 92, "y": 10, "width": 7 }]);
    }
    intent
}

fn covers(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_covers")).args(args).output().unwrap()
}

fn render(dir: &Path, slug: &str, intent: &Value, output: &str, extra: &[&str]) -> PathBuf {
    let intent_file = dir.join(format!("{slug}.json"));
    std::fs::write(&intent_file, intent.to_string()).unwrap();
    let out = dir.join(format!("{slug}.{output}"));
    let mut args = vec!["render", intent_file.to_str().unwrap(), "--output", output, "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let done = covers(&args);
    assert!(done.status.success(), "{slug} {output}: {}", String::from_utf8_lossy(&done.stderr));
    out
}

#[test]
fn every_format_renders_at_600_dpi_with_its_resolution_recorded() {
    let dir = tempfile::tempdir().unwrap();
    for format in covers_engine::catalogue() {
        let g = format.geometry(600);
        let png = render(dir.path(), format.slug, &picture_intent(format.slug), "png", &[]);
        assert_eq!(
            common::read_png(&png),
            format!("{} {} True True", g["sheet"]["widthPx"], g["sheet"]["heightPx"]),
            "{}: the sheet with its bleed at 600 DPI",
            format.slug
        );
        std::fs::remove_file(png).unwrap();
    }
}

#[test]
fn audio_covers_carry_a_qr_code_that_scans() {
    let dir = tempfile::tempdir().unwrap();
    let scan = |png: &Path| {
        let out = Command::new("zbarimg").args(["-q", "--raw"]).arg(png).output().expect("zbarimg (zbar-tools)");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    // From the album alone: its artist, title and year.
    let preview = render(dir.path(), "jcard", &picture_intent("jcard"), "preview", &[]);
    assert_eq!(scan(&preview), "The Reel Lows – Midnight Static (1986)");
    // Or what the intent asks for, at 600 DPI as well.
    let mut intent = picture_intent("cd-tray");
    intent["qr"] = json!("https://example.org/listen");
    assert_eq!(scan(&render(dir.path(), "cd-tray", &intent, "png", &[])), "https://example.org/listen");
    // Hidden: no code.
    intent["layout"] = json!({ "hide": ["qr"] });
    assert_eq!(scan(&render(dir.path(), "cd-tray", &intent, "preview", &[])), "");
}

/// `pdfinfo -box` of a PDF as (page width, page height, trim box, bleed box), in points.
fn pdf_boxes(pdf: &Path) -> (f64, f64, [f64; 4], [f64; 4]) {
    let out = Command::new("pdfinfo").arg("-box").arg(pdf).output().expect("pdfinfo (poppler-utils)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let numbers = |label: &str| -> Vec<f64> {
        let line = text.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label} in {text}"));
        line[label.len()..].split_whitespace().filter_map(|n| n.parse().ok()).collect()
    };
    let page = numbers("Page size:");
    let trim = numbers("TrimBox:");
    let bleed = numbers("BleedBox:");
    (page[0], page[1], [trim[0], trim[1], trim[2], trim[3]], [bleed[0], bleed[1], bleed[2], bleed[3]])
}

#[test]
fn print_pdfs_have_their_boxes_fonts_and_paper() {
    let dir = tempfile::tempdir().unwrap();
    let pt = |mm: f64| mm * 72.0 / 25.4;
    for slug in ["dvd-cover", "jcard", "cd"] {
        let format = covers_engine::find(slug).unwrap();
        let pdf = render(dir.path(), slug, &picture_intent(slug), "pdf", &[]);
        let (w, h, trim, bleed) = pdf_boxes(&pdf);
        let close = |a: f64, b: f64| (a - b).abs() < 0.2;
        assert!(close(trim[2] - trim[0], pt(format.width_mm)), "{slug}: trim width {trim:?}");
        assert!(close(trim[3] - trim[1], pt(format.height_mm)), "{slug}: trim height {trim:?}");
        assert!(close(trim[0] - bleed[0], pt(format.bleed_mm)), "{slug}: bleed {bleed:?} around {trim:?}");
        // The page is the design with room for the marks (3.175 mm offset, 6 mm long, 1 mm spare).
        let slug_mm = (3.175f64 + 6.0 + 1.0).max(format.bleed_mm);
        assert!(
            close(w, pt(format.width_mm + 2.0 * slug_mm)) && close(h, pt(format.height_mm + 2.0 * slug_mm)),
            "{slug}: {w} x {h}"
        );
        // Every font is embedded and subset.
        let fonts = Command::new("pdffonts").arg(&pdf).output().unwrap();
        let listing = String::from_utf8_lossy(&fonts.stdout).into_owned();
        let rows: Vec<&str> = listing.lines().skip(2).collect();
        assert!(!rows.is_empty(), "{slug}: texts are real text, in embedded fonts:\n{listing}");
        for row in &rows {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let n = cols.len();
            assert_eq!((cols[n - 5], cols[n - 4]), ("yes", "yes"), "{slug}: embedded and subset: {row}");
        }
        assert!(listing.contains("LeagueSpartan"), "{slug}: the default family\n{listing}");
        // The texts can be extracted.
        let text = Command::new("pdftotext").arg(&pdf).arg("-").output().unwrap();
        let title = if slug == "dvd-cover" { "Metropolis" } else { "Midnight Static" };
        if slug != "cd" {
            assert!(String::from_utf8_lossy(&text.stdout).contains(title), "{slug}: {title} as text");
        }
    }
    // On paper: the DVD wrap turns landscape on A4, centred.
    let pdf = render(dir.path(), "dvd-cover", &picture_intent("dvd-cover"), "pdf", &["--paper", "a4", "--no-marks"]);
    let (w, h, trim, _) = pdf_boxes(&pdf);
    assert!((w - 841.89).abs() < 0.5 && (h - 595.28).abs() < 0.5, "A4 landscape: {w} x {h}");
    assert!(((trim[0] + trim[2]) / 2.0 - w / 2.0).abs() < 0.5, "centred: {trim:?}");
    // A sheet larger than the paper is refused with a reason, and nothing is written.
    let intent_file = dir.path().join("vinyl.json");
    std::fs::write(&intent_file, picture_intent("vinyl").to_string()).unwrap();
    let out = dir.path().join("vinyl-letter.pdf");
    let done = covers(&[
        "render",
        intent_file.to_str().unwrap(),
        "--output",
        "pdf",
        "--paper",
        "letter",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!done.status.success());
    assert!(String::from_utf8_lossy(&done.stderr).contains("does not fit on letter"));
    assert!(!out.exists());
}

/// RGBA pixels of a PNG, decoded with the `png` crate.
fn pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight), "{}", path.display());
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn pictures_match_their_golden_renders() {
    let pictures = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/covers/pictures");
    let update = std::env::var_os("COVERS_UPDATE_PICTURES").is_some();
    let dir = tempfile::tempdir().unwrap();
    for format in covers_engine::catalogue() {
        let fresh = render(dir.path(), format.slug, &picture_intent(format.slug), "preview", &[]);
        let golden = pictures.join(format!("{}.png", format.slug));
        if update {
            std::fs::create_dir_all(&pictures).unwrap();
            std::fs::copy(&fresh, &golden).unwrap();
            continue;
        }
        let (differing, n, mean) = difference(&fresh, &golden);
        assert!(
            differing * 200 <= n && mean < 2.0,
            "{}: {differing} of {n} pixels differ, mean difference {mean:.2} (COVERS_UPDATE_PICTURES=1 rewrites the pictures)",
            format.slug
        );
    }
    if !update {
        // The comparison can fail: another background is far outside the tolerance.
        let mut intent = picture_intent("dvd-cover");
        intent["style"]["background"] = json!({ "color": "#f0f0f0" });
        let changed = render(dir.path(), "dvd-cover", &intent, "preview", &[]);
        let (differing, n, _) = difference(&changed, &pictures.join("dvd-cover.png"));
        assert!(differing * 200 > n, "{differing} of {n}");
    }
}

/// How many pixels differ by more than 48 in some channel, of how many, and the mean of the
/// largest channel difference per pixel.
fn difference(fresh: &Path, golden: &Path) -> (usize, usize, f64) {
    let (w, h, a) = pixels(fresh);
    let (gw, gh, b) = pixels(golden);
    assert_eq!((w, h), (gw, gh), "{}: size", golden.display());
    let mut differing = 0usize;
    let mut total = 0u64;
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let d = p.iter().zip(q).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        total += u64::from(d);
        if d > 48 {
            differing += 1;
        }
    }
    let n = (w * h) as usize;
    (differing, n, total as f64 / n as f64)
}
