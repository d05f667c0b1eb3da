//! The printable formats: one [`Format`] per slug, in millimetres of the trimmed (finished)
//! sheet, and [`Format::geometry`] in pixels at a resolution.
//!
//! Coordinates start at the trimmed sheet's top-left corner; x grows to the right, y down.
//! Panels are named as a designer thinks of them (`back`, `spine`, `front`, `flap`); folds are
//! the lines the sheet is folded along. The bleed extends the artwork beyond the trim on every
//! side; the safe area keeps text that far inside the trim. `docs/covers/formats.md` gives the
//! source of every number and the choices made where sources disagree.

use serde::Serialize;
use serde_json::{json, Value};

/// Resolution of the print files.
pub const EXPORT_DPI: u32 = 600;

/// Video covers (movies and shows) or audio covers (albums).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Movies and shows: the full text, style, layout and image surface.
    Video,
    /// Albums: cover art, tracklist and QR code from the album alone.
    Audio,
}

/// The outline of the printed piece.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Shape {
    /// A rectangle (the trim).
    Rectangle,
    /// A disc label: a circle of the sheet's width with a centre hole.
    Disc {
        /// Diameter of the centre hole, mm.
        #[serde(rename = "holeMm")]
        hole_mm: f64,
    },
    /// A rectangle whose left panel (the J-card's flap) has its top and bottom edges cut at a
    /// slant, `taper_mm` shorter at the outer edge on each side.
    #[serde(rename = "taperedFlap")]
    TaperedFlap {
        /// Width of the flap, mm.
        #[serde(rename = "flapMm")]
        flap_mm: f64,
        /// How much shorter the outer edge is at the top and at the bottom, mm.
        #[serde(rename = "taperMm")]
        taper_mm: f64,
    },
}

/// A named region of the sheet, in mm from the trimmed sheet's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Panel {
    /// `front`, `back`, `spine`, `flap`, ...
    pub name: &'static str,
    /// Left edge, mm.
    pub x: f64,
    /// Top edge, mm.
    pub y: f64,
    /// Width, mm.
    pub width: f64,
    /// Height, mm.
    pub height: f64,
}

/// A fold line: vertical at `x` mm or horizontal at `y` mm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fold {
    /// A vertical line at this x, mm.
    Vertical(f64),
    /// A horizontal line at this y, mm.
    Horizontal(f64),
}

/// A printable format.
#[derive(Debug, Clone, PartialEq)]
pub struct Format {
    /// The slug (`dvd-cover`).
    pub slug: &'static str,
    /// Its name for people.
    pub name: &'static str,
    /// Video or audio.
    pub kind: Kind,
    /// Trimmed width, mm.
    pub width_mm: f64,
    /// Trimmed height, mm.
    pub height_mm: f64,
    /// Bleed on every side, mm.
    pub bleed_mm: f64,
    /// Safe margin inside the trim, mm.
    pub safe_mm: f64,
    /// Outline.
    pub shape: Shape,
    /// Panels, left to right.
    pub panels: Vec<Panel>,
    /// Fold lines.
    pub folds: Vec<Fold>,
}

/// Millimetres from inches.
fn inch(i: f64) -> f64 {
    i * 25.4
}

/// Millimetres from pixels at 600 DPI (for templates published in pixels).
fn px600(p: f64) -> f64 {
    p * 25.4 / 600.0
}

/// The production bleed: 1/8 in (3.175 mm).
const BLEED: f64 = 3.175;
/// Text at least this far inside the trim.
const SAFE: f64 = 4.0;

