//! TLS against the real binary, with a CA made here (rcgen): gRPC, gRPC-Web and the viewer on
//! one TLS port (ALPN `h2` and `http/1.1`), the CLI with `https://` and `--tls-ca`, mutual TLS,
//! and a certificate reload on SIGHUP that new connections see while an open stream goes on.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::ExtendedKeyUsagePurpose;
use support::auth::grpc_web_status;
use support::pki::{Ca, Leaf};
use support::process::ServerProcess;
use support::sessions::*;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use toolview::grpc::pb::{self, session_service_client::SessionServiceClient};

/// Files of a TLS server: its certificate and key, and the CA.
struct Files {
    cert: PathBuf,
    key: PathBuf,
    ca: PathBuf,
}

impl Files {
    fn write(dir: &Path, ca: &Ca, leaf: &Leaf) -> Files {
        let files = Files {
            cert: dir.join("server.pem"),
            key: dir.join("server-key.pem"),
            ca: dir.join("ca.pem"),
        };
        files.replace(leaf);
        std::fs::write(&files.ca, &ca.pem).unwrap();
        files
    }

    fn replace(&self, leaf: &Leaf) {
        std::fs::write(&self.cert, &leaf.cert).unwrap();
        std::fs::write(&self.key, &leaf.key).unwrap();
    }

    fn flags(&self) -> Vec<String> {
        let path = |p: &PathBuf| p.to_str().unwrap().to_owned();
        vec![
            "--store".into(),
            "memory".into(),
            "--tls-cert".into(),
            path(&self.cert),
            "--tls-key".into(),
            path(&self.key),
        ]
    }
}

fn spawn(dir: &Path, flags: &[String]) -> ServerProcess {
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    ServerProcess::spawn(dir, &flags)
}

/// A tonic channel over TLS trusting `ca`, with an optional client identity.
async fn tls_channel(
    server: &ServerProcess,
    ca: &str,
    identity: Option<&Leaf>,
) -> Result<Channel, tonic::transport::Error> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca))
        .domain_name("localhost");
    if let Some(leaf) = identity {
        tls = tls.identity(Identity::from_pem(&leaf.cert, &leaf.key));
    }
    Endpoint::from_shared(format!("https://{}", server.addr()))?
        .tls_config(tls)?
        .connect()
        .await
}

/// `https://localhost:<port>` of a server (its certificate names `localhost`).
fn https_url(server: &ServerProcess) -> String {
    format!(
        "https://localhost:{}",
        server.addr().rsplit(':').next().unwrap()
    )
}

