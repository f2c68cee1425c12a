//! A failed call or connection as a person reads it: the code and message, the transport's own
//! reason once (not tonic's debug dump), and what to do about the failures a first run meets —
//! nothing listening, plaintext against a TLS port and the reverse, a certificate not trusted.

use std::error::Error as StdError;

use super::Remote;
use crate::grpc::code_name;

/// A failed call: `CODE: message`, the transport's reason when the connection failed, and a
/// hint naming the flag or URL to change.
pub fn call_failed(status: &tonic::Status, remote: &Remote) -> anyhow::Error {
    let head = format!("{}: {}", code_name(status.code()), status.message());
    anyhow::anyhow!(explained(head, StdError::source(status), &remote.url))
}

/// A failed call of a [`super::follow::Follower`].
pub fn follow_failed(status: &tonic::Status, follower: &super::follow::Follower) -> anyhow::Error {
    call_failed(status, follower.remote())
}

/// A connection that could not be made to `url`.
pub fn connect_failed(error: &tonic::transport::Error, url: &str) -> anyhow::Error {
    anyhow::anyhow!(explained(format!("connecting to {url}"), Some(error), url))
}

/// `head`, each cause in the chain not already said, and the hint for the chain.
fn explained(mut text: String, cause: Option<&(dyn StdError + 'static)>, url: &str) -> String {
    let mut next = cause;
    while let Some(e) = next {
        let said = e.to_string();
        if !said.is_empty() && !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        next = e.source();
    }
    if let Some(hint) = hint(&text, url) {
        text.push_str("\n  ");
        text.push_str(&hint);
    }
    text
}

/// What to do, for the failures whose reason alone does not say it.
fn hint(text: &str, url: &str) -> Option<String> {
    let plain = url.starts_with("http://");
    let authority = url.split_once("://").map_or(url, |(_, a)| a);
    let lower = text.to_ascii_lowercase();
    if lower.contains("connection refused") {
        return Some(format!(
            "nothing listens at {authority}: is `toolview serve` running there (--server, \
             TOOLVIEW_SERVER)?"
        ));
    }
    // A TLS port answers plaintext HTTP/2 with a TLS alert (an HTTP/2 frame of no valid size)
    // or by closing the connection, whichever the timing makes the client see first.
    let broke = [
        "http2 error",
        "frame with invalid size",
        "broken pipe",
        "connection reset",
    ];
    if plain && broke.iter().any(|b| lower.contains(b)) {
        return Some(format!(
            "the server closed the connection or did not answer in plaintext HTTP/2: if it \
             serves TLS, use --server https://{authority} (with --tls-ca when its certificate \
             is your own)"
        ));
    }
    if !plain
        && (lower.contains("invalidcontenttype")
            || lower.contains("corrupt message")
            || lower.contains("wrong version number"))
    {
        return Some(format!(
            "the server does not speak TLS: use --server http://{authority}"
        ));
    }
    if lower.contains("invalid peer certificate") || lower.contains("unknownissuer") {
        return Some(
            "the server's certificate is not trusted here: pass --tls-ca with the CA (PEM) that \
             issued it"
                .into(),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_first_run_failure_gets_its_hint_and_others_none() {
        let http = "http://127.0.0.1:50051";
        let https = "https://localhost:50051";
        let refused = hint("tcp connect error: Connection refused (os error 111)", http);
        assert!(
            refused
                .unwrap()
                .contains("nothing listens at 127.0.0.1:50051")
        );
        let tls_port = hint("h2 protocol error: http2 error", http).unwrap();
        assert!(tls_port.contains("--server https://127.0.0.1:50051"));
        assert!(hint("h2 protocol error: http2 error", https).is_none());
        let closed = hint(
            "connection error: stream closed because of a broken pipe",
            http,
        );
        assert!(closed.unwrap().contains("--server https://"));
        let plain_port = hint("received corrupt message of type InvalidContentType", https);
        assert!(
            plain_port
                .unwrap()
                .contains("--server http://localhost:50051")
        );
        let untrusted = hint("invalid peer certificate: UnknownIssuer", https);
        assert!(untrusted.unwrap().contains("--tls-ca"));
        assert!(hint("NOT_FOUND: no session", http).is_none());
    }
}
