//! The HTML of the public pages, as plain functions of their data: the puzzle page (with the
//! player's markup, so the grid and clues paint before any script runs), its embed frame, the
//! author pages and the showcase gallery. Every user-written string goes through [`esc`].

use std::fmt::Write;

use crossword_fill::{Direction, Square};
use crossword_lang::{CellKind, Language, UpperRule};
use crossword_puzzle::labels::labels;
use crossword_puzzle::{entries, Puzzle};
use serde_json::{json, Value};

/// What every page shows of the service.
pub struct Site<'a> {
    /// The service's name.
    pub name: &'a str,
    /// Public base URL, no trailing slash.
    pub base: &'a str,
    /// Cache-busting version of the assets.
    pub assets: &'a str,
}

/// Escapes text for HTML content and (quoted) attribute values: `&`, `<`, `>`, `"` and `'`.
pub fn esc(text: &str) -> String {
    crossword_puzzle::svg::escape(text)
}

/// JSON inside `<script type="application/json">`: `<` is written `\u003c`, so no string can
/// close the element.
fn script_json(value: &Value) -> String {
    value.to_string().replace('<', "\\u003c")
}

/// The language rules the player folds typed letters with: the same tables the server uses,
/// from `corpus/languages.toml` through `crossword-lang`.
pub fn fold_spec(language: Language) -> Value {
    let spec = language.spec();
    let cell = match spec.cell {
        CellKind::Letter => "letter",
        CellKind::Akshara => "akshara",
        CellKind::Kana => "kana",
        CellKind::Hanzi => "hanzi",
        CellKind::Hangul => "hangul",
    };
    json!({
        "cell": cell,
        "alphabet": spec.alphabet,
        "ranges": spec.ranges.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
        "turkish": spec.upper == UpperRule::Turkish,
        "compat": spec.compat,
        "stripMarks": spec.strip_marks,
        "drop": spec.drop,
        "folds": spec.fold.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
    })
}

/// The keys of the on-screen keyboard (touch screens): the alphabet, the katakana syllabary, or
/// the Devanagari letters and signs; none for Chinese and Korean (their input methods do it).
pub fn keyboard(language: Language) -> Vec<String> {
    let spec = language.spec();
    let range = |a: u32, b: u32| (a..=b).filter_map(char::from_u32).map(String::from).collect::<Vec<_>>();
    match spec.cell {
        CellKind::Letter => language.letters().map(String::from).collect(),
        CellKind::Kana => {
            range(0x30A2, 0x30F3).into_iter().filter(|k| !"ァィゥェォッャュョヮ".contains(k.as_str())).collect()
        }
        CellKind::Akshara => {
            let mut keys = range(0x0905, 0x0914);
            keys.extend(range(0x0915, 0x0939));
            keys.extend(range(0x093E, 0x094D));
            keys.extend(["\u{0901}", "\u{0902}", "\u{0903}", "\u{093C}"].map(String::from));
            keys
        }
        CellKind::Hanzi | CellKind::Hangul => Vec::new(),
    }
}

/// The shell of every page.
struct Head<'a> {
    title: String,
    description: String,
    url: String,
    image: Option<String>,
    no_index: bool,
    lang: &'a str,
    rtl: bool,
    scripts: bool,
    oembed: Option<String>,
}

