//! One printable PDF page: title, author, the grid (blank, or filled in for the answer key),
//! both clue lists under headings in the puzzle's language, and the credit line, on US Letter
//! or A4. Fonts are embedded as subsets (CID-keyed TrueType, `Identity-H`, with a `ToUnicode`
//! map) from the [`FontBook`], so every script of our languages prints (Devanagari, CJK,
//! Hebrew and Arabic included). Every line of text is also marked with its logical text
//! (`ActualText`), so copying and text extraction give the words in reading order.
//!
//! Layout: the grid at the top, then the clues flowing through three columns. When they do not
//! fit, the grid and the type shrink step by step (type from 9 pt down to 5 pt) until they do;
//! a puzzle that does not fit even then is refused rather than cut.

use std::collections::BTreeMap;
use std::io::Write;

use crossword_fill::{Direction, Square};
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use crate::fonts::{FontBook, GlyphRun};
use crate::labels::labels;
use crate::model::{entries, missing_clues, Entry};
use crate::{FormatError, Sheet};

/// Paper size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    /// US Letter, 8.5 x 11 in.
    Letter,
    /// ISO A4, 210 x 297 mm.
    A4,
}

impl Paper {
    /// Width and height in points.
    pub fn size(self) -> (f32, f32) {
        match self {
            Paper::Letter => (612.0, 792.0),
            Paper::A4 => (595.28, 841.89),
        }
    }
}

/// Why a PDF could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfError {
    /// The puzzle cannot be printed (incomplete grid, missing clues, too much text).
    Puzzle(FormatError),
    /// No installed font has this character (the server lacks a font package).
    NoFont(char),
}

impl From<FormatError> for PdfError {
    fn from(e: FormatError) -> PdfError {
        PdfError::Puzzle(e)
    }
}

const MARGIN: f32 = 36.0;
const GAP: f32 = 14.0;
const COLUMNS: usize = 3;

/// A line of text placed on the page.
struct TextLine {
    runs: Vec<GlyphRun>,
    /// Left end of the line and its baseline.
    x: f32,
    y: f32,
    size: f32,
    /// The logical text, for `ActualText`.
    text: String,
}

/// Everything drawn on the page.
#[derive(Default)]
struct Page {
    lines: Vec<TextLine>,
    /// Filled black rectangles (x, y, w, h).
    blocks: Vec<[f32; 4]>,
    /// Outlined cells.
    cells: Vec<[f32; 4]>,
}

struct Typesetter<'f> {
    fonts: &'f FontBook,
    rtl: bool,
}

impl Typesetter<'_> {
    fn shape(&self, text: &str, bold: bool) -> Result<Vec<GlyphRun>, PdfError> {
        self.fonts.shape(text, bold, self.rtl).map_err(PdfError::NoFont)
    }

    fn width(&self, text: &str, bold: bool, size: f32) -> Result<f32, PdfError> {
        Ok(FontBook::width(&self.shape(text, bold)?) * size)
    }

    /// Places `text` with its left end at `x` (or its right end at `x`, when `right`).
    fn place(
        &self,
        page: &mut Page,
        text: &str,
        bold: bool,
        size: f32,
        (x, y): (f32, f32),
        right: bool,
    ) -> Result<f32, PdfError> {
        let runs = self.shape(text, bold)?;
        let w = FontBook::width(&runs) * size;
        let left = if right { x - w } else { x };
        page.lines.push(TextLine { runs, x: left, y, size, text: text.to_owned() });
        Ok(w)
    }

    /// Breaks `text` into lines no wider than `width`: at spaces, and between any two
    /// characters for Chinese and Japanese (no spaces between words).
    fn wrap(&self, text: &str, size: f32, width: f32, by_char: bool) -> Result<Vec<String>, PdfError> {
        let tokens: Vec<String> = if by_char {
            text.chars().map(String::from).collect()
        } else {
            text.split(' ').map(str::to_owned).collect()
        };
        let joiner = if by_char { "" } else { " " };
        let mut lines: Vec<String> = Vec::new();
        let mut current = String::new();
        for token in tokens {
            let candidate = if current.is_empty() { token.clone() } else { format!("{current}{joiner}{token}") };
            if current.is_empty() || self.width(&candidate, false, size)? <= width {
                current = candidate;
            } else {
                lines.push(std::mem::take(&mut current));
                current = token;
            }
        }
        if !current.is_empty() || lines.is_empty() {
            lines.push(current);
        }
        Ok(lines)
    }
}

