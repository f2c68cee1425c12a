//! Tokens for the auth tests (made with jsonwebtoken directly, so each claim can be wrong on
//! purpose), requests carrying them, and raw gRPC-Web calls.

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

/// A 48-byte HS256 secret, as a server's --jwt-secret-file holds it.
pub const SECRET: &str = "test-secret-0123456789abcdef0123456789abcdef0123";

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Claims with `aud: toolview`, `exp` in `ttl` seconds (negative: in the past) and one grant.
pub fn claims(rights: &[&str], sessions: &[&str], ttl: i64) -> Value {
    json!({
        "aud": "toolview",
        "sub": "test",
        "exp": now().saturating_add_signed(ttl),
        "toolview": {"grants": [{"rights": rights, "sessions": sessions}]},
    })
}

/// Signs `claims` with HS256 and `secret`.
pub fn hs256(claims: &Value, secret: &str) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()).unwrap(),
    )
    .unwrap()
}

/// A token valid for an hour with `rights` on `sessions`, signed with [`SECRET`].
pub fn token(rights: &[&str], sessions: &[&str]) -> String {
    hs256(&claims(rights, sessions, 3600), SECRET)
}

/// An unsigned token (`alg: none`) with the given claims.
pub fn unsigned(claims: &Value) -> String {
    use base64::Engine as _;
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "typ": "JWT"})),
        b64(claims)
    )
}

/// A request with `authorization: Bearer <token>`.
pub fn with_token<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut req = tonic::Request::new(message);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// One gRPC-Web call over HTTP/1.1 (what a browser sends) on `io`; returns the
/// `grpc-status` the server answered with.
pub async fn grpc_web_status(
    io: impl AsyncRead + AsyncWrite + Unpin,
    host: &str,
    path: &str,
    message: &impl prost::Message,
    token: Option<&str>,
) -> u32 {
    grpc_web_exchange(io, host, path, message, token).await.0
}

/// One gRPC-Web call read to its end: the `grpc-status` and the whole response (head, data
/// frames and trailers) as bytes.
pub async fn grpc_web_exchange(
    mut io: impl AsyncRead + AsyncWrite + Unpin,
    host: &str,
    path: &str,
    message: &impl prost::Message,
    token: Option<&str>,
) -> (u32, Vec<u8>) {
    let body = message.encode_to_vec();
    let mut frame = vec![0u8];
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(&body);
    let auth = token.map_or(String::new(), |t| format!("authorization: Bearer {t}\r\n"));
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/grpc-web+proto\r\n\
         x-grpc-web: 1\r\n{auth}content-length: {}\r\nconnection: close\r\n\r\n",
        frame.len()
    );
    io.write_all(head.as_bytes()).await.unwrap();
    io.write_all(&frame).await.unwrap();
    io.flush().await.unwrap();
    let mut response = Vec::new();
    let _ = io.read_to_end(&mut response).await;
    let text = String::from_utf8_lossy(&response).to_ascii_lowercase();
    let at = text
        .find("grpc-status:")
        .unwrap_or_else(|| panic!("no grpc-status in {text}"));
    let status = text[at + "grpc-status:".len()..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    (status, response)
}

/// A server process with the memory store and `--auth jwt` on [`SECRET`] (written into
/// `dir`), with `extra` flags.
pub fn secret_server(dir: &std::path::Path, extra: &[&str]) -> super::process::ServerProcess {
    let secret = dir.join("secret");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    let mut flags = vec![
        "--store",
        "memory",
        "--auth",
        "jwt",
        "--jwt-secret-file",
        secret.to_str().unwrap(),
    ];
    flags.extend_from_slice(extra);
    super::process::ServerProcess::spawn(dir, &flags)
}
