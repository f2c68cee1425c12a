//! Webhooks against a real receiver (Python's HTTP server, every signature checked with the
//! Standard Webhooks library): deliveries queued while the receiver is down, and through a
//! SIGKILL of the server, all arrive once it is up — each delivery id once; the answer links
//! they carry answer once, say who decided after, and refuse an altered or expired link; the
//! verification snippets of docs/sessions.md (Python, TypeScript) accept a delivery as it came
//! and refuse it altered.

use std::time::{Duration, Instant};

use serde_json::Value;
use support::http::exchange;
use support::permissions::{asking, requested, resolution};
use support::process::{ServerProcess, sample, scrape};
use support::sessions::*;
use support::webhooks::{Receiver, free_port, hooks_file, ids, new_secret};
use toolview::grpc::pb;
use toolview::grpc::pb::tool_event::Event;

/// How long the receiver stays down (the issue's scenario).
const RECEIVER_DOWN: Duration = Duration::from_secs(30);

/// A prompt waiting (its title trying Slack's markup), a turn stopped short, a turn that ended
/// well (idle: not a transition the hooks want), and a session the harness closed.
async fn four_sessions(url: &str) {
    let mut c = client(url).await;
    let waits = vec![
        turn("waits", "e1", "t1"),
        bash_call("waits", "e2", "c1"),
        asking(
            "waits",
            requested("perm-1", "c1", "Run <!channel> rm -rf build?"),
        ),
    ];
    let fails = vec![
        turn("fails", "e1", "t1"),
        turn_end("fails", "e2", "t1", pb::StopReason::MaxTokens),
    ];
    let ends = vec![
        turn("ends", "e1", "t1"),
        turn_end("ends", "e2", "t1", pb::StopReason::EndTurn),
    ];
    let closed = vec![
        turn("closed", "e1", "t1"),
        turn_end("closed", "e2", "t1", pb::StopReason::EndTurn),
        ev(
            "closed",
            "e3",
            Event::SessionEnded(pb::SessionEnded {
                reason: "the user closed the tab".into(),
            }),
        ),
    ];
    for events in [waits, fails, ends, closed] {
        publish(&mut c, events).await.unwrap();
    }
}