/// Writes the page. Needs a complete grid and a clue for every answer.
pub fn write(
    sheet: &Sheet<'_>,
    credit: &str,
    fonts: &FontBook,
    paper: Paper,
    solution: bool,
) -> Result<Vec<u8>, PdfError> {
    let n = sheet.grid.size();
    if let Some(i) = sheet.grid.squares().iter().position(|s| *s == Square::Empty) {
        return Err(FormatError::new(
            "grid",
            format!("row {}, column {} is empty; a printed puzzle needs a complete grid", i / n, i % n),
        )
        .into());
    }
    let all = entries(sheet.language, &sheet.grid);
    let missing = missing_clues(&all, sheet.clues);
    if !missing.is_empty() {
        let mut e =
            FormatError::new("clues", format!("every answer needs a clue to print; missing: {}", missing.join(", ")));
        e.missing_clues = missing;
        return Err(e.into());
    }
    if fonts.files.is_empty() {
        return Err(PdfError::NoFont('A'));
    }
    let spec = sheet.language.spec();
    let ts = Typesetter { fonts, rtl: spec.rtl };
    let (pw, ph) = paper.size();
    let width = pw - 2.0 * MARGIN;
    for attempt in 0..24 {
        let size = (9.0 - 0.25 * attempt as f32).max(5.0);
        let grid_share = (0.52 - 0.015 * attempt as f32).max(0.3);
        if let Some(page) = layout(sheet, &all, credit, &ts, (pw, ph), width, size, grid_share, solution)? {
            return render(sheet, fonts, page, (pw, ph));
        }
    }
    Err(FormatError::new("clues", "the clues are too long to print on one page").into())
}

#[allow(clippy::too_many_arguments)]
fn layout(
    sheet: &Sheet<'_>,
    all: &[Entry],
    credit: &str,
    ts: &Typesetter<'_>,
    (pw, ph): (f32, f32),
    width: f32,
    size: f32,
    grid_share: f32,
    solution: bool,
) -> Result<Option<Page>, PdfError> {
    let spec = sheet.language.spec();
    let rtl = spec.rtl;
    let mut page = Page::default();
    let start = |w: f32| if rtl { pw - MARGIN - w } else { MARGIN };
    // Title, author, credit.
    let mut y = ph - MARGIN - 16.0;
    let tw = ts.width(sheet.title, true, 16.0)?;
    ts.place(&mut page, sheet.title, true, 16.0, (start(tw), y), false)?;
    if !sheet.author.is_empty() {
        y -= 14.0;
        let aw = ts.width(sheet.author, false, 10.0)?;
        ts.place(&mut page, sheet.author, false, 10.0, (start(aw), y), false)?;
    }
    let top = y - 12.0;
    let bottom = MARGIN + 12.0;
    ts.place(&mut page, credit, false, 7.0, (MARGIN, MARGIN), false)?;
    // The grid.
    let n = sheet.grid.size();
    let side = (width.min((top - bottom) * grid_share)).min(n as f32 * 30.0);
    let cell = side / n as f32;
    let x0 = MARGIN + (width - side) / 2.0;
    let mut numbers = vec![0u32; n * n];
    for e in all {
        numbers[e.cells[0]] = e.number;
    }
    for r in 0..n {
        for c in 0..n {
            let shown = if rtl { n - 1 - c } else { c };
            let (x, y) = (x0 + shown as f32 * cell, top - (r + 1) as f32 * cell);
            match sheet.grid.square(r, c) {
                Square::Block => {
                    if !spec.criss_cross_only {
                        page.blocks.push([x, y, cell, cell]);
                    }
                }
                square => {
                    page.cells.push([x, y, cell, cell]);
                    let number = numbers[r * n + c];
                    if number > 0 {
                        // In the reading corner: top left, or top right for right-to-left.
                        let s = (cell * 0.3).min(8.0);
                        let (nx, from_right) = if rtl { (x + cell - 1.2, true) } else { (x + 1.2, false) };
                        ts.place(&mut page, &number.to_string(), false, s, (nx, y + cell - s), from_right)?;
                    }
                    if let (true, Square::Letter(l)) = (solution, square) {
                        let s = cell * 0.55;
                        let lw = ts.width(l, false, s)?;
                        ts.place(&mut page, l, false, s, (x + (cell - lw) / 2.0, y + cell * 0.25), false)?;
                    }
                }
            }
        }
    }
    // The clues, in three columns below the grid.
    let heads = labels(sheet.language);
    let col_w = (width - GAP * (COLUMNS - 1) as f32) / COLUMNS as f32;
    let clue_top = top - side - GAP;
    let line_h = size * 1.25;
    let by_char = matches!(sheet.language.code(), "zh" | "ja");
    let label_w = ts.width("000", true, size)? + 2.0;
    let (mut column, mut y) = (0usize, clue_top);
    let col_x = |column: usize| {
        let left = MARGIN + column as f32 * (col_w + GAP);
        if rtl {
            pw - left - col_w
        } else {
            left
        }
    };
    for (direction, head) in [(Direction::Across, heads.across), (Direction::Down, heads.down)] {
        // A heading and at least the first clue start a column together.
        let mut blocks: Vec<(Option<String>, Vec<String>)> = vec![(None, vec![head.to_owned()])];
        for e in all.iter().filter(|e| e.direction == direction) {
            let text = sheet.clues.text(direction, e.number).unwrap_or("");
            blocks.push((Some(e.number.to_string()), ts.wrap(text, size, col_w - label_w, by_char)?));
        }
        for (number, lines) in &blocks {
            let height = if number.is_none() { size * 1.6 + line_h } else { lines.len() as f32 * line_h };
            if y - height < bottom {
                column += 1;
                y = clue_top;
                if column >= COLUMNS {
                    return Ok(None);
                }
            }
            let x = col_x(column);
            match number {
                None => {
                    y -= size * 1.3;
                    let hw = ts.width(&lines[0], true, size * 1.1)?;
                    let hx = if rtl { x + col_w - hw } else { x };
                    ts.place(&mut page, &lines[0], true, size * 1.1, (hx, y), false)?;
                    y -= size * 0.3;
                }
                Some(number) => {
                    for (k, line) in lines.iter().enumerate() {
                        y -= line_h;
                        if k == 0 {
                            let nx = if rtl { x + col_w } else { x };
                            ts.place(&mut page, number, true, size, (nx, y), rtl)?;
                        }
                        let tx = if rtl { x + col_w - label_w } else { x + label_w };
                        ts.place(&mut page, line, false, size, (tx, y), rtl)?;
                    }
                }
            }
        }
    }
    Ok(Some(page))
}

