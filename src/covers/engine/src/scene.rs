//! One scene per design, drawn as SVG at the export resolution: the sheet with its bleed, the
//! background, the title's artwork and texts laid out on the format's panels, the decals and
//! texts of the intent by layer, and (for previews) the trim, fold and safe-area guides.
//!
//! Coordinates of the intent are percent of the trimmed sheet, by the element's centre; the SVG
//! user unit is one pixel at [`crate::EXPORT_DPI`], with the trimmed sheet's top-left corner at
//! (bleed, bleed).

use std::fmt::Write;

use crate::content::{artwork_svg, Title};
use crate::formats::{px, Fold, Format, Kind, Shape};
use crate::intent::{DecalPlacement, Intent};

/// What to draw besides the artwork.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guides {
    /// Trim, folds and safe area as thin lines (previews in the designer).
    pub show: bool,
}

fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The inner markup of an SVG document (what is between its outer tags) and its viewBox size.
fn inner(svg: &str) -> Option<(&str, f64, f64)> {
    let open_end = svg.find('>')?;
    let close = svg.rfind("</svg>")?;
    let head = &svg[..open_end];
    let vb = head.split("viewBox=\"").nth(1)?.split('"').next()?;
    let nums: Vec<f64> = vb.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    (nums.len() == 4).then(|| (&svg[open_end + 1..close], nums[2], nums[3]))
}

/// A decal's SVG: the title's own artwork (providers' images), the catalogue, or built-in art.
fn decal_svg(id: &str, title: Option<&Title>, images: &Images) -> Option<String> {
    if let Some(image) = images.get(id) {
        return Some(image.svg());
    }
    if let Some(a) = title.and_then(|t| t.artwork.iter().find(|a| a.id == id)) {
        if let Some(image) = &a.image {
            return Some(image.svg());
        }
    }
    if let Some(d) = crate::decals::find(id) {
        return Some(d.svg);
    }
    let (kind, slug) = id.strip_prefix("builtin:")?.split_once('/')?;
    artwork_svg(slug, kind)
}

/// Places an SVG's content in the box `(x, y, w, h)` (px), scaled to fit without distortion
/// unless `stretch`.
fn place(out: &mut String, svg: &str, (x, y, w, h): (f64, f64, f64, f64), stretch: bool, filter: &str) {
    let Some((body, vw, vh)) = inner(svg) else { return };
    let (sx, sy) = if stretch {
        (w / vw, h / vh)
    } else {
        let s = (w / vw).min(h / vh);
        (s, s)
    };
    let (ox, oy) = (x + (w - vw * sx) / 2.0, y + (h - vh * sy) / 2.0);
    let _ = write!(out, "<g transform=\"translate({ox:.1} {oy:.1}) scale({sx:.5} {sy:.5})\"{filter}>{body}</g>");
}

#[allow(clippy::too_many_arguments)]
fn text_block(
    out: &mut String,
    font: &str,
    text: &str,
    (cx, cy): (f64, f64),
    size: f64,
    weight: u16,
    color: &str,
    letter_spacing: f64,
) {
    let lines: Vec<&str> = text.lines().collect();
    let top = cy - size * 1.2 * (lines.len() as f64 - 1.0) / 2.0;
    for (i, line) in lines.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{cx:.1}\" y=\"{:.1}\" font-family=\"{font}\" font-size=\"{size:.1}\" font-weight=\"{weight}\" letter-spacing=\"{:.2}\" fill=\"{color}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>",
            top + size * 1.2 * i as f64,
            letter_spacing / 100.0 * size,
            esc(line)
        );
    }
}

/// Uploaded images a design uses, by reference (`upload:<id>`), resolved by the service from its
/// own stores (the renderer never reads files or the network).
pub type Images = std::collections::BTreeMap<String, std::sync::Arc<crate::image::Image>>;

