//! A scripted HTTP/1.1 server on 127.0.0.1 for backend tests: each request gets the next
//! [`Reply`] of the script (the last one repeats), streamed as real chunked or close-delimited
//! bodies, with faults on demand. It records every request and whether the client hung up.
//!
//! Include with `#[path = "support/loopback.rs"] mod loopback;`.

#![allow(dead_code)]
// Test support: a failure here is a broken test setup, and should panic loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One piece of a streamed body, sent after a pause.
#[derive(Debug, Clone)]
pub struct Piece {
    pub delay: Duration,
    pub bytes: Vec<u8>,
}

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 `text/event-stream`, the pieces as chunks; `chunked: false` sends a body delimited by
    /// closing the connection instead.
    Stream { pieces: Vec<Piece>, chunked: bool },
    /// 200 `text/event-stream`, the pieces, then the connection is dropped without ending the
    /// chunked body.
    DropMidStream { pieces: Vec<Piece> },
    /// Any status with headers and a body.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// 200 `application/json` (a server that does not stream).
    Json(String),
    /// Reads the request, never answers.
    Hang,
    /// Closes the connection as soon as the request is read.
    Close,
}

impl Reply {
    /// An SSE body from `text`, sent in pieces of `size` bytes without pauses.
    pub fn sse(text: &str, size: usize) -> Reply {
        Reply::Stream {
            pieces: split(text, size, Duration::ZERO),
            chunked: true,
        }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Status {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    pub fn status_with(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        Reply::Status {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.to_string(),
        }
    }
}

/// `text` cut into pieces of `size` bytes, each sent `delay` after the previous one.
pub fn split(text: &str, size: usize, delay: Duration) -> Vec<Piece> {
    text.as_bytes()
        .chunks(size.max(1))
        .map(|c| Piece {
            delay,
            bytes: c.to_vec(),
        })
        .collect()
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub at: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

#[derive(Debug, Default)]
pub struct Log {
    pub requests: Vec<Recorded>,
    /// When the server noticed a client hang up in the middle of a body.
    pub hung_up: Vec<Instant>,
    /// When the last piece of each streamed body was written.
    pub last_piece: Vec<Instant>,
}

/// A running loopback server.
pub struct Loopback {
    pub base_url: String,
    pub log: Arc<Mutex<Log>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Loopback {
    pub async fn start(script: Vec<Reply>) -> Loopback {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Log::default()));
        let script = Arc::new(script);
        let task = {
            let log = log.clone();
            tokio::spawn(async move {
                let mut served = 0usize;
                loop {
                    let Ok((socket, _)) = listener.accept().await else {
                        return;
                    };
                    let reply = script
                        .get(served)
                        .or_else(|| script.last())
                        .cloned()
                        .unwrap_or(Reply::Close);
                    served += 1;
                    let log = log.clone();
                    tokio::spawn(async move { serve(socket, reply, log).await });
                }
            })
        };
        Loopback {
            base_url,
            log,
            task,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().requests.clone()
    }

    pub fn hung_up(&self) -> Vec<Instant> {
        self.log.lock().unwrap().hung_up.clone()
    }

    pub fn last_piece(&self) -> Vec<Instant> {
        self.log.lock().unwrap().last_piece.clone()
    }
}

async fn serve(mut socket: TcpStream, reply: Reply, log: Arc<Mutex<Log>>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    log.lock().unwrap().requests.push(request);
    match reply {
        Reply::Stream { pieces, chunked } => {
            let head = if chunked {
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
            } else {
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            };
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            if !send_pieces(&mut socket, &pieces, chunked, &log).await {
                return;
            }
            log.lock().unwrap().last_piece.push(Instant::now());
            if chunked {
                let _ = socket.write_all(b"0\r\n\r\n").await;
            }
            let _ = socket.shutdown().await;
        }
        Reply::DropMidStream { pieces } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            send_pieces(&mut socket, &pieces, true, &log).await;
            // Dropping the socket without the terminating chunk: a broken connection.
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Json(body) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Hang => {
            // Wait until the client gives up (the read returns 0 or fails).
            let mut buf = [0u8; 64];
            let _ = socket.read(&mut buf).await;
        }
        Reply::Close => {}
    }
}

/// Writes the pieces; false (and a note in the log) when the client hung up.
async fn send_pieces(
    socket: &mut TcpStream,
    pieces: &[Piece],
    chunked: bool,
    log: &Arc<Mutex<Log>>,
) -> bool {
    for piece in pieces {
        if !piece.delay.is_zero() {
            tokio::time::sleep(piece.delay).await;
        }
        let mut frame = Vec::new();
        if chunked {
            frame.extend_from_slice(format!("{:x}\r\n", piece.bytes.len()).as_bytes());
            frame.extend_from_slice(&piece.bytes);
            frame.extend_from_slice(b"\r\n");
        } else {
            frame.extend_from_slice(&piece.bytes);
        }
        let written = socket.write_all(&frame).await.and(socket.flush().await);
        if written.is_err() {
            log.lock().unwrap().hung_up.push(Instant::now());
            return false;
        }
    }
    true
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = find(&buffer, b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
        at: Instant::now(),
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The SSE body of an OpenAI-style stream: `data: <chunk>` per item, then `[DONE]`; CRLF line
/// ends to exercise them.
pub fn openai_sse(chunks: &[&str]) -> String {
    let mut out = String::from(": ping\r\n\r\n");
    for chunk in chunks {
        out.push_str(&format!("data: {chunk}\r\n\r\n"));
    }
    out.push_str("data: [DONE]\r\n\r\n");
    out
}

/// The SSE body of an Anthropic stream from `(event, data)` pairs.
pub fn anthropic_sse(events: &[(&str, &str)]) -> String {
    events
        .iter()
        .map(|(event, data)| format!("event: {event}\ndata: {data}\n\n"))
        .collect()
}
