//! JSON shapes shared by the HTTP API and the command line.

use crossword_fill::FillResult;
use serde_json::{json, Value};

/// The contract's Fill result of a fill: `grid`, `slotsFilled`, `slotsTotal`, `quality`, and
/// `reason` when nothing was filled or when a cancel stopped the fill (then with the partial
/// grid). The API adds `sessionId`; `crossword fill --json` adds its
/// search figures.
pub fn fill_result(result: &FillResult) -> Value {
    let mut out = json!({
        "grid": result.grid.to_rows(),
        "slotsFilled": result.slots_filled,
        "slotsTotal": result.slots_total,
        "quality": result.quality,
    });
    if let Some(reason) = result.reason {
        out["reason"] = reason.as_str().into();
    }
    out
}
