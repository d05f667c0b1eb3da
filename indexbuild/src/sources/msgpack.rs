//! A minimal MessagePack reader: just the shapes wordfreq's files use (arrays, maps, strings,
//! integers), reading from a byte slice without allocating for the structure.

use anyhow::{bail, Result};

/// A cursor over MessagePack bytes.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Starts reading at the beginning of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.bytes.len() < n {
            bail!("msgpack: unexpected end of data");
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn uint(&mut self, n: usize) -> Result<u64> {
        Ok(self.take(n)?.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64))
    }

    fn marker(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    /// Reads an array header and returns its length.
    pub fn array_len(&mut self) -> Result<usize> {
        Ok(match self.marker()? {
            m @ 0x90..=0x9f => (m & 0x0f) as usize,
            0xdc => self.uint(2)? as usize,
            0xdd => self.uint(4)? as usize,
            m => bail!("msgpack: expected an array, found marker {m:#x}"),
        })
    }

    /// Reads a map header and returns its number of pairs.
    pub fn map_len(&mut self) -> Result<usize> {
        Ok(match self.marker()? {
            m @ 0x80..=0x8f => (m & 0x0f) as usize,
            0xde => self.uint(2)? as usize,
            0xdf => self.uint(4)? as usize,
            m => bail!("msgpack: expected a map, found marker {m:#x}"),
        })
    }

    /// Reads a string.
    pub fn str(&mut self) -> Result<&'a str> {
        let len = match self.marker()? {
            m @ 0xa0..=0xbf => (m & 0x1f) as usize,
            0xd9 => self.uint(1)? as usize,
            0xda => self.uint(2)? as usize,
            0xdb => self.uint(4)? as usize,
            m => bail!("msgpack: expected a string, found marker {m:#x}"),
        };
        Ok(std::str::from_utf8(self.take(len)?)?)
    }

    /// Reads an unsigned integer.
    pub fn uint_value(&mut self) -> Result<u64> {
        Ok(match self.marker()? {
            m @ 0x00..=0x7f => m as u64,
            0xcc => self.uint(1)?,
            0xcd => self.uint(2)?,
            0xce => self.uint(4)?,
            0xcf => self.uint(8)?,
            m => bail!("msgpack: expected an unsigned integer, found marker {m:#x}"),
        })
    }

    /// Skips one value of any supported kind.
    pub fn skip(&mut self) -> Result<()> {
        let m = self.bytes.first().copied().ok_or_else(|| anyhow::anyhow!("msgpack: unexpected end"))?;
        match m {
            0x90..=0x9f | 0xdc | 0xdd => {
                for _ in 0..self.array_len()? {
                    self.skip()?;
                }
            }
            0x80..=0x8f | 0xde | 0xdf => {
                for _ in 0..2 * self.map_len()? {
                    self.skip()?;
                }
            }
            0xa0..=0xbf | 0xd9..=0xdb => {
                self.str()?;
            }
            0x00..=0x7f | 0xcc..=0xcf => {
                self.uint_value()?;
            }
            0xc0 | 0xc2 | 0xc3 => {
                self.take(1)?;
            }
            0xe0..=0xff => {
                self.take(1)?; // negative fixint
            }
            m => bail!("msgpack: unsupported marker {m:#x}"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wordfreq_shapes() {
        // [ {"format": "cB"}, [], ["the", "of"] ]
        let bytes = [
            0x93, 0x81, 0xa6, b'f', b'o', b'r', b'm', b'a', b't', 0xa2, b'c', b'B', 0x90, 0x92, 0xa3, b't', b'h', b'e',
            0xa2, b'o', b'f',
        ];
        let mut r = Reader::new(&bytes);
        assert_eq!(r.array_len().unwrap(), 3);
        r.skip().unwrap();
        assert_eq!(r.array_len().unwrap(), 0);
        assert_eq!(r.array_len().unwrap(), 2);
        assert_eq!(r.str().unwrap(), "the");
        assert_eq!(r.str().unwrap(), "of");
        assert!(r.str().is_err());
    }
}
