//! `toolview serve` as a separate process on a free loopback port, killed (SIGKILL) when dropped
//! so a failing test leaves none behind; its memory and CPU time from `/proc`.

use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ServerProcess {
    pub child: Child,
    pub url: String,
    /// `host:port` of the admin listener (`--metrics-listen`), when it has one.
    pub metrics: Option<String>,
}

impl ServerProcess {
    /// A server on `dir` (the embedded store's data directory) with extra `serve` flags.
    pub fn spawn(dir: &std::path::Path, extra: &[&str]) -> Self {
        Self::from_command(serve_command(dir, extra))
    }

    /// A server started from a prepared command (see [`serve_command`]).
    pub fn from_command(mut cmd: Command) -> Self {
        let (child, url, metrics) =
            started_with_metrics(cmd.spawn().expect("the toolview binary starts"));
        ServerProcess {
            child,
            url,
            metrics,
        }
    }

    /// `host:port` of the server.
    pub fn addr(&self) -> &str {
        self.url.trim_start_matches("http://")
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, and wait for the graceful exit.
    pub fn stop(&mut self) {
        // SAFETY: a signal to our own child, which has not been reaped (we wait below).
        #[expect(unsafe_code, reason = "see the SAFETY note")]
        unsafe {
            libc::kill(self.pid() as libc::pid_t, libc::SIGTERM);
        }
        let _ = self.child.wait();
    }

    /// Resident memory now, in KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid())
    }

    /// CPU time used so far (user + system), in milliseconds.
    pub fn cpu_ms(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        // Fields after the command name (which is in parentheses): utime and stime are the
        // 12th and 13th, in clock ticks (100 per second on Linux).
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        ticks * 10
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `toolview serve` on `dir` with extra flags (which may override `--listen`), output piped.
pub fn serve_command(dir: &std::path::Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(crate::toolview_bin());
    cmd.arg("serve");
    if !extra.contains(&"--listen") {
        cmd.args(["--listen", "127.0.0.1:0"]);
    }
    cmd.arg("--data-dir")
        .arg(dir)
        .args(extra)
        .env("TOOLVIEW_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    cmd
}

/// `toolview serve` on a free loopback port; returns the child and its URL.
pub fn spawn_server(dir: &std::path::Path, extra: &[&str]) -> (Child, String) {
    started(
        serve_command(dir, extra)
            .spawn()
            .expect("the toolview binary starts"),
    )
}

/// Waits for a started server's `listening` line; returns the child and its URL.
pub fn started(child: Child) -> (Child, String) {
    let (child, url, _) = started_with_metrics(child);
    (child, url)
}

/// Waits for a started server's `listening` line; returns the child, its URL and the address
/// of its admin listener, if it has one (printed first).
pub fn started_with_metrics(mut child: Child) -> (Child, String, Option<String>) {
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut metrics = None;
    loop {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        if let Some(addr) = line.trim().strip_prefix("toolview metrics on ") {
            metrics = Some(addr.to_owned());
            continue;
        }
        let addr = line
            .trim()
            .strip_prefix("toolview listening on ")
            .unwrap_or_else(|| panic!("unexpected: {line:?}"));
        return (child, format!("http://{addr}"), metrics);
    }
}

/// `GET /metrics` of an admin listener (`host:port`) over HTTP/1.1; the body.
pub fn scrape(addr: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/openmetrics-text"),
        "{head}"
    );
    body.to_owned()
}

/// The value of the sample `series` (name with labels, exactly as exposed), or 0 when absent.
pub fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

impl ServerProcess {
    /// Waits until the server's metric `series` reaches `at_least` (it must have an admin
    /// listener): how a test knows a background step happened, instead of sleeping.
    pub async fn metric_reaches(&self, series: &str, at_least: f64) {
        self.metric_until(series, |v| v >= at_least).await;
    }

    /// Waits until the server's metric `series` satisfies `holds`.
    pub async fn metric_until(&self, series: &str, holds: impl Fn(f64) -> bool) {
        let admin = self.metrics.clone().expect("started with --metrics-listen");
        let deadline = Instant::now() + crate::sessions::PATIENCE;
        loop {
            let admin = admin.clone();
            let text = tokio::task::spawn_blocking(move || scrape(&admin))
                .await
                .unwrap();
            let now = sample(&text, series);
            if holds(now) {
                return;
            }
            assert!(Instant::now() < deadline, "{series} stayed at {now}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Resident memory of process `pid` now, in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Peak resident memory of process `pid` so far (VmHWM), in KiB.
pub fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
