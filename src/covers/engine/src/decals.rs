//! The decal catalogue: the project's own artwork, drawn here as SVG from a few shapes and
//! words. Generic designs only: no real brand, studio, distributor or rating-board mark.
//!
//! Each decal has a stable id (`category/name`), a name, a category and its size in pixels at
//! the export DPI (its natural print size); the SVG is its artwork and its preview.

use std::fmt::Write;

use serde::Serialize;

/// One decal of the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decal {
    /// Stable id, `category/name`.
    pub id: String,
    /// For people.
    pub name: String,
    /// Category id.
    pub category: &'static str,
    /// Natural width, px at 600 DPI.
    #[serde(rename = "widthPx")]
    pub width_px: u32,
    /// Natural height, px at 600 DPI.
    #[serde(rename = "heightPx")]
    pub height_px: u32,
    /// Shown first in pickers.
    pub popular: bool,
    /// The artwork.
    #[serde(skip)]
    pub svg: String,
}

/// The categories, in the order pickers show them: (id, name).
pub const CATEGORIES: [(&str, &str); 8] = [
    ("stickers", "Stickers"),
    ("price-tags", "Price tags"),
    ("banners", "Banners"),
    ("genre-tags", "Genre tags"),
    ("shapes", "Shapes"),
    ("rating-boxes", "Rating-style boxes"),
    ("badges", "Format and audio badges"),
    ("rental-labels", "Rental-store labels"),
];

fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn svg(w: u32, h: u32, body: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\">{body}</svg>"
    )
}

/// A line of bold, centred text.
fn label(x: f64, y: f64, size: f64, fill: &str, text: &str) -> String {
    format!(
        "<text x=\"{x}\" y=\"{y}\" font-family=\"sans-serif\" font-weight=\"700\" font-size=\"{size}\" fill=\"{fill}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>",
        esc(text)
    )
}

fn decal(category: &'static str, key: &str, name: &str, w: u32, h: u32, popular: bool, body: String) -> Decal {
    Decal {
        id: format!("{category}/{key}"),
        name: name.to_owned(),
        category,
        width_px: w,
        height_px: h,
        popular,
        svg: svg(w, h, &body),
    }
}

/// A round sticker with one or two lines.
fn sticker(key: &str, name: &str, fill: &str, ink: &str, lines: &[&str]) -> Decal {
    let (w, h) = (600u32, 600u32);
    let mut body = format!("<circle cx=\"300\" cy=\"300\" r=\"290\" fill=\"{fill}\"/><circle cx=\"300\" cy=\"300\" r=\"262\" fill=\"none\" stroke=\"{ink}\" stroke-width=\"10\"/>");
    let step = 120.0;
    let top = 300.0 - step * (lines.len() as f64 - 1.0) / 2.0;
    for (i, line) in lines.iter().enumerate() {
        body.push_str(&label(300.0, top + step * i as f64, 110.0, ink, line));
    }
    decal("stickers", key, name, w, h, lines.len() == 2, body)
}

/// A star-burst sticker.
fn burst(key: &str, name: &str, fill: &str, ink: &str, text: &str) -> Decal {
    let mut points = String::new();
    for k in 0..32 {
        let angle = std::f64::consts::PI * 2.0 * f64::from(k) / 32.0;
        let r = if k % 2 == 0 { 295.0 } else { 240.0 };
        let _ = write!(points, "{:.1},{:.1} ", 300.0 + r * angle.cos(), 300.0 + r * angle.sin());
    }
    let body =
        format!("<polygon points=\"{}\" fill=\"{fill}\"/>{}", points.trim_end(), label(300.0, 300.0, 96.0, ink, text));
    decal("stickers", key, name, 600, 600, true, body)
}

