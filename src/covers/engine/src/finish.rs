//! The finishes, drawn over the artwork as vector shapes so they print sharp at any size:
//!
//! * `worn`: edge wear (pale chips along the trim, larger at the corners), scuffs (short faint
//!   strokes), creases (a pale line beside a dark one, across the sheet) and wear along the
//!   folds, all placed by a pseudo-random sequence from a seed, so one design always wears the
//!   same way and another seed wears differently.
//! * `clean`: a faint diagonal sheen, as of a new glossy print.
//! * `plain`: nothing over the artwork.

use std::fmt::Write;

/// A small deterministic generator (SplitMix64).
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `[lo, hi)`.
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A seed from text (FNV-1a), for designs that name none.
pub fn seed_of(text: &str) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for b in text.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

/// Where to draw: the trim in SVG units and the size of a millimetre.
#[derive(Debug, Clone, Copy)]
pub struct Sheet {
    /// Trim's left and top edge.
    pub x: f64,
    /// Trim's top edge.
    pub y: f64,
    /// Trim width.
    pub width: f64,
    /// Trim height.
    pub height: f64,
    /// SVG units per millimetre.
    pub mm: f64,
}

/// Draws the finish over the artwork; `folds` are vertical fold positions in SVG units.
pub fn overlay(out: &mut String, finish: &str, seed: u32, sheet: Sheet, folds: &[f64]) {
    match finish {
        "worn" => worn(out, seed, sheet, folds),
        "clean" => {
            let _ = write!(
                out,
                "<defs><linearGradient id=\"sheen\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"1\"><stop offset=\"0\" stop-color=\"#fff\" stop-opacity=\"0.10\"/><stop offset=\"0.45\" stop-color=\"#fff\" stop-opacity=\"0\"/><stop offset=\"1\" stop-color=\"#fff\" stop-opacity=\"0.04\"/></linearGradient></defs><rect class=\"finish-clean\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"url(#sheen)\"/>",
                sheet.x, sheet.y, sheet.width, sheet.height
            );
        }
        _ => {}
    }
}

fn worn(out: &mut String, seed: u32, s: Sheet, folds: &[f64]) {
    let mut r = Sequence(u64::from(seed) ^ 0x5EED_C0DE_0000_0000);
    let mm = s.mm;
    out.push_str("<g class=\"finish-worn\">");
    // Edge wear: chips along every edge, about one per 2.5 mm, bigger at the corners.
    let perimeter = 2.0 * (s.width + s.height);
    let chips = (perimeter / (2.5 * mm)) as usize;
    out.push_str("<g fill=\"#f3ece0\">");
    for _ in 0..chips {
        let along = r.range(0.0, perimeter);
        let depth = r.range(-0.8, 1.2) * mm;
        let (cx, cy) = if along < s.width {
            (s.x + along, s.y + depth)
        } else if along < s.width + s.height {
            (s.x + s.width - depth, s.y + along - s.width)
        } else if along < 2.0 * s.width + s.height {
            (s.x + along - s.width - s.height, s.y + s.height - depth)
        } else {
            (s.x + depth, s.y + along - 2.0 * s.width - s.height)
        };
        let radius = r.range(0.15, 0.6) * mm;
        chip(out, &mut r, cx, cy, radius);
    }
    for (cx, cy) in [(s.x, s.y), (s.x + s.width, s.y), (s.x, s.y + s.height), (s.x + s.width, s.y + s.height)] {
        for _ in 0..4 {
            let (dx, dy) = (r.range(-0.8, 0.8) * mm, r.range(-0.8, 0.8) * mm);
            let radius = r.range(0.5, 1.4) * mm;
            chip(out, &mut r, cx + dx, cy + dy, radius);
        }
    }
    out.push_str("</g>");
    // Scuffs: short faint strokes anywhere.
    let scuffs = ((s.width * s.height) / (mm * mm * 450.0)) as usize;
    let _ = write!(out, "<g fill=\"none\" stroke=\"#fff\" stroke-linecap=\"round\">");
    for _ in 0..scuffs.min(400) {
        let (x, y) = (s.x + r.range(0.0, s.width), s.y + r.range(0.0, s.height));
        let (len, angle) = (r.range(4.0, 22.0) * mm, r.range(0.0, std::f64::consts::TAU));
        let bend = r.range(-2.0, 2.0) * mm;
        let (ex, ey) = (x + len * angle.cos(), y + len * angle.sin());
        let _ = write!(
            out,
            "<path d=\"M{x:.1} {y:.1}Q{:.1} {:.1} {ex:.1} {ey:.1}\" stroke-width=\"{:.2}\" stroke-opacity=\"{:.3}\"/>",
            (x + ex) / 2.0 + bend,
            (y + ey) / 2.0 - bend,
            r.range(0.15, 0.5) * mm,
            r.range(0.04, 0.11)
        );
    }
    out.push_str("</g>");
    // Creases: 1 to 3 long lines, a pale edge beside a dark one.
    let creases = 1 + (r.next() % 3) as usize;
    for _ in 0..creases {
        let horizontal = r.next() % 2 == 0;
        let mut points = Vec::new();
        let steps = 8;
        let (start, end) = if horizontal {
            (s.y + r.range(0.1, 0.9) * s.height, s.y + r.range(0.1, 0.9) * s.height)
        } else {
            (s.x + r.range(0.1, 0.9) * s.width, s.x + r.range(0.1, 0.9) * s.width)
        };
        for i in 0..=steps {
            let t = i as f64 / steps as f64;
            let jitter = r.range(-0.6, 0.6) * mm;
            points.push(if horizontal {
                (s.x + t * s.width, start + (end - start) * t + jitter)
            } else {
                (start + (end - start) * t + jitter, s.y + t * s.height)
            });
        }
        let d: String = points
            .iter()
            .enumerate()
            .map(|(i, (x, y))| format!("{}{x:.1} {y:.1}", if i == 0 { "M" } else { "L" }))
            .collect();
        let w = r.range(0.2, 0.45) * mm;
        let (ox, oy) = if horizontal { (0.0, w) } else { (w, 0.0) };
        let _ = write!(
            out,
            "<path d=\"{d}\" fill=\"none\" stroke=\"#fff\" stroke-opacity=\"0.32\" stroke-width=\"{w:.2}\"/><path d=\"{d}\" transform=\"translate({ox:.2} {oy:.2})\" fill=\"none\" stroke=\"#000\" stroke-opacity=\"0.22\" stroke-width=\"{w:.2}\"/>"
        );
    }
    // Folds wear first: a pale line along each.
    for x in folds {
        let _ = write!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#f3ece0\" stroke-opacity=\"0.35\" stroke-width=\"{:.2}\"/>",
            s.y,
            s.y + s.height,
            0.5 * mm
        );
    }
    out.push_str("</g>");
}

