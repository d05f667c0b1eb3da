//! The product's one HTTP client: plain HTTP/1.1 over a fresh TCP connection, one request per
//! connection (`Connection: close`), blocking, with a whole-request deadline and a cap on the
//! response size. It serves the admin command (the loopback admin endpoint), a service's calls
//! to a configured model server, and the black-box tests. TLS is out of scope: the servers it
//! talks to are on loopback or the operator's own network.
//!
//! ```no_run
//! use service_kit::http_client::Request;
//! let addr = "127.0.0.1:8080".parse().unwrap();
//! let response = Request::new("GET", "/api/v1/status").send(addr)?;
//! assert_eq!(response.status, 200);
//! println!("{}", response.text());
//! # Ok::<(), service_kit::http_client::HttpError>(())
//! ```

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Why a request got no usable response.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The URL is not `http://host[:port][/path]`.
    #[error("{0}")]
    BadUrl(String),
    /// The host name did not resolve.
    #[error("resolving {host}: {detail}")]
    Resolve {
        /// The host.
        host: String,
        /// What the resolver said.
        detail: String,
    },
    /// Connecting failed.
    #[error("connecting: {0}")]
    Connect(std::io::Error),
    /// Sending the request failed and no response came back.
    #[error("sending: {0}")]
    Send(std::io::Error),
    /// Reading the response failed.
    #[error("reading: {0}")]
    Read(std::io::Error),
    /// The deadline passed.
    #[error("timed out")]
    TimedOut,
    /// The response was larger than allowed.
    #[error("response larger than {0} bytes")]
    TooLarge(usize),
    /// The response is not HTTP/1.1 (or its chunked body is broken).
    #[error("malformed HTTP response")]
    Malformed,
}

/// An `http://host[:port][/path]` address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    /// The host, without brackets for IPv6.
    pub host: String,
    /// The port (80 when absent).
    pub port: u16,
    /// The path, starting with `/`, without a trailing `/` (empty path: `/`).
    pub path: String,
}

impl HttpUrl {
    /// Parses a plain-http URL.
    pub fn parse(url: &str) -> Result<HttpUrl, HttpError> {
        let rest = url.strip_prefix("http://").ok_or_else(|| {
            HttpError::BadUrl(format!("{url:?}: only http:// is supported (run a local TLS proxy for https)"))
        })?;
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => {
                (h, p.parse::<u16>().map_err(|_| HttpError::BadUrl(format!("{url:?}: bad port {p:?}")))?)
            }
            _ => (authority, 80),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(HttpError::BadUrl(format!("{url:?} has no host")));
        }
        Ok(HttpUrl { host: host.to_owned(), port, path: format!("/{}", path.trim_end_matches('/')) })
    }

    /// `path` joined to this URL's path (`/v1` + `chat/completions`).
    pub fn join(&self, path: &str) -> String {
        format!("{}/{}", self.path.trim_end_matches('/'), path.trim_start_matches('/'))
    }

    /// The `Host` header value.
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The first address the host resolves to.
    pub fn resolve(&self) -> Result<SocketAddr, HttpError> {
        let resolve_error = |detail: String| HttpError::Resolve { host: self.host.clone(), detail };
        (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| resolve_error(e.to_string()))?
            .next()
            .ok_or_else(|| resolve_error("no address".into()))
    }
}

/// A request to send.
#[derive(Debug, Clone)]
pub struct Request {
    method: String,
    target: String,
    host: Option<String>,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    timeout: Duration,
    max_response: usize,
}

/// A complete response.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, in order, names as sent.
    pub headers: Headers,
    /// The body, de-chunked.
    pub body: Vec<u8>,
}

