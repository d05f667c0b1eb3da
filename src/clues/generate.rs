//! Clue generators behind one small trait.
//!
//! * [`BuiltinGenerator`] works offline everywhere: it composes clues from the language data
//!   in the base collection (broader terms: "Kind of tree"; pairs of synonyms; opposites;
//!   phrases with a blank: "___ cream"), with phrase templates in the puzzle's language that
//!   `indexbuild` stores in the collection file.
//! * [`ChatCompletionsGenerator`] asks an OpenAI-compatible `chat/completions` endpoint (for
//!   self-hosters running a local model server), over plain HTTP/1.1.
//!
//! [`generate`] runs either and applies the same rules to what comes back: cleaned text, at
//! most 150 characters, no answer leaks, no repeats, no copy of a clue the collection already
//! has, at most `count`.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use super::{clean_text, dedupe_key, leaks, ClueBase, Kind};
use crate::lang::Language;

/// What to generate.
pub struct GenerateRequest<'a> {
    /// The puzzle language.
    pub language: Language,
    /// The answer, normalized.
    pub answer: &'a str,
    /// How many clues (1 to 10).
    pub count: usize,
    /// The language's base collection, when it has one.
    pub base: Option<&'a ClueBase>,
}

/// Why a generator produced nothing usable.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The upstream model server failed, timed out or answered nonsense.
    #[error("clue generator unavailable: {0}")]
    Upstream(String),
}

/// A source of new clues.
pub trait ClueGenerator: Send + Sync {
    /// A short name for logs and `/status`.
    fn name(&self) -> &'static str;
    /// Candidate clue texts, best first; may return more or fewer than asked. [`generate`]
    /// filters them.
    fn candidates(&self, request: &GenerateRequest<'_>) -> Result<Vec<String>, GenerateError>;
}

/// Runs `generator` and keeps at most `count` clean, new, non-leaking clues.
pub fn generate(generator: &dyn ClueGenerator, request: &GenerateRequest<'_>) -> Result<Vec<String>, GenerateError> {
    let candidates = generator.candidates(request)?;
    let mut seen: ahash::AHashSet<String> =
        request.base.map(|b| b.clues(request.answer).map(|c| dedupe_key(c.text)).collect()).unwrap_or_default();
    let mut out = Vec::new();
    for text in candidates {
        if out.len() == request.count {
            break;
        }
        let Some(text) = clean_text(&text) else { continue };
        if leaks(request.language, request.answer, &text) || !seen.insert(dedupe_key(&text)) {
            continue;
        }
        out.push(text);
    }
    Ok(out)
}

/// Phrase templates of one language, read from the collection's META (`templates`); `{}`
/// marks where the material goes.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Templates {
    /// For a broader term: `Kind of {}`.
    #[serde(default)]
    pub kind_of: Vec<String>,
    /// For an opposite: `Opposite of {}`.
    #[serde(default)]
    pub opposite: Vec<String>,
}

impl Templates {
    /// The templates stored in a collection file.
    pub fn of(base: &ClueBase) -> Templates {
        serde_json::from_str::<serde_json::Value>(base.meta())
            .ok()
            .and_then(|m| m.get("templates").cloned())
            .and_then(|t| serde_json::from_value(t).ok())
            .unwrap_or_default()
    }
}

/// The offline generator.
#[derive(Debug, Default)]
pub struct BuiltinGenerator;