fn shell(site: &Site<'_>, head: Head<'_>, body_class: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 2048);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"{}\" dir=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<meta name=\"description\" content=\"{}\">\n",
        esc(head.lang),
        if head.rtl { "rtl" } else { "ltr" },
        esc(&head.title),
        esc(&head.description)
    );
    if head.no_index {
        out.push_str("<meta name=\"robots\" content=\"noindex\">\n");
    }
    let _ = write!(
        out,
        "<meta property=\"og:title\" content=\"{}\">\n<meta property=\"og:description\" content=\"{}\">\n<meta property=\"og:type\" content=\"website\">\n<meta property=\"og:url\" content=\"{}\">\n<meta property=\"og:site_name\" content=\"{}\">\n<link rel=\"canonical\" href=\"{}\">\n",
        esc(&head.title),
        esc(&head.description),
        esc(&head.url),
        esc(site.name),
        esc(&head.url)
    );
    if let Some(image) = &head.image {
        let _ = writeln!(
            out,
            "<meta property=\"og:image\" content=\"{}\">\n<meta name=\"twitter:card\" content=\"summary\">",
            esc(image)
        );
    }
    if let Some(oembed) = &head.oembed {
        let _ = writeln!(
            out,
            "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"{}\" title=\"{}\">",
            esc(oembed),
            esc(&head.title)
        );
    }
    let _ = writeln!(out, "<link rel=\"icon\" href=\"/assets/logo.svg?v={}\" type=\"image/svg+xml\">", site.assets);
    let _ = writeln!(out, "<link rel=\"stylesheet\" href=\"/assets/player.css?v={}\">", site.assets);
    if head.scripts {
        let _ = writeln!(out, "<script src=\"/assets/player.js?v={}\" defer></script>", site.assets);
    }
    let _ = write!(
        out,
        "</head>\n<body class=\"{body_class}\">\n<header class=\"site\"><a href=\"{}/showcase\"><img src=\"/assets/logo.svg?v={}\" alt=\"\" width=\"24\" height=\"24\">{}</a></header>\n{body}<footer class=\"site\">Made with&nbsp;<a href=\"{}/\">{}</a></footer>\n</body>\n</html>\n",
        esc(site.base),
        site.assets,
        esc(site.name),
        esc(site.base),
        esc(site.name)
    );
    out
}

/// The embed snippet a host page pastes (an iframe, the sizing script and the credit line).
pub fn embed_snippet(site: &Site<'_>, p: &Puzzle) -> String {
    format!(
        "<iframe src=\"{base}/embed/{id}\" title=\"{title}\" width=\"100%\" height=\"720\" style=\"border:0;max-width:640px\" loading=\"lazy\" data-scheme=\"auto\"></iframe>\n<script async src=\"{base}/assets/embed.js\"></script>\n<p><small><a href=\"{base}/p/{id}\">{title}</a> · Made with <a href=\"{base}/\">{name}</a></small></p>",
        base = esc(site.base),
        id = p.id,
        title = esc(&p.title),
        name = esc(site.name)
    )
}

