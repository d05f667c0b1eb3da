//! Raster output: a design's SVG drawn with resvg into PNG, either at a fraction of its size (the
//! preview) or at full resolution with its DPI recorded (`pHYs`) and sRGB declared (`sRGB`),
//! encoded row by row.
//!
//! Images are never fetched: an `<image>` that points at a file or an address draws nothing
//! (only the service's own stores will feed images, in later parts).

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{self, ImageHrefResolver};

/// Why a render failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError(pub String);

/// Parses the SVG with file and network images refused.
/// Only the embedded fonts are used.
pub fn tree(svg: &str) -> Result<usvg::Tree, RenderError> {
    let options = usvg::Options {
        resources_dir: None,
        fontdb: crate::fonts::database(),
        image_href_resolver: ImageHrefResolver {
            resolve_data: ImageHrefResolver::default_data_resolver(),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    usvg::Tree::from_str(svg, &options).map_err(|e| RenderError(format!("the design's SVG: {e}")))
}

/// Draws the SVG scaled by `scale` (1.0: its own pixel size).
pub fn draw(svg: &str, scale: f32) -> Result<Pixmap, RenderError> {
    let tree = tree(svg)?;
    let size = tree.size();
    let (w, h) = ((size.width() * scale).round().max(1.0) as u32, (size.height() * scale).round().max(1.0) as u32);
    let mut pixmap = Pixmap::new(w, h).ok_or_else(|| RenderError(format!("cannot allocate {w} x {h} pixels")))?;
    resvg::render(&tree, Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    Ok(pixmap)
}

/// The preview PNG of a scene's SVG drawn at 72 px per inch: scaled to `width` px, with the
/// resolution that scale gives recorded in `pHYs`.
pub fn preview_png(svg: &str, width: f32) -> Result<Vec<u8>, RenderError> {
    let natural = svg
        .split("width=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|w| w.parse::<f32>().ok())
        .unwrap_or(1.0);
    let pixmap = draw(svg, width / natural)?;
    png(&pixmap, (72.0 * width / natural).round() as u32)
}

/// Encodes a pixmap as PNG (8-bit RGBA, straight alpha) with its resolution in `pHYs` and an
/// `sRGB` chunk, writing one row at a time.
pub fn png(pixmap: &Pixmap, dpi: u32) -> Result<Vec<u8>, RenderError> {
    let fail = |e: png::EncodingError| RenderError(format!("PNG: {e}"));
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let per_metre = (f64::from(dpi) / 0.0254).round() as u32;
    encoder.set_pixel_dims(Some(png::PixelDimensions { xppu: per_metre, yppu: per_metre, unit: png::Unit::Meter }));
    let mut writer = encoder.write_header().map_err(fail)?;
    {
        let mut stream = writer.stream_writer().map_err(fail)?;
        let mut row = vec![0u8; pixmap.width() as usize * 4];
        for y in 0..pixmap.height() {
            for x in 0..pixmap.width() {
                let c = pixmap
                    .pixel(x, y)
                    .map(|p| p.demultiply())
                    .unwrap_or_else(|| resvg::tiny_skia::ColorU8::from_rgba(0, 0, 0, 0));
                let i = x as usize * 4;
                row[i..i + 4].copy_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
            }
            std::io::Write::write_all(&mut stream, &row).map_err(|e| RenderError(format!("PNG: {e}")))?;
        }
        stream.finish().map_err(fail)?;
    }
    writer.finish().map_err(fail)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pngs_carry_their_resolution_and_colour_space() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 60 30\" width=\"60\" height=\"30\"><rect width=\"60\" height=\"30\" fill=\"#ff0000\"/><image href=\"/etc/passwd\" width=\"10\" height=\"10\"/></svg>";
        let pixmap = draw(svg, 2.0).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (120, 60));
        let bytes = png(&pixmap, 600).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let reader = decoder.read_info().unwrap();
        let info = reader.info();
        assert_eq!((info.width, info.height), (120, 60));
        assert_eq!(info.pixel_dims.map(|d| (d.xppu, d.unit)), Some((23_622, png::Unit::Meter)), "600 DPI");
        assert!(info.srgb.is_some());
    }
}
