//! Raw HTTP/1.1 exchanges, for the endpoints' refusals and framing as a program sees them.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;

/// A raw HTTP/1.1 exchange; the status line and headers, and the body.
pub fn exchange(addr: &str, head: &str, body: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{head}Host: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.to_owned(), body.to_owned())
}
