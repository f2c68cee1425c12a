//! The `toolview` binary's commands: present, render (offline), publish, tail and health.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use serde_json::{Value, json};
use support::cli::{self, Ran};
use support::process::ServerProcess;
use toolview::grpc::pb;

#[test]
fn present_prints_the_view_json() {
    let Ran {
        ok, stdout: out, ..
    } = cli::run(&[
        "present",
        "--tool",
        "edit",
        "--args",
        r#"{"file_path":"a.txt","old_string":"x","new_string":"y"}"#,
    ]);
    assert!(ok);
    assert_eq!(
        out,
        "{\"card\":\"diff\",\"title\":\"Edit a.txt\",\"diffs\":[{\"path\":\"a.txt\",\"oldText\":\"x\",\"newText\":\"y\"}],\"locations\":[{\"path\":\"a.txt\"}]}\n"
    );
}

#[test]
fn present_with_a_result_prints_two_lines() {
    let Ran {
        ok, stdout: out, ..
    } = cli::run(&[
        "present",
        "--tool",
        "Bash",
        "--args",
        r#"{"command":"ls"}"#,
        "--result",
        r#"{"content":[{"type":"text","text":"a\nb"}],"isError":false,"meta":{"exit_code":1}}"#,
    ]);
    assert!(ok);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        vec![
            json!({"card":"terminal","title":"ls"}),
            json!({"card":"terminal","output":"a\nb","exitCode":1})
        ]
    );
}

#[test]
fn present_rejects_a_malformed_result_clearly() {
    let Ran {
        ok, stderr: err, ..
    } = cli::run(&[
        "present",
        "--tool",
        "bash",
        "--result",
        "{\"content\":[{\"type\":\"video\"}]}",
    ]);
    assert!(!ok);
    assert!(err.contains("--result"), "{err}");
}

fn sample_jsonl() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/sample-session.jsonl"
    ))
    .unwrap()
}

