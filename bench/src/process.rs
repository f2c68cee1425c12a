//! Servers under test, each a child process of its own so that its memory is its own: the
//! real `toolview serve` and a real `nats-server`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context as _, bail};

/// A server child process, killed (and its data directory removed) on drop.
pub struct Server {
    child: Child,
    /// Where clients connect: `http://…` for toolview, `nats://…` for NATS.
    pub url: String,
    /// toolview's admin listener (`host:port`), when started with `--metrics-listen`.
    pub metrics: Option<String>,
    data_dir: Option<PathBuf>,
}

impl Server {
    /// Starts `toolview serve` on a free loopback port with `store` (`memory` or `embedded`,
    /// the latter in a fresh directory) and otherwise the shipped defaults.
    pub fn toolview(exe: &Path, store: &str) -> anyhow::Result<Server> {
        Server::toolview_with(exe, store, &[])
    }

    /// [`Server::toolview`] with more `serve` flags.
    pub fn toolview_with(exe: &Path, store: &str, extra: &[&str]) -> anyhow::Result<Server> {
        if !exe.exists() {
            bail!(
                "no toolview binary at {} (build it: cargo build --release; or pass --toolview)",
                exe.display()
            );
        }
        Server::toolview_in(exe, store, fresh_dir(store), extra)
    }

    /// [`Server::toolview_with`] on the data directory `dir` (removed on drop).
    pub fn toolview_in(
        exe: &Path,
        store: &str,
        dir: PathBuf,
        extra: &[&str],
    ) -> anyhow::Result<Server> {
        let mut child = Command::new(exe)
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--store",
                store,
                "--data-dir",
            ])
            .arg(&dir)
            .args(extra)
            .env(
                "TOOLVIEW_LOG",
                std::env::var("TOOLVIEW_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {} serve", exe.display()))?;
        let stdout = child.stdout.take().expect("piped");
        let lines = lines_until(stdout, "toolview listening on ");
        let mut server = Server {
            child,
            url: String::new(),
            metrics: None,
            data_dir: Some(dir),
        };
        let (addr, before) = lines.context("toolview serve did not start")?;
        server.url = format!("http://{addr}");
        server.metrics = before.iter().find_map(|l| {
            l.trim()
                .strip_prefix("toolview metrics on ")
                .map(str::to_owned)
        });
        Ok(server)
    }

    /// Starts `nats-server` (core NATS, no JetStream) on a free loopback port.
    pub fn nats(bin: &Path) -> anyhow::Result<Server> {
        Server::nats_with(bin, &["-a", "127.0.0.1", "-p", "-1"])
    }

    /// Starts `nats-server` with JetStream from a configuration file: one node of a cluster, or
    /// a server alone.
    pub fn nats_node(bin: &Path, config: &Path) -> anyhow::Result<Server> {
        let config = config.to_str().context("a UTF-8 configuration path")?;
        Server::nats_with(bin, &["-c", config])
    }

    /// `nats-server` with `args`; its URL once it listens.
    fn nats_with(bin: &Path, args: &[&str]) -> anyhow::Result<Server> {
        let mut child = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", bin.display()))?;
        let stderr = child.stderr.take().expect("piped");
        let addr = first_line_after(stderr, "Listening for client connections on ");
        let mut server = Server {
            child,
            url: String::new(),
            metrics: None,
            data_dir: None,
        };
        server.url = format!("nats://{}", addr.context("nats-server did not start")?);
        Ok(server)
    }

    /// The process's resident set size, in KiB.
    pub fn rss_kib(&self) -> anyhow::Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .context("reading the server's /proc status (RSS is measured on Linux only)")?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .context("no VmRSS in /proc status")
    }
}

impl Server {
    /// CPU time (user + system) the process has used so far.
    pub fn cpu_time(&self) -> std::time::Duration {
        cpu_time(self.child.id())
    }
}

