//! Real `nats-server` processes with JetStream on loopback — one server, or a cluster — each
//! with its own store directory, killed (SIGKILL) when dropped.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The JetStream store's settings for tests on `nats`: its servers, `replicas` copies, and a
/// 1-second dedup window (so what outlasts it is the log's own idempotency).
#[cfg(feature = "jetstream")]
pub fn store_options(nats: &Nats, replicas: usize) -> toolview::store::JetStreamOptions {
    toolview::store::JetStreamOptions {
        urls: vec![nats.urls()],
        user_password: None,
        token: None,
        credentials_file: None,
        tls_ca: None,
        stream: "TOOLVIEW".into(),
        subject_prefix: "toolview.s".into(),
        replicas,
        duplicate_window: Duration::from_secs(1),
        max_events_per_session: 100_000,
        max_age: None,
        max_event_bytes: 4 << 20,
        max_indexed_sessions: 1000,
        startup_wait: std::time::Duration::from_secs(30),
    }
}

/// How long a server or cluster may take to be ready (generous: the JetStream suite starts
/// several clusters at once on two cores).
const READY_WITHIN: Duration = Duration::from_secs(90);

/// The `nats-server` binary: `$TOOLVIEW_NATS_SERVER`, the one `scripts/test.sh` installs in
/// `tests/.venv`, or one on the `PATH`.
pub fn binary() -> PathBuf {
    if let Ok(path) = std::env::var("TOOLVIEW_NATS_SERVER") {
        return path.into();
    }
    let venv = crate::repo_dir().join("tests/.venv/bin/nats-server");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("nats-server")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One node: its ports and process.
pub struct Node {
    pub name: String,
    pub client_port: u16,
    pub http_port: u16,
    config: PathBuf,
    child: Option<Child>,
}

impl Node {
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.client_port)
    }

    /// The client URL for a TLS-only server.
    pub fn tls_url(&self) -> String {
        format!("tls://127.0.0.1:{}", self.client_port)
    }

    fn start(&mut self) {
        let child = Command::new(binary())
            .arg("-c")
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "starting {} (scripts/test.sh installs it): {e}",
                    binary().display()
                )
            });
        self.child = Some(child);
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// A monitoring endpoint's JSON (`/jsz?…`, `/healthz`); `None` while the node is down.
    pub fn monitor(&self, path: &str) -> Option<serde_json::Value> {
        let mut conn = TcpStream::connect(("127.0.0.1", self.http_port)).ok()?;
        conn.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        write!(conn, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
        let mut response = String::new();
        conn.read_to_string(&mut response).ok()?;
        let (_, body) = response.split_once("\r\n\r\n")?;
        serde_json::from_str(body).ok()
    }
}

/// A server, or a cluster of them.
pub struct Nats {
    pub nodes: Vec<Node>,
    _dir: tempfile::TempDir,
}

impl Nats {
    /// One JetStream server.
    pub fn single() -> Nats {
        Nats::start(1, |_| String::new())
    }

    /// One JetStream server with more configuration, written by `extra` given the server's
    /// directory (for certificate files).
    pub fn single_with(extra: impl FnOnce(&Path) -> String) -> Nats {
        Nats::start(1, extra)
    }

    /// A JetStream cluster of `n` servers (routes among all of them).
    pub fn cluster(n: usize) -> Nats {
        Nats::start(n, |_| String::new())
    }

    /// Starts `n` nodes. Ports are picked free, then bound by nats-server a moment later: a
    /// parallel test can take one in between, and that node exits. Then the whole set starts
    /// again on fresh ports (a few times), instead of waiting for a node that is gone.
    fn start(n: usize, extra: impl FnOnce(&Path) -> String) -> Nats {
        let dir = tempfile::tempdir().unwrap();
        let extra = extra(dir.path());
        let mut tries = 0;
        loop {
            tries += 1;
            let mut nats = Nats::configure(n, &extra, &dir);
            for node in &mut nats.nodes {
                node.start();
            }
            match nats.ready_or_exited() {
                Ok(()) => {
                    nats._dir = dir;
                    return nats;
                }
                Err(name) if tries < 3 => {
                    eprintln!("nats: {name} exited while starting (a port taken?); again");
                    drop(nats);
                    for i in 0..n {
                        let _ = std::fs::remove_dir_all(dir.path().join(format!("n{}", i + 1)));
                    }
                }
                Err(name) => panic!("nats: {name} exited while starting, {tries} times"),
            }
        }
    }