/// Panels side by side, full height, from `(name, width)` pairs; folds between them.
fn row(height: f64, parts: &[(&'static str, f64)]) -> (f64, Vec<Panel>, Vec<Fold>) {
    let mut x = 0.0;
    let mut panels = Vec::new();
    let mut folds = Vec::new();
    for (i, (name, width)) in parts.iter().enumerate() {
        if i > 0 {
            folds.push(Fold::Vertical(x));
        }
        panels.push(Panel { name, x, y: 0.0, width: *width, height });
        x += width;
    }
    (x, panels, folds)
}

fn wrap(slug: &'static str, name: &'static str, kind: Kind, height: f64, parts: &[(&'static str, f64)]) -> Format {
    let (width, panels, folds) = row(height, parts);
    Format {
        slug,
        name,
        kind,
        width_mm: width,
        height_mm: height,
        bleed_mm: BLEED,
        safe_mm: SAFE,
        shape: Shape::Rectangle,
        panels,
        folds,
    }
}

/// Every format in its default variant, in the order the catalogue lists them.
pub fn catalogue() -> Vec<Format> {
    CATALOGUE.iter().filter_map(|slug| find(slug)).collect()
}

/// The slugs, in catalogue order: video first, then audio.
pub const CATALOGUE: [&str; 11] = [
    "slipcover",
    "dvd-cover",
    "bluray-cover",
    "vinyl",
    "cd-insert",
    "cd-tray",
    "cd",
    "jcard",
    "cassette",
    "cassingle",
    "minidisc-jcard",
];

/// The J-card's panel widths in pixels at 600 DPI, left to right: flap, spine, front, then the
/// inside panels of 4- to 8-panel cards, each a little narrower so the folded card nests.
const JCARD_PANELS_PX: [f64; 8] = [638.0, 300.0, 1537.0, 1500.0, 1462.0, 1426.0, 1387.0, 1350.0];

/// The J-card's flap styles and their widths in pixels at 600 DPI (`tapered` is the standard
/// width with its top and bottom edges cut at a slant).
pub const FLAPS: [(&str, f64); 4] = [("standard", 638.0), ("short", 378.0), ("extended", 1537.0), ("tapered", 638.0)];

/// How much the tapered flap's outer edge is cut at top and bottom, mm.
pub const TAPER_MM: f64 = 5.0;

/// The format with this slug in its default variant.
pub fn find(slug: &str) -> Option<Format> {
    find_with(slug, None, None).ok()
}

/// Panel counts a format offers (the first is the default), for formats that have a choice.
pub fn panel_choices(slug: &str) -> Option<std::ops::RangeInclusive<u8>> {
    match slug {
        "cd-insert" => Some(1..=3),
        "jcard" => Some(3..=8),
        _ => None,
    }
}

/// Flap styles a format offers (the first is the default).
pub fn flap_choices(slug: &str) -> Option<Vec<&'static str>> {
    (slug == "jcard").then(|| FLAPS.iter().map(|(name, _)| *name).collect())
}

/// The format with this slug and, where it offers a choice, this many panels and this flap;
/// `Err` names what is wrong.
pub fn find_with(slug: &str, panels: Option<u8>, flap: Option<&str>) -> Result<Format, String> {
    let Some(slug) = CATALOGUE.iter().copied().find(|s| *s == slug) else {
        return Err(format!("no format {slug:?}"));
    };
    let panels = match (panels, panel_choices(slug)) {
        (None, range) => range.map(|r| *r.start()),
        (Some(n), Some(range)) if range.contains(&n) => Some(n),
        (Some(n), Some(range)) => {
            return Err(format!("{slug} has {} to {} panels, not {n}", range.start(), range.end()))
        }
        (Some(_), None) => return Err(format!("{slug} has a fixed panel layout")),
    };
    let flap = match (flap, flap_choices(slug)) {
        (None, _) => None,
        (Some(f), Some(choices)) => match choices.iter().find(|c| **c == f) {
            Some(c) => Some(*c),
            None => return Err(format!("the {slug} flap is one of {}, not {f:?}", choices.join(", "))),
        },
        (Some(_), None) => return Err(format!("{slug} has no flap choice")),
    };
    let dvd_panel = inch(5.094);
    Ok(match slug {
        "slipcover" => wrap(
            slug,
            "VHS slipcover",
            Kind::Video,
            190.0,
            &[("glue", 12.0), ("back", 105.0), ("spine", 27.0), ("front", 105.0), ("spine-right", 27.0)],
        ),
        "dvd-cover" => wrap(
            slug,
            "DVD case wrap",
            Kind::Video,
            inch(7.188),
            &[("back", dvd_panel), ("spine", inch(0.562)), ("front", dvd_panel)],
        ),
        "bluray-cover" => {
            wrap(slug, "Blu-ray case wrap", Kind::Video, 149.0, &[("back", 128.0), ("spine", 14.0), ("front", 128.0)])
        }
        "vinyl" => {
            wrap(slug, "12-inch LP jacket", Kind::Audio, 314.0, &[("back", 314.0), ("spine", 3.0), ("front", 314.0)])
        }
        "cd-insert" => cd_insert(panels.unwrap_or(1)),
        "cd-tray" => wrap(
            slug,
            "CD tray card",
            Kind::Audio,
            117.983,
            &[("spine-left", 6.773), ("back", 137.329), ("spine-right", 6.773)],
        ),
        "cd" => {
            let disc = 118.745;
            Format {
                slug: "cd",
                name: "CD disc label",
                kind: Kind::Audio,
                width_mm: disc,
                height_mm: disc,
                bleed_mm: 0.0,
                safe_mm: (disc - 115.641) / 2.0,
                shape: Shape::Disc { hole_mm: 36.9 },
                panels: vec![Panel { name: "label", x: 0.0, y: 0.0, width: disc, height: disc }],
                folds: Vec::new(),
            }
        }
        "jcard" => jcard(panels.unwrap_or(3), flap.unwrap_or("standard")),
        "cassette" => wrap(slug, "Cassette shell label", Kind::Audio, 41.8, &[("label", 88.6)]),
        "cassingle" => wrap(
            slug,
            "Cassingle O-card",
            Kind::Audio,
            102.0,
            &[("glue", 10.0), ("front", 66.0), ("spine", 13.0), ("back", 66.0), ("spine-right", 13.0)],
        ),
        _ => wrap(slug, "MiniDisc J-card", Kind::Audio, 79.0, &[("flap", 14.0), ("spine", 5.5), ("front", 68.0)]),
    })
}

/// The cassette J-card with 3 to 8 panels and the chosen flap.
fn jcard(panels: u8, flap: &'static str) -> Format {
    const NAMES: [&str; 8] = ["flap", "spine", "front", "inside-1", "inside-2", "inside-3", "inside-4", "inside-5"];
    let flap_px = FLAPS.iter().find(|(name, _)| *name == flap).map_or(638.0, |(_, w)| *w);
    let parts: Vec<(&'static str, f64)> = (0..usize::from(panels))
        .map(|i| (NAMES[i], px600(if i == 0 { flap_px } else { JCARD_PANELS_PX[i] })))
        .collect();
    let mut format = wrap("jcard", "Cassette J-card", Kind::Audio, inch(4.0), &parts);
    if flap == "tapered" {
        format.shape = Shape::TaperedFlap { flap_mm: px600(flap_px), taper_mm: TAPER_MM };
    }
    format
}

/// The CD front insert with 1 to 3 panels (a single front, a folder, or a three-panel folder
/// whose inner flap is narrower so it folds inside).
fn cd_insert(panels: u8) -> Format {
    let h = 120.65;
    match panels {
        2 => wrap("cd-insert", "CD front insert", Kind::Audio, h, &[("inside", 120.65), ("front", 120.65)]),
        3 => {
            let outer = (358.817 - 117.517) / 2.0;
            wrap(
                "cd-insert",
                "CD front insert",
                Kind::Audio,
                h,
                &[("flap", 117.517), ("inside", outer), ("front", outer)],
            )
        }
        _ => wrap("cd-insert", "CD front insert", Kind::Audio, h, &[("front", 120.65)]),
    }
}

/// Pixels of a length in mm at `dpi` (rounded to the nearest pixel).
pub fn px(mm: f64, dpi: u32) -> u32 {
    (mm / 25.4 * f64::from(dpi)).round() as u32
}

impl Format {
    /// A short description for lists: slug, name, kind, printed size.
    pub fn summary(&self) -> Value {
        json!({
            "slug": self.slug,
            "name": self.name,
            "kind": self.kind,
            "widthMm": round2(self.width_mm),
            "heightMm": round2(self.height_mm),
            "widthIn": round3(self.width_mm / 25.4),
            "heightIn": round3(self.height_mm / 25.4),
            "panels": self.panels.len(),
        })
    }

    /// The whole geometry in mm and in pixels at `dpi`: the trim, the bleed, the sheet with
    /// bleed, the safe area, every panel and fold, and the units of intent coordinates.
    pub fn geometry(&self, dpi: u32) -> Value {
        let p = |mm: f64| px(mm, dpi);
        let panels: Vec<Value> = self
            .panels
            .iter()
            .map(|q| {
                json!({
                    "name": q.name,
                    "mm": { "x": round2(q.x), "y": round2(q.y), "width": round2(q.width), "height": round2(q.height) },
                    "px": { "x": p(q.x), "y": p(q.y), "width": p(q.x + q.width) - p(q.x), "height": p(q.y + q.height) - p(q.y) },
                })
            })
            .collect();
        let folds: Vec<Value> = self
            .folds
            .iter()
            .map(|f| match f {
                Fold::Vertical(x) => json!({ "axis": "vertical", "mm": round2(*x), "px": p(*x) }),
                Fold::Horizontal(y) => json!({ "axis": "horizontal", "mm": round2(*y), "px": p(*y) }),
            })
            .collect();
        json!({
            "slug": self.slug,
            "name": self.name,
            "kind": self.kind,
            "dpi": dpi,
            "shape": self.shape,
            "trim": { "widthMm": round2(self.width_mm), "heightMm": round2(self.height_mm), "widthPx": p(self.width_mm), "heightPx": p(self.height_mm) },
            "bleed": { "mm": round3(self.bleed_mm), "px": p(self.bleed_mm) },
            "sheet": { "widthPx": p(self.width_mm) + 2 * p(self.bleed_mm), "heightPx": p(self.height_mm) + 2 * p(self.bleed_mm) },
            "safe": { "mm": round3(self.safe_mm), "px": p(self.safe_mm) },
            "panels": panels,
            "folds": folds,
            "units": {
                "px": "pixels at `dpi`, from the trimmed sheet's top-left corner (the sheet with bleed starts `bleed.px` further out)",
                "coordinates": "intent x and y are percent of the trimmed sheet's width and height, at the element's centre",
                "width": "intent widths are percent of the sheet's width",
                "textSize": "intent text sizes are percent of the sheet's height",
            },
        })
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.01
    }

    #[test]
    fn the_documented_dimensions() {
        // (slug, width mm, height mm, panels), as docs/covers/formats.md gives them.
        let documented = [
            ("slipcover", 276.0, 190.0, 5),
            ("dvd-cover", 273.05, 182.58, 3),
            ("bluray-cover", 270.0, 149.0, 3),
            ("vinyl", 631.0, 314.0, 3),
            ("cd-insert", 120.65, 120.65, 1),
            ("cd-tray", 150.875, 117.983, 3),
            ("cd", 118.745, 118.745, 1),
            ("jcard", 104.775, 101.6, 3),
            ("cassette", 88.6, 41.8, 1),
            ("cassingle", 168.0, 102.0, 5),
            ("minidisc-jcard", 87.5, 79.0, 3),
        ];
        let all = catalogue();
        assert_eq!(all.len(), documented.len());
        for (slug, w, h, n) in documented {
            let f = find(slug).unwrap_or_else(|| panic!("{slug}"));
            assert!(close(f.width_mm, w) && close(f.height_mm, h), "{slug}: {} x {}", f.width_mm, f.height_mm);
            assert_eq!(f.panels.len(), n, "{slug}");
            // Panels tile the sheet without gaps or overlaps, folds sit between them.
            let sum: f64 = f.panels.iter().map(|p| p.width).sum();
            assert!(close(sum, f.width_mm), "{slug}: panels {sum} vs {}", f.width_mm);
            assert_eq!(f.folds.len(), f.panels.len().saturating_sub(1), "{slug}");
        }
        let kinds = |k: Kind| all.iter().filter(|f| f.kind == k).count();
        assert_eq!((kinds(Kind::Video), kinds(Kind::Audio)), (3, 8));
    }

    #[test]
    fn cd_inserts_have_one_to_three_panels() {
        let widths: Vec<f64> = (1..=3).map(|n| find_with("cd-insert", Some(n), None).unwrap().width_mm).collect();
        assert!(close(widths[0], 120.65) && close(widths[1], 241.3) && close(widths[2], 358.817), "{widths:?}");
        assert!(find_with("cd-insert", Some(4), None).is_err());
        assert!(find_with("dvd-cover", Some(2), None).is_err());
        assert!(find_with("betamax", None, None).is_err());
    }

    #[test]
    fn jcards_have_three_to_eight_panels_and_four_flaps() {
        // Tapercraft's reference: 2475 px wide for 3 panels, 9600 px for 8, 4 in high.
        let width_px =
            |n: u8| find_with("jcard", Some(n), None).unwrap().geometry(EXPORT_DPI)["trim"]["widthPx"].clone();
        assert_eq!(width_px(3), 2475);
        assert_eq!(width_px(4), 3975);
        assert_eq!(width_px(8), 9600);
        let eight = find_with("jcard", Some(8), None).unwrap();
        assert_eq!(eight.panels.last().unwrap().name, "inside-5");
        assert!(eight.panels.windows(2).skip(2).all(|w| w[1].width < w[0].width), "inside panels nest");
        let flap = |f: &str| find_with("jcard", None, Some(f)).unwrap();
        assert!(close(flap("short").panels[0].width, 16.002));
        assert!(close(flap("extended").panels[0].width, 65.066));
        assert_eq!(flap("standard").shape, Shape::Rectangle);
        match flap("tapered").shape {
            Shape::TaperedFlap { flap_mm, taper_mm } => assert!(close(flap_mm, 27.009) && close(taper_mm, TAPER_MM)),
            other => panic!("{other:?}"),
        }
        assert!(find_with("jcard", Some(9), None).is_err());
        assert!(find_with("jcard", None, Some("round")).is_err());
        assert!(find_with("cd", None, Some("short")).is_err());
    }

    #[test]
    fn pixels_at_600_dpi() {
        let jcard = find("jcard").unwrap().geometry(EXPORT_DPI);
        assert_eq!((jcard["trim"]["widthPx"].as_u64(), jcard["trim"]["heightPx"].as_u64()), (Some(2475), Some(2400)));
        assert_eq!(jcard["folds"][0]["px"], 638);
        assert_eq!(jcard["folds"][1]["px"], 938);
        let dvd = find("dvd-cover").unwrap().geometry(EXPORT_DPI);
        assert_eq!(dvd["trim"]["widthPx"], 6450, "10.75 in at 600 DPI");
        assert_eq!(dvd["bleed"]["px"], 75, "1/8 in");
        assert_eq!(dvd["sheet"]["widthPx"], 6600);
        let widths: u64 = dvd["panels"].as_array().unwrap().iter().map(|p| p["px"]["width"].as_u64().unwrap()).sum();
        assert_eq!(widths, 6450, "panel pixels add up to the trim");
        assert_eq!(find("cd").unwrap().shape, Shape::Disc { hole_mm: 36.9 });
    }
}