/// CPU time of process `pid` from `/proc/<pid>/stat` (zero where that is not readable).
pub fn cpu_time(pid: u32) -> std::time::Duration {
    // Linux reports utime and stime in USER_HZ ticks, which is 100 on every architecture.
    const TICKS_PER_SEC: u64 = 100;
    let ticks = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            // Fields after the command name (which may hold spaces), from field 3 (state):
            // utime is field 14, stime field 15.
            let rest = &s[s.rfind(')')? + 1..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0);
    std::time::Duration::from_millis(ticks * 1000 / TICKS_PER_SEC)
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(dir) = &self.data_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A data directory name no other server uses.
pub fn fresh_dir(what: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "toolview-bench-{}-{what}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ))
}

/// Reads lines until one contains `marker` and returns what follows it; the rest of the
/// output is drained on a thread so the child never blocks on a full pipe.
fn first_line_after(output: impl Read + Send + 'static, marker: &str) -> anyhow::Result<String> {
    lines_until(output, marker).map(|(found, _)| found)
}

/// What follows `marker` on the first line that has it, and the lines before it.
fn lines_until(
    output: impl Read + Send + 'static,
    marker: &str,
) -> anyhow::Result<(String, Vec<String>)> {
    let mut reader = BufReader::new(output);
    let mut before = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            bail!("the process exited before printing {marker:?}");
        }
        if let Some(i) = line.find(marker) {
            let found = line[i + marker.len()..].trim().to_owned();
            std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
            return Ok((found, before));
        }
        before.push(line);
    }
}

impl Server {
    /// The value of a counter or gauge on toolview's admin listener (0 when absent).
    pub fn metric(&self, series: &str) -> anyhow::Result<f64> {
        use std::io::Write as _;
        let addr = self
            .metrics
            .as_deref()
            .context("started without --metrics-listen")?;
        let mut stream = std::net::TcpStream::connect(addr)?;
        write!(
            stream,
            "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        Ok(response
            .lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
            .map_or(Ok(0.0), |v| v.trim().parse())?)
    }
}

/// A JetStream cluster (or one server) on loopback, its store in a fresh directory removed on
/// drop.
pub struct NatsCluster {
    pub nodes: Vec<Server>,
    dir: PathBuf,
}

impl NatsCluster {
    /// `n` JetStream servers routed to each other (one: no cluster), `max_payload` 8 MB.
    pub fn start(bin: &Path, n: usize) -> anyhow::Result<NatsCluster> {
        NatsCluster::start_with(bin, n, "")
    }

    /// As [`NatsCluster::start`], with more settings in each server's `jetstream` block (e.g.
    /// `sync_interval: always`).
    pub fn start_with(bin: &Path, n: usize, jetstream: &str) -> anyhow::Result<NatsCluster> {
        let dir = std::env::temp_dir().join(format!(
            "toolview-bench-nats-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&dir)?;
        let port = || -> anyhow::Result<u16> {
            Ok(std::net::TcpListener::bind("127.0.0.1:0")?
                .local_addr()?
                .port())
        };
        let routes = (0..n)
            .map(|_| port())
            .collect::<anyhow::Result<Vec<u16>>>()?;
        let route_list = routes
            .iter()
            .map(|p| format!("nats-route://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut cluster = NatsCluster {
            nodes: Vec::new(),
            dir: dir.clone(),
        };
        for (i, route) in routes.iter().enumerate() {
            let cluster_block = if n > 1 {
                format!(
                    "cluster {{ name: bench, listen: 127.0.0.1:{route}, routes: [{route_list}] }}"
                )
            } else {
                String::new()
            };
            let config = dir.join(format!("n{i}.conf"));
            std::fs::write(
                &config,
                format!(
                    "server_name: n{i}\nlisten: 127.0.0.1:{}\nmax_payload: 8MB\n\
                     jetstream {{ store_dir: \"{}\"\n{jetstream} }}\n{cluster_block}\n",
                    port()?,
                    dir.join(format!("n{i}")).display()
                ),
            )?;
            cluster.nodes.push(Server::nats_node(bin, &config)?);
        }
        Ok(cluster)
    }

    /// Every node's URL, comma-separated.
    pub fn urls(&self) -> String {
        self.nodes
            .iter()
            .map(|n| n.url.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Drop for NatsCluster {
    fn drop(&mut self) {
        self.nodes.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
