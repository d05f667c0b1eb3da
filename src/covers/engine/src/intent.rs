//! The compose intent, version 1: one typed model, read field by field from JSON.
//!
//! The contract's rule: an invalid optional field is dropped, never fatal, and reported in
//! `unsupported` with the reason; what was taken is listed in `applied`. Three things are
//! errors instead: a body that is not an object or has another `v`, a missing or unknown
//! `format`, and a catalogue decal id that does not exist (never a blank).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::formats::{self, Format, Kind};

/// Fields a design can hide.
pub const HIDEABLE: [&str; 14] = [
    "poster",
    "title",
    "tagline",
    "productionLogos",
    "synopsis",
    "credits",
    "rating",
    "runtime",
    "year",
    "studio",
    "barcode",
    "spineTitle",
    "tracklist",
    "qr",
];

/// The text overrides of fetched metadata (video formats).
pub const OVERRIDES: [&str; 10] =
    ["title", "tagline", "year", "rating", "runtime", "studio", "synopsis", "director", "starring", "genre"];

/// The finishes.
pub const FINISHES: [&str; 3] = ["worn", "clean", "plain"];
/// How an image fills its slot.
pub const FITS: [&str; 3] = ["fill", "fit", "stretch"];
/// Where a decal sits: under the art, between the art and the texts, or on top.
pub const LAYERS: [&str; 3] = ["background", "under", "over"];
/// How a decal is coloured: as drawn, tinted, or a solid silhouette.
pub const COLORIZE: [&str; 3] = ["none", "tint", "solid"];

/// What the content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentType {
    /// A film.
    Movie,
    /// A television show.
    Tv,
    /// An album.
    Album,
}

/// The title to look up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentQuery {
    /// Movie, show or album.
    #[serde(rename = "type")]
    pub kind: ContentType,
    /// Title text, year recommended.
    pub query: String,
}

/// An image in a slot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageSlot {
    /// `upload:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// `fill` (cover and crop), `fit` (contain) or `stretch`.
    pub fit: &'static str,
}

/// A decal on the sheet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecalPlacement {
    /// A catalogue id, or an upload (`upload:<id>`).
    pub source: String,
    /// Centre, percent of the sheet's width.
    pub x: f64,
    /// Centre, percent of the sheet's height.
    pub y: f64,
    /// Width, percent of the sheet's width (`None`: its natural size).
    pub width: Option<f64>,
    /// Scale factor.
    pub scale: f64,
    /// Horizontal stretch factor.
    pub stretch: f64,
    /// `background`, `under` or `over`.
    pub layer: &'static str,
    /// `none`, `tint` or `solid`.
    pub colorize: &'static str,
    /// Colour for `tint` and `solid`, `#rrggbb`.
    pub color: Option<String>,
}

/// A text on the sheet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextPlacement {
    /// The text; a newline separates lines.
    pub text: String,
    /// Centre, percent of the sheet's width.
    pub x: f64,
    /// Centre, percent of the sheet's height.
    pub y: f64,
    /// Width, percent of the sheet's width (`None`: as wide as the text).
    pub width: Option<f64>,
    /// Size, percent of the sheet's height.
    pub size: f64,
    /// Font weight, 100 to 900.
    pub weight: u16,
    /// `#rrggbb`.
    pub color: String,
    /// Extra space between letters, percent of the size.
    #[serde(rename = "letterSpacing")]
    pub letter_spacing: f64,
}

/// A validated intent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Intent {
    /// Always 1.
    pub v: u8,
    /// The format slug.
    pub format: String,
    /// What to look up.
    pub content: Option<ContentQuery>,
    /// `worn`, `clean` or `plain`.
    pub finish: &'static str,
    /// Background colour.
    pub background: Option<String>,
    /// Label (text) colour.
    #[serde(rename = "labelColor")]
    pub label_color: Option<String>,
    /// Font family (one of [`crate::fonts::FAMILIES`]).
    pub font: Option<String>,
    /// Video formats: draw the title's logo artwork instead of its name as text (`style.logo`,
    /// the link's `logo=1`).
    pub logo: bool,
    /// Seed of the worn finish (`style.seed`); `None`: derived from the design.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u32>,
    /// What the QR code of audio formats encodes (`qr`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qr: Option<String>,
    /// Fields hidden.
    pub hide: Vec<&'static str>,
    /// Panel count, for formats that offer a choice (`layout.panels`).
    #[serde(rename = "panelCount", skip_serializing_if = "Option::is_none")]
    pub panel_count: Option<u8>,
    /// Flap style, for formats that offer a choice (`layout.flap`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flap: Option<&'static str>,
    /// Images by panel name.
    pub panels: BTreeMap<String, ImageSlot>,
    /// A whole-sheet background image.
    #[serde(rename = "backgroundImage")]
    pub background_image: Option<ImageSlot>,
    /// A custom studio logo.
    #[serde(rename = "studioLogo")]
    pub studio_logo: Option<ImageSlot>,
    /// Decals, bottom first within a layer.
    pub decals: Vec<DecalPlacement>,
    /// Texts.
    pub texts: Vec<TextPlacement>,
    /// Text overrides (video formats).
    pub overrides: BTreeMap<&'static str, String>,
    /// Design name.
    pub name: Option<String>,
}

