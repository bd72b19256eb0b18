//! A small HTTP/1.1 server with every bound written down: one request per connection, a
//! request head of at most 8 KiB parsed by `httparse`, a body of at most 16 KiB with a
//! `Content-Length`, read and write timeouts, a deadline for the whole request however it
//! trickles, and a cap on open connections, where a newcomer takes the slot of the
//! connection that has been sending its request longest; when every slot is taken, newcomers
//! wait in a lobby until their request head has come, and then take the slot of one that has
//! sent none (see [`Lobby`]). Whatever breaks a bound is answered
//! with a 4xx (or 503 when full) and the connection closed; the accept loop itself never
//! waits on a client.
//!
//! (tiny_http 0.12, the first choice, buffers a request head without limit and, when a
//! handler answers without reading the body, allocates the declared `Content-Length` at once:
//! one request declaring a terabyte aborts the process.)

pub use super::response::{PROBLEM, Response};
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The bounds of the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The request line and headers, in bytes.
    pub head: usize,
    /// Header lines.
    pub headers: usize,
    /// The body, in bytes.
    pub body: usize,
    /// Open connections. When all are taken, one still sending its request after
    /// [`Limits::evict_after`] is closed to make room; when none is, the newcomer is answered
    /// 503 and closed.
    pub connections: usize,
    /// How long one read or write may wait.
    pub io_timeout: Duration,
    /// How long the whole request, head and body, may take to arrive, however it trickles.
    pub request_timeout: Duration,
    /// How long a connection must have been sending its request before it may lose its
    /// slot to a newcomer when every slot is taken.
    pub evict_after: Duration,
    /// Connections answered 503 at the same time, each off the accept loop; beyond that a
    /// newcomer is closed without a word.
    pub refusals: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head: 8 * 1024,
            headers: 64,
            body: 16 * 1024,
            connections: 64,
            io_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            evict_after: Duration::from_secs(1),
            refusals: 16,
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

/// What the handler decided: the answer, and work to do once it has been sent.
pub struct Outcome {
    pub response: Response,
    pub after: Option<Box<dyn FnOnce() + Send>>,
}

pub type Handler = dyn Fn(&Request) -> Outcome + Send + Sync;

/// A connection still sending its request.
struct Reader {
    id: u64,
    since: Instant,
    /// A handle to close its reading half with; none when the handle could not be made.
    stream: Option<TcpStream>,
    /// It has given its slot to a newcomer.
    evicted: bool,
}

/// The connection slots, and the connections among them still sending their requests.
#[derive(Default)]
struct Slots {
    state: Mutex<SlotState>,
}

#[derive(Default)]
struct SlotState {
    taken: usize,
    next_id: u64,
    reading: Vec<Reader>,
}

/// What the accept loop does with a new connection.
enum Admission {
    /// Served in the slot with this id.
    Slot(u64),
    /// Every slot is busy with a request that has arrived, or one just started: 503.
    Full,
}

impl Slots {
    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        // A connection thread that panicked left the counts as they were: still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes a slot for `stream`: a free one, or that of the connection which has been
    /// sending its request longest, if that is longer than `evict_after` (or, for a newcomer
    /// whose whole request head has already come, however long: a connection that has sent
    /// a whole request is preferred to one that has not).
    fn admit(&self, stream: &TcpStream, limits: &Limits, whole: bool) -> Admission {
        let mut st = self.lock();
        if st.taken >= limits.connections {
            let now = Instant::now();
            let least = if whole {
                Duration::ZERO
            } else {
                limits.evict_after
            };
            let oldest = st
                .reading
                .iter_mut()
                .filter(|r| !r.evicted && r.stream.is_some())
                .filter(|r| now.duration_since(r.since) >= least)
                .min_by_key(|r| r.since);
            let Some(oldest) = oldest else {
                return Admission::Full;
            };
            oldest.evicted = true;
            if let Some(s) = &oldest.stream {
                // Its blocked read returns at once; its thread answers 503 and ends.
                let _ = s.shutdown(Shutdown::Read);
            }
            // The slot passes to the newcomer.
            st.taken -= 1;
        }
        st.taken += 1;
        st.next_id += 1;
        let id = st.next_id;
        st.reading.push(Reader {
            id,
            since: Instant::now(),
            stream: stream.try_clone().ok(),
            evicted: false,
        });
        Admission::Slot(id)
    }

    /// The request of `id` has arrived (or failed to): whether it lost its slot meanwhile.
    fn done_reading(&self, id: u64) -> bool {
        let mut st = self.lock();
        let Some(i) = st.reading.iter().position(|r| r.id == id) else {
            return false;
        };
        st.reading.swap_remove(i).evicted
    }