impl Response {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The body as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A response whose body is read as it arrives (event streams).
#[derive(Debug)]
pub struct ResponseStream {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes read with the head and not yet returned by [`ResponseStream::read_some`].
    pending: Vec<u8>,
    stream: TcpStream,
}

impl ResponseStream {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The next raw bytes of the body (chunk framing included), or `None` once the server has
    /// closed the connection (or the read timeout passed).
    pub fn read_some(&mut self) -> Option<Vec<u8>> {
        if !self.pending.is_empty() {
            return Some(std::mem::take(&mut self.pending));
        }
        let mut chunk = [0u8; 8192];
        match self.stream.read(&mut chunk) {
            Ok(0) | Err(_) => None,
            Ok(n) => Some(chunk[..n].to_vec()),
        }
    }
}

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

impl Request {
    /// A request for `target` (path and query), 30-second deadline, 16 MiB response cap.
    pub fn new(method: &str, target: &str) -> Request {
        Request {
            method: method.to_owned(),
            target: target.to_owned(),
            host: None,
            headers: Vec::new(),
            body: None,
            timeout: Duration::from_secs(30),
            max_response: 16 << 20,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The `Host` header (default: the address connected to).
    pub fn host(mut self, host: &str) -> Request {
        self.host = Some(host.to_owned());
        self
    }

    /// The body (sent with `Content-Length`).
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = Some(body.into());
        self
    }

    /// The whole-request deadline, from connecting to the last byte.
    pub fn timeout(mut self, timeout: Duration) -> Request {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// The largest response accepted.
    pub fn max_response(mut self, bytes: usize) -> Request {
        self.max_response = bytes;
        self
    }

    /// Connects to `addr` and writes the request. A body the server refused to read (it
    /// answered early, e.g. 413) is not an error as long as a response arrives.
    fn start(&self, addr: SocketAddr, deadline: Instant) -> Result<(TcpStream, Option<std::io::Error>), HttpError> {
        let remaining = || deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        let mut stream = TcpStream::connect_timeout(&addr, remaining()).map_err(HttpError::Connect)?;
        stream.set_write_timeout(Some(remaining())).map_err(HttpError::Connect)?;
        let mut head = format!(
            "{} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.method,
            self.target,
            self.host.clone().unwrap_or_else(|| addr.to_string())
        );
        for (k, v) in &self.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if let Some(b) = &self.body {
            head.push_str(&format!("Content-Length: {}\r\n", b.len()));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).map_err(HttpError::Send)?;
        let body_error = self.body.as_ref().and_then(|b| stream.write_all(b).err());
        Ok((stream, body_error))
    }

    /// Sends the request to `addr` and reads the whole response.
    pub fn send(&self, addr: SocketAddr) -> Result<Response, HttpError> {
        let deadline = Instant::now() + self.timeout;
        let (mut stream, body_error) = self.start(addr, deadline)?;
        let mut raw = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(HttpError::TimedOut);
            }
            stream.set_read_timeout(Some(left)).map_err(HttpError::Read)?;
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                    return Err(HttpError::TimedOut)
                }
                // A reset after the response arrived (the server closed with our body unread).
                Err(_) if !raw.is_empty() => break,
                Err(e) => return Err(body_error.map_or(HttpError::Read(e), HttpError::Send)),
            }
            if raw.len() > self.max_response {
                return Err(HttpError::TooLarge(self.max_response));
            }
        }
        let (status, headers, at) = parse_head(&raw).ok_or(HttpError::Malformed)?;
        let body = &raw[at..];
        let chunked = header(&headers, "transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let body = if chunked { dechunk(body).ok_or(HttpError::Malformed)? } else { body.to_vec() };
        Ok(Response { status, headers, body })
    }

    /// Sends the request to `addr` and returns once the response head has arrived; the body is
    /// read as it comes ([`ResponseStream::read_some`]), each read waiting at most the deadline.
    pub fn open(&self, addr: SocketAddr) -> Result<ResponseStream, HttpError> {
        let deadline = Instant::now() + self.timeout;
        let (mut stream, _) = self.start(addr, deadline)?;
        stream.set_read_timeout(Some(self.timeout)).map_err(HttpError::Read)?;
        let mut raw = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            if let Some((status, headers, at)) = parse_head(&raw) {
                return Ok(ResponseStream { status, headers, pending: raw.split_off(at), stream });
            }
            match stream.read(&mut buf) {
                Ok(0) => return Err(HttpError::Malformed),
                Ok(n) => raw.extend_from_slice(&buf[..n]),
                Err(e) => return Err(HttpError::Read(e)),
            }
        }
    }
}

