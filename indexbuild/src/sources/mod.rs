//! Readers for the raw corpus files, one module per source format.

pub mod hanja;
pub mod hunspell;
pub mod ipadic;
pub mod jieba;
pub mod msgpack;
pub mod mythes;
pub mod wordfreq;
pub mod wordnet;

/// Decodes bytes in a named legacy encoding (as Hunspell and MyThes files declare it).
pub fn decode(bytes: &[u8], encoding: &str) -> anyhow::Result<String> {
    let label = encoding.trim().trim_start_matches('\u{FEFF}');
    let enc = encoding_rs::Encoding::for_label(label.as_bytes())
        .ok_or_else(|| anyhow::anyhow!("unknown encoding {label:?}"))?;
    let (text, _, _) = enc.decode(bytes);
    Ok(text.trim_start_matches('\u{FEFF}').to_owned())
}
