use super::*;

fn norm(code: &str, text: &str) -> String {
    Language::from_code(code).unwrap().normalize(text).unwrap_or_else(|e| panic!("{code} {text:?}: {e}"))
}

fn cells(code: &str, text: &str) -> Vec<String> {
    Language::from_code(code).unwrap().to_cells(text).unwrap()
}

#[test]
fn there_are_28_languages_and_the_alias() {
    assert_eq!(Language::all().count(), 28);
    assert_eq!(Language::from_code("pt-BR").unwrap().code(), "pt");
    assert_eq!(Language::from_code("pt-br").unwrap().code(), "pt");
    assert!(Language::from_code("xx").is_none());
    assert!(Language::from_code("").is_none());
    assert!(Language::from_code("EN").is_none());
}

#[test]
fn contract_records() {
    let he = Language::from_code("he").unwrap().spec();
    assert!(he.rtl && !he.puz_exportable && he.min_slot_length == 3);
    let ja = Language::from_code("ja").unwrap().spec();
    assert!(ja.criss_cross_only && !ja.puz_exportable && ja.min_slot_length == 2);
    for code in ["zh", "ja", "ko"] {
        assert!(Language::from_code(code).unwrap().spec().criss_cross_only);
    }
    assert_eq!(Language::all().filter(|l| l.spec().criss_cross_only).count(), 3);
    assert_eq!(Language::all().filter(|l| l.spec().rtl).count(), 2);
}

#[test]
fn normalization_table() {
    let cases: &[(&str, &str, &str)] = &[
        ("en", "crème brûlée", "CREMEBRULEE"),
        ("en", "rock 'n' roll", "ROCKNROLL"),
        ("en", "x-ray", "XRAY"),
        ("en", "Æsop", "AESOP"),
        ("en", "ﬁne", "FINE"),
        ("es", "niño", "NIÑO"),
        ("es", "canción", "CANCION"),
        ("es", "pingüino", "PINGUINO"),
        ("fr", "cœur", "COEUR"),
        ("fr", "garçon", "GARCON"),
        ("fr", "aujourd'hui", "AUJOURDHUI"),
        ("de", "straße", "STRASSE"),
        ("de", "Ärger", "AERGER"),
        ("de", "schön", "SCHOEN"),
        ("de", "über", "UEBER"),
        ("de", "café", "CAFE"),
        ("it", "città", "CITTA"),
        ("pt", "ação", "ACAO"),
        ("pt-BR", "coração", "CORACAO"),
        ("pl", "żółć", "ŻÓŁĆ"),
        ("pl", "źdźbło", "ŹDŹBŁO"),
        ("nl", "ĳs", "IJS"),
        ("nl", "café", "CAFE"),
        ("tr", "istanbul", "İSTANBUL"),
        ("tr", "ılık", "ILIK"),
        ("tr", "İzmir", "İZMİR"),
        ("tr", "çağ", "ÇAĞ"),
        ("ru", "ёлка", "ЕЛКА"),
        ("ru", "Лиана", "ЛИАНА"),
        ("ru", "подъезд", "ПОДЪЕЗД"),
        ("uk", "ґанок", "ҐАНОК"),
        ("uk", "м'ясо", "МЯСО"),
        ("uk", "їжак", "ЇЖАК"),
        ("cs", "příliš", "PŘÍLIŠ"),
        ("cs", "kůň", "KŮŇ"),
        ("ro", "țară", "TARA"),
        ("ro", "şcoală", "SCOALA"),
        ("sv", "smörgås", "SMÖRGÅS"),
        ("sv", "café", "CAFE"),
        ("no", "blåbær", "BLÅBÆR"),
        ("da", "søster", "SØSTER"),
        ("hr", "đak", "ĐAK"),
        ("hr", "čaša", "ČAŠA"),
        ("hr", "ljubav", "LJUBAV"),
        ("id", "kopi", "KOPI"),
        ("he", "שָׁלוֹם", "שלומ"),
        ("he", "מלך", "מלכ"),
        ("he", "צה\"ל", "צהל"),
        ("ar", "مَكْتَبَة", "مكتبة"),
        ("ar", "أحمد", "احمد"),
        ("ar", "مستشفى", "مستشفي"),
        ("ar", "كـتـاب", "كتاب"),
        ("ja", "さくら", "サクラ"),
        ("ja", "きって", "キツテ"),
        ("ja", "ｶﾞｯｺｳ", "ガツコウ"),
        ("ja", "ラーメン", "ラーメン"),
        ("ja", "が", "ガ"),
        ("ko", "한국", "한국"),
        ("ko", "\u{1112}\u{1161}\u{11AB}", "한"),
        ("zh", "中国", "中国"),
        ("hi", "क्षमा", "क्षमा"),
        // Catalan: the middle dot of L·L disappears however it is typed; Ç is a letter.
        ("ca", "col·lecció", "COLLECCIO"),
        ("ca", "coŀlecció", "COLLECCIO"),
        ("ca", "COĿLECCIÓ", "COLLECCIO"),
        ("ca", "paral\u{2027}lel", "PARALLEL"),
        ("ca", "plaça", "PLAÇA"),
        ("ca", "què", "QUE"),
        ("ca", "veïna", "VEINA"),
        ("ca", "l'àvia", "LAVIA"),
        // Greek: accents and diaeresis folded, final sigma as Σ.
        ("el", "λόγος", "ΛΟΓΟΣ"),
        ("el", "Ελλάς", "ΕΛΛΑΣ"),
        ("el", "ΐ", "Ι"),
        ("el", "προϋπόθεση", "ΠΡΟΥΠΟΘΕΣΗ"),
        ("el", "Άρης", "ΑΡΗΣ"),
        ("el", "ώρα", "ΩΡΑ"),
        // Bulgarian: Й and Ъ stay; Ѝ and Ѐ fold.
        ("bg", "йога", "ЙОГА"),
        ("bg", "ъгъл", "ЪГЪЛ"),
        ("bg", "ѝ", "И"),
        ("bg", "ѐж", "ЕЖ"),
        ("bg", "щастие", "ЩАСТИЕ"),
        ("bg", "юнак", "ЮНАК"),
        // Finnish: Å, Ä and Ö are letters; Š and Ž fold.
        ("fi", "sää", "SÄÄ"),
        ("fi", "höyry", "HÖYRY"),
        ("fi", "Åland", "ÅLAND"),
        ("fi", "šakki", "SAKKI"),
        ("fi", "Žirinovski", "ZIRINOVSKI"),
        ("fi", "é", "E"),
    ];
    for &(code, input, expected) in cases {
        assert_eq!(norm(code, input), expected, "{code}: {input:?}");
    }
}

