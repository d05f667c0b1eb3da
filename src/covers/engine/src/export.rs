//! One entry point for every output of a design: the SVG, the preview PNG, the 600 DPI PNG and
//! the print PDF, so the command line, the designer and export jobs render the same way.

use crate::content::Title;
use crate::formats::{Format, EXPORT_DPI};
use crate::intent::Intent;
use crate::pdf::PdfOptions;
use crate::raster::RenderError;
use crate::scene::{self, Guides};

/// Width of preview PNGs, pixels.
pub const PREVIEW_WIDTH: f32 = 1200.0;

/// What to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The design as SVG at 600 DPI user units.
    Svg,
    /// A downscaled PNG of the whole sheet, [`PREVIEW_WIDTH`] pixels wide.
    Preview,
    /// The full-resolution PNG at 600 DPI.
    Png,
    /// The print PDF.
    Pdf(PdfOptions),
}

impl Output {
    /// The output's media type.
    pub fn mime_type(&self) -> &'static str {
        match self {
            Output::Svg => "image/svg+xml",
            Output::Preview | Output::Png => "image/png",
            Output::Pdf(_) => "application/pdf",
        }
    }
}

/// Renders a design.
pub fn render(
    format: &Format,
    intent: &Intent,
    title: Option<&Title>,
    images: &scene::Images,
    output: Output,
) -> Result<Vec<u8>, RenderError> {
    let guides = Guides { show: false };
    Ok(match output {
        Output::Svg => scene::render(format, intent, title, images, EXPORT_DPI, guides).into_bytes(),
        Output::Preview => {
            // 150 DPI draws enough detail for a 1200 px preview of the largest sheet.
            let svg = scene::render(format, intent, title, images, 150, guides);
            crate::raster::preview_png(&svg, PREVIEW_WIDTH)?
        }
        Output::Png => {
            let svg = scene::render(format, intent, title, images, EXPORT_DPI, guides);
            let pixmap = crate::raster::draw(&svg, 1.0)?;
            crate::raster::png(&pixmap, EXPORT_DPI)?
        }
        Output::Pdf(options) => {
            let svg = scene::render(format, intent, title, images, EXPORT_DPI, guides);
            let name = intent
                .name
                .clone()
                .or_else(|| title.map(|t| t.title.to_string()))
                .unwrap_or_else(|| format.name.to_owned());
            crate::pdf::pdf(&svg, format, &name, &options)?
        }
    })
}
