//! The little of HTTP/1.1 the service's own clients need (the loopback admin client and the
//! clue generator's model-server client): decoding a chunked body.

/// Decodes a chunked HTTP/1.1 body; `None` when malformed or cut short.
pub fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size..)?.strip_prefix(b"\r\n")?;
    }
}

#[cfg(test)]
mod tests {
    use super::dechunk;

    #[test]
    fn chunks_are_joined_and_malformed_bodies_refused() {
        assert_eq!(dechunk(b"4\r\nWiki\r\n5;x=1\r\npedia\r\n0\r\n\r\n").unwrap(), b"Wikipedia");
        assert!(dechunk(b"zz\r\n").is_none());
        assert!(dechunk(b"10\r\nshort").is_none());
    }
}
