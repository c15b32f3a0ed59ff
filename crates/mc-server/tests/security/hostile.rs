//! A hostile "API server" on 127.0.0.1: records every byte it receives and answers every request
//! with the same canned response.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the hostile server saw.
pub struct Hostile {
    pub port: u16,
    received: Arc<Mutex<Vec<u8>>>,
    connections: Arc<Mutex<usize>>,
}

impl Hostile {
    /// Starts a listener that answers `status` with `body` (as JSON) to everything.
    pub fn start(status: u16, body: &str) -> Hostile {
        Self::answering(format!(
            "HTTP/1.1 {status} Whatever\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ))
    }

    /// Starts a listener that reads each request and closes the connection without a byte.
    pub fn hanging_up() -> Hostile {
        Self::answering(String::new())
    }

    fn answering(response: String) -> Hostile {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(Mutex::new(0));
        let (rx, cx) = (received.clone(), connections.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                *cx.lock().unwrap() += 1;
                serve(stream, &response, &rx);
            }
        });
        Hostile { port, received, connections }
    }

    /// Everything received so far, as text.
    pub fn received(&self) -> String {
        String::from_utf8_lossy(&self.received.lock().unwrap()).to_string()
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        *self.connections.lock().unwrap()
    }
}

fn serve(mut stream: TcpStream, response: &str, received: &Mutex<Vec<u8>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut buf = [0u8; 8192];
    let mut request = Vec::new();
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
        request.extend_from_slice(&buf[..n]);
        if request.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    received.lock().unwrap().extend_from_slice(&request);
    let _ = stream.write_all(response.as_bytes());
}
