//! An MCP App passed through (docs/mcp-app.md#pass-through): a call whose result meta carries
//! an MCP tool's `_meta.ui.resourceUri` keeps it on its card, and the official clients see it
//! as their hosts expect — AG-UI's `HttpAgent` an `mcp-apps` activity in the shape of
//! `@ag-ui/mcp-apps-middleware` (its server hash as node computes it), the AI SDK's
//! `readUIMessageStream` the tool part's `toolMetadata.app` and the MCP result as the output,
//! VIEW the card's `mcp_app`, ACP the completion's `_meta`.

use serde_json::{Value, json};
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb;

use crate::agui::agui_client;
use support::cli::tail;

const URL: &str = "http://127.0.0.1:3001/mcp";

/// What `@ag-ui/mcp-apps-middleware`'s `getServerHash` gives: node's MD5 of `JSON.stringify`.
fn node_server_hash() -> String {
    let script = format!(
        "process.stdout.write(require('crypto').createHash('md5')\
         .update(JSON.stringify({{type: 'http', url: '{URL}'}})).digest('hex'))"
    );
    let out = std::process::Command::new("node")
        .args(["-e", &script])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn server_with_the_session() -> (tempfile::TempDir, ServerProcess) {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let jsonl = support::cli::repo_file("tests/data/mcp_app.jsonl");
    support::cli::publish_jsonl(&server.url, "app", &jsonl);
    (dir, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ag_ui_gets_an_mcp_apps_activity() {
    let (_dir, server) = server_with_the_session();
    let endpoint = format!("{}/ag-ui", server.url);
    let report: Value = tokio::task::spawn_blocking(move || {
        let options = json!({"follow": false}).to_string();
        NodeClient::spawn(agui_client(&["http", &endpoint, "app", &options])).finish()
    })
    .await
    .unwrap();
    let apps: Vec<&Value> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["activityType"] == "mcp-apps")
        .collect();
    assert_eq!(apps.len(), 1, "{report}");
    let content = &apps[0]["content"];
    assert_eq!(content["resourceUri"], "ui://weather/view");
    assert_eq!(content["serverId"], "weather");
    assert_eq!(content["serverHash"], node_server_hash());
    assert_eq!(content["toolInput"], json!({"city": "Paris"}));
    assert_eq!(
        content["result"],
        json!({"content": [{"type": "text", "text": "21 °C in Paris"}],
               "structuredContent": {"city": "Paris", "temp": 21},
               "_meta": {"ui": {"resourceUri": "ui://weather/view"}}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_sdk_gets_tool_metadata_and_the_mcp_result() {
    let (_dir, server) = server_with_the_session();
    let url = format!("{}/ai-sdk", server.url);
    let body = json!({"id": "app", "messages": [], "trigger": "submit-message",
        "toolview": {"follow": false}});
    let report: Value = tokio::task::spawn_blocking(move || {
        let mut cmd = support::node::script("ai_sdk_client");
        cmd.args(["post", &url, &body.to_string()]);
        NodeClient::spawn(cmd).finish()
    })
    .await
    .unwrap();
    assert_eq!(report["errors"], json!([]), "{report}");
    let part = report["message"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["toolCallId"] == "w1")
        .cloned()
        .unwrap();
    assert_eq!(part["state"], "output-available", "{part}");
    assert_eq!(
        part["toolMetadata"],
        json!({"toolName": "get_weather", "clientName": "weather",
               "app": {"resourceUri": "ui://weather/view", "mimeType": "text/html;profile=mcp-app"}})
    );
    assert_eq!(
        part["output"]["structuredContent"],
        json!({"city": "Paris", "temp": 21})
    );
    assert_eq!(part["output"]["text"], "21 °C in Paris");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_and_acp_carry_the_reference() {
    let (_dir, server) = server_with_the_session();
    let mut c = client(&server.url).await;
    let mut stream = subscribe(
        &mut c,
        request("app", pb::Target::View, false, from_beginning()),
    )
    .await;
    let updates = updates_until(&mut stream, 9).await;
    let app = updates
        .iter()
        .filter_map(|u| match &u.body {
            Some(pb::rendered_update::Body::View(pb::ViewUpdate {
                update: Some(pb::view_update::Update::Card(card)),
            })) => card.mcp_app.clone(),
            _ => None,
        })
        .next_back()
        .expect("the finished card carries the app");
    assert_eq!(app.resource_uri, "ui://weather/view");
    assert_eq!(app.server_hash, node_server_hash());
    let structured: Value = serde_json::from_str(&app.structured_content_json).unwrap();
    assert_eq!(structured, json!({"city": "Paris", "temp": 21}));
    // ACP: the completion names it in `_meta`, and every notification is valid ACP.
    let acp = tail(&server.url, "app", "acp");
    let notifications: Vec<Value> = acp
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let named = notifications
        .iter()
        .filter(|n| {
            n["params"]["update"]["_meta"]["toolview"]["mcpApp"]["resourceUri"]
                == "ui://weather/view"
        })
        .count();
    assert_eq!(named, 1, "{acp}");
    let params: Vec<Value> = notifications.iter().map(|n| n["params"].clone()).collect();
    crate::acp_agent::check_notifications(&params);
}