fn price_tag(key: &str, price: &str, fill: &str) -> Decal {
    let body = format!(
        "<path d=\"M60 20 H620 a40 40 0 0 1 40 40 V300 a40 40 0 0 1 -40 40 H60 L10 180 Z\" fill=\"{fill}\"/><circle cx=\"90\" cy=\"180\" r=\"22\" fill=\"#fff\"/>{}",
        label(370.0, 180.0, 150.0, "#111", price)
    );
    decal("price-tags", key, &format!("Price tag {price}"), 680, 360, key == "299", body)
}

fn banner(key: &str, text: &str, fill: &str, ink: &str) -> Decal {
    let body = format!(
        "<path d=\"M0 40 H1800 L1740 140 L1800 240 H0 L60 140 Z\" fill=\"{fill}\"/>{}",
        label(900.0, 140.0, 120.0, ink, text)
    );
    decal("banners", key, &format!("Banner: {}", text.to_lowercase()), 1800, 280, key == "new-release", body)
}

fn genre(key: &str, text: &str, fill: &str) -> Decal {
    let body = format!("<rect x=\"5\" y=\"5\" width=\"890\" height=\"230\" rx=\"40\" fill=\"{fill}\" stroke=\"#111\" stroke-width=\"10\"/>{}", label(450.0, 120.0, 130.0, "#fff", text));
    decal("genre-tags", key, &format!("Genre tag: {}", text.to_lowercase()), 900, 240, false, body)
}

fn shape(key: &str, name: &str, w: u32, h: u32, body: &str) -> Decal {
    decal("shapes", key, name, w, h, false, body.to_owned())
}

fn rating(key: &str, big: &str, small: &str) -> Decal {
    let body = format!(
        "<rect x=\"10\" y=\"10\" width=\"580\" height=\"700\" fill=\"#fff\" stroke=\"#111\" stroke-width=\"20\"/><rect x=\"40\" y=\"40\" width=\"520\" height=\"360\" fill=\"#111\"/>{}{}",
        label(300.0, 220.0, 260.0, "#fff", big),
        label(300.0, 550.0, 70.0, "#111", small)
    );
    decal("rating-boxes", key, &format!("Rating-style box {big}"), 600, 720, false, body)
}

fn badge(key: &str, text: &str, fill: &str, ink: &str) -> Decal {
    let body = format!("<rect x=\"6\" y=\"6\" width=\"1188\" height=\"288\" rx=\"24\" fill=\"{fill}\" stroke=\"{ink}\" stroke-width=\"12\"/>{}", label(600.0, 150.0, 120.0, ink, text));
    decal("badges", key, &format!("Badge: {}", text.to_lowercase()), 1200, 300, key == "stereo", body)
}

fn rental(key: &str, top: &str, bottom: &str, fill: &str) -> Decal {
    let body = format!(
        "<rect x=\"8\" y=\"8\" width=\"1184\" height=\"584\" rx=\"30\" fill=\"{fill}\" stroke=\"#111\" stroke-width=\"16\"/><line x1=\"40\" y1=\"300\" x2=\"1160\" y2=\"300\" stroke=\"#111\" stroke-width=\"8\" stroke-dasharray=\"30 20\"/>{}{}",
        label(600.0, 160.0, 130.0, "#111", top),
        label(600.0, 440.0, 100.0, "#111", bottom)
    );
    decal("rental-labels", key, &format!("Rental label: {}", top.to_lowercase()), 1200, 600, key == "due-back", body)
}

