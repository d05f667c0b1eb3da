//! The checksum rules of the Across Lite `.puz` format, written from the format's public
//! description apart from our writer (`crossword_puzzle::puz`), so the fuzz targets can tell
//! whether every file the writer makes would open in Across Lite.
//!
//! Layout: overall checksum (u16 LE) at 0x00, `ACROSS&DOWN\0` at 0x02, header (CIB) checksum
//! at 0x0E, the eight masked checksum bytes at 0x10, version at 0x18, width and height at
//! 0x2C/0x2D, clue count at 0x2E; then the solution and the player grid (width × height bytes
//! each), then NUL-terminated title, author, copyright, the clues, and the notes.

/// The format's running checksum: rotate right by one, add the byte.
fn sum(data: &[u8], seed: u16) -> u16 {
    let mut c = seed;
    for &b in data {
        c = if c & 1 == 1 { (c >> 1) | 0x8000 } else { c >> 1 };
        c = c.wrapping_add(u16::from(b));
    }
    c
}

/// Checks every checksum of a `.puz` file; `Err` says which rule fails.
pub fn verify(file: &[u8]) -> Result<(), String> {
    if file.len() < 0x34 || &file[0x02..0x0E] != b"ACROSS&DOWN\0" {
        return Err("no header".into());
    }
    let u16_at = |i: usize| u16::from_le_bytes([file[i], file[i + 1]]);
    let (w, h) = (usize::from(file[0x2C]), usize::from(file[0x2D]));
    let clue_count = usize::from(u16_at(0x2E));
    let cells = w * h;
    let body = 0x34;
    if file.len() < body + 2 * cells {
        return Err("shorter than its grids".into());
    }
    let solution = &file[body..body + cells];
    let player = &file[body + cells..body + 2 * cells];
    // NUL-terminated strings: title, author, copyright, clues, notes.
    let mut strings: Vec<&[u8]> = Vec::new();
    let mut at = body + 2 * cells;
    for _ in 0..3 + clue_count + 1 {
        let end = file[at..].iter().position(|&b| b == 0).ok_or("a string without its NUL")? + at;
        strings.push(&file[at..end]);
        at = end + 1;
    }
    let (title, author, copyright) = (strings[0], strings[1], strings[2]);
    let clues = &strings[3..3 + clue_count];
    let notes = strings[3 + clue_count];
    let texts = |seed: u16| {
        let mut c = seed;
        for s in [title, author, copyright] {
            if !s.is_empty() {
                c = sum(s, c);
                c = sum(&[0], c);
            }
        }
        for clue in clues {
            c = sum(clue, c);
        }
        if !notes.is_empty() {
            c = sum(notes, c);
            c = sum(&[0], c);
        }
        c
    };
    let cib = sum(&file[0x2C..0x34], 0);
    if u16_at(0x0E) != cib {
        return Err(format!("header checksum {:04x}, expected {cib:04x}", u16_at(0x0E)));
    }
    let overall = texts(sum(player, sum(solution, cib)));
    if u16_at(0x00) != overall {
        return Err(format!("file checksum {:04x}, expected {overall:04x}", u16_at(0x00)));
    }
    let parts = [cib, sum(solution, 0), sum(player, 0), texts(0)];
    let low = b"ICHE";
    let high = b"ATED";
    for (i, part) in parts.iter().enumerate() {
        let [lo, hi] = part.to_le_bytes();
        if file[0x10 + i] != low[i] ^ lo || file[0x14 + i] != high[i] ^ hi {
            return Err(format!("masked checksum {i} is wrong"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flipped_byte_is_caught() {
        let en = crossword_lang::Language::english();
        let grid = crossword_fill::Grid::parse(en, &["CAT", "ODE", "WET"]).unwrap();
        let clues: crossword_puzzle::Clues = serde_json::from_value(serde_json::json!({
            "across": { "1": "Pet", "4": "Poem", "5": "Damp" },
            "down": { "1": "Milk source", "2": "Citrus drink", "3": "Vietnamese new year" }
        }))
        .unwrap();
        let sheet = crossword_puzzle::Sheet { language: en, title: "T", author: "A", grid, clues: &clues, writeup: "" };
        let file = crossword_puzzle::puz::write(&sheet, "notes").unwrap();
        assert_eq!(verify(&file), Ok(()));
        for at in [0x00, 0x0E, 0x10, 0x17, 0x34, 0x3D, file.len() - 3] {
            let mut bad = file.clone();
            bad[at] ^= 0x20;
            assert!(verify(&bad).is_err(), "a change at {at:#x} passes");
        }
    }
}
