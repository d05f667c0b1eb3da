//! wordfreq's frequency lists (PyPI `wordfreq`, data CC BY-SA 4.0), read from the wheel.
//!
//! Each list is gzip-compressed MessagePack: `[header, bin0, bin1, ...]` where bin `i` holds
//! the words whose frequency is `10^(-i/100)`, i.e. Zipf value `(900 - i) / 100`.

use std::io::Read;
use std::path::Path;

use ahash::AHashMap;
use anyhow::{bail, Context, Result};

use super::msgpack::Reader;

/// The wheel's contents we use.
pub struct Wheel {
    archive: zip::ZipArchive<std::fs::File>,
}

impl Wheel {
    /// Opens the wheel found in a pip download folder.
    pub fn open(dir: &Path) -> Result<Wheel> {
        let whl = crate::fetch::find_with_suffix(dir, ".whl")?;
        let file = std::fs::File::open(&whl)?;
        Ok(Wheel { archive: zip::ZipArchive::new(file).with_context(|| format!("reading {}", whl.display()))? })
    }

    /// The raw bytes of `wordfreq/data/NAME`.
    pub fn data_file(&mut self, name: &str) -> Result<Vec<u8>> {
        let path = format!("wordfreq/data/{name}");
        let mut entry = self.archive.by_name(&path).with_context(|| format!("{path} not in the wordfreq wheel"))?;
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// A frequency list (`large_en`, `small_hi`, ...) as (word, Zipf) pairs.
    pub fn frequency_list(&mut self, stem: &str) -> Result<Vec<(String, f32)>> {
        let packed = self.data_file(&format!("{stem}.msgpack.gz"))?;
        parse_cbpack(&gunzip(&packed)?)
    }

    /// The Traditional-to-Simplified character map wordfreq uses for Chinese.
    pub fn chinese_mapping(&mut self) -> Result<AHashMap<char, char>> {
        let bytes = gunzip(&self.data_file("_chinese_mapping.msgpack.gz")?)?;
        let mut r = Reader::new(&bytes);
        let mut map = AHashMap::new();
        for _ in 0..r.map_len()? {
            let from = r.uint_value()?;
            let to = r.str()?;
            if let (Some(f), Some(t)) = (char::from_u32(from as u32), to.chars().next()) {
                map.insert(f, t);
            }
        }
        Ok(map)
    }
}

/// Decompresses gzip bytes.
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// Parses a cBpack list.
pub fn parse_cbpack(bytes: &[u8]) -> Result<Vec<(String, f32)>> {
    let mut r = Reader::new(bytes);
    let n = r.array_len()?;
    if n == 0 {
        bail!("empty cBpack");
    }
    r.skip()?; // header {"format": "cB", "version": 1}
    let mut words = Vec::new();
    for bin in 0..n - 1 {
        let zipf = (900 - bin as i32) as f32 / 100.0;
        for _ in 0..r.array_len()? {
            words.push((r.str()?.to_owned(), zipf));
        }
    }
    Ok(words)
}