/// The whole catalogue, by category.
pub fn catalogue() -> Vec<Decal> {
    vec![
        sticker("new", "Sticker: new", "#e63946", "#fff", &["NEW"]),
        sticker("sale", "Sticker: sale", "#ffd166", "#111", &["SALE"]),
        sticker("staff-pick", "Sticker: staff pick", "#06d6a0", "#111", &["STAFF", "PICK"]),
        sticker("be-kind", "Sticker: be kind, rewind", "#118ab2", "#fff", &["BE KIND", "REWIND"]),
        burst("hit", "Burst: hit", "#ff5400", "#fff", "HIT!"),
        burst("free", "Burst: free", "#8338ec", "#fff", "FREE"),
        price_tag("099", "$0.99", "#ffd166"),
        price_tag("299", "$2.99", "#f4a261"),
        price_tag("499", "$4.99", "#90be6d"),
        price_tag("5-eur", "5 €", "#a8dadc"),
        banner("new-release", "NEW RELEASE", "#e63946", "#fff"),
        banner("special-edition", "SPECIAL EDITION", "#1d3557", "#f1faee"),
        banner("collectors", "COLLECTOR'S EDITION", "#b5838d", "#fff"),
        banner("now-on-video", "NOW ON VIDEO", "#2a9d8f", "#fff"),
        genre("horror", "HORROR", "#6a040f"),
        genre("comedy", "COMEDY", "#f77f00"),
        genre("action", "ACTION", "#d62828"),
        genre("sci-fi", "SCI-FI", "#3a0ca3"),
        genre("drama", "DRAMA", "#495057"),
        genre("family", "FAMILY", "#2b9348"),
        shape("circle", "Circle", 600, 600, "<circle cx=\"300\" cy=\"300\" r=\"300\" fill=\"#111\"/>"),
        shape("square", "Square", 600, 600, "<rect width=\"600\" height=\"600\" fill=\"#111\"/>"),
        shape("stripe", "Stripe", 2400, 120, "<rect width=\"2400\" height=\"120\" fill=\"#111\"/>"),
        shape("star", "Star", 600, 600, "<polygon points=\"300,10 372,222 595,222 415,355 483,570 300,440 117,570 185,355 5,222 228,222\" fill=\"#111\"/>"),
        shape("arrow", "Arrow", 900, 400, "<polygon points=\"0,130 600,130 600,0 900,200 600,400 600,270 0,270\" fill=\"#111\"/>"),
        rating("all-ages", "A", "ALL AGES"),
        rating("family-viewing", "F", "FAMILY VIEWING"),
        rating("teen", "T", "TEENS AND UP"),
        rating("mature", "M", "MATURE AUDIENCES"),
        badge("stereo", "STEREO", "#fff", "#111"),
        badge("hi-fi", "HI-FI SOUND", "#111", "#fff"),
        badge("mono", "MONO", "#fff", "#111"),
        badge("widescreen", "WIDESCREEN", "#fff", "#111"),
        badge("remastered", "DIGITALLY REMASTERED", "#111", "#ffd166"),
        badge("color", "IN COLOR", "#fff", "#e63946"),
        rental("due-back", "DUE BACK", "_____ / _____", "#ffd166"),
        rental("weekly", "7-DAY RENTAL", "RETURN ON TIME", "#a8dadc"),
        rental("overnight", "OVERNIGHT", "RETURN BY NOON", "#f4a261"),
        rental("member", "MEMBERS ONLY", "NO. __________", "#cdb4db"),
    ]
}

/// A decal by id.
pub fn find(id: &str) -> Option<Decal> {
    catalogue().into_iter().find(|d| d.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_decal_is_well_formed_and_categorised() {
        let all = catalogue();
        let mut ids: Vec<&str> = all.iter().map(|d| d.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all.len(), "ids are unique");
        for d in &all {
            assert!(CATEGORIES.iter().any(|(c, _)| *c == d.category), "{}", d.id);
            assert!(d.id.starts_with(&format!("{}/", d.category)));
            assert!(d.svg.starts_with("<svg") && d.svg.ends_with("</svg>"));
            assert!(d.svg.contains(&format!("viewBox=\"0 0 {} {}\"", d.width_px, d.height_px)));
        }
        for (c, _) in CATEGORIES {
            assert!(all.iter().filter(|d| d.category == c).count() >= 3, "category {c} has at least three decals");
        }
        assert!(find("stickers/new").is_some() && find("stickers/nope").is_none());
    }
}
