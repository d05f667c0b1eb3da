//! Print-ready PDF: the design's SVG drawn as vectors with krilla (texts as real text in the
//! embedded fonts, subset), on a page that is the design itself or a paper size, with the
//! TrimBox (the finished piece) and BleedBox (trim plus bleed) set, and optional crop and fold
//! marks in the slug around the bleed, drawn in the registration colour.
//!
//! We promise "print-ready" (fonts embedded, boxes set, sRGB), not PDF/X: the artwork keeps its
//! RGB colours and transparency, which print shops that take PDF/X-4 or RGB files accept.

use krilla::color::{rgb, separation};
use krilla::geom::{PathBuilder, Point, Rect, Size, Transform};
use krilla::page::PageSettings;
use krilla::paint::{LineCap, Stroke, StrokeDash};
use krilla::{metadata::Metadata, Document};
use krilla_svg::{SurfaceExt, SvgSettings};

use crate::formats::{Fold, Format};
use crate::raster::{tree, RenderError};

/// Points per millimetre.
const PT_PER_MM: f32 = 72.0 / 25.4;
/// Crop marks start this far from the trim (at least the bleed, as print guides ask).
const MARK_OFFSET_MM: f32 = 3.175;
/// Crop and fold marks are this long.
const MARK_LENGTH_MM: f32 = 6.0;
/// Hairline width of the marks, points.
const MARK_WIDTH_PT: f32 = 0.25;

/// The page the design is printed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Paper {
    /// The page is the design with its bleed (and the slug for marks, when they are on).
    Fit,
    /// ISO A4, 210 × 297 mm.
    A4,
    /// US Letter, 8.5 × 11 in.
    Letter,
    /// US Tabloid, 11 × 17 in.
    Tabloid,
    /// ISO A3, 297 × 420 mm.
    A3,
}

impl Paper {
    /// Every paper, by the name the API uses.
    pub const ALL: [(&'static str, Paper); 5] = [
        ("fit", Paper::Fit),
        ("a4", Paper::A4),
        ("letter", Paper::Letter),
        ("tabloid", Paper::Tabloid),
        ("a3", Paper::A3),
    ];

    /// The paper with this name (`a4`, `letter`, …, any case).
    pub fn named(name: &str) -> Option<Paper> {
        Paper::ALL.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, p)| *p)
    }

    /// Portrait width and height in mm (`None` for `Fit`).
    pub fn size_mm(self) -> Option<(f32, f32)> {
        match self {
            Paper::Fit => None,
            Paper::A4 => Some((210.0, 297.0)),
            Paper::Letter => Some((215.9, 279.4)),
            Paper::Tabloid => Some((279.4, 431.8)),
            Paper::A3 => Some((297.0, 420.0)),
        }
    }
}

/// How to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfOptions {
    /// The page.
    pub paper: Paper,
    /// Keep the bleed around the trim (off: the art stops at the trim).
    pub bleed: bool,
    /// Crop marks at the trim's corners.
    pub crop_marks: bool,
    /// Short dashed marks at the ends of every fold.
    pub fold_marks: bool,
}

impl Default for PdfOptions {
    fn default() -> Self {
        PdfOptions { paper: Paper::Fit, bleed: true, crop_marks: true, fold_marks: true }
    }
}

/// Where the trimmed piece sits on the page, in points from the page's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Page width and height.
    pub page: (f32, f32),
    /// The trim rectangle: x, y, width, height.
    pub trim: (f32, f32, f32, f32),
    /// Bleed beyond the trim on every side (0 when the bleed is off).
    pub bleed: f32,
}

