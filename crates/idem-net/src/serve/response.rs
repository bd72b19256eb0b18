//! What the server answers: a status, a media type, headers and a body. Below both the
//! connection handling (`http.rs`) and the problem bodies (`problem.rs`), which each build one.

/// The media type of a problem body (RFC 9457).
pub const PROBLEM: &str = "application/problem+json";

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