    /// The configuration files of `n` nodes on fresh ports, in `dir`.
    fn configure(n: usize, extra: &str, dir: &tempfile::TempDir) -> Nats {
        let routes: Vec<u16> = (0..n).map(|_| free_port()).collect();
        let route_list = routes
            .iter()
            .map(|p| format!("nats-route://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut nodes = Vec::new();
        for (i, route) in routes.iter().enumerate() {
            let name = format!("n{}", i + 1);
            let (client_port, http_port) = (free_port(), free_port());
            let store = dir.path().join(&name);
            let cluster = if n > 1 {
                format!(
                    "cluster {{ name: toolview-test, listen: 127.0.0.1:{route}, routes: [{route_list}] }}"
                )
            } else {
                String::new()
            };
            // Events up to the API's 4 MiB message limit must fit (NATS defaults to 1 MB).
            let text = format!(
                "server_name: {name}\nlisten: 127.0.0.1:{client_port}\nhttp: 127.0.0.1:{http_port}\n\
                 max_payload: 8MB\n\
                 jetstream {{ store_dir: \"{}\", max_memory_store: 256MB, max_file_store: 2GB }}\n\
                 {cluster}\n{extra}\n",
                store.display()
            );
            let config = dir.path().join(format!("{name}.conf"));
            std::fs::write(&config, text).unwrap();
            nodes.push(Node {
                name,
                client_port,
                http_port,
                config,
                child: None,
            });
        }
        Nats {
            nodes,
            // Replaced by the caller's directory once the nodes are up.
            _dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Every node's client URL, comma-separated (what `--nats-url` takes).
    pub fn urls(&self) -> String {
        self.nodes
            .iter()
            .map(Node::url)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Waits until every running node serves JetStream and, in a cluster, a meta leader is
    /// elected.
    pub fn wait_ready(&mut self) {
        if let Err(name) = self.ready_or_exited() {
            panic!("nats: {name} exited");
        }
    }

    /// Waits as [`Nats::wait_ready`] does; `Err` names a node whose process exited.
    fn ready_or_exited(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + READY_WITHIN;
        for i in 0..self.nodes.len() {
            if self.nodes[i].child.is_none() {
                continue;
            }
            loop {
                // A node that exited never joins: the others would wait for it in vain.
                for node in &mut self.nodes {
                    if let Some(child) = node.child.as_mut()
                        && child.try_wait().is_ok_and(|status| status.is_some())
                    {
                        node.child = None;
                        return Err(node.name.clone());
                    }
                }
                let node = &self.nodes[i];
                let health = node.monitor("/healthz?js-enabled-only=true");
                let ok = health.is_some_and(|h| h["status"] == "ok");
                let leader = self.nodes.len() == 1
                    || node.monitor("/jsz").is_some_and(|j| {
                        j["meta_cluster"]["leader"]
                            .as_str()
                            .is_some_and(|l| !l.is_empty())
                    });
                if ok && leader {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "{} did not become ready",
                    node.name
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Ok(())
    }

    /// SIGKILL of node `i`.
    pub fn kill(&mut self, i: usize) {
        self.nodes[i].kill();
    }

    /// Starts node `i` again on its store directory.
    pub fn restart(&mut self, i: usize) {
        self.nodes[i].start();
    }

    /// The node that leads `stream` now, by its index.
    pub fn stream_leader(&self, stream: &str) -> Option<usize> {
        let path = "/jsz?streams=true";
        for node in self.nodes.iter().filter(|n| n.child.is_some()) {
            let Some(jsz) = node.monitor(path) else {
                continue;
            };
            for account in jsz["account_details"].as_array().into_iter().flatten() {
                for s in account["stream_detail"].as_array().into_iter().flatten() {
                    if s["name"] == stream
                        && let Some(leader) = s["cluster"]["leader"].as_str()
                    {
                        return self.nodes.iter().position(|n| n.name == leader);
                    }
                }
            }
        }
        None
    }

    /// Consumers on `stream`, as the servers report them.
    pub fn consumer_count(&self, stream: &str) -> Option<u64> {
        let path = "/jsz?streams=true&consumers=true";
        self.nodes
            .iter()
            .filter(|n| n.child.is_some())
            .find_map(|node| {
                let jsz = node.monitor(path)?;
                jsz["account_details"]
                    .as_array()?
                    .iter()
                    .flat_map(|a| a["stream_detail"].as_array().into_iter().flatten())
                    .find(|s| s["name"] == stream)
                    .and_then(|s| s["state"]["consumer_count"].as_u64())
            })
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            node.kill();
        }
    }
}
