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

/// Every format, in the order the catalogue lists them.
pub fn catalogue() -> Vec<Format> {
    let dvd_panel = inch(5.094);
    let mut formats = vec![
        wrap(
            "dvd-cover",
            "DVD case wrap",
            Kind::Video,
            inch(7.188),
            &[("back", dvd_panel), ("spine", inch(0.562)), ("front", dvd_panel)],
        ),
        wrap(
            "bluray-cover",
            "Blu-ray case wrap",
            Kind::Video,
            149.0,
            &[("back", 128.0), ("spine", 14.0), ("front", 128.0)],
        ),
        cd_insert(1),
        wrap(
            "cd-tray",
            "CD tray card",
            Kind::Audio,
            117.983,
            &[("spine-left", 6.773), ("back", 137.329), ("spine-right", 6.773)],
        ),
        wrap(
            "jcard",
            "Cassette J-card",
            Kind::Audio,
            px600(2411.0),
            &[("flap", px600(637.5)), ("spine", px600(300.0)), ("front", px600(2472.0 - 937.5))],
        ),
        wrap("cassette", "Cassette shell label", Kind::Audio, 41.8, &[("label", 88.6)]),
    ];
    let disc = 118.745;
    formats.push(Format {
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
    });
    formats
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

/// Panel counts a format offers (first: the default), for formats that have a choice.
pub fn panel_choices(slug: &str) -> Option<std::ops::RangeInclusive<u8>> {
    match slug {
        "cd-insert" => Some(1..=3),
        _ => None,
    }
}

/// The format with this slug (its default panel count).
pub fn find(slug: &str) -> Option<Format> {
    catalogue().into_iter().find(|f| f.slug == slug)
}

/// The format with this slug and, where it offers a choice, this many panels; `Err` names what
/// is wrong.
pub fn find_with(slug: &str, panels: Option<u8>) -> Result<Format, String> {
    let format = find(slug).ok_or_else(|| format!("no format {slug:?}"))?;
    match (panels, panel_choices(slug)) {
        (None, _) => Ok(format),
        (Some(n), Some(range)) if range.contains(&n) => Ok(match slug {
            "cd-insert" => cd_insert(n),
            _ => format,
        }),
        (Some(n), Some(range)) => Err(format!("{slug} has {} to {} panels, not {n}", range.start(), range.end())),
        (Some(_), None) => Err(format!("{slug} has a fixed panel layout")),
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
        // (slug, width mm, height mm), as docs/covers/formats.md gives them.
        let documented = [
            ("dvd-cover", 273.05, 182.58),
            ("bluray-cover", 270.0, 149.0),
            ("cd-insert", 120.65, 120.65),
            ("cd-tray", 150.875, 117.983),
            ("jcard", 104.648, 102.066),
            ("cassette", 88.6, 41.8),
            ("cd", 118.745, 118.745),
        ];
        let all = catalogue();
        assert_eq!(all.len(), documented.len());
        for (slug, w, h) in documented {
            let f = find(slug).unwrap_or_else(|| panic!("{slug}"));
            assert!(close(f.width_mm, w) && close(f.height_mm, h), "{slug}: {} x {}", f.width_mm, f.height_mm);
            // Panels tile the sheet without gaps or overlaps, folds sit between them.
            let sum: f64 = f.panels.iter().map(|p| p.width).sum();
            assert!(close(sum, f.width_mm), "{slug}: panels {sum} vs {}", f.width_mm);
            assert_eq!(f.folds.len(), f.panels.len().saturating_sub(1), "{slug}");
        }
    }

    #[test]
    fn cd_inserts_have_one_to_three_panels() {
        let widths: Vec<f64> = (1..=3).map(|n| find_with("cd-insert", Some(n)).unwrap().width_mm).collect();
        assert!(close(widths[0], 120.65) && close(widths[1], 241.3) && close(widths[2], 358.817), "{widths:?}");
        assert!(find_with("cd-insert", Some(4)).is_err());
        assert!(find_with("dvd-cover", Some(2)).is_err());
        assert!(find_with("betamax", None).is_err());
    }

    #[test]
    fn pixels_at_600_dpi() {
        let jcard = find("jcard").unwrap().geometry(EXPORT_DPI);
        // The published 3-panel J-card template: 2472 x 2411 px, panel edges at 637.5 and 937.5.
        assert_eq!((jcard["trim"]["widthPx"].as_u64(), jcard["trim"]["heightPx"].as_u64()), (Some(2472), Some(2411)));
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