/// Header names and values, in order.
type Headers = Vec<(String, String)>;

/// Status, headers and the offset of the body, once the head is complete.
fn parse_head(raw: &[u8]) -> Option<(u16, Headers, usize)> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.lines();
    let status = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())).collect();
    Some((status, headers, end + 4))
}

/// Decodes a chunked HTTP/1.1 body; `None` when malformed or cut short.
pub fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size..)?.strip_prefix(b"\r\n")?;
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn chunks_are_joined_and_malformed_bodies_refused() {
        assert_eq!(dechunk(b"4\r\nWiki\r\n5;x=1\r\npedia\r\n0\r\n\r\n").unwrap(), b"Wikipedia");
        assert!(dechunk(b"zz\r\n").is_none());
        assert!(dechunk(b"10\r\nshort").is_none());
    }

    #[test]
    fn urls_are_checked() {
        let u = HttpUrl::parse("http://127.0.0.1:8081/v1").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.join("chat/completions")),
            ("127.0.0.1", 8081, "/v1/chat/completions".into())
        );
        let u = HttpUrl::parse("http://models.local/").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.join("/chat/completions")),
            ("models.local", 80, "/chat/completions".into())
        );
        assert_eq!(HttpUrl::parse("http://[::1]:9/x").unwrap().authority(), "[::1]:9");
        for bad in ["https://api.example/v1", "http://:80/v1", "http://h:port/v1"] {
            assert!(matches!(HttpUrl::parse(bad), Err(HttpError::BadUrl(_))), "{bad}");
        }
    }

    /// True once `got` holds a request head and as many body bytes as its `Content-Length`.
    fn request_complete(got: &[u8]) -> bool {
        let text = String::from_utf8_lossy(got);
        let Some(end) = text.find("\r\n\r\n") else { return false };
        let length = text[..end]
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        got.len() >= end + 4 + length
    }

    /// A one-shot server answering `reply` to the first connection; returns what it received.
    fn serve_once(reply: &'static [u8], pause: Duration) -> (SocketAddr, std::thread::JoinHandle<Vec<u8>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
            // The whole request: the client may send the head and the body in separate writes.
            let mut got = Vec::new();
            let mut chunk = [0u8; 4096];
            while !request_complete(&got) {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => got.extend_from_slice(&chunk[..n]),
                }
            }
            std::thread::sleep(pause);
            let _ = s.write_all(reply);
            got
        });
        (addr, handle)
    }

    #[test]
    fn requests_go_out_and_chunked_responses_come_back() {
        let (addr, server) = serve_once(
            b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            Duration::ZERO,
        );
        let r = Request::new("POST", "/p?q=1").header("X-Key", "k").body("{}").send(addr).unwrap();
        assert_eq!((r.status, r.header("x-a"), r.text().as_str()), (201, Some("1"), "ok"));
        let sent = String::from_utf8(server.join().unwrap()).unwrap();
        assert!(sent.starts_with("POST /p?q=1 HTTP/1.1\r\n"), "{sent}");
        assert!(
            sent.contains("X-Key: k\r\n") && sent.contains("Content-Length: 2\r\n") && sent.ends_with("\r\n\r\n{}")
        );
    }

    #[test]
    fn deadlines_and_size_caps_hold() {
        let (addr, _server) = serve_once(b"HTTP/1.1 200 OK\r\n\r\nlate", Duration::from_millis(800));
        let r = Request::new("GET", "/").timeout(Duration::from_millis(200)).send(addr);
        assert!(matches!(r, Err(HttpError::TimedOut)), "{r:?}");
        let (addr, _server) = serve_once(b"HTTP/1.1 200 OK\r\n\r\n0123456789", Duration::ZERO);
        assert!(matches!(Request::new("GET", "/").max_response(8).send(addr), Err(HttpError::TooLarge(8))));
    }
}