#[test]
fn finnish_letters_never_fold_into_others() {
    assert_ne!(norm("fi", "sää"), norm("fi", "saa"));
    assert_ne!(norm("fi", "öljy"), norm("fi", "oljy"));
    assert_ne!(norm("fi", "åbo"), norm("fi", "abo"));
    let fi = Language::from_code("fi").unwrap().spec();
    assert!(fi.puz_exportable);
    let ca = Language::from_code("ca").unwrap().spec();
    assert!(ca.puz_exportable);
    for code in ["el", "bg"] {
        assert!(!Language::from_code(code).unwrap().spec().puz_exportable, "{code}");
    }
    assert_eq!(Language::from_code("el").unwrap().letters().count(), 24);
    assert_eq!(Language::from_code("bg").unwrap().letters().count(), 30);
}

#[test]
fn dakuten_stays_distinct() {
    assert_ne!(norm("ja", "ガ"), norm("ja", "カ"));
}

#[test]
fn invalid_characters_are_named() {
    let cases: &[(&str, &str, char, usize)] = &[
        ("en", "AB3", '3', 2),
        ("en", "ПРИВЕТ", 'П', 0),
        ("ru", "cat", 'c', 0),
        ("tr", "wifi", 'w', 0),
        ("ja", "漢字", '漢', 0),
        ("zh", "abc", 'a', 0),
        ("ko", "abc", 'a', 0),
        ("hi", "नमस्ते!", '!', 6),
        ("he", "abc", 'a', 0),
        ("hr", "quiz", 'q', 0),
        ("bg", "мы", 'ы', 1),
        ("bg", "эра", 'э', 0),
        ("el", "abc", 'a', 0),
    ];
    for &(code, input, ch, position) in cases {
        let err = Language::from_code(code).unwrap().normalize(input).unwrap_err();
        assert_eq!((err.ch, err.position), (ch, position), "{code}: {input:?}");
    }
}