/// Works out the page and where the design sits on it; `Err` when it does not fit the paper.
pub fn placement(format: &Format, options: &PdfOptions) -> Result<Placement, RenderError> {
    let (tw, th) = (format.width_mm as f32, format.height_mm as f32);
    let bleed = if options.bleed { format.bleed_mm as f32 } else { 0.0 };
    let marks = options.crop_marks || options.fold_marks;
    // Room around the trim: the bleed, and the marks beyond it with 1 mm to spare.
    let slug = if marks { (MARK_OFFSET_MM + MARK_LENGTH_MM + 1.0).max(bleed) } else { bleed };
    let (need_w, need_h) = (tw + 2.0 * slug, th + 2.0 * slug);
    let (pw, ph) = match options.paper.size_mm() {
        None => (need_w, need_h),
        Some((w, h)) => {
            if need_w <= w && need_h <= h {
                (w, h)
            } else if need_w <= h && need_h <= w {
                (h, w)
            } else {
                let name = Paper::ALL.iter().find(|(_, p)| *p == options.paper).map_or("", |(n, _)| n);
                return Err(RenderError(format!(
                    "the {} ({need_w:.0} × {need_h:.0} mm with bleed and marks) does not fit on {name}; choose a larger paper or fit",
                    format.name
                )));
            }
        }
    };
    let (x, y) = ((pw - tw) / 2.0, (ph - th) / 2.0);
    Ok(Placement {
        page: (pw * PT_PER_MM, ph * PT_PER_MM),
        trim: (x * PT_PER_MM, y * PT_PER_MM, tw * PT_PER_MM, th * PT_PER_MM),
        bleed: bleed * PT_PER_MM,
    })
}

fn rect(x: f32, y: f32, w: f32, h: f32) -> Result<Rect, RenderError> {
    Rect::from_xywh(x, y, w, h).ok_or_else(|| RenderError(format!("empty rectangle {w} × {h}")))
}

/// Renders the design's SVG (drawn by [`crate::scene::render`] with its bleed, at any DPI) as a
/// one-page PDF.
pub fn pdf(svg: &str, format: &Format, title: &str, options: &PdfOptions) -> Result<Vec<u8>, RenderError> {
    let tree = tree(svg)?;
    let place = placement(format, options)?;
    let (tx, ty, tw, th) = place.trim;
    let full_bleed = format.bleed_mm as f32 * PT_PER_MM;
    let b = place.bleed;
    let page_size = Size::from_wh(place.page.0, place.page.1).ok_or_else(|| RenderError("empty page".into()))?;
    let settings = PageSettings::new(page_size).with_trim_box(Some(rect(tx, ty, tw, th)?)).with_bleed_box(Some(rect(
        tx - b,
        ty - b,
        tw + 2.0 * b,
        th + 2.0 * b,
    )?));
    let mut document = Document::new();
    document.set_metadata(
        Metadata::new()
            .title(title.to_owned())
            .creator("covers (print file)".to_owned())
            .producer(format!("covers {}", env!("CARGO_PKG_VERSION"))),
    );
    {
        let mut page = document.start_page_with(settings);
        let mut surface = page.surface();
        // The art: the whole sheet with its bleed, clipped to the bleed that is kept.
        let mut clip = PathBuilder::new();
        clip.push_rect(rect(tx - b, ty - b, tw + 2.0 * b, th + 2.0 * b)?);
        let clip = clip.finish().ok_or_else(|| RenderError("clip path".into()))?;
        surface.push_clip_path(&clip, &krilla::paint::FillRule::NonZero);
        surface.push_transform(&Transform::from_translate(tx - full_bleed, ty - full_bleed));
        let sheet = Size::from_wh(tw + 2.0 * full_bleed, th + 2.0 * full_bleed)
            .ok_or_else(|| RenderError("empty sheet".into()))?;
        surface
            .draw_svg(&tree, sheet, SvgSettings { embed_text: true, filter_scale: 2.0 })
            .ok_or_else(|| RenderError("the design could not be drawn as PDF".into()))?;
        surface.pop();
        surface.pop();
        let registration = separation::Color::new(
            255,
            separation::SeparationSpace::new(separation::SeparationColorant::AllColorants, rgb::Color::black().into()),
        );
        let stroke = |dash: Option<StrokeDash>| Stroke {
            paint: krilla::color::Color::from(registration.clone()).into(),
            width: MARK_WIDTH_PT,
            line_cap: LineCap::Butt,
            dash,
            ..Stroke::default()
        };
        let (off, len) = (MARK_OFFSET_MM * PT_PER_MM, MARK_LENGTH_MM * PT_PER_MM);
        let mut lines: Vec<(Point, Point)> = Vec::new();
        if options.crop_marks {
            for (cx, sx) in [(tx, -1.0), (tx + tw, 1.0)] {
                for (cy, sy) in [(ty, -1.0), (ty + th, 1.0)] {
                    // One horizontal and one vertical mark per corner, pointing away from the art.
                    lines.push((Point::from_xy(cx + sx * off, cy), Point::from_xy(cx + sx * (off + len), cy)));
                    lines.push((Point::from_xy(cx, cy + sy * off), Point::from_xy(cx, cy + sy * (off + len))));
                }
            }
        }
        if !lines.is_empty() {
            surface.set_fill(None);
            surface.set_stroke(Some(stroke(None)));
            draw_lines(&mut surface, &lines)?;
        }
        if options.fold_marks {
            let mut folds: Vec<(Point, Point)> = Vec::new();
            for f in &format.folds {
                match *f {
                    Fold::Vertical(x) => {
                        let x = tx + x as f32 * PT_PER_MM;
                        folds.push((Point::from_xy(x, ty - off), Point::from_xy(x, ty - off - len)));
                        folds.push((Point::from_xy(x, ty + th + off), Point::from_xy(x, ty + th + off + len)));
                    }
                    Fold::Horizontal(y) => {
                        let y = ty + y as f32 * PT_PER_MM;
                        folds.push((Point::from_xy(tx - off, y), Point::from_xy(tx - off - len, y)));
                        folds.push((Point::from_xy(tx + tw + off, y), Point::from_xy(tx + tw + off + len, y)));
                    }
                }
            }
            if !folds.is_empty() {
                surface.set_fill(None);
                surface.set_stroke(Some(stroke(Some(StrokeDash { array: vec![2.0, 1.5], offset: 0.0 }))));
                draw_lines(&mut surface, &folds)?;
            }
        }
        surface.finish();
        page.finish();
    }
    document.finish().map_err(|e| RenderError(format!("PDF: {e:?}")))
}