#[test]
fn render_offline_every_target() {
    let events = sample_jsonl();
    let Ran {
        ok,
        stdout: acp,
        stderr: err,
    } = cli::run_with_stdin(&["render", "--target", "acp", "--terminal"], &events);
    assert!(ok, "{err}");
    let messages: Vec<&str> = acp.lines().collect();
    // 13 events: the session start renders nothing, each call start one tool_call, the rest one update.
    assert_eq!(messages.len(), 12);
    for m in &messages {
        support::acp::validate(m).unwrap();
    }
    let Ran { ok, stdout: md, .. } =
        cli::run_with_stdin(&["render", "--target", "markdown"], &events);
    assert!(ok);
    assert!(
        md.contains("**Tool Call: npm test**\nStatus: Failed"),
        "{md}"
    );
    assert!(md.contains("exit code 2"), "{md}");
    let Ran {
        ok, stdout: view, ..
    } = cli::run_with_stdin(&["render", "--target", "view"], &events);
    assert!(ok);
    assert_eq!(view.lines().count(), 13);
    let last: Value = serde_json::from_str(view.lines().last().unwrap()).unwrap();
    assert_eq!(last["view"]["card"]["status"], "CALL_STATUS_COMPLETED");

    let Ran {
        ok, stderr: err, ..
    } = cli::run_with_stdin(
        &["render", "--target", "ansi"],
        "{\"sessionId\":\"s\",\"eventId\":\"e\"}\nnot json\n",
    );
    assert!(!ok);
    assert!(err.contains("line 2"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_then_tail_against_a_server() {
    let server = support::server::Server::start().await;
    let url = server.url.clone();
    let Ran {
        ok,
        stdout: acks,
        stderr: err,
    } = tokio::task::spawn_blocking({
        let url = url.clone();
        move || {
            cli::run_with_stdin(
                &["publish", "--session", "cli", "--server", &url],
                &sample_jsonl(),
            )
        }
    })
    .await
    .unwrap();
    assert!(ok, "{err}");
    let acks: Vec<Value> = acks
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(acks.len(), 13);
    assert_eq!(acks[12]["cursor"]["offset"], "13");

    // tail prints the replay, then waits for more; stop it once the last call is shown (or
    // after PATIENCE, so a missing line fails the test instead of hanging it).
    let mut child = support::cli::command(&[
        "tail",
        "--session",
        "cli",
        "--server",
        &url,
        "--target",
        "markdown",
        "--from-beginning",
    ])
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    while let Ok(Some(line)) = tokio::time::timeout(support::sessions::PATIENCE, rx.recv()).await {
        // The Markdown target escapes `://` in tool text.
        let done = line.contains("Fetched https\\://vitest.dev/guide/ (HTTP 200)");
        lines.push(line);
        if done {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = lines.join("\n");
    assert!(text.contains("**Tool Call: Edit src/app.ts**"), "{text}");
    assert!(text.contains("exit code 2"), "{text}");
    assert!(text.contains("vitest.dev/guide/ (HTTP 200)"), "{text}");
    server.shutdown().await;
}

/// `toolview health` (a container's probe): SERVING and exit 0 for a serving server, a failure
/// for an address nobody serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_probes_a_server() {
    let server = support::server::Server::start().await;
    let url = server.url.clone();
    let Ran {
        ok,
        stdout: out,
        stderr: err,
    } = tokio::task::spawn_blocking(move || cli::run(&["health", "--server", &url]))
        .await
        .unwrap();
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "SERVING");
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let Ran {
        ok, stderr: err, ..
    } = tokio::task::spawn_blocking(move || {
        cli::run(&["health", "--server", &closed, "--timeout-ms", "2000"])
    })
    .await
    .unwrap();
    assert!(!ok);
    assert!(err.contains("connecting to"), "{err}");
}

/// `tail --no-follow` prints the log as it is and exits: the same bytes as rendering the events
/// offline; nothing (and success) for a session that does not exist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tail_without_following_prints_the_log_and_exits() {
    let server = support::server::Server::start().await;
    let url = server.url.clone();
    let (tail, offline, missing) = tokio::task::spawn_blocking(move || {
        let Ran {
            ok, stderr: err, ..
        } = cli::run_with_stdin(
            &["publish", "--session", "demo", "--server", &url],
            &sample_jsonl(),
        );
        assert!(ok, "{err}");
        let args = ["--target", "acp", "--terminal"];
        let tail = cli::run(
            &[
                &["tail", "--session", "demo", "--server", &url, "--no-follow"][..],
                &args,
            ]
            .concat(),
        );
        let offline = cli::run_with_stdin(&[&["render"][..], &args].concat(), &sample_jsonl());
        let missing = cli::run(&[
            "tail",
            "--session",
            "nobody",
            "--server",
            &url,
            "--no-follow",
        ]);
        (tail, offline, missing)
    })
    .await
    .unwrap();
    assert!(tail.ok, "{}", tail.stderr);
    assert!(offline.ok, "{}", offline.stderr);
    assert!(
        tail.stdout.contains("\"sessionUpdate\":\"tool_call\""),
        "{}",
        tail.stdout
    );
    assert_eq!(tail.stdout, offline.stdout);
    assert!(missing.ok, "{}", missing.stderr);
    assert_eq!(missing.stdout, "");
    server.shutdown().await;
}

/// `--listen` takes a host name: `localhost:0` listens on loopback.
#[test]
fn serve_listens_on_a_host_name() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(
        dir.path(),
        &["--store", "memory", "--listen", "localhost:0"],
    );
    assert!(
        server.url.starts_with("http://127.0.0.1:") || server.url.starts_with("http://[::1]:"),
        "{}",
        server.url
    );
    let Ran {
        ok,
        stdout: out,
        stderr: err,
    } = cli::run(&["health", "--server", &server.url]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "SERVING");
}

/// A following `tail` says it waits for a session with no events yet; when the server stops,
/// it says so, reconnects to the server started again on the same port and data, and goes on
/// after the last cursor it printed: every update once.
#[test]
fn tail_waits_for_the_session_and_reconnects_after_its_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let start = || support::process::ServerProcess::spawn(dir.path(), &["--listen", &listen]);
    let mut server = start();
    let url = server.url.clone();
    let mut tail = support::cli::command(&[
        "tail",
        "--session",
        "rc",
        "--server",
        &url,
        "--target",
        "acp",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let (lines_tx, lines) = std::sync::mpsc::channel::<(bool, String)>();
    let stdout = tail.stdout.take().unwrap();
    let stderr = tail.stderr.take().unwrap();
    let tx = lines_tx.clone();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send((true, l));
        }
    });
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send((false, l));
        }
    });
    let wait = |want: &dyn Fn(bool, &str) -> bool| loop {
        let (out, line) = lines
            .recv_timeout(support::sessions::PATIENCE)
            .expect("tail said nothing");
        if want(out, &line) {
            return line;
        }
    };
    wait(&|out, l| !out && l.contains("waiting for session rc"));
    let publish = |url: &str, event: &str| {
        let Ran {
            ok, stderr: err, ..
        } = cli::run_with_stdin(&["publish", "--session", "rc", "--server", url], event);
        assert!(ok, "{err}");
    };
    publish(
        &url,
        r#"{"eventId":"e1","callStarted":{"callId":"c1","toolName":"bash","argumentsJson":"{\"command\":\"make\"}"}}"#,
    );
    wait(&|out, l| out && l.contains("\"toolCallId\":\"c1\""));
    server.stop();
    wait(&|out, l| !out && l.contains("reconnecting") && l.contains("after offset 1"));
    let _server = start();
    publish(
        &url,
        r#"{"eventId":"e2","callFinished":{"callId":"c1","content":[{"text":{"text":"done"}}]}}"#,
    );
    let finished = wait(&|out, l| out && l.contains("tool_call_update"));
    assert!(finished.contains("\"status\":\"completed\""), "{finished}");
    tail.kill().unwrap();
    tail.wait().unwrap();
    // Nothing twice: after the finish, only what the reconnect said on stderr.
    let rest: Vec<(bool, String)> = lines.try_iter().collect();
    assert!(rest.iter().all(|(out, _)| !out), "{rest:?}");
}