#[test]
fn invalid_chars_lists_every_offender() {
    let en = Language::from_code("en").unwrap();
    let found: Vec<(char, usize)> = en.invalid_chars("a1b2ç!").iter().map(|e| (e.ch, e.position)).collect();
    assert_eq!(found, [('1', 1), ('2', 3), ('!', 5)]);
    assert!(en.invalid_chars("crème brûlée").is_empty());
    let ru = Language::from_code("ru").unwrap();
    assert_eq!(ru.invalid_chars("лунa").len(), 1, "a Latin a among Cyrillic letters");
}

#[test]
fn cell_splitting() {
    assert_eq!(cells("en", "cat"), ["C", "A", "T"]);
    assert_eq!(cells("nl", "ijs"), ["I", "J", "S"]);
    assert_eq!(cells("hr", "njiva"), ["N", "J", "I", "V", "A"]);
    assert_eq!(cells("de", "Maß"), ["M", "A", "S", "S"]);
    // Hindi: conjuncts (GB9c), matras, nukta and anusvara stay in their akshara.
    assert_eq!(cells("hi", "क्षमा"), ["क्ष", "मा"]);
    assert_eq!(cells("hi", "नमस्ते"), ["न", "म", "स्ते"]);
    assert_eq!(cells("hi", "हिंदी"), ["हिं", "दी"]);
    assert_eq!(cells("hi", "ज़रा"), ["ज़", "रा"]);
    assert_eq!(cells("hi", "पत्र"), ["प", "त्र"]);
    assert_eq!(cells("hi", "श्रीमान"), ["श्री", "मा", "न"]);
    assert_eq!(cells("ja", "しょうがっこう"), ["シ", "ヨ", "ウ", "ガ", "ツ", "コ", "ウ"]);
    assert_eq!(cells("ko", "대한민국"), ["대", "한", "민", "국"]);
    assert_eq!(cells("zh", "北京"), ["北", "京"]);
    assert_eq!(cells("ar", "كتاب"), ["ك", "ت", "ا", "ب"]);
}

#[test]
fn normalization_is_idempotent() {
    let samples =
        ["crème", "STRASSE", "İSTANBUL", "שלום", "ガッコウ", "क्षमा", "ЁЛКА", "ŻÓŁĆ", "مكتبة", "北京", "대한민국"];
    for lang in Language::all() {
        // Every language accepts a sample written in its own cells, so none passes vacuously.
        let own: String = match lang.spec().cell {
            CellKind::Letter => lang.letters().take(4).collect(),
            _ => lang
                .normalize(samples.iter().find(|s| lang.normalize(s).is_ok()).copied().unwrap_or(""))
                .unwrap_or_default(),
        };
        let mut checked = 0;
        for s in samples.iter().copied().chain([own.as_str()]) {
            if let Ok(once) = lang.normalize(s) {
                assert_eq!(lang.normalize(&once).as_deref(), Ok(once.as_str()), "{lang:?} {s}");
                checked += usize::from(!once.is_empty());
            }
        }
        assert!(checked > 0, "{lang:?}: no sample normalized to a non-empty answer");
    }
}

#[test]
fn arbitrary_text_is_normalized_or_refused_with_a_position_inside_it() {
    let nasty = ["", "\u{0301}", "\u{200D}", "\u{FFFF}", "🙂", "a\u{0000}b", "ß\u{0307}", "ǅ", "ﬃ", "İ\u{0307}"];
    for lang in Language::all() {
        for s in nasty {
            match lang.normalize(s) {
                // What comes out is a fixed point made of the language's cells.
                Ok(n) => assert_eq!(lang.normalize(&n).as_deref(), Ok(n.as_str()), "{lang:?} {s:?}"),
                Err(e) => {
                    // Positions count characters after composition (NFKC may expand a ligature).
                    let longest = s.chars().count().max(s.nfkc().count()).max(1);
                    assert!(e.position < longest, "{lang:?} {s:?}: position {}", e.position)
                }
            }
        }
        assert!(lang.normalize("🙂").is_err(), "{lang:?} accepts an emoji");
    }
}