fn serve(data: &std::path::Path, hooks: &std::path::Path) -> ServerProcess {
    ServerProcess::spawn(
        data,
        &[
            "--webhooks-file",
            hooks.to_str().unwrap(),
            "--webhook-retry-max-ms",
            "2000",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    )
}

/// A POST to an answer link (`/#answer=<grant>` → `/links/<grant>`), with extra header lines.
fn post_link(addr: &str, grant: &str, extra: &str) -> (String, Value) {
    let (head, body) = exchange(
        addr,
        &format!("POST /links/{grant} HTTP/1.1\r\n{extra}"),
        "{}",
    );
    (head, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn grant_of(url: &str) -> String {
    url.split_once("#answer=")
        .expect("an answer link")
        .1
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_outlast_a_receiver_down_and_a_crash_and_arrive_once_signed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (port, secret) = (free_port(), new_secret());
    let hooks = hooks_file(
        dir.path(),
        port,
        &secret,
        &["requires_action", "failed", "ended"],
    );
    let mut server = serve(&data, &hooks);
    let down_since = Instant::now();
    four_sessions(&server.url).await;
    // Nothing listens: attempts fail and are queued again; then the server is killed with
    // the four deliveries (ops: the prompt, the failure, the end; chat: the prompt) queued.
    server
        .metric_reaches("toolview_webhook_retries_total", 3.0)
        .await;
    server.kill();
    let server = serve(&data, &hooks);
    tokio::time::sleep(RECEIVER_DOWN.saturating_sub(down_since.elapsed())).await;
    let receiver = Receiver::start(port, &secret, dir.path());
    receiver.wait_for(Duration::from_secs(60), |a| {
        ids(a, "/ops", |_| true).len() >= 3 && a.iter().any(|x| x["path"] == "/slack")
    });
    // Any late duplicate would come within the retry pause.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let arrivals = receiver.arrivals();
    let ops: Vec<&Value> = arrivals.iter().filter(|a| a["path"] == "/ops").collect();
    assert_eq!(ops.len(), 3, "each delivery once: {arrivals:#?}");
    assert!(ops.iter().all(|a| a["verified"] == true), "{ops:#?}");
    let distinct: std::collections::HashSet<&str> =
        ops.iter().filter_map(|a| a["id"].as_str()).collect();
    assert_eq!(distinct.len(), 3);
    let of_type = |t: &str| *ops.iter().find(|a| a["body"]["type"] == t).unwrap();
    let waiting = of_type("session.requires_action");
    let failed = of_type("session.failed");
    assert_eq!(failed["body"]["data"]["sessionId"], "fails");
    assert_eq!(failed["body"]["data"]["summary"]["lastStop"], "max_tokens");
    let ended = of_type("session.ended");
    assert_eq!(
        (
            ended["body"]["data"]["sessionId"].as_str(),
            ended["body"]["data"]["state"].as_str()
        ),
        (Some("closed"), Some("ended"))
    );
    let prompt = &waiting["body"]["data"]["prompt"];
    assert_eq!(prompt["requestId"], "perm-1");
    assert_eq!(prompt["title"], "Run <!channel> rm -rf build?");
    let slack = arrivals
        .iter()
        .filter(|a| a["path"] == "/slack")
        .collect::<Vec<_>>();
    assert_eq!(slack.len(), 1, "{arrivals:#?}");
    let slack_text = slack[0]["body"]["blocks"][0]["text"]["text"]
        .as_str()
        .unwrap();
    assert!(
        slack_text.contains("Run &lt;!channel&gt; rm -rf build?"),
        "{slack_text}"
    );
    let blocks = slack[0]["body"]["blocks"].as_array().unwrap();
    let actions = blocks.iter().find(|b| b["type"] == "actions").unwrap();
    let buttons = &actions["elements"];
    assert_eq!(buttons[0]["text"]["text"], "Allow");
    assert!(buttons[0]["url"].as_str().unwrap().contains("#answer="));
    docs_verify(&secret, waiting);
    answer_links(&server, &receiver, prompt).await;
    let metrics = scrape(server.metrics.as_deref().unwrap());
    let delivered = "toolview_webhook_deliveries_total{outcome=\"delivered\"}";
    assert!(sample(&metrics, delivered) >= 4.0, "{metrics}");
}

/// The prompt's links: a look changes nothing; the Allow link answers once, as `ops via
/// webhook`, and the harness's await returns it; a second use says who decided; a link altered,
/// sent from another origin, or past its request's expiry is refused.
async fn answer_links(server: &ServerProcess, receiver: &Receiver, prompt: &Value) {
    let addr = server.addr();
    let allow = grant_of(prompt["options"][0]["answerUrl"].as_str().unwrap());
    assert_eq!(prompt["options"][0]["optionId"], "allow");
    let (head, body) = exchange(addr, &format!("GET /links/{allow} HTTP/1.1\r\n"), "");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let seen: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (seen["state"].as_str(), seen["option"]["name"].as_str()),
        (Some("pending"), Some("Allow"))
    );

    let (head, _) = post_link(addr, &allow, "Origin: http://evil.example\r\n");
    assert!(head.starts_with("HTTP/1.1 403"), "another origin: {head}");
    let mut altered = allow.clone().into_bytes();
    altered[3] = if altered[3] == b'A' { b'B' } else { b'A' };
    let (head, body) = post_link(addr, std::str::from_utf8(&altered).unwrap(), "");
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
    assert_eq!(body["error"], "link: not an answer link this server made");

    let (head, body) = post_link(addr, &allow, "");
    assert!(head.starts_with("HTTP/1.1 200"), "{head} {body}");
    assert_eq!(body["won"], true);
    let decided = resolution(&server.url, "waits", "perm-1").await;
    let by = decided.resolved_by.unwrap();
    assert_eq!((by.subject.as_str(), by.via.as_str()), ("ops", "webhook"));
    let (head, body) = post_link(addr, &allow, "");
    assert!(head.starts_with("HTTP/1.1 409"), "{head}");
    assert_eq!(body["resolution"]["resolvedBy"]["subject"], "ops");

    // A request that expires in a second: its links expire with it.
    let mut c = client(&server.url).await;
    let short = pb::PermissionRequested {
        timeout_ms: 1_000,
        ..requested("perm-2", "c1", "Deploy?")
    };
    publish(&mut c, vec![asking("waits", short)]).await.unwrap();
    let arrivals = receiver.wait_for(Duration::from_secs(30), |a| {
        a.iter()
            .any(|x| x["body"]["data"]["prompt"]["requestId"] == "perm-2")
    });
    let second = arrivals
        .iter()
        .find(|x| x["body"]["data"]["prompt"]["requestId"] == "perm-2")
        .unwrap();
    let link = grant_of(
        second["body"]["data"]["prompt"]["options"][0]["answerUrl"]
            .as_str()
            .unwrap(),
    );
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let (head, body) = post_link(addr, &link, "");
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
    assert_eq!(body["error"], "link: this answer link expired");
}

/// The fenced block of docs/sessions.md in `lang` that this test runs.
fn doc_block(lang: &str) -> String {
    let page = std::fs::read_to_string(support::repo_dir().join("docs/sessions.md")).unwrap();
    let start = format!("```{lang} tested-by=tests/interop/webhooks.rs\n");
    let from = page.find(&start).expect("the block") + start.len();
    page[from..][..page[from..].find("\n```").unwrap()].to_owned()
}

/// Runs a program; its standard output.
fn run(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The docs' snippets, given a delivery's headers and body as they came, and altered.
fn docs_verify(secret: &str, arrival: &Value) {
    let entry = arrival.to_string();
    let python = format!(
        "{}\nimport json, sys\nentry = json.loads(sys.argv[2])\nbody = entry['raw'].encode()\n\
         print(verify(sys.argv[1], entry['headers'], body)['type'])\ntry:\n    \
         verify(sys.argv[1], entry['headers'], body + b' ')\n    print('altered: accepted')\n\
         except Exception:\n    print('altered: refused')\n",
        doc_block("python")
    );
    let py = support::repo_dir().join("tests/.venv/bin/python");
    let out = run(std::process::Command::new(py).args(["-c", &python, secret, &entry]));
    assert_eq!(out, "session.requires_action\naltered: refused\n");

    let dir = tempfile::tempdir().unwrap();
    let ts = format!(
        "{}\nconst [secret, entry] = process.argv.slice(2);\nconst e = JSON.parse(entry);\n\
         console.log(verifyWebhook(secret, e.headers, e.raw), verifyWebhook(secret, e.headers, e.raw + \" \"));\n",
        doc_block("ts")
    );
    std::fs::write(dir.path().join("verify.ts"), ts).unwrap();
    let esbuild = support::repo_dir().join("tests/js/node_modules/.bin/esbuild");
    let (source, out) = (dir.path().join("verify.ts"), dir.path().join("verify.mjs"));
    run(std::process::Command::new(esbuild)
        .arg(&source)
        .arg(format!("--outfile={}", out.display()))
        .args(["--format=esm", "--platform=node", "--log-level=warning"]));
    let printed = run(std::process::Command::new("node")
        .arg(&out)
        .args([secret, &entry]));
    assert_eq!(printed, "true false\n");
}

/// An `idle` notice waits `idleAfterSecs`, and is sent only if the session stayed idle: a session
/// that starts a turn again meanwhile is not told (its delivery is superseded).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_notice_waits_and_is_dropped_when_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let secret = new_secret();
    let receiver = Receiver::start(0, &secret, dir.path());
    std::fs::write(dir.path().join("ops.secret"), &secret).unwrap();
    let hooks = dir.path().join("hooks.json");
    let url = format!("http://127.0.0.1:{}/ops", receiver.port);
    let file = serde_json::json!({"hooks": [{"name": "ops", "url": url, "secretFile": "ops.secret",
        "events": ["idle"], "idleAfterSecs": 1}]});
    std::fs::write(&hooks, file.to_string()).unwrap();
    let mut config = toolview::app::ServeConfig::memory();
    config.webhooks.file = Some(hooks);
    let server = support::server::Server::start_with(config).await;
    let mut c = client(&server.url).await;
    let done = |s: &str| {
        vec![
            turn(s, "e1", "t1"),
            turn_end(s, "e2", "t1", pb::StopReason::EndTurn),
        ]
    };
    let t0 = Instant::now();
    publish(&mut c, done("quiet")).await.unwrap();
    publish(&mut c, done("goes-on")).await.unwrap();
    // Within the second, goes-on starts its next turn.
    publish(&mut c, vec![turn("goes-on", "e3", "t2")])
        .await
        .unwrap();
    receiver.wait_for(Duration::from_secs(30), |a| !a.is_empty());
    assert!(
        t0.elapsed() >= Duration::from_secs(1),
        "sent after the wait"
    );
    // Past goes-on's due time too (and a retry pause): nothing more comes.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let arrivals = receiver.arrivals();
    let told: std::collections::BTreeSet<(&str, &str)> = arrivals
        .iter()
        .map(|a| {
            (
                a["body"]["data"]["sessionId"].as_str().unwrap(),
                a["body"]["type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(told, [("quiet", "session.idle")].into(), "{arrivals:#?}");
    assert!(arrivals.iter().all(|a| a["verified"] == true));
}