/// A configuration error is one line, also with `RUST_BACKTRACE` set (it is not a crash).
#[test]
fn a_config_error_is_one_line() {
    let out = support::cli::command(&["serve", "--store", "memory", "--max-output-bytes", "0"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run toolview");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("--max-output-bytes 0 must be between 1"),
        "{err}"
    );
}

/// `toolview publish` in a pipe: each line is published, acknowledged on stdout and delivered to
/// a live subscriber before the next line is written — the pipe is followed, not read to its
/// end first (the writer waits for each before writing the next, so nothing here is timed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_follows_a_pipe_line_by_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = support::sessions::client(&server.url).await;
    let mut publisher =
        support::cli::command(&["publish", "--server", &server.url, "--session", "pipe"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    let mut stdin = publisher.stdin.take().unwrap();
    let mut acks = std::io::BufReader::new(publisher.stdout.take().unwrap()).lines();
    let line = |event: serde_json::Value| {
        let mut e = event;
        e["sessionId"] = "ignored".into();
        e.to_string()
    };
    writeln!(stdin, "{}", line(json!({"eventId": "e1", "callStarted": {"callId": "c1", "toolName": "bash", "argumentsJson": "{\"command\":\"make\"}"}}))).unwrap();
    stdin.flush().unwrap();
    assert!(acks.next().unwrap().unwrap().contains("\"e1\""));
    let request = support::sessions::request(
        "pipe",
        pb::Target::View,
        true,
        support::sessions::from_beginning(),
    );
    let mut updates = support::sessions::subscribe(&mut c, request).await;
    support::sessions::updates_until(&mut updates, 1).await;
    for i in 2..=20u64 {
        let out = json!({"eventId": format!("e{i}"), "callOutput": {"callId": "c1", "data": format!("line {i}\n")}});
        writeln!(stdin, "{}", line(out)).unwrap();
        stdin.flush().unwrap();
        let ack = acks.next().unwrap().unwrap();
        assert!(ack.contains(&format!("\"e{i}\"")), "{ack}");
        let got = support::sessions::updates_until(&mut updates, i).await;
        assert_eq!(got.last().unwrap().cursor.as_ref().unwrap().offset, i);
    }
    drop(stdin);
    assert!(publisher.wait().unwrap().success());
    assert!(acks.next().is_none(), "one ack per line");
}

/// A pipe far longer than one request may be (100,000 events, about 7 MB, past the 4 MiB
/// message limit): every event acknowledged once, in order.
#[test]
fn publish_takes_a_pipe_longer_than_a_request() {
    use std::io::Write;
    const EVENTS: u64 = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(
        dir.path(),
        &["--store", "memory", "--max-events-per-session", "0"],
    );
    let mut publisher =
        support::cli::command(&["publish", "--server", &server.url, "--session", "long"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    let mut stdin = publisher.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut bytes = 0;
        let start = r#"{"eventId":"e1","callStarted":{"callId":"c1","toolName":"bash","argumentsJson":"{}"}}"#;
        writeln!(stdin, "{start}").unwrap();
        for i in 2..=EVENTS {
            let line = format!(
                r#"{{"eventId":"e{i}","callOutput":{{"callId":"c1","data":"output line {i}\n"}}}}"#
            );
            bytes += line.len() + 1;
            writeln!(stdin, "{line}").unwrap();
        }
        bytes
    });
    let mut count = 0u64;
    for ack in std::io::BufReader::new(publisher.stdout.take().unwrap()).lines() {
        let ack = ack.unwrap();
        count += 1;
        assert!(ack.contains(&format!("\"offset\":\"{count}\"")), "{ack}");
        assert!(!ack.contains("duplicate"), "{ack}");
    }
    let bytes = writer.join().unwrap();
    assert!(
        bytes > 4 << 20,
        "the pipe is longer than a request may be: {bytes} bytes"
    );
    assert!(publisher.wait().unwrap().success());
    assert_eq!(count, EVENTS);
}

/// A server named as `host:port` (what the docs and the client libraries take) is plain HTTP;
/// another scheme is refused by name. `tail` draws without colours to a pipe, with them when
/// asked (`--color always`), and never with `NO_COLOR` set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_as_host_and_port_and_colours_only_where_they_show() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let addr = server.addr().to_owned();
    let published = tokio::task::spawn_blocking({
        let addr = addr.clone();
        move || {
            cli::run_with_stdin(
                &["publish", "--session", "plain", "--server", &addr],
                &sample_jsonl(),
            )
        }
    })
    .await
    .unwrap();
    assert!(published.ok, "{}", published.stderr);
    let tail = |extra: &[&str], no_color: Option<&str>| {
        let mut args = vec![
            "tail",
            "--session",
            "plain",
            "--no-follow",
            "--server",
            &addr,
        ];
        args.extend_from_slice(extra);
        let mut cmd = cli::command(&args);
        match no_color {
            Some(v) => cmd.env("NO_COLOR", v),
            None => cmd.env_remove("NO_COLOR"),
        };
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let piped = tail(&[], None);
    assert!(!piped.is_empty());
    assert!(!piped.contains('\x1b'), "{piped:?}");
    assert!(tail(&["--color", "always"], None).contains("\x1b["));
    assert!(tail(&["--color", "always"], Some("1")).contains("\x1b["));
    assert!(!tail(&["--color", "auto"], Some("1")).contains('\x1b'));
    let refused = cli::run(&["tail", "--session", "plain", "--server", "grpc://h:1"]);
    assert!(!refused.ok);
    assert!(refused.stderr.contains("\"grpc\""), "{}", refused.stderr);
}
