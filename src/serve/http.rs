//! A small HTTP/1.1 server with every bound written down: one request per connection, a
//! request head of at most 8 KiB parsed by `httparse`, a body of at most 16 KiB with a
//! `Content-Length`, read and write timeouts, and a cap on open connections. Whatever breaks
//! a bound is answered with a 4xx (or 503 when full) and the connection closed.
//!
//! (tiny_http 0.12, the first choice, buffers a request head without limit and, when a
//! handler answers without reading the body, allocates the declared `Content-Length` at once:
//! one request declaring a terabyte aborts the process.)

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The bounds of the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The request line and headers, in bytes.
    pub head: usize,
    /// Header lines.
    pub headers: usize,
    /// The body, in bytes.
    pub body: usize,
    /// Open connections; one more is answered 503 and closed.
    pub connections: usize,
    /// How long a read or a write may wait.
    pub io_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head: 8 * 1024,
            headers: 64,
            body: 16 * 1024,
            connections: 64,
            io_timeout: Duration::from_secs(10),
        }
    }
}

/// A request as the handler sees it.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path with its query, as sent.
    pub target: String,
    /// Names as sent; values as raw bytes (a header may hold any byte but a control).
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl Request {
    /// Every value of the header `name`, compared without case; a value that is not text is
    /// shown with its bytes replaced.
    pub fn header_values(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
            .collect()
    }
}

/// An answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    /// Further headers, each a name and a value the server wrote itself.
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

impl Response {
    pub fn new(status: u16, content_type: &'static str, body: String) -> Response {
        Response {
            status,
            content_type,
            headers: Vec::new(),
            body,
        }
    }

    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }
}

/// What the handler decided: the answer, and work to do once it has been sent.
pub struct Outcome {
    pub response: Response,
    pub after: Option<Box<dyn FnOnce() + Send>>,
}

pub type Handler = dyn Fn(&Request) -> Outcome + Send + Sync;

/// Serves `listener` for ever: each connection on a thread of its own, up to the cap.
pub fn serve(listener: TcpListener, limits: Limits, handler: Arc<Handler>) -> io::Result<()> {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            // A connection that failed before it was accepted (reset, out of descriptors
            // for a moment): nothing to answer; the next one may do better.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let _ = stream.set_read_timeout(Some(limits.io_timeout));
        let _ = stream.set_write_timeout(Some(limits.io_timeout));
        if open.fetch_add(1, Ordering::SeqCst) >= limits.connections {
            open.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            refuse(
                stream,
                &problem_response(503, "the server is busy; try again shortly"),
            );
            continue;
        }
        let (open2, handler) = (Arc::clone(&open), Arc::clone(&handler));
        let spawned = std::thread::Builder::new()
            .name("idem-serve-conn".into())
            .spawn(move || {
                connection(stream, limits, &*handler);
                open2.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::SeqCst);
        }
    }
    Ok(())
}

/// Why a request could not be read.
enum ReadFailure {
    /// Answer this, then close.
    Answer(Response),
    /// The client went away or said nothing: close without a word.
    Gone,
}

fn connection(mut stream: TcpStream, limits: Limits, handler: &Handler) {
    let request = match read_request(&mut stream, limits) {
        Ok(r) => r,
        Err(ReadFailure::Answer(response)) => return refuse(stream, &response),
        Err(ReadFailure::Gone) => return,
    };
    let outcome = handler(&request);
    let _ = write_response(&mut stream, &outcome.response);
    let _ = stream.shutdown(Shutdown::Write);
    if let Some(after) = outcome.after {
        after();
    }
}

