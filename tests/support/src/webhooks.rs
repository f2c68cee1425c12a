//! A real webhook receiver for the tests (`tests/python/webhook_receiver.py`: Python's HTTP
//! server, signatures verified with the Standard Webhooks library), and a hooks file pointing
//! at it.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A loopback port free a moment ago (for a receiver that starts later).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A hooks file in `dir`: `ops` (JSON, signed with `secret`, `events`) at
/// `http://127.0.0.1:<port>/ops`, and `chat` (Slack, unsigned, prompts only) at `/slack`.
pub fn hooks_file(dir: &Path, port: u16, secret: &str, events: &[&str]) -> PathBuf {
    std::fs::write(dir.join("ops.secret"), secret).unwrap();
    let hooks = serde_json::json!({"hooks": [
        {"name": "ops", "url": format!("http://127.0.0.1:{port}/ops"), "events": events,
         "secretFile": "ops.secret"},
        {"name": "chat", "url": format!("http://127.0.0.1:{port}/slack"), "format": "slack",
         "events": ["requires_action"]},
    ]});
    let path = dir.join("hooks.json");
    std::fs::write(&path, hooks.to_string()).unwrap();
    path
}

/// A new Standard Webhooks secret, as `toolview webhook-secret` prints one.
pub fn new_secret() -> String {
    let out = Command::new(crate::toolview_bin())
        .arg("webhook-secret")
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// The receiver process, killed when dropped.
pub struct Receiver {
    child: Child,
    pub port: u16,
    log: PathBuf,
}

impl Receiver {
    /// Starts listening on `port` (0: any), verifying with `secret`, logging into `dir`.
    pub fn start(port: u16, secret: &str, dir: &Path) -> Receiver {
        let log = dir.join("arrivals.jsonl");
        let python = crate::repo_dir().join("tests/.venv/bin/python");
        let script = crate::repo_dir().join("tests/python/webhook_receiver.py");
        let mut child = Command::new(python)
            .arg(script)
            .args([&port.to_string(), secret])
            .arg(&log)
            .stdout(Stdio::piped())
            .spawn()
            .expect("tests/.venv has Python (scripts/test.sh makes it)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("the receiver said {line:?}"))
            .parse()
            .unwrap();
        Receiver { child, port, log }
    }

    /// Every arrival so far, in order.
    pub fn arrivals(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Waits (at most `limit`) until the arrivals pass `done`; returns them.
    pub fn wait_for(&self, limit: Duration, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let arrivals = self.arrivals();
            if done(&arrivals) {
                return arrivals;
            }
            assert!(
                start.elapsed() < limit,
                "the receiver got only {arrivals:#?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// How deliveries are answered from now: `ok`, `fail` or `hold`.
    pub fn set_mode(&self, mode: &str) {
        let body = format!(r#"{{"mode": "{mode}"}}"#);
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "POST /control HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.0 204") || answer.starts_with("HTTP/1.1 204"),
            "{answer}"
        );
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The delivery ids of `arrivals` to `path` that pass `keep`, in order.
pub fn ids(arrivals: &[Value], path: &str, keep: impl Fn(&Value) -> bool) -> Vec<String> {
    arrivals
        .iter()
        .filter(|a| a["path"] == path && keep(a))
        .map(|a| a["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}
