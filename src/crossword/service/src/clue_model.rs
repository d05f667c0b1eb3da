//! Generated clues from a model server: the clue engine's [`ClueGenerator`] over an
//! OpenAI-compatible `chat/completions` endpoint (for self-hosters running a local model
//! server), through the kit's HTTP client. The engine itself makes no network calls; this is
//! the service's adapter, configured by the `[clue_generator]` table.

use std::time::Duration;

use crossword_clues::generate::{ClueGenerator, GenerateError, GenerateRequest};
use service_kit::http_client::{HttpUrl, Request};

/// Where an OpenAI-compatible model server is (the `[clue_generator]` config table).
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

/// Largest model server response read.
const MAX_RESPONSE: usize = 4 << 20;

/// Calls an OpenAI-compatible `chat/completions` endpoint.
#[derive(Debug, Clone)]
pub struct ChatCompletionsGenerator {
    url: HttpUrl,
    config: ChatCompletionsConfig,
}

impl ChatCompletionsGenerator {
    /// Checks the URL (`http://host[:port][/path]`).
    pub fn new(config: ChatCompletionsConfig) -> Result<ChatCompletionsGenerator, String> {
        let url = HttpUrl::parse(&config.url).map_err(|e| format!("clue generator url {e}"))?;
        Ok(ChatCompletionsGenerator { url, config })
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

    fn post(&self, body: Vec<u8>) -> Result<Vec<u8>, String> {
        let addr = self.url.resolve().map_err(|e| e.to_string())?;
        let mut request = Request::new("POST", &self.url.join("chat/completions"))
            .host(&self.url.authority())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .timeout(Duration::from_secs(self.config.timeout_secs.max(1)))
            .max_response(MAX_RESPONSE)
            .body(body);
        if let Some(key) = &self.config.api_key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let response = request.send(addr).map_err(|e| e.to_string())?;
        if response.status != 200 {
            return Err(format!("HTTP status {}", response.status));
        }
        Ok(response.body)
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
        let response = self.post(bytes).map_err(GenerateError::Upstream)?;
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
        assert_eq!((g.url.port, g.url.join("chat/completions")), (8081, "/v1/chat/completions".to_owned()));
        assert!(ChatCompletionsGenerator::new(config("https://api.example/v1")).is_err());
        assert!(ChatCompletionsGenerator::new(config("http://:80/v1")).is_err());
    }

    #[test]
    fn list_marks_are_stripped() {
        assert_eq!(strip_list_marks("1. \"Frozen water\""), "Frozen water");
        assert_eq!(strip_list_marks("- Rink surface"), "Rink surface");
    }
}