/// The SVG of a design at `dpi`.
pub fn render(
    format: &Format,
    intent: &Intent,
    title: Option<&Title>,
    images: &Images,
    dpi: u32,
    guides: Guides,
) -> String {
    let bleed = f64::from(px(format.bleed_mm, dpi));
    let (tw, th) = (f64::from(px(format.width_mm, dpi)), f64::from(px(format.height_mm, dpi)));
    let (sw, sh) = (tw + 2.0 * bleed, th + 2.0 * bleed);
    let background = intent.background.clone().unwrap_or_else(|| "#111111".to_owned());
    let ink = intent.label_color.clone().unwrap_or_else(|| "#ffffff".to_owned());
    let hidden = |field: &str| intent.hide.contains(&field);
    let font = crate::fonts::stack(intent.font.as_deref()).replace('\'', "&apos;");
    // The trim's size and place in SVG units, for the designer's dragging (percent of the trim).
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {sw} {sh}\" width=\"{sw}\" height=\"{sh}\" data-bleed=\"{bleed}\" data-trim-width=\"{tw}\" data-trim-height=\"{th}\">"
    );
    if let Shape::Disc { hole_mm } = format.shape {
        let r = tw / 2.0;
        let hole = f64::from(px(hole_mm, dpi)) / 2.0;
        let _ = write!(out, "<defs><mask id=\"disc\"><rect width=\"{sw}\" height=\"{sh}\" fill=\"#000\"/><circle cx=\"{c:.1}\" cy=\"{c:.1}\" r=\"{r:.1}\" fill=\"#fff\"/><circle cx=\"{c:.1}\" cy=\"{c:.1}\" r=\"{hole:.1}\" fill=\"#000\"/></mask></defs><g mask=\"url(#disc)\">", c = bleed + r);
    }
    let outline = outline(format, dpi, bleed);
    if let Some(points) = &outline {
        // The tapered flap: everything is cut to the outline, grown by the bleed.
        let _ = write!(
            out,
            "<defs><clipPath id=\"outline\"><polygon points=\"{}\"/></clipPath></defs><g clip-path=\"url(#outline)\">",
            grow(points, bleed)
        );
    }
    let _ = write!(out, "<rect width=\"{sw}\" height=\"{sh}\" fill=\"{background}\"/>");
    let to_px = |x_pct: f64, y_pct: f64| (bleed + tw * x_pct / 100.0, bleed + th * y_pct / 100.0);
    let decals = |out: &mut String, layer: &str| {
        for (i, d) in intent.decals.iter().enumerate().filter(|(_, d)| d.layer == layer) {
            // Each placed element is a group the designer can find and drag.
            let _ = write!(out, "<g class=\"el\" data-kind=\"decal\" data-i=\"{i}\">");
            draw_decal(out, d, title, images, tw, th, bleed);
            out.push_str("</g>");
        }
    };
    decals(&mut out, "background");
    // Uploaded images: the whole-sheet background, then each panel's image.
    let image = |out: &mut String, slot: &crate::intent::ImageSlot, (x, y, w, h): (f64, f64, f64, f64)| {
        let Some(img) = images.get(&slot.reference) else { return };
        let aspect = match slot.fit {
            "fit" => "xMidYMid meet",
            "stretch" => "none",
            _ => "xMidYMid slice",
        };
        let _ = write!(
            out,
            "<image x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" preserveAspectRatio=\"{aspect}\" href=\"data:{};base64,{}\"/>",
            img.mime,
            crate::image::base64(&img.bytes)
        );
    };
    if let Some(slot) = &intent.background_image {
        image(&mut out, slot, (0.0, 0.0, sw, sh));
    }
    for (name, slot) in &intent.panels {
        if let Some(p) = format.panels.iter().find(|p| p.name == name) {
            // Panels at the sheet's edge take the bleed on that side too.
            let (x0, x1) = (f64::from(px(p.x, dpi)), f64::from(px(p.x + p.width, dpi)));
            let left = if p.x <= 0.0 { 0.0 } else { bleed + x0 };
            let right = if (p.x + p.width) >= format.width_mm - 0.01 { sw } else { bleed + x1 };
            image(&mut out, slot, (left, 0.0, right - left, sh));
        }
    }
    // The title's artwork and texts on the panels.
    let panel = |name: &str| format.panels.iter().find(|p| p.name == name);
    if let Some(t) = title {
        // Trays have no front: their art is the tracklist on the back.
        let front = panel("front").or_else(|| panel("label"));
        if let Some(f) = front {
            let (x, y, w, h) = (
                bleed + f64::from(px(f.x, dpi)),
                bleed + f64::from(px(f.y, dpi)),
                f64::from(px(f.width, dpi)),
                f64::from(px(f.height, dpi)),
            );
            let art = if format.kind == Kind::Audio { "cover" } else { "poster" };
            if !hidden("poster") {
                if let Some(svg) =
                    t.artwork.iter().find(|a| a.kind == art).and_then(|a| decal_svg(&a.id, title, images))
                {
                    place(&mut out, &svg, (x, y, w, h), format.kind == Kind::Video, "");
                }
            }
            let logo = t.artwork.iter().find(|a| a.kind == "logo").and_then(|a| decal_svg(&a.id, title, images));
            if let (Some(svg), true, false) = (logo.as_ref(), intent.logo, hidden("title")) {
                place(&mut out, svg, (x + w * 0.08, y + h * 0.04, w * 0.84, h * 0.16), false, "");
            } else if !hidden("title") {
                let title = intent.overrides.get("title").map(String::as_str).unwrap_or(&t.title);
                text_block(
                    &mut out,
                    &font,
                    title,
                    (x + w / 2.0, y + h * 0.12),
                    (h * 0.06).min(w * 0.09),
                    800,
                    &ink,
                    0.0,
                );
            }
        }
        for s in format.panels.iter().filter(|p| p.name.starts_with("spine") && !hidden("spineTitle")) {
            let (x, w) = (bleed + f64::from(px(s.x, dpi)), f64::from(px(s.width, dpi)));
            let _ = write!(
                out,
                "<text transform=\"translate({:.1} {:.1}) rotate(90)\" font-family=\"{font}\" font-weight=\"800\" font-size=\"{:.1}\" fill=\"{ink}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>",
                x + w / 2.0,
                bleed + th / 2.0,
                w * 0.55,
                esc(intent.overrides.get("title").map(String::as_str).unwrap_or(&t.title))
            );
        }
        let back = panel("back").or_else(|| panel("inside")).or_else(|| panel("flap"));
        if let Some(b) = back {
            let (x, w) = (bleed + f64::from(px(b.x, dpi)), f64::from(px(b.width, dpi)));
            let size = th * 0.028;
            let mut y = bleed + th * 0.1;
            let lines: Vec<String> = if t.tracks.is_empty() {
                let synopsis = intent.overrides.get("synopsis").map(String::as_str).unwrap_or(&t.synopsis);
                if hidden("synopsis") {
                    Vec::new()
                } else {
                    wrap_words(synopsis, ((w / size) * 1.7) as usize)
                }
            } else if hidden("tracklist") {
                Vec::new()
            } else {
                // Side A and side B: the first half of the tracks (rounded up), then the rest.
                let half = t.tracks.len().div_ceil(2);
                let mut l = vec!["SIDE A".to_owned()];
                l.extend(
                    t.tracks[..half]
                        .iter()
                        .map(|tr| format!("{}  {}:{:02}", tr.title, tr.seconds / 60, tr.seconds % 60)),
                );
                l.push("SIDE B".to_owned());
                l.extend(
                    t.tracks[half..]
                        .iter()
                        .map(|tr| format!("{}  {}:{:02}", tr.title, tr.seconds / 60, tr.seconds % 60)),
                );
                l
            };
            // Shrink the text until its longest line fits inside the panel's safe area.
            let room = w - 2.0 * f64::from(px(format.safe_mm, dpi));
            let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1).max(1) as f64;
            let size = size.min(room / (longest * 0.56));
            for line in lines {
                text_block(&mut out, &font, &line, (x + w / 2.0, y), size, 400, &ink, 0.0);
                y += size * 1.4;
            }
            if format.kind == Kind::Video {
                credits_block(
                    &mut out,
                    &font,
                    &ink,
                    intent,
                    t,
                    (x, w),
                    (y + size, bleed + th - f64::from(px(format.safe_mm, dpi))),
                    size,
                );
            }
        }
        // The tagline under the title on the front, and the studio at the foot of the spine.
        if format.kind == Kind::Video {
            let text =
                |key: &str, fallback: &str| intent.overrides.get(key).cloned().unwrap_or_else(|| fallback.to_owned());
            if let Some(f) = panel("front").filter(|_| !hidden("tagline")) {
                let tagline = text("tagline", &t.tagline);
                if !tagline.is_empty() {
                    let (x, w) = (bleed + f64::from(px(f.x, dpi)), f64::from(px(f.width, dpi)));
                    let size = (th * 0.026).min(w * 0.9 / (tagline.chars().count().max(1) as f64 * 0.5));
                    text_block(&mut out, &font, &tagline, (x + w / 2.0, bleed + th * 0.2), size, 400, &ink, 4.0);
                }
            }
            let studio = text("studio", "");
            if let (Some(s), false) = (panel("spine"), studio.is_empty() || hidden("studio")) {
                let (x, w) = (bleed + f64::from(px(s.x, dpi)), f64::from(px(s.width, dpi)));
                text_block(&mut out, &font, &studio, (x + w / 2.0, bleed + th * 0.93), w * 0.3, 700, &ink, 0.0);
            }
        }
    }
    decals(&mut out, "under");
    for (i, t) in intent.texts.iter().enumerate() {
        let _ = write!(out, "<g class=\"el\" data-kind=\"text\" data-i=\"{i}\">");
        let (cx, cy) = to_px(t.x, t.y);
        text_block(&mut out, &font, &t.text, (cx, cy), th * t.size / 100.0, t.weight, &t.color, t.letter_spacing);
        out.push_str("</g>");
    }
    if let (Some(slot), Some(b)) = (&intent.studio_logo, panel("back").filter(|_| !hidden("studio"))) {
        // The custom studio logo: lower left of the back, inside the safe area.
        let safe = f64::from(px(format.safe_mm, dpi));
        let (w, h) = (f64::from(px(b.width, dpi)) * 0.22, th * 0.07);
        image(&mut out, slot, (bleed + f64::from(px(b.x, dpi)) + safe, bleed + th - safe - h, w, h));
    }
    if let Some(t) = title.filter(|_| format.kind == Kind::Audio && !hidden("qr")) {
        qr_code(&mut out, format, dpi, bleed, intent.qr.as_deref().map_or_else(|| t.qr_text(), str::to_owned));
    }
    if format.kind == Kind::Video || format.slug == "jcard" {
        let seed = intent.seed.unwrap_or_else(|| {
            crate::finish::seed_of(&format!(
                "{}|{}|{}",
                format.slug,
                title.map_or("", |t| t.id.as_str()),
                intent.name.as_deref().unwrap_or("")
            ))
        });
        let folds: Vec<f64> = format
            .folds
            .iter()
            .filter_map(|f| match f {
                Fold::Vertical(x) => Some(bleed + f64::from(px(*x, dpi))),
                Fold::Horizontal(_) => None,
            })
            .collect();
        let sheet = crate::finish::Sheet { x: bleed, y: bleed, width: tw, height: th, mm: f64::from(dpi) / 25.4 };
        crate::finish::overlay(&mut out, intent.finish, seed, sheet, &folds);
    }
    decals(&mut out, "over");
    if matches!(format.shape, Shape::Disc { .. }) || outline.is_some() {
        out.push_str("</g>");
    }
    if guides.show {
        let stroke = f64::from(dpi) / 150.0;
        match &outline {
            Some(points) => {
                let _ = write!(
                    out,
                    "<g fill=\"none\" stroke-width=\"{stroke:.1}\"><polygon points=\"{}\" stroke=\"#e63946\"/>",
                    grow(points, 0.0)
                );
            }
            None => {
                let _ = write!(out, "<g fill=\"none\" stroke-width=\"{stroke:.1}\"><rect x=\"{bleed}\" y=\"{bleed}\" width=\"{tw}\" height=\"{th}\" stroke=\"#e63946\"/>");
            }
        }
        let safe = f64::from(px(format.safe_mm, dpi));
        let _ = write!(out, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" stroke=\"#2a9d8f\" stroke-dasharray=\"{d} {d}\"/>", bleed + safe, bleed + safe, tw - 2.0 * safe, th - 2.0 * safe, d = stroke * 4.0);
        for f in &format.folds {
            match f {
                Fold::Vertical(x) => {
                    let x = bleed + f64::from(px(*x, dpi));
                    let _ = write!(out, "<line x1=\"{x}\" y1=\"0\" x2=\"{x}\" y2=\"{sh}\" stroke=\"#457b9d\" stroke-dasharray=\"{d} {d}\"/>", d = stroke * 6.0);
                }
                Fold::Horizontal(y) => {
                    let y = bleed + f64::from(px(*y, dpi));
                    let _ = write!(out, "<line x1=\"0\" y1=\"{y}\" x2=\"{sw}\" y2=\"{y}\" stroke=\"#457b9d\" stroke-dasharray=\"{d} {d}\"/>", d = stroke * 6.0);
                }
            }
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

/// The back's credits of a film or show, from `top` down: who made it and who is in it, then the
/// year, running time and genre, and a rating box when the design gives a rating.
#[allow(clippy::too_many_arguments)]
fn credits_block(
    out: &mut String,
    font: &str,
    ink: &str,
    intent: &Intent,
    t: &Title,
    (x, w): (f64, f64),
    (top, bottom): (f64, f64),
    size: f64,
) {
    let hidden = |field: &str| intent.hide.contains(&field);
    let text = |key: &str, fallback: String| intent.overrides.get(key).cloned().unwrap_or(fallback);
    let mut lines = Vec::new();
    if !hidden("credits") {
        let director = text("director", t.credit.clone());
        if !director.is_empty() {
            lines.push(format!("Directed by {director}"));
        }
        let starring = text("starring", t.starring.join(", "));
        if !starring.is_empty() {
            lines.push(format!("Starring {starring}"));
        }
    }
    let mut facts = Vec::new();
    if !hidden("year") {
        facts.push(text("year", t.year.to_string()));
    }
    if !hidden("runtime") && (t.runtime_minutes > 0 || intent.overrides.contains_key("runtime")) {
        let runtime = text("runtime", t.runtime_minutes.to_string());
        facts.push(if runtime.chars().all(|c| c.is_ascii_digit()) { format!("{runtime} min") } else { runtime });
    }
    let genre = text("genre", t.genre.join(", "));
    if !genre.is_empty() {
        facts.push(genre);
    }
    if !facts.is_empty() {
        lines.push(facts.join(" · "));
    }
    let size = size * 0.85;
    let room = w * 0.88;
    let mut y = top.max(bottom - size * 1.5 * (lines.len() as f64 + 2.5));
    for line in lines {
        for part in wrap_words(&line, (room / (size * 0.55)) as usize) {
            text_block(out, font, &part, (x + w / 2.0, y), size, 400, ink, 0.0);
            y += size * 1.4;
        }
    }
    if let (Some(rating), false) = (intent.overrides.get("rating"), hidden("rating")) {
        let box_w = size * (rating.chars().count() as f64 * 0.7 + 2.0);
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{box_w:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"{ink}\" stroke-width=\"{:.1}\"/>",
            x + w * 0.06,
            bottom - size * 2.2,
            size * 1.8,
            size * 0.12
        );
        text_block(out, font, rating, (x + w * 0.06 + box_w / 2.0, bottom - size * 1.3), size, 700, ink, 0.0);
    }
}

/// The trim outline of shapes that are not rectangles or discs (the tapered J-card flap), as
/// points in SVG units, clockwise from the flap's top outer corner.
fn outline(format: &Format, dpi: u32, bleed: f64) -> Option<Vec<(f64, f64)>> {
    let Shape::TaperedFlap { flap_mm, taper_mm } = format.shape else { return None };
    let (tw, th) = (f64::from(px(format.width_mm, dpi)), f64::from(px(format.height_mm, dpi)));
    let (flap, taper) = (f64::from(px(flap_mm, dpi)), f64::from(px(taper_mm, dpi)));
    Some(
        [(0.0, taper), (flap, 0.0), (tw, 0.0), (tw, th), (flap, th), (0.0, th - taper)]
            .iter()
            .map(|(x, y)| (x + bleed, y + bleed))
            .collect(),
    )
}

/// The outline's points, pushed `by` units outwards (for the bleed), as a `points` attribute.
fn grow(points: &[(f64, f64)], by: f64) -> String {
    let (cx, cy) = (
        points.iter().map(|p| p.0).sum::<f64>() / points.len() as f64,
        points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64,
    );
    points
        .iter()
        .map(|(x, y)| {
            let (dx, dy) = ((x - cx).signum() * by, (y - cy).signum() * by);
            format!("{:.1},{:.1}", x + dx, y + dy)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A QR code of `text` in the bottom corner of the back (or flap, or inside) panel, dark on a
/// white square with its quiet zone.
fn qr_code(out: &mut String, format: &Format, dpi: u32, bleed: f64, text: String) {
    let Some(panel) = ["back", "flap", "inside"].iter().find_map(|n| format.panels.iter().find(|p| p.name == *n))
    else {
        return;
    };
    let Ok(code) = qrcode::QrCode::new(text.as_bytes()) else { return };
    let modules = code.width();
    let side_mm = (panel.width.min(panel.height) * 0.3).clamp(12.0, 25.0).min(panel.width - 2.0 * format.safe_mm);
    if side_mm < 10.0 {
        return;
    }
    let side = f64::from(px(side_mm, dpi));
    let unit = side / (modules + 8) as f64;
    let safe = f64::from(px(format.safe_mm, dpi));
    let x0 = bleed + f64::from(px(panel.x + panel.width, dpi)) - safe - side;
    let y0 = bleed + f64::from(px(panel.y + panel.height, dpi)) - safe - side;
    let _ = write!(out, "<g class=\"qr\"><rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{side:.1}\" height=\"{side:.1}\" fill=\"#fff\"/><path fill=\"#000\" d=\"");
    let colors = code.to_colors();
    for row in 0..modules {
        let mut col = 0;
        while col < modules {
            if colors[row * modules + col] == qrcode::Color::Dark {
                let start = col;
                while col < modules && colors[row * modules + col] == qrcode::Color::Dark {
                    col += 1;
                }
                let _ = write!(
                    out,
                    "M{:.2} {:.2}h{:.2}v{:.2}h-{:.2}z",
                    x0 + (start + 4) as f64 * unit,
                    y0 + (row + 4) as f64 * unit,
                    (col - start) as f64 * unit,
                    unit,
                    (col - start) as f64 * unit
                );
            } else {
                col += 1;
            }
        }
    }
    out.push_str("\"/></g>");
}

fn draw_decal(
    out: &mut String,
    d: &DecalPlacement,
    title: Option<&Title>,
    images: &Images,
    tw: f64,
    th: f64,
    bleed: f64,
) {
    let Some(svg) = decal_svg(&d.source, title, images) else { return };
    let Some((_, vw, vh)) = inner(&svg) else { return };
    let natural_w = d.width.map(|w| tw * w / 100.0).unwrap_or(vw / 2.0) * d.scale;
    let w = natural_w * d.stretch;
    let h = natural_w * vh / vw;
    let (cx, cy) = (bleed + tw * d.x / 100.0, bleed + th * d.y / 100.0);
    let filter = match (d.colorize, &d.color) {
        ("solid", Some(c)) | ("tint", Some(c)) => format!(" fill=\"{c}\" style=\"fill:{c}\""),
        _ => String::new(),
    };
    place(out, &svg, (cx - w / 2.0, cy - h / 2.0, w, h), true, &filter);
}

fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width.max(10) {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{Builtin, ContentProvider};
    use crate::intent::{parse, ContentType};
    use serde_json::json;

    #[test]
    fn a_design_draws_its_art_texts_and_decals_at_export_size() {
        let (intent, _) = parse(&json!({ "format": "dvd-cover", "decals": [{ "id": "stickers/new", "x": 90, "y": 10, "width": 10 }],
            "texts": [{ "text": "<Restored>", "x": 75, "y": 90, "size": 3 }], "style": { "background": { "color": "#123456" } } }))
        .unwrap();
        let title = &Builtin.search(ContentType::Movie, "Metropolis").unwrap()[0];
        let format = crate::formats::find("dvd-cover").unwrap();
        let svg = render(&format, &intent, Some(title), &Images::new(), 600, Guides { show: true });
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 6600 4463\""),
            "{}",
            &svg[..120]
        );
        assert!(svg.contains("fill=\"#123456\""));
        assert!(svg.contains("METROPOLIS") && svg.contains(">Metropolis<"), "poster art and title text");
        assert!(svg.contains("&lt;Restored&gt;"), "texts are escaped");
        assert!(svg.contains(">NEW<"), "the decal");
        assert!(svg.contains("stroke=\"#e63946\""), "trim guide");
        let clean = render(&format, &intent, Some(title), &Images::new(), 600, Guides { show: false });
        assert!(!clean.contains("stroke=\"#e63946\""));
    }

    #[test]
    fn tapered_flaps_cut_the_sheet_and_albums_get_a_qr_code() {
        let album = &Builtin.search(ContentType::Album, "Midnight Static").unwrap()[0];
        let (intent, _) = parse(&json!({ "format": "jcard", "layout": { "flap": "tapered" } })).unwrap();
        let svg = render(&intent.format().unwrap(), &intent, Some(album), &Images::new(), 600, Guides { show: true });
        assert!(svg.contains("<clipPath id=\"outline\"><polygon points=\""), "the outline clips the art");
        assert!(svg.contains("<polygon points=\"75.0,193.0 "), "the trim guide follows the taper (118 px at 600 DPI)");
        assert!(svg.contains("class=\"qr\""));
        let (hidden, _) =
            parse(&json!({ "format": "jcard", "layout": { "hide": ["qr"] }, "style": { "finish": "plain" } })).unwrap();
        let svg = render(&intent.format().unwrap(), &hidden, Some(album), &Images::new(), 600, Guides { show: false });
        assert!(!svg.contains("class=\"qr\"") && !svg.contains("finish-worn"));
        let (cd, _) = parse(&json!({ "format": "cd" })).unwrap();
        let svg = render(&cd.format().unwrap(), &cd, Some(album), &Images::new(), 600, Guides { show: false });
        assert!(!svg.contains("finish-worn"), "finishes are for video formats and the J-card");
    }

    #[test]
    fn video_backs_carry_credits_and_the_overrides_replace_them() {
        let title = &Builtin.search(ContentType::Movie, "Metropolis").unwrap()[0];
        let format = crate::formats::find("dvd-cover").unwrap();
        let (plain, _) = parse(&json!({ "format": "dvd-cover" })).unwrap();
        let svg = render(&format, &plain, Some(title), &Images::new(), 72, Guides { show: false });
        for text in [
            ">Directed by Fritz Lang<",
            "Starring Brigitte Helm",
            "1927 · 153 min · science fiction, drama",
            ">The city of the future<",
        ] {
            assert!(svg.contains(text), "{text}");
        }
        let (changed, _) =
            parse(&json!({ "format": "dvd-cover", "director": "Somebody Else", "rating": "PG", "studio": "Our Studio",
            "layout": { "hide": ["tagline", "runtime"] } }))
            .unwrap();
        let svg = render(&format, &changed, Some(title), &Images::new(), 72, Guides { show: false });
        assert!(svg.contains(">Directed by Somebody Else<") && svg.contains(">PG<") && svg.contains(">Our Studio<"));
        assert!(!svg.contains("The city of the future") && !svg.contains("153 min"));
    }

    #[test]
    fn albums_split_their_tracks_over_two_sides() {
        let (intent, _) = parse(&json!({ "format": "jcard" })).unwrap();
        let album = &Builtin.search(ContentType::Album, "Midnight Static").unwrap()[0];
        let svg = render(
            &crate::formats::find("jcard").unwrap(),
            &intent,
            Some(album),
            &Images::new(),
            600,
            Guides { show: false },
        );
        let a = svg.find("SIDE A").unwrap();
        let b = svg.find("SIDE B").unwrap();
        let fifth = svg.find("Tracking Error").unwrap();
        assert!(a < b && b < fifth, "8 tracks: 4 on side A, 4 on side B");
    }
}