/// An irregular pale chip of radius about `radius` around a point.
fn chip(out: &mut String, r: &mut Sequence, cx: f64, cy: f64, radius: f64) {
    let corners = 5 + (r.next() % 3) as usize;
    let _ = write!(out, "<path fill-opacity=\"{:.2}\" d=\"", r.range(0.35, 0.8));
    for i in 0..corners {
        let a = std::f64::consts::TAU * i as f64 / corners as f64 + r.range(-0.3, 0.3);
        let d = radius * r.range(0.5, 1.0);
        let _ = write!(out, "{}{:.1} {:.1}", if i == 0 { "M" } else { "L" }, cx + d * a.cos(), cy + d * a.sin());
    }
    out.push_str("Z\"/>");
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHEET: Sheet = Sheet { x: 10.0, y: 10.0, width: 1000.0, height: 600.0, mm: 10.0 };

    #[test]
    fn wear_follows_its_seed() {
        let draw = |seed| {
            let mut out = String::new();
            overlay(&mut out, "worn", seed, SHEET, &[300.0]);
            out
        };
        assert_eq!(draw(7), draw(7), "one seed, one wear");
        assert_ne!(draw(7), draw(8), "another seed, another wear");
        assert!(draw(7).contains("finish-worn") && draw(7).matches("<path").count() > 100);
        let mut clean = String::new();
        overlay(&mut clean, "clean", 7, SHEET, &[]);
        assert!(clean.contains("finish-clean") && !clean.contains("finish-worn"));
        let mut plain = String::new();
        overlay(&mut plain, "plain", 7, SHEET, &[]);
        assert!(plain.is_empty());
        assert_ne!(seed_of("a"), seed_of("b"));
    }
}
