//! Node.js test clients (`tests/js/*.mjs`) as child processes: their stderr lines as they come,
//! a bounded wait for a line, and a kill when dropped, so a broken server fails a test instead
//! of hanging it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use serde_json::Value;

use super::sessions::PATIENCE;

/// `node tests/js/<name>.mjs`, run where that directory's `node_modules` are.
pub fn script(name: &str) -> Command {
    let dir = crate::repo_dir().join("tests/js");
    let mut cmd = Command::new("node");
    cmd.arg(dir.join(format!("{name}.mjs"))).current_dir(dir);
    cmd
}

pub struct NodeClient {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// stdout, read as it comes (a full pipe would block the client).
    stdout: Option<std::thread::JoinHandle<String>>,
    /// Everything read from stderr so far, for failure messages.
    seen: Vec<String>,
}

impl NodeClient {
    /// Starts `cmd` with piped stdin, stdout and stderr.
    pub fn spawn(mut cmd: Command) -> Self {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs");
        let mut out = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut out, &mut text);
            text
        });
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        NodeClient {
            child,
            lines,
            stdout: Some(stdout),
            seen: Vec::new(),
        }
    }

    /// Waits (at most [`PATIENCE`]) for the line `want` on stderr.
    pub fn wait_for(&mut self, want: &str) {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.trim() == want => return,
                Ok(line) => self.seen.push(line),
                Err(_) => panic!("no {want:?} from the client; it said: {:?}", self.seen),
            }
        }
    }

    /// Writes a line to the client's stdin.
    pub fn say(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes stdin, waits (at most [`PATIENCE`]) for the client to exit successfully, and
    /// returns the JSON it printed.
    pub fn finish(mut self) -> Value {
        drop(self.child.stdin.take());
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut rest: Vec<String> = self.lines.try_iter().collect();
                self.seen.append(&mut rest);
                assert!(status.success(), "the client failed: {:?}", self.seen);
                let out = self.stdout.take().unwrap().join().unwrap();
                return serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the client did not finish; it said: {:?}",
                self.seen
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for NodeClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