/// The puzzle page (`embed`: the compact frame with its colour `scheme`).
pub fn puzzle_page(site: &Site<'_>, p: &Puzzle, embed: Option<&str>) -> Option<String> {
    let (language, grid) = p.parsed_grid().ok()?;
    let spec = language.spec();
    let heads = labels(language);
    let n = grid.size();
    let all = entries(language, &grid);
    let url = format!("{}/p/{}", site.base, p.id);
    let mut numbers = vec![0u32; n * n];
    for e in &all {
        numbers[e.cells[0]] = e.number;
    }
    let mut body = String::with_capacity(16 * 1024);
    let _ = write!(body, "<main id=\"player\" class=\"player\">\n<h1>{}</h1>\n", esc(&p.title));
    let mut byline = Vec::new();
    if !p.author.is_empty() {
        let slug = crossword_puzzle::author_slug(&p.author);
        if p.show_profile && !slug.is_empty() && embed.is_none() {
            byline.push(format!("<a href=\"{}/u/{}\">{}</a>", esc(site.base), esc(&slug), esc(&p.author)));
        } else {
            byline.push(esc(&p.author));
        }
    }
    if let Some(d) = p.difficulty {
        byline.push(d.as_str().to_owned());
    }
    byline.push(format!("{n}×{n}"));
    let _ = writeln!(body, "<p class=\"byline\">{}</p>", byline.join(" · "));
    if p.adult_themes {
        body.push_str("<div class=\"gate\" id=\"gate\" role=\"alertdialog\" aria-labelledby=\"gate-title\"><p id=\"gate-title\"><strong>This puzzle has adult themes.</strong> It is meant for solvers aged 18 or older.</p><button type=\"button\" id=\"gate-ok\">I am 18 or older: show the puzzle</button></div>\n");
    }
    let _ = writeln!(body, "<div class=\"board\"{}>", if p.adult_themes { " hidden" } else { "" });
    body.push_str("<div class=\"toolbar\" role=\"toolbar\" aria-label=\"Puzzle tools\"><span class=\"timer\" id=\"timer\" role=\"timer\" aria-label=\"Time\">0:00</span><button type=\"button\" id=\"pause\">Pause</button>");
    for (name, action) in [("Check", "check"), ("Reveal", "reveal")] {
        let _ = write!(
            body,
            "<div class=\"menu\"><button type=\"button\" aria-haspopup=\"true\" aria-expanded=\"false\">{name}</button><div><button type=\"button\" data-action=\"{action}:letter\">{name} letter</button><button type=\"button\" data-action=\"{action}:word\">{name} word</button><button type=\"button\" data-action=\"{action}:grid\">{name} grid</button></div></div>"
        );
    }
    body.push_str("<button type=\"button\" data-action=\"clear\">Clear</button><div class=\"menu\"><button type=\"button\" aria-haspopup=\"true\" aria-expanded=\"false\">Print</button><div><button type=\"button\" data-action=\"print:blank\">Print blank</button><button type=\"button\" data-action=\"print:solution\">Print with solution</button></div></div></div>\n");
    body.push_str("<div id=\"solved\" class=\"solved\" role=\"status\" hidden></div>\n<div class=\"current-clue\" id=\"current-clue\" aria-live=\"polite\"></div>\n");
    let criss = if spec.criss_cross_only { " criss" } else { "" };
    let _ = write!(
        body,
        "<p class=\"hint\" id=\"grid-hint\">Type to fill the selected answer. Arrows move, Tab goes to the next answer, Space turns the direction, Escape leaves the grid.</p><div class=\"grid-wrap\"><div class=\"grid n{n}{criss}\" role=\"grid\" aria-label=\"Crossword grid, {n} by {n}\" aria-describedby=\"grid-hint\">"
    );
    for r in 0..n {
        body.push_str("<div role=\"row\" class=\"row-group\">");
        for c in 0..n {
            let i = r * n + c;
            match grid.square(r, c) {
                Square::Block => {
                    body.push_str("<div role=\"gridcell\" class=\"cell block\" aria-label=\"block\"></div>")
                }
                _ => {
                    let num = if numbers[i] > 0 {
                        format!("<span class=\"num\">{}</span>", numbers[i])
                    } else {
                        String::new()
                    };
                    let _ = write!(
                        body,
                        "<div role=\"gridcell\" class=\"cell\" data-i=\"{i}\" tabindex=\"-1\" aria-label=\"row {}, column {}\">{num}<span class=\"val\"></span></div>",
                        r + 1,
                        c + 1
                    );
                }
            }
        }
        body.push_str("</div>");
    }
    body.push_str("</div></div>\n<div class=\"clues\">");
    let mut data_entries = Vec::new();
    for (direction, head) in [(Direction::Across, heads.across), (Direction::Down, heads.down)] {
        let _ =
            write!(body, "<section><h2>{}</h2><ol class=\"clue-list\" data-dir=\"{}\">", esc(head), direction.as_str());
        for e in all.iter().filter(|e| e.direction == direction) {
            let text = p.clues.text(direction, e.number).unwrap_or("");
            let _ = write!(
                body,
                "<li data-dir=\"{d}\" data-n=\"{num}\" tabindex=\"0\" aria-label=\"{num} {head}: {t}\"><span class=\"n\">{num}</span><span class=\"t\">{t}</span></li>",
                d = direction.as_str(),
                num = e.number,
                head = esc(head),
                t = esc(text)
            );
            data_entries.push(json!({ "n": e.number, "dir": direction.as_str(), "cells": e.cells, "clue": text }));
        }
        body.push_str("</ol></section>");
    }
    body.push_str("</div>\n<div class=\"keyboard\" id=\"keyboard\" hidden></div>\n<input class=\"sink\" id=\"sink\" type=\"text\" autocomplete=\"off\" autocorrect=\"off\" autocapitalize=\"characters\" spellcheck=\"false\" aria-label=\"Type the answer\">\n</div>\n");
    if embed.is_none() {
        if !p.writeup.is_empty() {
            let _ = writeln!(body, "<section class=\"writeup\"><h2>Notes</h2>{}</section>", esc(&p.writeup));
        }
        let _ = writeln!(
            body,
            "<details class=\"embed-box\"><summary>Embed</summary><p>Paste this into your page:</p><textarea readonly aria-label=\"Embed code\">{}</textarea></details>",
            esc(&embed_snippet(site, p))
        );
    }
    let cells: Vec<String> = grid
        .squares()
        .iter()
        .map(|s| match s {
            Square::Letter(l) => l.clone(),
            _ => "#".to_owned(),
        })
        .collect();
    let data = json!({
        "id": p.id,
        "version": p.version,
        "language": p.language,
        "size": n,
        "rtl": spec.rtl,
        "cells": cells,
        "entries": data_entries,
        "fold": fold_spec(language),
        "keyboard": keyboard(language),
        "embed": embed.is_some(),
        "scheme": embed.unwrap_or("auto"),
        "labels": {
            "across": heads.across, "down": heads.down, "row": "row", "column": "column", "empty": "empty",
            "solved": "Solved in", "pause": "Pause", "resume": "Resume", "erase": "Erase"
        }
    });
    let _ =
        write!(body, "<script type=\"application/json\" id=\"puzzle-data\">{}</script>\n</main>\n", script_json(&data));
    let clue_count = all.len();
    let head = Head {
        title: if embed.is_some() { p.title.clone() } else { format!("{} · {}", p.title, site.name) },
        description: format!(
            "A {n}×{n} crossword with {clue_count} clues{}.",
            if p.author.is_empty() { String::new() } else { format!(" by {}", p.author) }
        ),
        url: url.clone(),
        image: Some(format!("{url}/preview.svg")),
        no_index: p.no_index,
        lang: &p.language,
        rtl: spec.rtl,
        scripts: true,
        oembed: Some(format!("{}/oembed?url={}", site.base, percent(&url))),
    };
    let class = match embed {
        Some("light") => "embed scheme-light",
        Some("dark") => "embed scheme-dark",
        Some(_) => "embed",
        None => "page",
    };
    Some(shell(site, head, class, &body))
}

