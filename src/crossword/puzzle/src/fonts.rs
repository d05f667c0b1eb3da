//! Fonts for printed puzzles: which font files the PDF writer uses, where it finds them, and
//! text shaped into positioned glyphs.
//!
//! Three freely licensed TrueType families cover every script of our languages, tried in this
//! order for each character: DejaVu Sans (Latin, Greek, Cyrillic, Hebrew, Arabic; Debian
//! `fonts-dejavu-core`), Lohit Devanagari (Hindi; `fonts-lohit-deva`, OFL) and Droid Sans
//! Fallback (Chinese, Japanese kana and kanji, Korean Hangul; `fonts-droid-fallback`,
//! Apache-2.0). `indexbuild fonts` fetches them by package name into `indexes/fonts/`; a Debian
//! machine that has the packages installed is also searched. Text is shaped with rustybuzz (a
//! port of HarfBuzz), so Devanagari conjuncts and vowel signs, Arabic joining and right-to-left
//! runs come out as a reader expects.

use std::path::{Path, PathBuf};

use rustybuzz::{Direction, UnicodeBuffer};

/// A font file the writer knows: its file name and where Debian installs it.
#[derive(Debug, Clone, Copy)]
pub struct KnownFont {
    /// File name.
    pub file: &'static str,
    /// The Debian package that ships it.
    pub package: &'static str,
    /// The folder Debian installs it in.
    pub system_dir: &'static str,
}

/// The regular faces, in fallback order.
pub const REGULAR: [KnownFont; 3] = [
    KnownFont { file: "DejaVuSans.ttf", package: "fonts-dejavu-core", system_dir: "/usr/share/fonts/truetype/dejavu" },
    KnownFont {
        file: "Lohit-Devanagari.ttf",
        package: "fonts-lohit-deva",
        system_dir: "/usr/share/fonts/truetype/lohit-devanagari",
    },
    KnownFont {
        file: "DroidSansFallbackFull.ttf",
        package: "fonts-droid-fallback",
        system_dir: "/usr/share/fonts/truetype/droid",
    },
];

/// The bold face for titles and clue numbers (scripts it lacks fall back to the regular faces).
pub const BOLD: KnownFont = KnownFont {
    file: "DejaVuSans-Bold.ttf",
    package: "fonts-dejavu-core",
    system_dir: "/usr/share/fonts/truetype/dejavu",
};

/// One loaded font file.
pub struct FontFile {
    /// The file name (also the base of the PDF font name).
    pub name: &'static str,
    /// The file's bytes.
    pub data: Vec<u8>,
}

/// The fonts found: bold (if any) first, then the regular faces in fallback order.
pub struct FontBook {
    /// Loaded faces; index 0 is the first regular face.
    pub files: Vec<FontFile>,
    /// Index of the bold face in `files`, if found.
    pub bold: Option<usize>,
}

/// Finds `font` in `dir` or in its Debian folder.
fn find(font: &KnownFont, dir: &Path) -> Option<PathBuf> {
    [dir.join(font.file), Path::new(font.system_dir).join(font.file)].into_iter().find(|p| p.is_file())
}

impl FontBook {
    /// Loads every known face found in `dir` (or installed system-wide).
    pub fn load(dir: &Path) -> FontBook {
        let mut files = Vec::new();
        for font in &REGULAR {
            if let Some(data) = find(font, dir).and_then(|p| std::fs::read(p).ok()) {
                if rustybuzz::Face::from_slice(&data, 0).is_some() {
                    files.push(FontFile { name: font.file, data });
                }
            }
        }
        let mut bold = None;
        if let Some(data) = find(&BOLD, dir).and_then(|p| std::fs::read(p).ok()) {
            if rustybuzz::Face::from_slice(&data, 0).is_some() {
                bold = Some(files.len());
                files.push(FontFile { name: BOLD.file, data });
            }
        }
        FontBook { files, bold }
    }

