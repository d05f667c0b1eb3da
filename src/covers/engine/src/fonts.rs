//! The fonts of the cover service, embedded in the binary: open fonts (SIL Open Font License
//! 1.1, and DejaVu's Bitstream Vera terms) taken from Debian's packages. Renders see these and no
//! others, so a design looks the same on every machine; the PDF writer embeds the subset a
//! design uses. `fonts/README.md` names the package, version and licence of each file.

use std::sync::{Arc, OnceLock};

use resvg::usvg::fontdb;

/// A family a design can choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Family {
    /// The family name, as the intent's `font` gives it.
    pub name: &'static str,
    /// What it looks like.
    pub style: &'static str,
    /// Its licence.
    pub licence: &'static str,
}

/// The families, the default first.
pub const FAMILIES: [Family; 6] = [
    Family { name: "League Spartan", style: "geometric sans (Futura-like)", licence: "OFL-1.1" },
    Family { name: "Bebas Neue", style: "condensed display capitals", licence: "OFL-1.1" },
    Family { name: "Yanone Kaffeesatz", style: "condensed sans", licence: "OFL-1.1" },
    Family { name: "Courier Prime", style: "typewriter", licence: "OFL-1.1" },
    Family { name: "DSEG7 Classic", style: "seven-segment display", licence: "OFL-1.1" },
    Family { name: "DejaVu Sans", style: "sans with Greek and Cyrillic (the fallback)", licence: "Bitstream-Vera" },
];

/// The family drawn when a design names none.
pub const DEFAULT_FAMILY: &str = "League Spartan";

/// The font files.
const FILES: [&[u8]; 11] = [
    include_bytes!("../fonts/LeagueSpartan-Regular.otf"),
    include_bytes!("../fonts/LeagueSpartan-Bold.otf"),
    include_bytes!("../fonts/LeagueSpartan-Black.otf"),
    include_bytes!("../fonts/BebasNeue-Regular.otf"),
    include_bytes!("../fonts/YanoneKaffeesatz-Regular.otf"),
    include_bytes!("../fonts/YanoneKaffeesatz-Bold.otf"),
    include_bytes!("../fonts/CourierPrime-Regular.otf"),
    include_bytes!("../fonts/CourierPrime-Bold.otf"),
    include_bytes!("../fonts/DSEG7Classic-Bold.ttf"),
    include_bytes!("../fonts/DejaVuSans.ttf"),
    include_bytes!("../fonts/DejaVuSans-Bold.ttf"),
];

/// The family with this name, matched without regard to case.
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name.eq_ignore_ascii_case(name.trim()))
}

/// The font-family list a text uses: the chosen family, then the fallback for other scripts.
pub fn stack(name: Option<&str>) -> String {
    let chosen = name.and_then(family).map_or(DEFAULT_FAMILY, |f| f.name);
    format!("'{chosen}', 'DejaVu Sans'")
}

/// The embedded fonts as a database for usvg, built once.
pub fn database() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        for data in FILES {
            db.load_font_data(data.to_vec());
        }
        db.set_sans_serif_family("DejaVu Sans");
        db.set_monospace_family("Courier Prime");
        Arc::new(db)
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_embedded() {
        let db = database();
        for f in FAMILIES {
            let query = fontdb::Query { families: &[fontdb::Family::Name(f.name)], ..fontdb::Query::default() };
            assert!(db.query(&query).is_some(), "{} is not in the embedded fonts", f.name);
        }
        assert_eq!(family("bebas neue").map(|f| f.name), Some("Bebas Neue"));
        assert!(family("Comic Sans").is_none());
        assert_eq!(stack(Some("courier prime")), "'Courier Prime', 'DejaVu Sans'");
        assert_eq!(stack(None), "'League Spartan', 'DejaVu Sans'");
    }
}
