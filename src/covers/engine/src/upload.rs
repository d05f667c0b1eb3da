//! Uploaded images, made safe: the type is sniffed from the bytes (never trusted from a name or a
//! header), the size read from the header is checked before anything decodes (so a small file
//! that would decode into a huge bitmap is refused), the image is decoded under those limits,
//! then written again from its pixels alone (no metadata: no EXIF, no location, no colour
//! profile, no text chunks), and a small PNG preview is made.

use crate::image::Image;

/// Largest side of an uploaded image, px.
pub const MAX_SIDE: u32 = 12_000;
/// Largest uploaded image, pixels (40 megapixels: 160 MB decoded as RGBA at most).
pub const MAX_PIXELS: u64 = 40_000_000;
/// Longest side of previews, px.
pub const PREVIEW_SIDE: u32 = 320;

/// An upload as kept: the clean image and its preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    /// The image written again (PNG stays PNG, JPEG stays JPEG).
    pub image: Image,
    /// A PNG at most [`PREVIEW_SIDE`] px on its longest side.
    pub preview: Image,
}

/// Sniffs, checks, decodes and writes an uploaded image again; `Err` says why it is refused.
pub fn clean(bytes: &[u8]) -> Result<Cleaned, String> {
    let header = crate::image::read(bytes.to_vec())?;
    let (w, h) = (header.width, header.height);
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(format!(
            "{w} × {h} px is too large (at most {MAX_SIDE} px a side and {} megapixels)",
            MAX_PIXELS / 1_000_000
        ));
    }
    let rgba = match header.mime {
        "image/png" => decode_png(bytes, w, h)?,
        _ => decode_jpeg(bytes, w, h)?,
    };
    let image = match header.mime {
        "image/png" => Image { mime: "image/png", width: w, height: h, bytes: encode_png(&rgba, w, h)? },
        _ => {
            let rgb: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            let mut out = Vec::new();
            let width = u16::try_from(w).map_err(|_| "JPEG wider than 65535 px")?;
            let height = u16::try_from(h).map_err(|_| "JPEG taller than 65535 px")?;
            jpeg_encoder::Encoder::new(&mut out, 90)
                .encode(&rgb, width, height, jpeg_encoder::ColorType::Rgb)
                .map_err(|e| format!("writing the JPEG again: {e}"))?;
            Image { mime: "image/jpeg", width: w, height: h, bytes: out }
        }
    };
    let (pw, ph, small) = shrink(&rgba, w, h, PREVIEW_SIDE);
    let preview = Image { mime: "image/png", width: pw, height: ph, bytes: encode_png(&small, pw, ph)? };
    Ok(Cleaned { image, preview })
}

/// RGBA pixels of a PNG, decoded with a memory limit that fits its declared size.
fn decode_png(bytes: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    let limit = (u64::from(w) * u64::from(h) * 8 + (1 << 20)) as usize;
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: limit });
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| format!("the PNG cannot be read: {e}"))?;
    let size = reader.output_buffer_size().ok_or("the PNG is too large")?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| format!("the PNG cannot be read: {e}"))?;
    buf.truncate(info.buffer_size());
    let pixels = (w * h) as usize;
    Ok(match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|g| [*g, *g, *g, 255]).collect(),
        png::ColorType::Indexed => return Err("the PNG's palette could not be expanded".into()),
    })
    .and_then(
        |v: Vec<u8>| if v.len() == pixels * 4 { Ok(v) } else { Err("the PNG's pixels do not match its size".into()) },
    )
}

/// RGBA pixels of a JPEG; a file cut short is refused.
fn decode_jpeg(bytes: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    // A whole JPEG ends with the end-of-image marker (FF D9), give or take trailing padding.
    let tail = &bytes[bytes.len().saturating_sub(64)..];
    if !tail.windows(2).any(|p| p == [0xFF, 0xD9]) {
        return Err("the JPEG is cut short (no end-of-image marker)".into());
    }
    let options = zune_core::options::DecoderOptions::default()
        .set_max_width(MAX_SIDE as usize)
        .set_max_height(MAX_SIDE as usize)
        .jpeg_set_out_colorspace(zune_core::colorspace::ColorSpace::RGB);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(zune_core::bytestream::ZCursor::new(bytes), options);
    let rgb = decoder.decode().map_err(|e| format!("the JPEG cannot be read: {e:?}"))?;
    if rgb.len() != (w * h * 3) as usize {
        return Err("the JPEG's pixels do not match its size".into());
    }
    Ok(rgb.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect())
}

