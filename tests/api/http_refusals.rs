//! The HTTP edge's refusals, the router's own included: every one is JSON `{error, code}` with
//! the HTTP status and gRPC code name of the error table, while a gRPC request to a path no
//! service has still gets gRPC's `UNIMPLEMENTED`.

use serde_json::Value;
use support::process::ServerProcess;

use support::http::exchange as http;

/// The status line's code and the body as JSON, checking the content type.
fn refused(head: &str, body: &str) -> (u16, Value) {
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_router_refuses_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    for (request, status, code, words) in [
        ("GET /nope HTTP/1.1\r\n", 404, "NOT_FOUND", "/nope"),
        ("GET /ag-ui HTTP/1.1\r\n", 405, "UNIMPLEMENTED", "GET"),
        (
            "DELETE /ai-sdk HTTP/1.1\r\n",
            405,
            "UNIMPLEMENTED",
            "DELETE",
        ),
        (
            "GET /ai-sdk/%FF%FE/stream HTTP/1.1\r\n",
            400,
            "INVALID_ARGUMENT",
            "path",
        ),
    ] {
        let (head, body) = http(server.addr(), request, "");
        let (got, answer) = refused(&head, &body);
        assert_eq!(got, status, "{request}: {head}");
        assert_eq!(answer["code"], code, "{request}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains(words),
            "{request}: {answer}"
        );
    }
    // gRPC-Web to a method no service has: gRPC's answer, not the JSON one.
    let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "POST /toolview.v1.Nope/Nope HTTP/1.1\r\nHost: {}\r\nContent-Type: application/grpc-web\r\n\
         Content-Length: 0\r\nConnection: close\r\n\r\n",
        server.addr()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("grpc-status: 12"), "{response}");
}