fn draw_lines(surface: &mut krilla::surface::Surface<'_>, lines: &[(Point, Point)]) -> Result<(), RenderError> {
    let mut path = PathBuilder::new();
    for (a, b) in lines {
        path.move_to(a.x, a.y);
        path.line_to(b.x, b.y);
    }
    let path = path.finish().ok_or_else(|| RenderError("mark path".into()))?;
    surface.draw_path(&path);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::find;

    #[test]
    fn pages_fit_the_design_or_the_paper() {
        let dvd = find("dvd-cover").unwrap();
        let fit = placement(&dvd, &PdfOptions::default()).unwrap();
        // 273.05 mm trim + 2 × (3.175 + 6 + 1) mm slug = 293.4 mm = 831.6 pt.
        assert!((fit.page.0 - 831.65).abs() < 0.5, "{:?}", fit.page);
        let a4 = placement(&dvd, &PdfOptions { paper: Paper::A4, ..PdfOptions::default() }).unwrap();
        assert!(a4.page.0 > a4.page.1, "the DVD wrap goes landscape on A4");
        let vinyl = find("vinyl").unwrap();
        let err = placement(&vinyl, &PdfOptions { paper: Paper::Letter, ..PdfOptions::default() }).unwrap_err();
        assert!(err.0.contains("does not fit on letter"), "{}", err.0);
        let bare =
            placement(&dvd, &PdfOptions { bleed: false, crop_marks: false, fold_marks: false, paper: Paper::Fit })
                .unwrap();
        assert!((bare.page.0 - 273.05 * PT_PER_MM).abs() < 0.1 && bare.bleed == 0.0);
        assert_eq!(Paper::named("A3"), Some(Paper::A3));
    }
}