fn encode_png(rgba: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgba).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The image scaled down (box filter) so its longest side is at most `side`.
fn shrink(rgba: &[u8], w: u32, h: u32, side: u32) -> (u32, u32, Vec<u8>) {
    let scale = (f64::from(side) / f64::from(w.max(h))).min(1.0);
    let (nw, nh) = (((f64::from(w) * scale).round() as u32).max(1), ((f64::from(h) * scale).round() as u32).max(1));
    let mut out = vec![0u8; (nw * nh * 4) as usize];
    for y in 0..nh {
        let (y0, y1) = (y * h / nh, ((y + 1) * h / nh).max(y * h / nh + 1));
        for x in 0..nw {
            let (x0, x1) = (x * w / nw, ((x + 1) * w / nw).max(x * w / nw + 1));
            let mut sum = [0u64; 4];
            for sy in y0..y1 {
                for sx in x0..x1 {
                    let i = ((sy * w + sx) * 4) as usize;
                    for c in 0..4 {
                        sum[c] += u64::from(rgba[i + c]);
                    }
                }
            }
            let n = u64::from((y1 - y0) * (x1 - x0));
            let o = ((y * nw + x) * 4) as usize;
            for c in 0..4 {
                out[o + c] = (sum[c] / n) as u8;
            }
        }
    }
    (nw, nh, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_of(w: u32, h: u32) -> Vec<u8> {
        let rgba: Vec<u8> = (0..w * h).flat_map(|i| [(i % 256) as u8, 40, 90, 255]).collect();
        let mut bytes = encode_png(&rgba, w, h).unwrap();
        // A text chunk with "metadata" before IEND: it must not survive.
        let iend = bytes.len() - 12;
        let mut chunk = Vec::new();
        let data = b"Comment\0secret location";
        chunk.extend_from_slice(&(data.len() as u32).to_be_bytes());
        chunk.extend_from_slice(b"tEXt");
        chunk.extend_from_slice(data);
        chunk.extend_from_slice(&[0, 0, 0, 0]);
        bytes.splice(iend..iend, chunk);
        bytes
    }

    #[test]
    fn uploads_are_cleaned_and_previewed() {
        let cleaned = clean(&png_of(640, 320)).unwrap();
        assert_eq!((cleaned.image.mime, cleaned.image.width, cleaned.image.height), ("image/png", 640, 320));
        assert!(!cleaned.image.bytes.windows(6).any(|w| w == b"secret"), "metadata is dropped");
        assert_eq!((cleaned.preview.width, cleaned.preview.height), (320, 160));
        let rgb: Vec<u8> = vec![200; 64 * 48 * 3];
        let mut jpeg = Vec::new();
        jpeg_encoder::Encoder::new(&mut jpeg, 80).encode(&rgb, 64, 48, jpeg_encoder::ColorType::Rgb).unwrap();
        let cleaned = clean(&jpeg).unwrap();
        assert_eq!((cleaned.image.mime, cleaned.image.width, cleaned.image.height), ("image/jpeg", 64, 48));
        assert!(clean(&jpeg[..jpeg.len() / 2]).unwrap_err().contains("cut short"));
        // A small PNG that claims 20000 × 20000 px is refused before decoding.
        let mut bomb = png_of(8, 8);
        bomb[16..24].copy_from_slice(&[0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20]);
        assert!(clean(&bomb).unwrap_err().contains("too large") || clean(&bomb).unwrap_err().contains("pixels"));
        assert!(clean(b"not an image at all").unwrap_err().contains("PNG or JPEG"));
    }
}