    /// The faces missing from `dir` and the system (their file names), for error messages.
    pub fn missing(dir: &Path) -> Vec<&'static str> {
        REGULAR.iter().chain([&BOLD]).filter(|f| find(f, dir).is_none()).map(|f| f.file).collect()
    }

    fn face(&self, i: usize) -> Option<rustybuzz::Face<'_>> {
        rustybuzz::Face::from_slice(&self.files[i].data, 0)
    }

    /// The face to use for `ch`: the bold one when asked and it has the glyph, else the first
    /// regular face that has it.
    fn covering(&self, ch: char, bold: bool) -> Option<usize> {
        let has = |i: usize| self.face(i).is_some_and(|f| f.glyph_index(ch).is_some());
        if bold {
            if let Some(b) = self.bold.filter(|&b| has(b)) {
                return Some(b);
            }
        }
        (0..self.files.len()).filter(|&i| Some(i) != self.bold).find(|&i| has(i))
    }

    /// Shapes `text` into glyph runs in visual order: the Unicode bidirectional algorithm
    /// (paragraph direction right to left when `rtl`) splits it into directional runs, each cut
    /// where the face changes and shaped in its direction. A character no face has is an
    /// error naming it.
    pub fn shape(&self, text: &str, bold: bool, rtl: bool) -> Result<Vec<GlyphRun>, char> {
        use unicode_bidi::{BidiInfo, Level};
        let info = BidiInfo::new(text, Some(if rtl { Level::rtl() } else { Level::ltr() }));
        let mut out = Vec::new();
        for para in &info.paragraphs {
            let (levels, runs) = info.visual_runs(para, para.range.clone());
            for range in runs {
                let backwards = levels[range.start].is_rtl();
                let mut shaped = Vec::new();
                for (font, run) in self.split_by_face(&text[range], bold)? {
                    shaped.push(self.shape_run(font, run, backwards));
                }
                if backwards {
                    shaped.reverse();
                }
                out.extend(shaped.into_iter().flatten());
            }
        }
        Ok(out)
    }

    /// Cuts text (logical order) into runs of one face; spaces, digits and punctuation stay
    /// with the run they are in when its face has them.
    fn split_by_face(&self, text: &str, bold: bool) -> Result<Vec<(usize, String)>, char> {
        let mut runs: Vec<(usize, String)> = Vec::new();
        for ch in text.chars() {
            let keep = runs.last().is_some_and(|(f, _)| {
                !ch.is_alphabetic() && self.face(*f).is_some_and(|face| face.glyph_index(ch).is_some())
            });
            if keep {
                if let Some((_, s)) = runs.last_mut() {
                    s.push(ch);
                }
                continue;
            }
            let face = if ch.is_control() { runs.last().map(|r| r.0).or(Some(0)) } else { self.covering(ch, bold) };
            let face = face.ok_or(ch)?;
            match runs.last_mut() {
                Some((f, s)) if *f == face => s.push(ch),
                _ => runs.push((face, ch.to_string())),
            }
        }
        Ok(runs)
    }

    fn shape_run(&self, font: usize, run: String, backwards: bool) -> Option<GlyphRun> {
        let face = self.face(font)?;
        let mut buffer = UnicodeBuffer::new();
        buffer.push_str(&run);
        buffer.guess_segment_properties();
        buffer.set_direction(if backwards { Direction::RightToLeft } else { Direction::LeftToRight });
        let shaped = rustybuzz::shape(&face, &[], buffer);
        let em = face.units_per_em() as f32;
        let glyphs = shaped
            .glyph_infos()
            .iter()
            .zip(shaped.glyph_positions())
            .map(|(info, pos)| Glyph {
                id: info.glyph_id as u16,
                advance: pos.x_advance as f32 / em,
                x_offset: pos.x_offset as f32 / em,
                y_offset: pos.y_offset as f32 / em,
                cluster: info.cluster as usize,
            })
            .collect();
        Some(GlyphRun { font, text: run, glyphs })
    }

    /// The advance of shaped runs, in ems.
    pub fn width(runs: &[GlyphRun]) -> f32 {
        runs.iter().flat_map(|r| &r.glyphs).map(|g| g.advance).sum()
    }

    /// The hmtx advance of a glyph, in ems (for the PDF width arrays).
    pub fn glyph_advance(&self, font: usize, glyph: u16) -> f32 {
        self.face(font)
            .and_then(|f| {
                let em = f.units_per_em() as f32;
                f.glyph_hor_advance(rustybuzz::ttf_parser::GlyphId(glyph)).map(|a| f32::from(a) / em)
            })
            .unwrap_or(0.0)
    }

    /// Ascent, descent (negative) and bounding box of a face, in ems.
    pub fn metrics(&self, font: usize) -> (f32, f32, [f32; 4]) {
        match self.face(font) {
            Some(f) => {
                let em = f.units_per_em() as f32;
                let b = f.global_bounding_box();
                (
                    f32::from(f.ascender()) / em,
                    f32::from(f.descender()) / em,
                    [
                        f32::from(b.x_min) / em,
                        f32::from(b.y_min) / em,
                        f32::from(b.x_max) / em,
                        f32::from(b.y_max) / em,
                    ],
                )
            }
            None => (0.8, -0.2, [0.0, -0.2, 1.0, 0.8]),
        }
    }
}

/// One shaped glyph; lengths in ems.
#[derive(Debug, Clone, Copy)]
pub struct Glyph {
    /// Glyph id in its face.
    pub id: u16,
    /// Horizontal advance.
    pub advance: f32,
    /// Offset from the pen position.
    pub x_offset: f32,
    /// Vertical offset from the baseline.
    pub y_offset: f32,
    /// Byte offset in the run's text of the cluster it belongs to.
    pub cluster: usize,
}

/// Glyphs of one face in visual order, with the text they show.
#[derive(Debug, Clone)]
pub struct GlyphRun {
    /// Index of the face in the [`FontBook`].
    pub font: usize,
    /// The run's text (logical order).
    pub text: String,
    /// Glyphs, left to right.
    pub glyphs: Vec<Glyph>,
}
