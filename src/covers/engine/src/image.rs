//! Raster images from providers and, later, uploads: what they are and how big, read from their
//! headers without decoding, so a file that lies about its size or would decode into more pixels
//! than [`MAX_PIXELS`] is refused before anything draws it.

use std::fmt::Write;

/// Largest image file accepted, bytes.
pub const MAX_BYTES: usize = 20 * 1024 * 1024;
/// Largest decoded size accepted, pixels (a 10000 × 10000 image; decompression bombs go above).
pub const MAX_PIXELS: u64 = 100_000_000;

/// A PNG or JPEG picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// `image/png` or `image/jpeg`.
    pub mime: &'static str,
    /// Width, px.
    pub width: u32,
    /// Height, px.
    pub height: u32,
    /// The file.
    pub bytes: Vec<u8>,
}

/// Reads a PNG or JPEG's type and size from its header; `Err` says why it is refused.
pub fn read(bytes: Vec<u8>) -> Result<Image, String> {
    if bytes.len() > MAX_BYTES {
        return Err(format!("images are at most {} MB", MAX_BYTES / 1024 / 1024));
    }
    let (mime, width, height) =
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() >= 24 && &bytes[12..16] == b"IHDR" {
            let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
            ("image/png", be(16), be(20))
        } else if bytes.starts_with(&[0xFF, 0xD8]) {
            let (w, h) = jpeg_size(&bytes).ok_or("the JPEG has no frame header")?;
            ("image/jpeg", w, h)
        } else {
            return Err("images are PNG or JPEG".to_owned());
        };
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(format!("{width} × {height} px is outside 1 px to {MAX_PIXELS} pixels"));
    }
    Ok(Image { mime, width, height, bytes })
}

/// The size in a JPEG's start-of-frame segment.
fn jpeg_size(b: &[u8]) -> Option<(u32, u32)> {
    let mut i = 2;
    while i + 9 < b.len() {
        if b[i] != 0xFF {
            return None;
        }
        let marker = b[i + 1];
        let len = usize::from(u16::from_be_bytes([b[i + 2], b[i + 3]]));
        // SOF0 to SOF15, except DHT (C4), JPG (C8) and DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            let h = u16::from_be_bytes([b[i + 5], b[i + 6]]);
            let w = u16::from_be_bytes([b[i + 7], b[i + 8]]);
            return Some((u32::from(w), u32::from(h)));
        }
        i += 2 + len;
    }
    None
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * k) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 (padding optional, whitespace ignored); `None` when it is not base64.
pub fn unbase64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

impl Image {
    /// The picture as an SVG document of its own pixel size, the image inlined as a data URL.
    pub fn svg(&self) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\"><image width=\"{w}\" height=\"{h}\" href=\"data:{};base64,{}\"/></svg>",
            self.mime,
            base64(&self.bytes),
            w = self.width,
            h = self.height
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_give_type_and_size_and_lies_are_refused() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&640u32.to_be_bytes());
        png.extend_from_slice(&480u32.to_be_bytes());
        let image = read(png.clone()).unwrap();
        assert_eq!((image.mime, image.width, image.height), ("image/png", 640, 480));
        let mut bomb = png[..16].to_vec();
        bomb.extend_from_slice(&60_000u32.to_be_bytes());
        bomb.extend_from_slice(&60_000u32.to_be_bytes());
        assert!(read(bomb).unwrap_err().contains("pixels"));
        let jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 1, 0x2C, 2, 0x58, 3, 1, 0x22, 0];
        let image = read(jpeg).unwrap();
        assert_eq!((image.mime, image.width, image.height), ("image/jpeg", 600, 300));
        assert!(read(b"GIF89a".to_vec()).is_err());
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"M"), "TQ==");
        for text in [&b"Man"[..], b"Ma", b"M", b"", b"\x00\xff\x10binary"] {
            assert_eq!(unbase64(&base64(text)).as_deref(), Some(text));
        }
        assert!(unbase64("not*base64").is_none());
        assert!(image.svg().contains("data:image/jpeg;base64,/9j/"));
    }
}