/// A subset tag for a font name (six capitals from the glyph set, as PDF subsets are named).
fn subset_tag(font: usize, glyphs: &[u16]) -> String {
    let mut h: u32 = 2_166_136_261 ^ font as u32;
    for g in glyphs {
        h = (h ^ u32::from(*g)).wrapping_mul(16_777_619);
    }
    (0..6).map(|i| char::from(b'A' + ((h >> (i * 5)) % 26) as u8)).collect()
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

fn render(sheet: &Sheet<'_>, fonts: &FontBook, page: Page, (pw, ph): (f32, f32)) -> Result<Vec<u8>, PdfError> {
    // The glyphs each face needs, and the text each glyph shows (for ToUnicode).
    let mut used: BTreeMap<usize, BTreeMap<u16, String>> = BTreeMap::new();
    for line in &page.lines {
        for run in &line.runs {
            let entry = used.entry(run.font).or_default();
            let mut clusters: Vec<usize> = run.glyphs.iter().map(|g| g.cluster).collect();
            clusters.sort_unstable();
            clusters.dedup();
            for g in &run.glyphs {
                let next = clusters.iter().find(|&&c| c > g.cluster).copied().unwrap_or(run.text.len());
                let text = run.text.get(g.cluster..next).unwrap_or("").to_owned();
                entry.entry(g.id).or_insert(text);
            }
        }
    }
    let mut pdf = Pdf::new();
    let mut next = 1;
    let mut alloc = || {
        let r = Ref::new(next);
        next += 1;
        r
    };
    let (catalog, pages_id, page_id, content_id, info_id) = (alloc(), alloc(), alloc(), alloc(), alloc());
    struct Embedded {
        name: Vec<u8>,
        type0: Ref,
        remapper: subsetter::GlyphRemapper,
    }
    let mut embedded: BTreeMap<usize, Embedded> = BTreeMap::new();
    for (&font, glyphs) in &used {
        let (type0, cid, descriptor, file, cmap) = (alloc(), alloc(), alloc(), alloc(), alloc());
        let ids: Vec<u16> = glyphs.keys().copied().collect();
        let remapper = subsetter::GlyphRemapper::new_from_glyphs_sorted(&ids);
        let data = subsetter::subset(&fonts.files[font].data, 0, &remapper)
            .map_err(|e| PdfError::Puzzle(FormatError::new("format", format!("font subsetting failed: {e:?}"))))?;
        let base = format!("{}+{}", subset_tag(font, &ids), fonts.files[font].name.trim_end_matches(".ttf"));
        let base = base.into_bytes();
        let system = SystemInfo { registry: Str(b"Adobe"), ordering: Str(b"Identity"), supplement: 0 };
        pdf.type0_font(type0)
            .base_font(Name(&base))
            .encoding_predefined(Name(b"Identity-H"))
            .descendant_font(cid)
            .to_unicode(cmap);
        let mut widths: Vec<f32> = vec![0.0; usize::from(remapper.num_gids())];
        for &old in &ids {
            if let Some(new) = remapper.get(old) {
                widths[usize::from(new)] = fonts.glyph_advance(font, old) * 1000.0;
            }
        }
        let mut cid_font = pdf.cid_font(cid);
        cid_font
            .subtype(CidFontType::Type2)
            .base_font(Name(&base))
            .system_info(system)
            .font_descriptor(descriptor)
            .default_width(0.0)
            .cid_to_gid_map_predefined(Name(b"Identity"));
        cid_font.widths().consecutive(0, widths);
        cid_font.finish();
        let (ascent, descent, bbox) = fonts.metrics(font);
        pdf.font_descriptor(descriptor)
            .name(Name(&base))
            .flags(FontFlags::SYMBOLIC)
            .bbox(Rect::new(bbox[0] * 1000.0, bbox[1] * 1000.0, bbox[2] * 1000.0, bbox[3] * 1000.0))
            .italic_angle(0.0)
            .ascent(ascent * 1000.0)
            .descent(descent * 1000.0)
            .cap_height(ascent * 700.0)
            .stem_v(80.0)
            .font_file2(file);
        let compressed = deflate(&data);
        pdf.stream(file, &compressed).filter(Filter::FlateDecode).pair(Name(b"Length1"), data.len() as i32);
        let mut map = UnicodeCmap::new(Name(b"Custom"), system);
        for (old, text) in glyphs {
            if let (Some(new), false) = (remapper.get(*old), text.is_empty()) {
                map.pair_with_multiple(new, text.chars());
            }
        }
        let map = map.finish();
        pdf.stream(cmap, map.as_slice());
        embedded.insert(font, Embedded { name: format!("F{font}").into_bytes(), type0, remapper });
    }

    let mut content = Content::new();
    content.set_fill_gray(0.0);
    for [x, y, w, h] in &page.blocks {
        content.rect(*x, *y, *w, *h);
    }
    content.fill_nonzero();
    content.set_line_width(0.6);
    content.set_stroke_gray(0.0);
    for [x, y, w, h] in &page.cells {
        content.rect(*x, *y, *w, *h);
    }
    content.stroke();
    let rtl = sheet.language.spec().rtl;
    for line in &page.lines {
        // Right-to-left lines are left to the reader's own reordering of their glyphs (laid out
        // right to left, each mapped to its text); an ActualText there would be reversed again.
        if rtl {
            content.begin_marked_content(Name(b"Span"));
        } else {
            content.begin_marked_content_with_properties(Name(b"Span")).properties().actual_text(TextStr(&line.text));
        }
        content.begin_text();
        let mut pen = line.x;
        for run in &line.runs {
            let Some(font) = embedded.get(&run.font) else { continue };
            content.set_font(Name(&font.name), line.size);
            for g in &run.glyphs {
                let cid = font.remapper.get(g.id).unwrap_or(0);
                let (gx, gy) = (pen + g.x_offset * line.size, line.y + g.y_offset * line.size);
                content.set_text_matrix([1.0, 0.0, 0.0, 1.0, gx, gy]);
                content.show(Str(&cid.to_be_bytes()));
                pen += g.advance * line.size;
            }
        }
        content.end_text();
        content.end_marked_content();
    }
    let stream = deflate(&content.finish());
    pdf.stream(content_id, &stream).filter(Filter::FlateDecode);

    pdf.catalog(catalog).pages(pages_id);
    pdf.pages(pages_id).kids([page_id]).count(1);
    let mut p = pdf.page(page_id);
    p.media_box(Rect::new(0.0, 0.0, pw, ph)).parent(pages_id).contents(content_id);
    let mut resources = p.resources();
    let mut font_dict = resources.fonts();
    for font in embedded.values() {
        font_dict.pair(Name(&font.name), font.type0);
    }
    font_dict.finish();
    resources.finish();
    p.finish();
    pdf.document_info(info_id)
        .title(TextStr(sheet.title))
        .author(TextStr(sheet.author))
        .creator(TextStr("crossword construction service"));
    Ok(pdf.finish())
}