/// Answers and closes, after letting the client finish sending (up to a bound), so the
/// answer is not lost to a reset.
fn refuse(mut stream: TcpStream, response: &Response) {
    let _ = write_response(&mut stream, response);
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 4096];
    let mut drained = 0usize;
    while drained < 256 * 1024 {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

fn read_request(stream: &mut TcpStream, limits: Limits) -> Result<Request, ReadFailure> {
    let mut buf: Vec<u8> = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let (head_len, method, target, headers) = loop {
        let mut slots = vec![httparse::EMPTY_HEADER; limits.headers];
        let mut parsed = httparse::Request::new(&mut slots);
        match parsed.parse(&buf) {
            Ok(httparse::Status::Complete(n)) => {
                let method = parsed.method.unwrap_or("").to_string();
                let target = parsed.path.unwrap_or("").to_string();
                let headers = parsed
                    .headers
                    .iter()
                    .map(|h| (h.name.to_string(), h.value.to_vec()))
                    .collect::<Vec<_>>();
                break (n, method, target, headers);
            }
            Ok(httparse::Status::Partial) => {}
            Err(httparse::Error::TooManyHeaders) => {
                return Err(ReadFailure::Answer(too_large_headers(limits)));
            }
            Err(e) => {
                return Err(ReadFailure::Answer(problem_response(
                    400,
                    &format!("the request is not HTTP/1.1 that this server can read: {e}"),
                )));
            }
        }
        if buf.len() >= limits.head {
            return Err(ReadFailure::Answer(too_large_headers(limits)));
        }
        let room = (limits.head + 1 - buf.len()).min(chunk.len());
        match stream.read(&mut chunk[..room]) {
            Ok(0) => return Err(ReadFailure::Gone),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if timed_out(&e) && !buf.is_empty() => {
                return Err(ReadFailure::Answer(problem_response(
                    408,
                    "the request head did not arrive in time",
                )));
            }
            Err(_) => return Err(ReadFailure::Gone),
        }
    };
    let value = |name: &str| {
        headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| String::from_utf8_lossy(v).trim().to_string())
            .collect::<Vec<_>>()
    };
    if !value("transfer-encoding").is_empty() {
        return Err(ReadFailure::Answer(problem_response(
            411,
            "this server takes a body only with a Content-Length, not a Transfer-Encoding",
        )));
    }
    let lengths = value("content-length");
    let length = match lengths.as_slice() {
        [] => 0,
        [one, rest @ ..] if rest.iter().all(|r| r == one) => one.parse::<u64>().map_err(|_| {
            ReadFailure::Answer(problem_response(
                400,
                "Content-Length is not a whole number of bytes",
            ))
        })?,
        _ => {
            return Err(ReadFailure::Answer(problem_response(
                400,
                "the request carries Content-Length headers that disagree",
            )));
        }
    };
    if length > limits.body as u64 {
        return Err(ReadFailure::Answer(
            crate::serve::problem::BODY_TOO_LARGE.response(&format!(
                "the body is {length} bytes; this server reads at most {}",
                limits.body
            )),
        ));
    }
    let length = length as usize;
    let mut body = buf.split_off(head_len.min(buf.len()));
    if body.len() < length
        && value("expect")
            .iter()
            .any(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    while body.len() < length {
        let room = (length - body.len()).min(chunk.len());
        match stream.read(&mut chunk[..room]) {
            Ok(0) => return Err(ReadFailure::Gone),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if timed_out(&e) => {
                return Err(ReadFailure::Answer(problem_response(
                    408,
                    "the body did not arrive in time",
                )));
            }
            Err(_) => return Err(ReadFailure::Gone),
        }
    }
    body.truncate(length);
    Ok(Request {
        method,
        target,
        headers,
        body,
    })
}

fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

fn too_large_headers(limits: Limits) -> Response {
    crate::serve::problem::HEADERS_TOO_LARGE.response(&format!(
        "the request head is longer than {} bytes or has more than {} header lines",
        limits.head, limits.headers
    ))
}

/// The media type of a problem body (RFC 9457).
pub const PROBLEM: &str = "application/problem+json";

/// A problem answer for a failure of the HTTP layer itself.
fn problem_response(status: u16, detail: &str) -> Response {
    let body = serde_json::json!({
        "type": "about:blank",
        "title": reason(status),
        "status": status,
        "detail": detail,
    })
    .to_string();
    Response::new(status, PROBLEM, body)
}

fn write_response(stream: &mut TcpStream, r: &Response) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    for (name, value) in &r.headers {
        // Values are the server's own; a line break in one would split the head.
        let value: String = value.chars().filter(|c| !c.is_control()).collect();
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(r.body.as_bytes())?;
    stream.flush()
}

/// The reason phrase of the status codes this server uses.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}