/// A field that was dropped, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unsupported {
    /// The field's path (`decals[2].layer`).
    pub field: String,
    /// Why it was dropped.
    pub reason: String,
}

/// What was applied and what was not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Fields taken, by path.
    pub applied: Vec<String>,
    /// Fields dropped.
    pub unsupported: Vec<Unsupported>,
}

/// Why an intent cannot be composed at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntentError {
    /// The field at fault and why (a 400).
    Invalid {
        /// The field.
        field: String,
        /// Why.
        reason: String,
    },
    /// A catalogue decal that does not exist (a 422).
    UnknownDecal {
        /// The field (`decals[1].id`).
        field: String,
        /// The id asked for.
        id: String,
    },
}

fn invalid(field: &str, reason: impl Into<String>) -> IntentError {
    IntentError::Invalid { field: field.to_owned(), reason: reason.into() }
}

/// `#rrggbb` (the `#` may be left out; case is kept lower).
pub fn hex_color(value: &Value) -> Option<String> {
    let s = value.as_str()?;
    let hex = s.strip_prefix('#').unwrap_or(s);
    (hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then(|| format!("#{}", hex.to_ascii_lowercase()))
}

fn upload_ref(value: &Value) -> Option<String> {
    let s = value.as_str()?;
    let id = s.strip_prefix("upload:")?;
    (!id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
        .then(|| s.to_owned())
}

fn one_of(value: &Value, allowed: &[&'static str]) -> Option<&'static str> {
    let s = value.as_str()?;
    allowed.iter().copied().find(|a| *a == s)
}

impl Intent {
    /// The intent in its canonical v1 form: what [`parse`] reads back into the same intent, so
    /// stored designs keep the request's shape rather than this model's.
    pub fn to_json(&self) -> Value {
        let slot = |s: &ImageSlot| json!({ "ref": s.reference, "fit": s.fit });
        let mut style = Map::new();
        let format = self.format();
        let video = format.as_ref().is_some_and(|f| f.kind == Kind::Video);
        if video || self.format == "jcard" {
            style.insert("finish".into(), self.finish.into());
        }
        if let Some(c) = &self.background {
            style.insert("background".into(), json!({ "color": c }));
        }
        if let Some(c) = &self.label_color {
            style.insert("labelColor".into(), c.clone().into());
        }
        if let Some(f) = &self.font {
            style.insert("font".into(), f.clone().into());
        }
        if self.logo {
            style.insert("logo".into(), true.into());
        }
        if let Some(n) = self.seed {
            style.insert("seed".into(), n.into());
        }
        let mut layout = Map::new();
        if !self.hide.is_empty() {
            layout.insert("hide".into(), json!(self.hide));
        }
        if let Some(n) = self.panel_count {
            layout.insert("panels".into(), n.into());
        }
        if let Some(f) = self.flap {
            layout.insert("flap".into(), f.into());
        }
        let mut images = Map::new();
        if !self.panels.is_empty() {
            images.insert(
                "panels".into(),
                self.panels.iter().map(|(k, v)| (k.clone(), slot(v))).collect::<Map<_, _>>().into(),
            );
        }
        if let Some(b) = &self.background_image {
            images.insert("background".into(), slot(b));
        }
        if let Some(l) = &self.studio_logo {
            images.insert("studioLogo".into(), slot(l));
        }
        let decals: Vec<Value> = self
            .decals
            .iter()
            .map(|d| {
                let mut v = json!({ "x": d.x, "y": d.y, "scale": d.scale, "stretch": d.stretch, "layer": d.layer, "colorize": d.colorize });
                v[if d.source.starts_with("upload:") { "ref" } else { "id" }] = d.source.clone().into();
                if let Some(w) = d.width {
                    v["width"] = w.into();
                }
                if let Some(c) = &d.color {
                    v["color"] = c.clone().into();
                }
                v
            })
            .collect();
        let texts: Vec<Value> = self
            .texts
            .iter()
            .map(|t| {
                let mut v = json!({ "text": t.text, "x": t.x, "y": t.y, "size": t.size, "weight": t.weight, "color": t.color, "letterSpacing": t.letter_spacing });
                if let Some(w) = t.width {
                    v["width"] = w.into();
                }
                v
            })
            .collect();
        let mut out = Map::new();
        out.insert("v".into(), 1.into());
        out.insert("format".into(), self.format.clone().into());
        if let Some(c) = &self.content {
            out.insert("content".into(), json!({ "type": c.kind, "query": c.query }));
        }
        for (key, map) in [("style", style), ("layout", layout), ("images", images)] {
            if !map.is_empty() {
                out.insert(key.into(), map.into());
            }
        }
        if !decals.is_empty() {
            out.insert("decals".into(), decals.into());
        }
        if !texts.is_empty() {
            out.insert("texts".into(), texts.into());
        }
        for (k, v) in &self.overrides {
            out.insert((*k).into(), v.clone().into());
        }
        if let Some(q) = &self.qr {
            out.insert("qr".into(), q.clone().into());
        }
        if let Some(n) = &self.name {
            out.insert("name".into(), n.clone().into());
        }
        Value::Object(out)
    }

    /// The format in the variant the intent chose (panel count, flap).
    pub fn format(&self) -> Option<Format> {
        formats::find_with(&self.format, self.panel_count, self.flap).ok().or_else(|| formats::find(&self.format))
    }
}

/// Reads an intent.
pub fn parse(value: &Value) -> Result<(Intent, Report), IntentError> {
    let body = value.as_object().ok_or_else(|| invalid("body", "the intent must be a JSON object"))?;
    let mut r = Reader { report: Report::default() };
    match body.get("v") {
        None => {}
        Some(v) if v.as_u64() == Some(1) => r.applied("v"),
        Some(_) => return Err(invalid("v", "this service reads intent version 1")),
    }
    let slug = body
        .get("format")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("format", "`format` is required (a slug of GET /api/v1/formats)"))?;
    let mut format = formats::find(slug)
        .ok_or_else(|| invalid("format", format!("no format {slug:?}; GET /api/v1/formats lists them")))?;
    r.applied("format");
    // The layout comes first: the panel count and flap decide which panels the rest may name.
    let (hide, panel_count, flap) = match body.get("layout") {
        Some(layout) => r.layout(layout, format.slug),
        None => (Vec::new(), None, None),
    };
    if let Ok(variant) = formats::find_with(format.slug, panel_count, flap) {
        format = variant;
    }
    let mut intent = Intent {
        v: 1,
        format: format.slug.to_owned(),
        content: None,
        finish: "worn",
        background: None,
        label_color: None,
        font: None,
        logo: false,
        seed: None,
        qr: None,
        hide,
        panel_count,
        flap,
        panels: BTreeMap::new(),
        background_image: None,
        studio_logo: None,
        decals: Vec::new(),
        texts: Vec::new(),
        overrides: BTreeMap::new(),
        name: None,
    };
    for (key, value) in body {
        match key.as_str() {
            "v" | "format" | "layout" => {}
            "content" => intent.content = r.content(value, &format),
            "style" => r.style(value, &format, &mut intent),
            "images" => r.images(value, &format, &mut intent),
            "decals" => intent.decals = r.decals(value)?,
            "texts" => intent.texts = r.texts(value),
            "qr" => match value.as_str().map(str::trim) {
                Some(q) if (1..=300).contains(&q.chars().count()) => {
                    intent.qr = Some(q.to_owned());
                    r.applied("qr");
                }
                _ => r.drop("qr", "the QR code's text is 1 to 300 characters"),
            },
            "name" => match value.as_str().map(str::trim) {
                Some(n) if (1..=120).contains(&n.chars().count()) => {
                    intent.name = Some(n.to_owned());
                    r.applied("name");
                }
                _ => r.drop("name", "a name is 1 to 120 characters"),
            },
            other => match OVERRIDES.iter().copied().find(|o| *o == other) {
                Some(key) => r.override_field(key, value, &format, &mut intent),
                None => r.drop(other, "not a field of intent version 1"),
            },
        }
    }
    Ok((intent, r.report))
}

struct Reader {
    report: Report,
}

impl Reader {
    fn applied(&mut self, field: &str) {
        self.report.applied.push(field.to_owned());
    }

    fn drop(&mut self, field: &str, reason: impl Into<String>) {
        self.report.unsupported.push(Unsupported { field: field.to_owned(), reason: reason.into() });
    }

    fn content(&mut self, value: &Value, format: &Format) -> Option<ContentQuery> {
        let Some(o) = value.as_object() else {
            self.drop("content", "`content` is an object with `type` and `query`");
            return None;
        };
        let default = if format.kind == Kind::Audio { ContentType::Album } else { ContentType::Movie };
        let kind = match o.get("type").and_then(Value::as_str) {
            None => default,
            Some("movie") => ContentType::Movie,
            Some("tv") => ContentType::Tv,
            Some("album") => ContentType::Album,
            Some(other) => {
                self.drop(
                    "content.type",
                    format!(
                        "{other:?} is not movie, tv or album; used {}",
                        if default == ContentType::Album { "album" } else { "movie" }
                    ),
                );
                default
            }
        };
        match o.get("query").and_then(Value::as_str).map(str::trim) {
            Some(q) if (1..=200).contains(&q.chars().count()) => {
                self.applied("content");
                Some(ContentQuery { kind, query: q.to_owned() })
            }
            _ => {
                self.drop("content.query", "the title to search is 1 to 200 characters");
                None
            }
        }
    }

    fn style(&mut self, value: &Value, format: &Format, intent: &mut Intent) {
        let Some(o) = value.as_object() else { return self.drop("style", "`style` is an object") };
        for (key, v) in o {
            let field = format!("style.{key}");
            match key.as_str() {
                "finish" => match one_of(v, &FINISHES) {
                    Some(f) if format.kind == Kind::Video || format.slug == "jcard" => {
                        intent.finish = f;
                        self.applied(&field);
                    }
                    Some(_) => self.drop(&field, "finishes apply to video formats and the J-card"),
                    None => self.drop(&field, "the finish is worn, clean or plain"),
                },
                "background" => match v.get("color").and_then(hex_color) {
                    Some(c) => {
                        intent.background = Some(c);
                        self.applied("style.background.color");
                    }
                    None => self.drop("style.background.color", "a colour is 6 hex digits (#rrggbb)"),
                },
                "logo" => match v.as_bool() {
                    Some(_) if format.kind != Kind::Video => self.drop(&field, "logos apply to video formats"),
                    Some(b) => {
                        intent.logo = b;
                        self.applied(&field);
                    }
                    None => self.drop(&field, "`logo` is true (the title's logo artwork) or false (its name as text)"),
                },
                "seed" => match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
                    Some(n) => {
                        intent.seed = Some(n);
                        self.applied(&field);
                    }
                    None => self.drop(&field, "the seed is a whole number from 0 to 4294967295"),
                },
                "labelColor" => match hex_color(v) {
                    Some(c) => {
                        intent.label_color = Some(c);
                        self.applied(&field);
                    }
                    None => self.drop(&field, "a colour is 6 hex digits (#rrggbb)"),
                },
                "font" => match v.as_str().and_then(crate::fonts::family) {
                    Some(f) => {
                        intent.font = Some(f.name.to_owned());
                        self.applied(&field);
                    }
                    None => self.drop(
                        &field,
                        format!(
                            "the fonts are {}",
                            crate::fonts::FAMILIES.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
                        ),
                    ),
                },
                _ => self.drop(&field, "not a style option"),
            }
        }
    }

    fn layout(&mut self, value: &Value, slug: &str) -> (Vec<&'static str>, Option<u8>, Option<&'static str>) {
        let mut hide = Vec::new();
        let (mut panels, mut flap) = (None, None);
        let Some(o) = value.as_object() else {
            self.drop("layout", "`layout` is an object with `hide`, `panels` and `flap`");
            return (hide, panels, flap);
        };
        for (key, v) in o {
            match key.as_str() {
                "hide" => {
                    let Some(items) = v.as_array() else {
                        self.drop("layout.hide", "`hide` is an array of field names");
                        continue;
                    };
                    for (i, item) in items.iter().enumerate() {
                        match one_of(item, &HIDEABLE) {
                            Some(f) if !hide.contains(&f) => {
                                hide.push(f);
                                self.applied(&format!("layout.hide[{i}]"));
                            }
                            Some(_) => {}
                            None => self.drop(
                                &format!("layout.hide[{i}]"),
                                format!("hideable fields are {}", HIDEABLE.join(", ")),
                            ),
                        }
                    }
                }
                "panels" => match v.as_u64().and_then(|n| u8::try_from(n).ok()) {
                    Some(n) => match formats::find_with(slug, Some(n), None) {
                        Ok(_) => {
                            panels = Some(n);
                            self.applied("layout.panels");
                        }
                        Err(why) => self.drop("layout.panels", why),
                    },
                    None => self.drop("layout.panels", "`panels` is a whole number"),
                },
                "flap" => match v.as_str().map(|f| formats::find_with(slug, None, Some(f))) {
                    Some(Ok(_)) => {
                        flap = formats::FLAPS.iter().map(|(name, _)| *name).find(|name| Some(*name) == v.as_str());
                        self.applied("layout.flap");
                    }
                    Some(Err(why)) => self.drop("layout.flap", why),
                    None => self.drop("layout.flap", "`flap` is a string"),
                },
                other => self.drop(&format!("layout.{other}"), "layout has hide, panels and flap"),
            }
        }
        (hide, panels, flap)
    }

    fn slot(&mut self, field: &str, value: &Value) -> Option<ImageSlot> {
        let Some(reference) = value.get("ref").and_then(upload_ref) else {
            self.drop(field, "an image is { \"ref\": \"upload:<id>\", \"fit\" }");
            return None;
        };
        let fit = match value.get("fit") {
            None => "fill",
            Some(f) => one_of(f, &FITS).unwrap_or_else(|| {
                self.drop(&format!("{field}.fit"), "fit is fill, fit or stretch; used fill");
                "fill"
            }),
        };
        self.applied(field);
        Some(ImageSlot { reference, fit })
    }

    fn images(&mut self, value: &Value, format: &Format, intent: &mut Intent) {
        let Some(o) = value.as_object() else { return self.drop("images", "`images` is an object") };
        for (key, v) in o {
            match key.as_str() {
                "panels" => {
                    let Some(panels) = v.as_object() else {
                        self.drop("images.panels", "a map of panel name to image");
                        continue;
                    };
                    for (panel, slot) in panels {
                        let field = format!("images.panels.{panel}");
                        if !format.panels.iter().any(|p| p.name == panel) {
                            let names: Vec<&str> = format.panels.iter().map(|p| p.name).collect();
                            self.drop(&field, format!("{} has the panels {}", format.slug, names.join(", ")));
                        } else if let Some(s) = self.slot(&field, slot) {
                            intent.panels.insert(panel.clone(), s);
                        }
                    }
                }
                "background" => intent.background_image = self.slot("images.background", v),
                "studioLogo" if format.kind == Kind::Video => intent.studio_logo = self.slot("images.studioLogo", v),
                "studioLogo" => self.drop("images.studioLogo", "studio logos are for video formats"),
                other => self.drop(&format!("images.{other}"), "image fields are panels, background and studioLogo"),
            }
        }
    }

    fn percent(&mut self, o: &Map<String, Value>, field: &str, key: &str, default: f64) -> f64 {
        match o.get(key) {
            None => default,
            Some(v) => match v.as_f64() {
                Some(n) if (0.0..=100.0).contains(&n) => n,
                _ => {
                    self.drop(&format!("{field}.{key}"), format!("a percentage from 0 to 100; used {default}"));
                    default
                }
            },
        }
    }

    /// An optional width, percent of the sheet above 0 and at most 100 (`note` ends the reason
    /// when it is dropped).
    fn width(&mut self, o: &Map<String, Value>, field: &str, note: &str) -> Option<f64> {
        let w = o.get("width")?;
        let n = w.as_f64().filter(|n| *n > 0.0 && *n <= 100.0);
        if n.is_none() {
            self.drop(&format!("{field}.width"), format!("a width is a percentage above 0 and at most 100{note}"));
        }
        n
    }

    fn factor(&mut self, o: &Map<String, Value>, field: &str, key: &str) -> f64 {
        match o.get(key) {
            None => 1.0,
            Some(v) => match v.as_f64() {
                Some(n) if n > 0.0 && n <= 10.0 => n,
                _ => {
                    self.drop(&format!("{field}.{key}"), "a factor above 0 and at most 10; used 1");
                    1.0
                }
            },
        }
    }

    fn decals(&mut self, value: &Value) -> Result<Vec<DecalPlacement>, IntentError> {
        let Some(items) = value.as_array() else {
            self.drop("decals", "`decals` is an array");
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let field = format!("decals[{i}]");
            let Some(o) = item.as_object() else {
                self.drop(&field, "a decal is an object");
                continue;
            };
            let source = match (o.get("id"), o.get("ref")) {
                (Some(id), None) => {
                    let id = id.as_str().unwrap_or("");
                    // Artwork of other providers (`tmdb:poster/19`) is checked against the
                    // composed title by the service; here only its shape.
                    if crate::decals::find(id).is_none()
                        && !crate::content::is_builtin_artwork(id)
                        && !crate::content::is_provider_artwork_id(id)
                    {
                        return Err(IntentError::UnknownDecal { field: format!("{field}.id"), id: id.to_owned() });
                    }
                    id.to_owned()
                }
                (None, Some(r)) => match upload_ref(r) {
                    Some(r) => r,
                    None => {
                        self.drop(&format!("{field}.ref"), "an upload reference is upload:<id>");
                        continue;
                    }
                },
                _ => {
                    self.drop(&field, "a decal has either `id` (catalogue) or `ref` (an upload)");
                    continue;
                }
            };
            let x = self.percent(o, &field, "x", 50.0);
            let y = self.percent(o, &field, "y", 50.0);
            let width = self.width(o, &field, "; used the natural size");
            let scale = self.factor(o, &field, "scale");
            let stretch = self.factor(o, &field, "stretch");
            let layer = match o.get("layer") {
                None => "over",
                Some(l) => one_of(l, &LAYERS).unwrap_or_else(|| {
                    self.drop(&format!("{field}.layer"), "the layer is background, under or over; used over");
                    "over"
                }),
            };
            let colorize = match o.get("colorize") {
                None => "none",
                Some(c) => one_of(c, &COLORIZE).unwrap_or_else(|| {
                    self.drop(&format!("{field}.colorize"), "colorize is none, tint or solid; used none");
                    "none"
                }),
            };
            let color = o.get("color").and_then(|c| {
                let parsed = hex_color(c);
                if parsed.is_none() {
                    self.drop(&format!("{field}.color"), "a colour is 6 hex digits (#rrggbb)");
                }
                parsed
            });
            self.applied(&field);
            out.push(DecalPlacement { source, x, y, width, scale, stretch, layer, colorize, color });
        }
        Ok(out)
    }

    fn texts(&mut self, value: &Value) -> Vec<TextPlacement> {
        let Some(items) = value.as_array() else {
            self.drop("texts", "`texts` is an array");
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let field = format!("texts[{i}]");
            let Some(o) = item.as_object() else {
                self.drop(&field, "a text is an object");
                continue;
            };
            let Some(text) = o.get("text").and_then(Value::as_str).filter(|t| (1..=500).contains(&t.chars().count()))
            else {
                self.drop(&format!("{field}.text"), "a text is 1 to 500 characters");
                continue;
            };
            let x = self.percent(o, &field, "x", 50.0);
            let y = self.percent(o, &field, "y", 50.0);
            let width = self.width(o, &field, "");
            let size = match o.get("size").map(|s| s.as_f64().filter(|n| *n > 0.0 && *n <= 50.0)) {
                None => 4.0,
                Some(Some(n)) => n,
                Some(None) => {
                    self.drop(
                        &format!("{field}.size"),
                        "a size is a percentage of the sheet's height above 0 and at most 50; used 4",
                    );
                    4.0
                }
            };
            let weight = match o.get("weight").map(|w| w.as_u64().filter(|n| (100..=900).contains(n))) {
                None => 400,
                Some(Some(n)) => n as u16,
                Some(None) => {
                    self.drop(&format!("{field}.weight"), "a weight is 100 to 900; used 400");
                    400
                }
            };
            let color = match o.get("color") {
                None => "#ffffff".to_owned(),
                Some(c) => hex_color(c).unwrap_or_else(|| {
                    self.drop(&format!("{field}.color"), "a colour is 6 hex digits (#rrggbb); used white");
                    "#ffffff".to_owned()
                }),
            };
            let letter_spacing =
                match o.get("letterSpacing").map(|l| l.as_f64().filter(|n| (-50.0..=200.0).contains(n))) {
                    None => 0.0,
                    Some(Some(n)) => n,
                    Some(None) => {
                        self.drop(
                            &format!("{field}.letterSpacing"),
                            "letter spacing is -50 to 200 (percent of the size); used 0",
                        );
                        0.0
                    }
                };
            self.applied(&field);
            out.push(TextPlacement { text: text.to_owned(), x, y, width, size, weight, color, letter_spacing });
        }
        out
    }

    fn override_field(&mut self, key: &'static str, value: &Value, format: &Format, intent: &mut Intent) {
        if format.kind != Kind::Video {
            return self.drop(key, "text overrides apply to video formats");
        }
        let text = match value {
            Value::String(t) => t.trim().to_owned(),
            Value::Number(n) => n.to_string(),
            _ => String::new(),
        };
        if (1..=2000).contains(&text.chars().count()) {
            intent.overrides.insert(key, text);
            self.applied(key);
        } else {
            self.drop(key, "an override is text of 1 to 2000 characters");
        }
    }
}

/// The intent's JSON Schema (draft 2020-12), with the formats, text fields, style options,
/// hideable fields and image fields of this service.
pub fn schema() -> Value {
    let formats: Vec<&str> = formats::catalogue().iter().map(|f| f.slug).collect();
    let decal_ids: Vec<String> = crate::decals::catalogue().into_iter().map(|d| d.id).collect();
    let color = json!({ "type": "string", "pattern": "^#?[0-9a-fA-F]{6}$" });
    let percent = json!({ "type": "number", "minimum": 0, "maximum": 100 });
    let image = json!({ "type": "object", "required": ["ref"], "properties": {
        "ref": { "type": "string", "pattern": "^upload:[A-Za-z0-9_-]{1,64}$" },
        "fit": { "enum": FITS, "default": "fill" }
    } });
    let overrides: Map<String, Value> = OVERRIDES
        .iter()
        .map(|k| {
            (
                (*k).to_owned(),
                json!({ "type": ["string", "integer"], "description": "Video formats: replaces the fetched value." }),
            )
        })
        .collect();
    let mut properties = json!({
        "v": { "const": 1 },
        "format": { "enum": formats },
        "content": { "type": "object", "required": ["query"], "properties": {
            "type": { "enum": ["movie", "tv", "album"], "description": "Default: album on audio formats, movie otherwise." },
            "query": { "type": "string", "minLength": 1, "maxLength": 200, "description": "Title text; include the year for precision." }
        } },
        "style": { "type": "object", "properties": {
            "finish": { "enum": FINISHES, "default": "worn", "description": "Video formats and the J-card." },
            "background": { "type": "object", "properties": { "color": color } },
            "labelColor": color,
            "font": { "enum": crate::fonts::FAMILIES.iter().map(|f| f.name).collect::<Vec<_>>(), "default": crate::fonts::DEFAULT_FAMILY, "description": "Matched without regard to case; on audio formats it applies to every text section." },
            "logo": { "type": "boolean", "default": false, "description": "Video formats: the title's logo artwork instead of its name as text (the link's logo=1)." },
            "seed": { "type": "integer", "minimum": 0, "maximum": 4294967295u32, "description": "Seed of the worn finish's creases, scuffs and edge wear (default: from the design)." }
        } },
        "layout": { "type": "object", "properties": {
            "hide": { "type": "array", "items": { "enum": HIDEABLE } },
            "panels": { "type": "integer", "minimum": 1, "maximum": 8, "description": "Panel count where the format offers a choice: cd-insert 1 to 3, jcard 3 to 8." },
            "flap": { "enum": formats::FLAPS.iter().map(|(name, _)| *name).collect::<Vec<_>>(), "description": "The J-card's flap." }
        } },
        "qr": { "type": "string", "minLength": 1, "maxLength": 300, "description": "What the QR code of audio formats encodes (default: the title's link, else its artist, title and year)." },
        "images": { "type": "object", "properties": {
            "panels": { "type": "object", "description": "Panel name (see GET /api/v1/formats/{slug}) to image.", "additionalProperties": image.clone() },
            "background": image.clone(),
            "studioLogo": image
        } },
        "decals": { "type": "array", "items": { "type": "object", "properties": {
            "id": { "type": "string", "description": "A catalogue id (GET /api/v1/decals); an unknown id is an error.", "examples": decal_ids.iter().take(5).collect::<Vec<_>>() },
            "ref": { "type": "string", "pattern": "^upload:[A-Za-z0-9_-]{1,64}$" },
            "x": percent.clone(), "y": percent.clone(),
            "width": { "type": "number", "exclusiveMinimum": 0, "maximum": 100 },
            "scale": { "type": "number", "exclusiveMinimum": 0, "maximum": 10, "default": 1 },
            "stretch": { "type": "number", "exclusiveMinimum": 0, "maximum": 10, "default": 1 },
            "layer": { "enum": LAYERS, "default": "over" },
            "colorize": { "enum": COLORIZE, "default": "none" },
            "color": color.clone()
        } } },
        "texts": { "type": "array", "items": { "type": "object", "required": ["text"], "properties": {
            "text": { "type": "string", "minLength": 1, "maxLength": 500 },
            "x": percent.clone(), "y": percent,
            "width": { "type": "number", "exclusiveMinimum": 0, "maximum": 100 },
            "size": { "type": "number", "exclusiveMinimum": 0, "maximum": 50, "default": 4, "description": "Percent of the sheet's height." },
            "weight": { "type": "integer", "minimum": 100, "maximum": 900, "default": 400 },
            "color": color,
            "letterSpacing": { "type": "number", "minimum": -50, "maximum": 200, "default": 0 }
        } } },
        "name": { "type": "string", "minLength": 1, "maxLength": 120 }
    });
    if let Some(p) = properties.as_object_mut() {
        p.extend(overrides);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Compose intent, version 1",
        "description": "An invalid optional field is dropped and reported in `unsupported`; a missing or unknown format and an unknown catalogue decal are errors.",
        "type": "object",
        "required": ["format"],
        "properties": properties,
        "hideableFields": HIDEABLE,
        "textFields": OVERRIDES,
        "imageFields": ["images.panels.<panel>", "images.background", "images.studioLogo"],
        "styleOptions": { "finish": FINISHES, "fit": FITS, "layer": LAYERS, "colorize": COLORIZE }
    })
}

/// The intent's schema as an OpenAPI 3.1 component: [`schema`] without its `$schema` and the
/// service's listing keywords.
pub fn schema_for_openapi() -> Value {
    let mut s = schema();
    if let Some(o) = s.as_object_mut() {
        for k in ["$schema", "hideableFields", "textFields", "imageFields", "styleOptions"] {
            o.remove(k);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(report: &Report) -> Vec<&str> {
        report.unsupported.iter().map(|u| u.field.as_str()).collect()
    }

    #[test]
    fn a_full_intent_is_read() {
        let (intent, report) = parse(&json!({
            "v": 1, "format": "dvd-cover",
            "content": { "type": "movie", "query": "Night of the Living Dead 1968" },
            "style": { "finish": "clean", "background": { "color": "#112233" }, "labelColor": "FFEA80", "font": "League Spartan" },
            "layout": { "hide": ["tagline", "productionLogos"] },
            "images": { "panels": { "front": { "ref": "upload:abc", "fit": "fit" } }, "background": { "ref": "upload:bg" }, "studioLogo": { "ref": "upload:logo" } },
            "decals": [{ "id": "stickers/new", "x": 80, "y": 10, "width": 12, "layer": "under", "colorize": "solid", "color": "#ff0000" }],
            "texts": [{ "text": "A film\nin two lines", "x": 75, "y": 90, "size": 3, "weight": 700, "color": "#ffffff", "letterSpacing": 5 }],
            "title": "Override", "year": 1968,
            "name": "My cover"
        }))
        .unwrap();
        assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
        assert_eq!(intent.finish, "clean");
        assert_eq!(intent.label_color.as_deref(), Some("#ffea80"));
        assert_eq!(intent.hide, ["tagline", "productionLogos"]);
        assert_eq!(intent.panels["front"].fit, "fit");
        assert_eq!(intent.decals[0].layer, "under");
        assert_eq!(intent.texts[0].weight, 700);
        assert_eq!(intent.overrides["year"], "1968");
        assert!(report.applied.contains(&"decals[0]".to_owned()) && report.applied.contains(&"texts[0]".to_owned()));
    }

    #[test]
    fn invalid_optional_fields_are_dropped_and_reported() {
        let (intent, report) = parse(&json!({
            "format": "cd-insert",
            "content": { "type": "book", "query": "Kind of Blue" },
            "style": { "finish": "worn", "labelColor": "red", "glow": true },
            "layout": { "hide": ["title", "nothing"] },
            "images": { "panels": { "spine": { "ref": "upload:x" }, "front": { "ref": "http://evil.example/x.png" } } },
            "decals": [{ "id": "stickers/sale", "x": 150, "layer": "top" }, { "ref": "file:///etc/passwd" }],
            "texts": [{ "text": "" }, { "text": "Side A", "size": 99 }],
            "title": "Not for audio",
            "mystery": 1
        }))
        .unwrap();
        let dropped = fields(&report);
        for f in [
            "content.type",
            "style.finish",
            "style.labelColor",
            "style.glow",
            "layout.hide[1]",
            "images.panels.spine",
            "images.panels.front",
            "decals[0].x",
            "decals[0].layer",
            "decals[1].ref",
            "texts[0].text",
            "texts[1].size",
            "title",
            "mystery",
        ] {
            assert!(dropped.contains(&f), "{f} not reported: {dropped:?}");
        }
        assert_eq!(intent.content.unwrap().kind, ContentType::Album, "an audio format defaults to albums");
        assert_eq!((intent.decals.len(), intent.decals[0].x, intent.decals[0].layer), (1, 50.0, "over"));
        assert_eq!(intent.texts.len(), 1);
        assert!(intent.panels.is_empty());
    }

    #[test]
    fn panels_flaps_fonts_seeds_and_qr_codes() {
        let (intent, report) = parse(&json!({
            "format": "jcard",
            "layout": { "panels": 5, "flap": "extended" },
            "images": { "panels": { "inside-2": { "ref": "upload:a" } } },
            "style": { "font": "bebas neue", "seed": 42 },
            "qr": "https://example.org/album"
        }))
        .unwrap();
        assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
        assert_eq!((intent.panel_count, intent.flap), (Some(5), Some("extended")));
        assert_eq!(intent.format().unwrap().panels.len(), 5);
        assert!(intent.panels.contains_key("inside-2"), "a panel of the 5-panel card");
        assert_eq!((intent.font.as_deref(), intent.seed), (Some("Bebas Neue"), Some(42)));
        assert_eq!(intent.qr.as_deref(), Some("https://example.org/album"));
        let (intent, report) = parse(&json!({
            "format": "dvd-cover",
            "layout": { "panels": 2, "flap": "tapered", "grid": true },
            "style": { "font": "Comic Sans", "seed": -1 },
            "qr": ""
        }))
        .unwrap();
        let dropped = fields(&report);
        for f in ["layout.panels", "layout.flap", "layout.grid", "style.font", "style.seed", "qr"] {
            assert!(dropped.contains(&f), "{f} not reported: {dropped:?}");
        }
        assert_eq!(
            (intent.panel_count, intent.flap, intent.font, intent.seed, intent.qr),
            (None, None, None, None, None)
        );
        let (_, report) = parse(&json!({ "format": "jcard", "layout": { "panels": 9 } })).unwrap();
        assert!(report.unsupported[0].reason.contains("3 to 8"), "{:?}", report.unsupported);
    }

    #[test]
    fn the_canonical_form_reads_back_into_the_same_intent() {
        for body in [
            json!({
                "v": 1, "format": "dvd-cover",
                "content": { "type": "movie", "query": "Metropolis" },
                "style": { "finish": "clean", "background": { "color": "#112233" }, "labelColor": "#ffea80", "font": "Bebas Neue", "logo": true, "seed": 9 },
                "layout": { "hide": ["tagline"] },
                "images": { "panels": { "front": { "ref": "upload:abc", "fit": "fit" } }, "background": { "ref": "upload:bg" }, "studioLogo": { "ref": "upload:logo" } },
                "decals": [{ "id": "stickers/new", "x": 80, "y": 10, "width": 12, "layer": "under", "colorize": "solid", "color": "#ff0000" }, { "ref": "upload:d", "scale": 2 }],
                "texts": [{ "text": "Two\nlines", "x": 75, "y": 90, "size": 3, "weight": 700, "width": 30 }],
                "title": "Override", "year": 1968, "name": "Mine"
            }),
            json!({ "format": "jcard", "content": { "query": "Midnight Static" }, "layout": { "panels": 6, "flap": "tapered" }, "qr": "hello" }),
            json!({ "format": "cd" }),
        ] {
            let (intent, report) = parse(&body).unwrap();
            assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
            let (again, report) = parse(&intent.to_json()).unwrap();
            assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
            assert_eq!(again, intent);
        }
    }

    #[test]
    fn what_is_fatal() {
        assert!(matches!(parse(&json!([])), Err(IntentError::Invalid { .. })));
        assert!(matches!(parse(&json!({})), Err(IntentError::Invalid { field, .. }) if field == "format"));
        assert!(
            matches!(parse(&json!({ "format": "betamax" })), Err(IntentError::Invalid { field, .. }) if field == "format")
        );
        assert!(
            matches!(parse(&json!({ "v": 2, "format": "jcard" })), Err(IntentError::Invalid { field, .. }) if field == "v")
        );
        let unknown =
            parse(&json!({ "format": "jcard", "decals": [{ "id": "stickers/new" }, { "id": "stickers/nope" }] }));
        assert_eq!(
            unknown,
            Err(IntentError::UnknownDecal { field: "decals[1].id".into(), id: "stickers/nope".into() })
        );
    }

    #[test]
    fn the_schema_lists_what_the_reader_accepts() {
        let s = schema();
        assert_eq!(s["required"], json!(["format"]));
        assert_eq!(s["properties"]["format"]["enum"].as_array().unwrap().len(), formats::catalogue().len());
        assert_eq!(s["hideableFields"].as_array().unwrap().len(), HIDEABLE.len());
        for key in OVERRIDES {
            assert!(s["properties"][key].is_object(), "{key}");
        }
    }
}