    /// The connection `id` is over: its slot is free, unless it was given away.
    fn release(&self, id: u64, evicted: bool) {
        let mut st = self.lock();
        if let Some(i) = st.reading.iter().position(|r| r.id == id) {
            let r = st.reading.swap_remove(i);
            if r.evicted {
                return;
            }
        } else if evicted {
            return;
        }
        st.taken = st.taken.saturating_sub(1);
    }
}

/// Serves `listener` for ever: each connection on a thread of its own, up to the cap. The
/// accept loop itself never reads or writes a connection.
pub fn serve(listener: TcpListener, limits: Limits, handler: Arc<Handler>) -> io::Result<()> {
    let slots = Arc::new(Slots::default());
    let refusing = Arc::new(AtomicUsize::new(0));
    let lobby = Lobby::start(
        Arc::clone(&slots),
        limits,
        Arc::clone(&handler),
        Arc::clone(&refusing),
    );
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            // A connection that failed before it was accepted (reset, out of descriptors
            // for a moment): nothing to answer; the next one may do better.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let _ = stream.set_read_timeout(Some(limits.io_timeout));
        let _ = stream.set_write_timeout(Some(limits.io_timeout));
        match slots.admit(&stream, &limits, false) {
            Admission::Slot(id) => spawn_connection(stream, limits, &handler, &slots, id),
            // Every slot is taken: the newcomer waits in the lobby for its request head.
            Admission::Full => lobby.enter(stream),
        }
    }
    Ok(())
}

/// Serves `stream` in slot `id` on a thread of its own.
fn spawn_connection(
    stream: TcpStream,
    limits: Limits,
    handler: &Arc<Handler>,
    slots: &Arc<Slots>,
    id: u64,
) {
    let (slots2, handler) = (Arc::clone(slots), Arc::clone(handler));
    let spawned = std::thread::Builder::new()
        .name("idem-serve-conn".into())
        .spawn(move || {
            let evicted = connection(stream, limits, &*handler, &slots2, id);
            slots2.release(id, evicted);
        });
    if spawned.is_err() {
        slots.release(id, false);
    }
}

/// Newcomers that came while every slot was taken. One thread looks at each, without
/// reading it, until its whole request head has come: then it takes the slot of a
/// connection still sending its request (a real client is preferred to one that sends
/// nothing), or, when every slot is serving a whole request, is answered 503. A newcomer that sends
/// nothing leaves the lobby after that wait, or sooner when the lobby is full, so a flood of
/// connections that reconnect as soon as they are dropped never keeps a real request out.
struct Lobby {
    waiting: Arc<Mutex<Vec<(TcpStream, Instant)>>>,
}

/// How long a newcomer may wait in the lobby.
const LOBBY_WAIT: Duration = Duration::from_secs(1);
/// The most newcomers waiting at once; past it the one waiting longest is closed.
const LOBBY_SIZE: usize = 512;
/// How often the lobby looks at its newcomers, and how often when it has none.
const LOBBY_LOOK: Duration = Duration::from_millis(2);
const LOBBY_IDLE: Duration = Duration::from_millis(20);

impl Lobby {
    fn start(
        slots: Arc<Slots>,
        limits: Limits,
        handler: Arc<Handler>,
        refusing: Arc<AtomicUsize>,
    ) -> Lobby {
        let waiting: Arc<Mutex<Vec<(TcpStream, Instant)>>> = Arc::default();
        let shared = Arc::clone(&waiting);
        let _ = std::thread::Builder::new()
            .name("idem-serve-lobby".into())
            .spawn(move || {
                let mut head = [0u8; 8 * 1024];
                let mut idle = true;
                loop {
                    // An empty lobby is looked at seldom: an idle server stays idle.
                    std::thread::sleep(if idle { LOBBY_IDLE } else { LOBBY_LOOK });
                    let batch =
                        std::mem::take(&mut *shared.lock().unwrap_or_else(|e| e.into_inner()));
                    idle = batch.is_empty();
                    let mut keep = Vec::new();
                    for (stream, since) in batch {
                        match whole_head(&stream, &mut head) {
                            Some(true) => match slots.admit(&stream, &limits, true) {
                                Admission::Slot(id) => {
                                    let _ = stream.set_nonblocking(false);
                                    spawn_connection(stream, limits, &handler, &slots, id);
                                }
                                // Every slot is serving a whole request: busy.
                                Admission::Full => {
                                    let _ = stream.set_nonblocking(false);
                                    refuse_busy(stream, &limits, &refusing);
                                }
                            },
                            // Gone, or broken: closed.
                            None => {}
                            Some(false) if since.elapsed() < LOBBY_WAIT => {
                                keep.push((stream, since))
                            }
                            // Nothing whole within the wait: closed without a word.
                            Some(false) => {}
                        }
                    }
                    let mut waiting = shared.lock().unwrap_or_else(|e| e.into_inner());
                    keep.append(&mut waiting);
                    *waiting = keep;
                }
            });
        Lobby { waiting }
    }