/// `toolview publish` of one event to `session` at `url` with extra flags.
fn cli_publish(url: &str, session: &str, extra: &[&str]) -> std::process::Output {
    use std::io::Write as _;
    let mut child = support::cli::command(&["publish", "--session", session, "--server", url])
        .args(extra)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(br#"{"eventId":"e1","sessionStarted":{"cwd":"/w"}}"#)
        .unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// A client over TLS that published one call to `session`, and its subscription, past that
/// first update.
async fn published_and_following(
    server: &ServerProcess,
    ca: &Ca,
    session: &str,
) -> (Client, tonic::Streaming<pb::SubscribeResponse>) {
    let channel = tls_channel(server, &ca.pem, None).await.unwrap();
    let mut c = SessionServiceClient::new(channel);
    publish(&mut c, vec![bash_call(session, "e1", "c1")])
        .await
        .unwrap();
    let mut sub = subscribe(
        &mut c,
        request(session, pb::Target::Ansi, true, from_beginning()),
    )
    .await;
    assert_eq!(offsets(&updates_until(&mut sub, 1).await), [1]);
    (c, sub)
}

/// A raw TLS connection offering `alpn`; returns it and the certificate the server sent.
async fn raw_tls(
    server: &ServerProcess,
    ca: &CertificateDer<'static>,
    alpn: &[&[u8]],
) -> (
    tokio_rustls::client::TlsStream<tokio::net::TcpStream>,
    CertificateDer<'static>,
) {
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone()).unwrap();
    let mut config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let tcp = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let stream = TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    let served = stream.get_ref().1.peer_certificates().unwrap()[0].clone();
    (stream, served)
}

#[tokio::test]
async fn grpc_grpc_web_and_the_viewer_share_one_tls_port() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::generate();
    let leaf = ca.server_leaf();
    let files = Files::write(dir.path(), &ca, &leaf);
    let server = spawn(dir.path(), &files.flags());

    // gRPC over HTTP/2.
    let _ = published_and_following(&server, &ca, "tls/s").await;

    // ALPN: h2 when offered, http/1.1 for a client that offers only that.
    let (h2, served) = raw_tls(&server, &ca.der, &[b"h2", b"http/1.1"]).await;
    assert_eq!(h2.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    assert_eq!(served, leaf.der);
    // gRPC-Web (HTTP/1.1, what a browser sends).
    let (io, _) = raw_tls(&server, &ca.der, &[b"http/1.1"]).await;
    assert_eq!(io.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    let get = |id: &str| pb::GetSessionRequest {
        session_id: id.into(),
    };
    let status = grpc_web_status(
        io,
        "localhost",
        "/toolview.v1.SessionService/GetSession",
        &get("tls/s"),
        None,
    )
    .await;
    assert_eq!(status, 0);
    // The viewer page, with its headers.
    let (mut io, _) = raw_tls(&server, &ca.der, &[b"http/1.1"]).await;
    io.write_all(b"GET / HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut page = Vec::new();
    let _ = io.read_to_end(&mut page).await;
    let page = String::from_utf8_lossy(&page).to_ascii_lowercase();
    assert!(page.starts_with("http/1.1 200"), "{page}");
    assert!(
        page.contains("content-security-policy: default-src 'none'"),
        "{page}"
    );
    assert!(page.contains("<script"), "{page}");

    // Plain text on the TLS port gets no HTTP answer.
    let mut plain = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    plain
        .write_all(b"GET / HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(PATIENCE, plain.read_to_end(&mut answer)).await;
    assert!(!String::from_utf8_lossy(&answer).contains("HTTP/1.1 200"));

    // The CLI: https:// with --tls-ca works; without it the unknown CA is refused.
    let url = https_url(&server);
    let ca_file = files.ca.to_str().unwrap();
    let ok = cli_publish(&url, "tls/cli", &["--tls-ca", ca_file]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("\"offset\":\"1\""));
    let refused = cli_publish(&url, "tls/cli", &[]);
    assert!(!refused.status.success());
}

/// The first-run mistakes with TLS, as the CLI reports them: one plain sentence of reasons (no
/// tonic debug dump, no reason twice) and the flag or URL to change.
#[tokio::test]
async fn the_cli_says_what_to_change_when_tls_is_mismatched() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::generate();
    let files = Files::write(dir.path(), &ca, &ca.server_leaf());
    let server = spawn(dir.path(), &files.flags());
    let port = server.addr().rsplit(':').next().unwrap().to_owned();
    let plain_server =
        ServerProcess::spawn(dir.path().join("plain").as_path(), &["--store", "memory"]);
    let stderr = |args: &[&str]| {
        let out = support::cli::command(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        for dump in ["source:", "tonic::", "MetadataMap", "OtherError"] {
            assert!(!text.contains(dump), "{args:?}: a debug dump: {text}");
        }
        text
    };
    // http:// to the TLS port: was `Unknown error: transport error` (tail) and a multi-clause
    // debug dump (health).
    let http = format!("http://127.0.0.1:{port}");
    for args in [
        vec!["tail", "--server", &http, "--session", "s", "--no-follow"],
        vec!["health", "--server", &http],
    ] {
        let text = stderr(&args);
        assert!(
            text.contains(&format!("use --server https://127.0.0.1:{port}")),
            "{args:?}: {text}"
        );
    }
    // https:// without the CA: the reason once, and the flag.
    let https = https_url(&server);
    for args in [
        vec!["health", "--server", &https],
        vec!["tail", "--server", &https, "--session", "s"],
    ] {
        let text = stderr(&args);
        assert_eq!(
            text.matches("invalid peer certificate").count(),
            1,
            "{text}"
        );
        assert!(text.contains("pass --tls-ca"), "{args:?}: {text}");
    }
    // https:// to a plaintext port.
    let plain = format!("https://{}", plain_server.addr());
    let text = stderr(&["health", "--server", &plain]);
    assert!(
        text.contains(&format!("use --server http://{}", plain_server.addr())),
        "{text}"
    );
    // Nothing listening.
    // Port 1: nothing listens there, and no parallel test's server can take it.
    let gone = "127.0.0.1:1".to_owned();
    let text = stderr(&["tail", "--server", &gone, "--session", "s", "--no-follow"]);
    assert!(
        text.contains(&format!("nothing listens at {gone}")),
        "{text}"
    );
}

#[tokio::test]
async fn mutual_tls_accepts_signed_clients_only() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::generate();
    let files = Files::write(dir.path(), &ca, &ca.server_leaf());
    let mut flags = files.flags();
    flags.extend(["--tls-client-ca".into(), files.ca.to_str().unwrap().into()]);
    let server = spawn(dir.path(), &flags);

    let client_leaf = ca.leaf(&["harness-1"], ExtendedKeyUsagePurpose::ClientAuth);
    let channel = tls_channel(&server, &ca.pem, Some(&client_leaf))
        .await
        .unwrap();
    let mut c = SessionServiceClient::new(channel);
    publish(&mut c, vec![bash_call("mtls/s", "e1", "c1")])
        .await
        .expect("a client certificate from the CA is accepted");

    // No client certificate, or one from another CA: no call gets through.
    let stranger = Ca::generate().leaf(&["harness-2"], ExtendedKeyUsagePurpose::ClientAuth);
    for (why, identity) in [("none", None), ("another CA", Some(&stranger))] {
        let refused = match tls_channel(&server, &ca.pem, identity).await {
            Err(_) => true,
            Ok(channel) => {
                let mut c = SessionServiceClient::new(channel);
                publish(&mut c, vec![bash_call("mtls/t", "e1", "c1")])
                    .await
                    .is_err()
            }
        };
        assert!(refused, "{why}: the call went through");
    }

    // The CLI presents a client certificate with --tls-client-cert/--tls-client-key.
    let cert = dir.path().join("client.pem");
    let key = dir.path().join("client-key.pem");
    std::fs::write(&cert, &client_leaf.cert).unwrap();
    std::fs::write(&key, &client_leaf.key).unwrap();
    let out = cli_publish(
        &https_url(&server),
        "mtls/cli",
        &[
            "--tls-ca",
            files.ca.to_str().unwrap(),
            "--tls-client-cert",
            cert.to_str().unwrap(),
            "--tls-client-key",
            key.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn sighup_reloads_the_certificate_for_new_connections_only() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::generate();
    let first = ca.server_leaf();
    let files = Files::write(dir.path(), &ca, &first);
    let mut flags = files.flags();
    flags.extend(["--metrics-listen".into(), "127.0.0.1:0".into()]);
    let server = spawn(dir.path(), &flags);

    // A stream opened on the first certificate.
    let (_c, mut old) = published_and_following(&server, &ca, "reload/s").await;

    let second = ca.server_leaf();
    files.replace(&second);
    // SAFETY: a signal to our own child.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        libc::kill(server.pid() as libc::pid_t, libc::SIGHUP);
    }
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (_, served) = raw_tls(&server, &ca.der, &[b"h2"]).await;
        if served == second.der {
            break;
        }
        assert_eq!(served, first.der);
        assert!(
            tokio::time::Instant::now() < deadline,
            "the reload was not picked up"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    // The old stream goes on (its connection kept the first certificate)…
    let mut fresh = SessionServiceClient::new(tls_channel(&server, &ca.pem, None).await.unwrap());
    publish(
        &mut fresh,
        vec![output("reload/s", "e2", "c1", "after the reload\n")],
    )
    .await
    .unwrap();
    assert_eq!(offsets(&updates_until(&mut old, 2).await), [2]);

    // …and a broken file on reload keeps the second certificate.
    std::fs::write(&files.key, "not a key").unwrap();
    // SAFETY: as above.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        libc::kill(server.pid() as libc::pid_t, libc::SIGHUP);
    }
    server
        .metric_reaches(
            r#"toolview_reloads_total{file="tls_certificate",result="kept_old"}"#,
            1.0,
        )
        .await;
    let (_, served) = raw_tls(&server, &ca.der, &[b"h2"]).await;
    assert_eq!(served, second.der);
}