impl ClueGenerator for BuiltinGenerator {
    fn name(&self) -> &'static str {
        "builtin"
    }

    fn candidates(&self, request: &GenerateRequest<'_>) -> Result<Vec<String>, GenerateError> {
        let Some(base) = request.base else { return Ok(Vec::new()) };
        let templates = Templates::of(base);
        let records: Vec<_> = base.records(request.answer).collect();
        let of_kind = |kind: Kind| records.iter().filter(move |r| r.kind == kind).map(|r| r.text);
        let synonyms: Vec<&str> = of_kind(Kind::Synonym).filter(|s| s.chars().count() <= 40).collect();
        let senses: Vec<&str> = of_kind(Kind::Sense).collect();
        // Each style is a queue; the output takes one from each in turn, so a short request
        // still shows several styles.
        let mut styles: Vec<Vec<String>> = Vec::new();
        styles.push(
            of_kind(Kind::Hypernym)
                .enumerate()
                .filter_map(|(i, h)| {
                    let template = templates.kind_of.get(i % templates.kind_of.len().max(1))?;
                    Some(template.replacen("{}", h, 1))
                })
                .collect(),
        );
        styles.push(synonyms.windows(2).map(|w| format!("{}, {}", w[0], w[1])).collect());
        styles.push(
            of_kind(Kind::Antonym).filter_map(|a| Some(templates.opposite.first()?.replacen("{}", a, 1))).collect(),
        );
        styles.push(senses.iter().filter_map(|s| shorten(s)).collect());
        styles.push(synonyms.iter().zip(of_kind(Kind::Hypernym)).map(|(s, h)| format!("{s} ({})", h)).collect());
        let mut out = Vec::new();
        let longest = styles.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            for style in &styles {
                if let Some(c) = style.get(i) {
                    out.push(c.clone());
                }
            }
        }
        Ok(out)
    }
}

/// The first clause of a definition, when it is a shorter clue on its own.
fn shorten(sense: &str) -> Option<String> {
    let cut = [", ", " that ", " which ", " who ", " especially ", " or "]
        .iter()
        .filter_map(|sep| sense.find(sep))
        .filter(|&i| i >= 12)
        .min()?;
    Some(sense[..cut].to_owned())
}

/// Where an OpenAI-compatible model server is (the `[clues.generator]` config table).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatCompletionsConfig {
    /// Base URL up to the version segment, e.g. `http://127.0.0.1:8081/v1`; the generator
    /// posts to `{url}/chat/completions`. Plain `http` only.
    pub url: String,
    /// Model name sent with each request.
    pub model: String,
    /// Sent as `Authorization: Bearer KEY` when set.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Whole-request deadline in seconds (default 20).
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
}

fn default_timeout() -> u64 {
    20
}

/// Calls an OpenAI-compatible `chat/completions` endpoint.
#[derive(Debug, Clone)]
pub struct ChatCompletionsGenerator {
    host: String,
    port: u16,
    path: String,
    config: ChatCompletionsConfig,
}

impl ChatCompletionsGenerator {
    /// Checks the URL (`http://host[:port][/path]`).
    pub fn new(config: ChatCompletionsConfig) -> Result<ChatCompletionsGenerator, String> {
        let rest = config.url.strip_prefix("http://").ok_or_else(|| {
            format!("clue generator url {:?}: only http:// is supported (run a local TLS proxy for https)", config.url)
        })?;
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => {
                (h.to_owned(), p.parse::<u16>().map_err(|_| format!("clue generator url: bad port {p:?}"))?)
            }
            _ => (authority.to_owned(), 80),
        };
        if host.is_empty() {
            return Err(format!("clue generator url {:?} has no host", config.url));
        }
        let path = format!("/{}/chat/completions", path.trim_end_matches('/')).replace("//", "/");
        Ok(ChatCompletionsGenerator { host, port, path, config })
    }

    fn prompt(&self, request: &GenerateRequest<'_>, wanted: usize) -> serde_json::Value {
        let language = request.language.spec();
        serde_json::json!({
            "model": self.config.model,
            "temperature": 0.8,
            "messages": [
                {"role": "system", "content": "You write crossword clues. Answer with the clues only, one per line, no numbering, no quotes, no explanations."},
                {"role": "user", "content": format!(
                    "Write {wanted} different crossword clues in {} ({}) for the answer {}. Each clue at most 80 characters. Never use the answer or a word containing it.",
                    language.name, language.native_name, request.answer
                )}
            ]
        })
    }

    fn post(&self, body: &[u8]) -> Result<Vec<u8>, String> {
        let deadline = Instant::now() + Duration::from_secs(self.config.timeout_secs.max(1));
        let addr = (self.host.trim_start_matches('[').trim_end_matches(']'), self.port)
            .to_socket_addrs()
            .map_err(|e| format!("resolving {}: {e}", self.host))?
            .next()
            .ok_or_else(|| format!("{} has no address", self.host))?;
        let remaining = || deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        let mut stream = TcpStream::connect_timeout(&addr, remaining()).map_err(|e| format!("connecting: {e}"))?;
        stream.set_write_timeout(Some(remaining())).map_err(|e| e.to_string())?;
        let auth = match &self.config.api_key {
            Some(key) => format!("Authorization: Bearer {key}\r\n"),
            None => String::new(),
        };
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.path,
            self.host,
            self.port,
            body.len()
        );
        stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body)).map_err(|e| format!("sending: {e}"))?;
        let mut response = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        loop {
            if Instant::now() >= deadline {
                return Err("timed out".into());
            }
            stream.set_read_timeout(Some(remaining())).map_err(|e| e.to_string())?;
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => response.extend_from_slice(&buf[..n]),
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                    return Err("timed out".into())
                }
                Err(e) => return Err(format!("reading: {e}")),
            }
            if response.len() > 4 << 20 {
                return Err("response larger than 4 MiB".into());
            }
        }
        let split = response.windows(4).position(|w| w == b"\r\n\r\n").ok_or("malformed HTTP response")?;
        let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
        let status: u16 = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        if status != 200 {
            return Err(format!("HTTP status {status}"));
        }
        let body = &response[split + 4..];
        if head.contains("transfer-encoding: chunked") {
            crate::http1::dechunk(body).ok_or_else(|| "malformed chunked body".into())
        } else {
            Ok(body.to_vec())
        }
    }
}