    /// Puts a newcomer in the lobby; when it is full, the one waiting longest leaves.
    fn enter(&self, stream: TcpStream) {
        if stream.set_nonblocking(true).is_err() {
            return;
        }
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        if waiting.len() >= LOBBY_SIZE
            && let Some(oldest) = waiting
                .iter()
                .enumerate()
                .min_by_key(|(_, (_, since))| *since)
                .map(|(i, _)| i)
        {
            waiting.swap_remove(oldest);
        }
        waiting.push((stream, Instant::now()));
    }
}

/// Whether a whole request head has come on `stream`, looked at without reading it: `None`
/// when the connection is gone or broken.
fn whole_head(stream: &TcpStream, buf: &mut [u8]) -> Option<bool> {
    match stream.peek(buf) {
        Ok(0) => None,
        Ok(n) => Some(buf[..n].windows(4).any(|w| w == b"\r\n\r\n") || n == buf.len()),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Some(false),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Some(false),
        Err(_) => None,
    }
}

/// Answers 503 on a thread of its own, so a newcomer that reads slowly or trickles does not
/// hold the accept loop; when too many are being refused already, closes without a word.
fn refuse_busy(stream: TcpStream, limits: &Limits, refusing: &Arc<AtomicUsize>) {
    if refusing.fetch_add(1, Ordering::SeqCst) >= limits.refusals {
        refusing.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let counter = Arc::clone(refusing);
    let spawned = std::thread::Builder::new()
        .name("idem-serve-busy".into())
        .spawn(move || {
            refuse(stream, &busy());
            counter.fetch_sub(1, Ordering::SeqCst);
        });
    if spawned.is_err() {
        refusing.fetch_sub(1, Ordering::SeqCst);
    }
}

fn busy() -> Response {
    problem_response(503, "the server is busy; try again shortly").with("Retry-After", "1")
}

/// Why a request could not be read.
enum ReadFailure {
    /// Answer this, then close.
    Answer(Response),
    /// The client went away or said nothing: close without a word.
    Gone,
}

/// Serves one connection; whether it gave its slot to a newcomer while its request was
/// still arriving.
fn connection(
    mut stream: TcpStream,
    limits: Limits,
    handler: &Handler,
    slots: &Slots,
    id: u64,
) -> bool {
    let read = read_request(&mut stream, limits);
    let evicted = slots.done_reading(id);
    let request = match read {
        Ok(r) => r,
        Err(_) if evicted => {
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let answer = problem_response(
                503,
                "every connection was taken and this request was the slowest to arrive; send it again, whole",
            )
            .with("Retry-After", "1");
            refuse(stream, &answer);
            return true;
        }
        Err(ReadFailure::Answer(response)) => {
            refuse(stream, &response);
            return evicted;
        }
        Err(ReadFailure::Gone) => return evicted,
    };
    let outcome = handler(&request);
    let _ = write_response(&mut stream, &outcome.response);
    let _ = stream.shutdown(Shutdown::Write);
    if let Some(after) = outcome.after {
        after();
    }
    evicted
}

/// Answers and closes, after letting the client finish sending (up to a bound), so the
/// answer is not lost to a reset.
fn refuse(mut stream: TcpStream, response: &Response) {
    let _ = write_response(&mut stream, response);
    let _ = stream.shutdown(Shutdown::Write);
    // Half a second in all, however slowly the client trickles.
    let deadline = Instant::now() + Duration::from_millis(500);
    let mut sink = [0u8; 4096];
    let mut drained = 0usize;
    while drained < 256 * 1024 {
        match read_until(&mut stream, &mut sink, deadline, Duration::from_millis(500)) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

/// One read that waits no longer than `io_timeout`, and never past `deadline` (a timeout
/// error once it has passed).
fn read_until(
    stream: &mut TcpStream,
    buf: &mut [u8],
    deadline: Instant,
    io_timeout: Duration,
) -> io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    stream.set_read_timeout(Some(left.min(io_timeout)))?;
    stream.read(buf)
}

fn read_request(stream: &mut TcpStream, limits: Limits) -> Result<Request, ReadFailure> {
    let deadline = Instant::now() + limits.request_timeout;
    let late = || {
        ReadFailure::Answer(problem_response(
            408,
            &format!(
                "the request did not arrive whole within {}",
                crate::units::duration_ms(
                    u64::try_from(limits.request_timeout.as_millis()).unwrap_or(u64::MAX)
                )
            ),
        ))
    };
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
        match read_until(stream, &mut chunk[..room], deadline, limits.io_timeout) {
            Ok(0) => return Err(ReadFailure::Gone),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if timed_out(&e) && !buf.is_empty() && Instant::now() >= deadline => {
                return Err(late());
            }
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
            super::problem::BODY_TOO_LARGE.response(&format!(
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
        match read_until(stream, &mut chunk[..room], deadline, limits.io_timeout) {
            Ok(0) => return Err(ReadFailure::Gone),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if timed_out(&e) && Instant::now() >= deadline => return Err(late()),
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
    super::problem::HEADERS_TOO_LARGE.response(&format!(
        "the request head is longer than {} bytes or has more than {} header lines",
        limits.head, limits.headers
    ))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn get(addr: std::net::SocketAddr, limit: Duration) -> String {
        let Ok(mut s) = TcpStream::connect(addr) else {
            return String::new();
        };
        let _ = s.set_read_timeout(Some(limit));
        let _ = s.write_all(b"GET / HTTP/1.1\r\n\r\n");
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// One slot, held by a request being handled; newcomers trickle their requests and read
    /// nothing. Each is answered 503 on a thread of its own, so the next newcomer is answered
    /// at once, not after the trickling ones are done.
    #[test]
    fn a_full_server_answers_503_off_the_accept_loop() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        let limits = Limits {
            connections: 1,
            evict_after: Duration::from_secs(60),
            ..Limits::default()
        };
        let handler: Arc<Handler> = Arc::new(|_: &Request| {
            std::thread::sleep(Duration::from_secs(3));
            Outcome {
                response: Response::new(200, "text/plain", "ok".into()),
                after: None,
            }
        });
        std::thread::spawn(move || serve(listener, limits, handler));
        let held = std::thread::spawn(move || get(addr, Duration::from_secs(6)));
        std::thread::sleep(Duration::from_millis(200));
        let tricklers: Vec<_> = (0..3)
            .map(|_| {
                std::thread::spawn(move || {
                    let Ok(mut s) = TcpStream::connect(addr) else {
                        return;
                    };
                    for _ in 0..30 {
                        if s.write_all(b"G").is_err() {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(100));
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let asked = Instant::now();
        let answer = get(addr, Duration::from_secs(5));
        let took = asked.elapsed();
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(answer.contains("Retry-After: 1"), "{answer}");
        assert!(took < Duration::from_secs(1), "the 503 took {took:?}");
        for t in tricklers {
            let _ = t.join();
        }
        let first = held.join().expect("the first request");
        assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    }

    /// A request that trickles in, a byte at a time, is cut at the whole-request deadline
    /// although no single read waits long.
    #[test]
    fn a_trickled_request_is_cut_at_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        let limits = Limits {
            request_timeout: Duration::from_millis(800),
            ..Limits::default()
        };
        let handler: Arc<Handler> = Arc::new(|_: &Request| Outcome {
            response: Response::new(200, "text/plain", "ok".into()),
            after: None,
        });
        std::thread::spawn(move || serve(listener, limits, handler));
        let mut s = TcpStream::connect(addr).expect("connects");
        s.set_read_timeout(Some(Duration::from_millis(50)))
            .expect("a timeout");
        let began = Instant::now();
        let mut answer = Vec::new();
        let mut sink = [0u8; 1024];
        for byte in b"POST /charges HTTP/1.1\r\nX: "
            .iter()
            .chain([b'a'; 200].iter())
        {
            if s.write_all(&[*byte]).is_err() {
                break;
            }
            match s.read(&mut sink) {
                Ok(0) => break,
                Ok(n) => {
                    answer.extend_from_slice(&sink[..n]);
                    break;
                }
                Err(_) => {}
            }
        }
        let took = began.elapsed();
        // The answer may come in more than one piece: read it to its end.
        s.set_read_timeout(Some(Duration::from_secs(2)))
            .expect("a timeout");
        while let Ok(n) = s.read(&mut sink) {
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&sink[..n]);
        }
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("did not arrive whole within"), "{answer}");
        assert!(took < Duration::from_secs(3), "cut after {took:?}");
    }
}
