//! MCP Inspector's CLI (2.12, the MCP project's own debugging client; `tests/inspector`, on the
//! Node 22 it needs) against the service's `/mcp` and `toolview mcp` over stdio, in each
//! protocol era it negotiates: `legacy` (2025-11-25's initialize), `modern` (2026-07-28's
//! stateless requests, whose results carry `resultType`) and `auto` (discover, then fall back).
//! Every tool schema portable (`--strict`), the token's sessions only, an update's own cursor
//! passed back resuming after it, a bad argument a tool error, the view resource readable.

use std::process::Command;

use serde_json::Value;
use support::sessions::*;

use crate::mcp_server::pb_publish;

const ERAS: [&str; 3] = ["legacy", "auto", "modern"];

/// The Inspector CLI aimed at `/mcp` (`http`) or at `toolview mcp` (`stdio`).
struct Inspector {
    url: String,
    token: String,
    transport: &'static str,
    era: &'static str,
}

/// What one run printed: its exit code, its JSON result (or error), its stderr.
struct Ran {
    code: i32,
    json: Value,
    stderr: String,
}

impl Inspector {
    fn run(&self, args: &[&str]) -> Ran {
        let dir = support::repo_dir().join("tests/inspector/node_modules");
        let bin = dir.join(".bin/mcp-inspector");
        assert!(
            bin.exists(),
            "MCP Inspector is missing: run scripts/test.sh (npm ci in tests/inspector)"
        );
        let path = format!(
            "{}:{}",
            dir.join("node/bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new(bin);
        cmd.env("PATH", path)
            // Its catalog and secrets in a scratch home, in memory (no keychain here).
            .env("HOME", std::env::temp_dir())
            .env("MCP_INSPECTOR_SECRET_STORE", "memory")
            .args(["--cli", "--format", "json", "--protocol-era", self.era])
            .args(args);
        match self.transport {
            "http" => {
                let header = format!("Authorization: Bearer {}", self.token);
                let url = format!("{}/mcp", self.url);
                // `--header` takes several values: the URL goes by its own flag.
                cmd.args([
                    "--server-url",
                    &url,
                    "--transport",
                    "http",
                    "--header",
                    &header,
                ]);
            }
            _ => {
                cmd.arg("-e")
                    .arg(format!("TOOLVIEW_SERVER={}", self.url))
                    .arg("-e")
                    .arg(format!("TOOLVIEW_TOKEN={}", self.token))
                    .arg("--")
                    .arg(support::toolview_bin())
                    .arg("mcp");
            }
        }
        let out = cmd.output().expect("the Inspector runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let json = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{self:?} {args:?}: {e}: {stdout}\n{stderr}"));
        Ran {
            code: out.status.code().unwrap_or(-1),
            json,
            stderr,
        }
    }

    fn call(&self, tool: &str, arguments: &str) -> Ran {
        self.run(&[
            "--method",
            "tools/call",
            "--tool-name",
            tool,
            "--tool-args-json",
            arguments,
        ])
    }
}

impl std::fmt::Debug for Inspector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Inspector {} {}", self.transport, self.era)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspector_cli_in_every_era_over_http_and_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let admin = support::auth::token(&["publish"], &["**"]);
    let mut c = client(&server.url).await;
    for session in ["team-a/run-1", "team-b/run-2"] {
        let request = support::auth::with_token(pb_publish(sample_session(session)), &admin);
        c.publish(request).await.unwrap();
    }
    let token = support::auth::token(&["read", "subscribe"], &["team-a/*"]);
    for transport in ["http", "stdio"] {
        for era in ERAS {
            let inspector = Inspector {
                url: server.url.clone(),
                token: token.clone(),
                transport,
                era,
            };
            check(&inspector);
        }
    }
}

fn check(inspector: &Inspector) {
    let tools = inspector.run(&["--method", "tools/list", "--strict"]);
    assert_eq!(tools.code, 0, "{inspector:?}: {}", tools.stderr);
    // `--strict` reports each portability problem on stderr, and nothing when there is none.
    assert!(
        !tools.stderr.contains("Warning") && !tools.stderr.contains("Error"),
        "{inspector:?}: every schema portable: {}",
        tools.stderr
    );
    let names: Vec<&str> = tools.json["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in ["list_sessions", "watch_session", "poll_session"] {
        assert!(names.contains(&name), "{inspector:?}: {names:?}");
    }

    let listed = inspector.call("list_sessions", "{}");
    let sessions = &listed.json["result"]["structuredContent"]["sessions"];
    assert_eq!(
        sessions.as_array().map(Vec::len),
        Some(1),
        "{inspector:?}: {}",
        listed.json
    );
    assert_eq!(sessions[0]["session"], "team-a/run-1");

    // An update's own cursor, passed back, resumes after it.
    let polled = inspector.call("poll_session", r#"{"session":"team-a/run-1","waitMs":0}"#);
    let updates = polled.json["result"]["structuredContent"]["updates"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{inspector:?}: {}", polled.json));
    assert!(updates.len() > 2, "{inspector:?}: {updates:?}");
    let after =
        serde_json::json!({"session": "team-a/run-1", "after": updates[1]["cursor"], "waitMs": 0});
    let resumed = inspector.call("poll_session", &after.to_string());
    let rest = &resumed.json["result"]["structuredContent"]["updates"];
    assert_eq!(
        rest.as_array().map(Vec::len),
        Some(updates.len() - 2),
        "{inspector:?}"
    );
    assert_eq!(rest[0]["cursor"], updates[2]["cursor"], "{inspector:?}");

    let bad = inspector.call("list_sessions", r#"{"pageSize":0}"#);
    assert_ne!(bad.code, 0, "{inspector:?}");
    assert_eq!(
        bad.json["result"]["isError"], true,
        "{inspector:?}: {}",
        bad.json
    );
    assert!(
        bad.json.to_string().contains("pageSize"),
        "{inspector:?}: the error names the field: {}",
        bad.json
    );
    let other = inspector.call("watch_session", r#"{"session":"team-b/run-2"}"#);
    assert_ne!(other.code, 0, "{inspector:?}: another team's session");

    let view = inspector.run(&[
        "--method",
        "resources/read",
        "--uri",
        "ui://toolview/session",
    ]);
    assert_eq!(
        view.json["result"]["contents"][0]["mimeType"], "text/html;profile=mcp-app",
        "{inspector:?}: {}",
        view.json
    );
}
