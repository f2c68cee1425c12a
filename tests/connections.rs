//! Connections a careless or hostile client leaves open, against the real binary: floods past
//! the descriptor limit, connections that never speak, HTTP/1 headers sent a byte at a time,
//! HTTP/2 peers that stop answering pings, and the connection cap.

use std::os::unix::process::CommandExt as _;
use std::time::Duration;

use support::process::{ServerProcess, serve_command};
use support::sessions::*;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// Reads until the server closes the connection (EOF or reset); panics if it stays open past
/// `PATIENCE` (an upper bound against hangs, not a timing assertion).
async fn closed_by_server(mut stream: TcpStream) {
    let mut buf = [0u8; 4096];
    let closed = tokio::time::timeout(PATIENCE, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the server kept the connection open");
}

/// A gRPC call works (the server is not locked up).
async fn serves(url: &str) {
    let mut c = client(url).await;
    publish(
        &mut c,
        vec![start_call("alive", "e1", "c1", "job_list", "{}")],
    )
    .await
    .unwrap();
}

fn open_file_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let mut n = line
        .split_whitespace()
        .filter_map(|w| w.parse::<u64>().ok());
    (n.next().unwrap(), n.next().unwrap())
}

/// Finding 5: started under the common soft limit of 1,024 descriptors, the server raises it
/// to the hard limit; a flood of 1,100 silent connections is capped (the ones over the cap are
/// closed at once, the rest when the handshake timeout passes), the accept loop does not spin,
/// and clients get in again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_flood_neither_spins_nor_locks_clients_out() {
    rlimit::increase_nofile_limit(4096).unwrap();
    let dir = tempfile::tempdir().unwrap();

    // Soft 1,024 and hard 4,096: the server raises the soft limit.
    let mut cmd = serve_command(dir.path(), &[]);
    // SAFETY: setrlimit is async-signal-safe.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        cmd.pre_exec(|| rlimit::setrlimit(rlimit::Resource::NOFILE, 1024, 4096));
    }
    let server = ServerProcess::from_command(cmd);
    assert_eq!(open_file_limits(server.pid()), (4096, 4096));
    drop(server);

    // Soft and hard 1,024: the cap comes down to fit (896), so descriptors never run out.
    let mut cmd = serve_command(dir.path(), &["--handshake-timeout-ms", "2000"]);
    // SAFETY: as above.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        cmd.pre_exec(|| rlimit::setrlimit(rlimit::Resource::NOFILE, 1024, 1024));
    }
    let server = ServerProcess::from_command(cmd);
    let cpu = server.cpu_ms();
    let mut flood = Vec::new();
    for _ in 0..1100 {
        flood.push(TcpStream::connect(server.addr()).await.unwrap());
    }
    let waits: Vec<_> = flood
        .into_iter()
        .map(|s| tokio::spawn(closed_by_server(s)))
        .collect();
    for w in waits {
        w.await.unwrap();
    }
    let used = server.cpu_ms() - cpu;
    println!("1,100 silent connections: {used} ms of server CPU");
    // A spinning accept loop burns a core for the whole handshake timeout (2 s).
    assert!(used < 1000, "the server used {used} ms of CPU");
    serves(&server.url).await;
}

/// Finding 5: HTTP/1 headers trickled a byte at a time are cut off by the handshake timeout, a
/// peer that opens HTTP/2 and then stops answering pings is closed by keepalive, and the
/// connection cap closes one connection too many at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_silent_and_surplus_connections_are_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(
        dir.path(),
        &[
            "--handshake-timeout-ms",
            "1000",
            "--keepalive-interval-ms",
            "300",
            "--keepalive-timeout-ms",
            "300",
            "--max-connections",
            "4",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    );

    // Slowloris: a header byte every 100 ms, for up to a minute.
    let mut slow = TcpStream::connect(server.addr()).await.unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        .await
        .unwrap();
    let trickle = tokio::time::timeout(PATIENCE, async {
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if slow.write_all(b"a").await.is_err() {
                return;
            }
            let mut buf = [0u8; 512];
            if let Ok(Ok(0)) =
                tokio::time::timeout(Duration::from_millis(1), slow.read(&mut buf)).await
            {
                return;
            }
        }
    })
    .await;
    assert!(trickle.is_ok(), "the slow request was never cut off");

    // HTTP/2 preface and an empty SETTINGS frame, then silence: no SETTINGS ack, no PING ack.
    let mut h2 = TcpStream::connect(server.addr()).await.unwrap();
    h2.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .await
        .unwrap();
    closed_by_server(h2).await;

    // The cap: four connections that have spoken hold every slot; a fifth is closed at once.
    // First the slots of the connections closed above are free again.
    server
        .metric_until("toolview_connections", |n| n == 0.0)
        .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(server.addr()).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n")
            .await
            .unwrap();
        held.push(s);
    }
    // Every slot taken by them (the connections closed above have let theirs go).
    server
        .metric_until("toolview_connections", |n| n == 4.0)
        .await;
    let surplus = TcpStream::connect(server.addr()).await.unwrap();
    closed_by_server(surplus).await;
    server
        .metric_reaches("toolview_connections_refused_total", 1.0)
        .await;
    drop(held);
    // Slots are freed as connections close; clients get in again.
    let mut attempts = 0;
    loop {
        attempts += 1;
        let ok = tokio::time::timeout(PATIENCE, async {
            let mut c = client(&server.url).await;
            publish(
                &mut c,
                vec![start_call("alive", "e1", "c1", "job_list", "{}")],
            )
            .await
        })
        .await
        .unwrap()
        .is_ok();
        if ok {
            break;
        }
        assert!(attempts < 50, "clients stay locked out");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs a server that must fail to start: it exits non-zero without claiming to listen;
/// returns what it said on stderr.
fn failed_start(mut cmd: std::process::Command) -> String {
    let out = cmd.stderr(std::process::Stdio::piped()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(!stdout.contains("listening"), "{stdout}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Finding 9: a second server on the same data directory says which directory is in use and
/// never claims to listen; a port in use is named too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_errors_name_the_directory_and_the_address() {
    let dir = tempfile::tempdir().unwrap();
    let first = ServerProcess::spawn(dir.path(), &[]);

    let stderr = failed_start(serve_command(dir.path(), &[]));
    let path = dir.path().join("toolview.redb");
    assert!(
        stderr.contains(&*path.to_string_lossy()) && stderr.contains("in use"),
        "{stderr}"
    );

    let other = tempfile::tempdir().unwrap();
    let stderr = failed_start(serve_command(other.path(), &["--listen", first.addr()]));
    assert!(
        stderr.contains(&format!("cannot listen on {}", first.addr())),
        "{stderr}"
    );
    serves(&first.url).await;
}

/// A connection that never spoke does not hold up a graceful shutdown (the handshake timeout
/// and the grace period are set far beyond `PATIENCE` here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_does_not_wait_for_silent_connections() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServerProcess::spawn(
        dir.path(),
        &[
            "--handshake-timeout-ms",
            "600000",
            "--shutdown-grace-ms",
            "600000",
        ],
    );
    let silent = TcpStream::connect(server.addr()).await.unwrap();
    serves(&server.url).await;
    let pid = server.pid();
    let stopped = tokio::task::spawn_blocking(move || {
        server.stop();
        server.child.try_wait().unwrap().map(|s| s.success())
    });
    let status = tokio::time::timeout(PATIENCE, stopped)
        .await
        .unwrap_or_else(|_| panic!("server {pid} still draining a silent connection"))
        .unwrap();
    assert_eq!(status, Some(true), "a clean exit");
    drop(silent);
}