/// Percent-encodes a URL for a query value.
pub fn percent(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A short page with a message (refusals, the age check of embeds, missing pages).
pub fn message_page(site: &Site<'_>, title: &str, message_html: &str, no_index: bool) -> String {
    let head = Head {
        title: title.to_owned(),
        description: title.to_owned(),
        url: site.base.to_owned(),
        image: None,
        no_index,
        lang: "en",
        rtl: false,
        scripts: false,
        oembed: None,
    };
    shell(site, head, "page", &format!("<main><h1>{}</h1><p>{message_html}</p></main>\n", esc(title)))
}

/// A list page of puzzle cards (an author's page or the showcase).
#[allow(clippy::too_many_arguments)]
pub fn list_page(
    site: &Site<'_>,
    title: &str,
    intro_html: &str,
    url: &str,
    puzzles: &[Puzzle],
    total: usize,
    page: usize,
    per_page: usize,
    link: impl Fn(usize) -> String,
) -> String {
    let mut body = format!("<main><h1>{}</h1>{intro_html}<ul class=\"cards\">", esc(title));
    for p in puzzles {
        let n = p.size();
        let author = if p.author.is_empty() { String::new() } else { format!(" · {}", esc(&p.author)) };
        let _ = write!(
            body,
            "<li><a href=\"{base}/p/{id}\"><img src=\"{base}/p/{id}/preview.svg\" alt=\"\" width=\"160\" height=\"160\" loading=\"lazy\"><strong>{title}</strong></a><br><small>{n}×{n} · {lang}{author}</small></li>",
            base = esc(site.base),
            id = p.id,
            title = esc(&p.title),
            lang = esc(&p.language),
        );
    }
    if puzzles.is_empty() {
        body.push_str("<li>No puzzles yet.</li>");
    }
    body.push_str("</ul><nav class=\"pager\" aria-label=\"Pages\">");
    if page > 1 {
        let _ = write!(body, "<a rel=\"prev\" href=\"{}\">Newer</a>", esc(&link(page - 1)));
    }
    if page * per_page < total {
        let _ = write!(body, "<a rel=\"next\" href=\"{}\">Older</a>", esc(&link(page + 1)));
    }
    body.push_str("</nav></main>\n");
    let head = Head {
        title: format!("{title} · {}", site.name),
        description: format!("{total} crossword puzzles: {title}"),
        url: url.to_owned(),
        image: puzzles.first().map(|p| format!("{}/p/{}/preview.svg", site.base, p.id)),
        no_index: false,
        lang: "en",
        rtl: false,
        scripts: false,
        oembed: None,
    };
    shell(site, head, "page", &body)
}
