//! The cover service's engines, free of HTTP and async.
//!
//! * [`formats`]: the printable formats (VHS slipcover, DVD and Blu-ray wraps, LP jacket, CD
//!   inserts, trays and disc labels, cassette J-cards of 3 to 8 panels, shell labels and O-cards,
//!   MiniDisc J-cards), their printed dimensions, bleed, safe area, panels and folds, in
//!   millimetres, and the same geometry in pixels at the export DPI.
//! * [`content`]: titles behind the `ContentProvider` trait; the built-in offline catalogue with
//!   generated artwork.
//! * [`decals`]: the decal catalogue, the project's own generic artwork as SVG.
//! * [`scene`]: a design drawn as SVG at the export resolution (artwork, texts, decals by layer,
//!   guides for previews).
//! * [`raster`]: the SVG drawn with resvg into PNG (previews, and 600 DPI files with `pHYs` and
//!   `sRGB`), images from files or the network refused.
//! * [`pdf`]: the print PDF drawn with krilla (fonts embedded and subset, TrimBox and BleedBox,
//!   crop and fold marks, paper sizes).
//! * [`export`]: one entry point for every output (SVG, preview, PNG, PDF).
//! * [`fonts`]: the open fonts embedded in the binary; renders use no others.
//! * [`intent`]: the compose intent v1, read field by field (invalid optional fields dropped and
//!   reported), and its JSON Schema.
//!
//! Every dimension cites its source in `docs/covers/formats.md`.

pub mod content;
pub mod decals;
pub mod export;
pub mod finish;
pub mod fonts;
pub mod formats;
pub mod image;
pub mod intent;
pub mod pdf;
pub mod raster;
pub mod scene;
pub mod upload;

pub use formats::{
    catalogue, find, find_with, flap_choices, panel_choices, Fold, Format, Kind, Panel, Shape, EXPORT_DPI,
};