impl ClueGenerator for ChatCompletionsGenerator {
    fn name(&self) -> &'static str {
        "chat-completions"
    }

    fn candidates(&self, request: &GenerateRequest<'_>) -> Result<Vec<String>, GenerateError> {
        // Ask for a few spare clues: some may leak the answer or repeat.
        let body = self.prompt(request, (request.count + 2).min(12));
        let bytes = serde_json::to_vec(&body).map_err(|e| GenerateError::Upstream(e.to_string()))?;
        let response = self.post(&bytes).map_err(GenerateError::Upstream)?;
        let value: serde_json::Value = serde_json::from_slice(&response)
            .map_err(|e| GenerateError::Upstream(format!("response is not JSON: {e}")))?;
        let content = value["choices"][0]["message"]["content"]
            .as_str()
            .ok_or_else(|| GenerateError::Upstream("response has no choices[0].message.content".into()))?;
        Ok(content.lines().map(strip_list_marks).filter(|l| !l.is_empty()).map(str::to_owned).collect())
    }
}

/// Removes list numbering, bullets and quotes a model may add (`1. "Frozen water"`).
fn strip_list_marks(line: &str) -> &str {
    let line = line.trim();
    let line = line.trim_start_matches(|c: char| c.is_ascii_digit());
    let line = line.trim_start_matches(['.', ')', '-', '*', '•', ':']).trim();
    line.trim_matches(['"', '“', '”', '\'']).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        let config =
            |url: &str| ChatCompletionsConfig { url: url.into(), model: "m".into(), api_key: None, timeout_secs: 5 };
        let g = ChatCompletionsGenerator::new(config("http://127.0.0.1:8081/v1")).unwrap();
        assert_eq!((g.host.as_str(), g.port, g.path.as_str()), ("127.0.0.1", 8081, "/v1/chat/completions"));
        let g = ChatCompletionsGenerator::new(config("http://models.local/")).unwrap();
        assert_eq!((g.host.as_str(), g.port, g.path.as_str()), ("models.local", 80, "/chat/completions"));
        assert!(ChatCompletionsGenerator::new(config("https://api.example/v1")).is_err());
        assert!(ChatCompletionsGenerator::new(config("http://:80/v1")).is_err());
        assert!(ChatCompletionsGenerator::new(config("http://h:port/v1")).is_err());
    }

    #[test]
    fn list_marks_are_stripped() {
        assert_eq!(strip_list_marks("1. \"Frozen water\""), "Frozen water");
        assert_eq!(strip_list_marks("- Rink surface"), "Rink surface");
    }

    #[test]
    fn first_clause_shortens_definitions() {
        assert_eq!(shorten("A frozen dessert, containing cream").as_deref(), Some("A frozen dessert"));
        assert_eq!(shorten("Short, x"), None);
    }
}
