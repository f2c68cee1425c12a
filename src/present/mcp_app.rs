//! An MCP App on a call's result, read from the result's meta: the MCP result's own `_meta`
//! (`_meta.ui.resourceUri`, or the older `_meta["ui/resourceUri"]`), its `structuredContent`,
//! and `mcpServer` (`serverId`, and the `type` and `url` AG-UI's MCP Apps middleware names a
//! server by). A harness passes an MCP tool's result through as it got it; nothing else in the
//! meta changes how the card looks (docs/mcp-app.md#pass-through).

use md5::{Digest as _, Md5};
use serde_json::{Map, Value, json};

use crate::domain::{ContentBlock, McpApp};

/// A resource URI longer than this is not an app (the card shows the result without it).
pub const MAX_RESOURCE_URI_BYTES: usize = 2048;
/// A server id longer than this is cut.
const MAX_SERVER_ID_BYTES: usize = 256;

/// The app a result's meta names, if any: `None` without a `ui://` resource.
pub fn mcp_app(meta: Option<&Value>) -> Option<McpApp> {
    let meta = meta?.as_object()?;
    let ui_meta = meta.get("_meta");
    let uri = ui_meta
        .and_then(|m| m.get("ui"))
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| ui_meta.and_then(|m| m.get("ui/resourceUri")))
        .and_then(Value::as_str)?;
    if !uri.starts_with("ui://") || uri.len() > MAX_RESOURCE_URI_BYTES {
        return None;
    }
    let server = meta.get("mcpServer");
    let field = |name: &str| server.and_then(|s| s.get(name)).and_then(Value::as_str);
    let mut server_id = field("serverId").unwrap_or_default().to_owned();
    if server_id.len() > MAX_SERVER_ID_BYTES {
        let mut end = MAX_SERVER_ID_BYTES;
        while !server_id.is_char_boundary(end) {
            end -= 1;
        }
        server_id.truncate(end);
    }
    let server_hash = match (field("type"), field("url")) {
        (Some(kind), Some(url)) => server_hash(kind, url),
        _ => String::new(),
    };
    Some(McpApp {
        resource_uri: uri.to_owned(),
        server_id,
        server_hash,
        structured_content: meta.get("structuredContent").cloned(),
        meta: ui_meta.cloned().unwrap_or(Value::Null),
    })
}

/// `@ag-ui/mcp-apps-middleware`'s name of a server: the MD5 (hex) of
/// `JSON.stringify({type, url})`.
pub fn server_hash(kind: &str, url: &str) -> String {
    let text = format!(
        "{{\"type\":{},\"url\":{}}}",
        Value::from(kind),
        Value::from(url)
    );
    Md5::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The result as MCP's `CallToolResult`, what an app's view is given: the content blocks (text,
/// images, links), the structured content, `_meta`, and `isError` when it failed.
pub fn call_tool_result(app: &McpApp, content: &[ContentBlock], is_error: bool) -> Value {
    let blocks: Vec<Value> = content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(json!({"type": "text", "text": text})),
            ContentBlock::Reasoning { .. } => None,
            ContentBlock::Image(i) => {
                use base64::Engine as _;
                let data = i.data.as_ref()?;
                let data = base64::engine::general_purpose::STANDARD.encode(data);
                Some(json!({"type": "image", "data": data, "mimeType": i.mime_type}))
            }
            ContentBlock::ResourceLink(l) => {
                Some(json!({"type": "resource_link", "uri": l.uri, "name": l.name}))
            }
        })
        .collect();
    let mut result = Map::new();
    result.insert("content".into(), Value::Array(blocks));
    if let Some(structured) = &app.structured_content {
        result.insert("structuredContent".into(), structured.clone());
    }
    if !app.meta.is_null() {
        result.insert("_meta".into(), app.meta.clone());
    }
    if is_error {
        result.insert("isError".into(), Value::Bool(true));
    }
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_app_from_the_result_meta() {
        let meta = json!({
            "_meta": {"ui": {"resourceUri": "ui://weather/view"}},
            "structuredContent": {"temp": 21},
            "mcpServer": {"serverId": "weather", "type": "http", "url": "http://127.0.0.1:3001/mcp"},
        });
        let app = mcp_app(Some(&meta)).unwrap();
        assert_eq!(app.resource_uri, "ui://weather/view");
        assert_eq!(app.server_id, "weather");
        // What node's crypto gives for the same text (the middleware's getServerHash).
        assert_eq!(app.server_hash.len(), 32);
        assert_eq!(
            server_hash("http", "http://127.0.0.1:3001/mcp"),
            format!(
                "{:x}",
                Md5::digest(br#"{"type":"http","url":"http://127.0.0.1:3001/mcp"}"#)
            )
        );
        let result = call_tool_result(&app, &[ContentBlock::text("21 °C")], false);
        assert_eq!(
            result,
            json!({"content": [{"type": "text", "text": "21 °C"}], "structuredContent": {"temp": 21},
                   "_meta": {"ui": {"resourceUri": "ui://weather/view"}}})
        );
    }

    #[test]
    fn no_app_without_a_ui_resource() {
        for meta in [
            json!({}),
            json!({"_meta": {"ui": {"resourceUri": "https://evil.example"}}}),
            json!({"_meta": {"ui/resourceUri": 7}}),
            json!({"_meta": {"ui": {"resourceUri": format!("ui://{}", "x".repeat(3000))}}}),
            json!([1, 2]),
        ] {
            assert_eq!(mcp_app(Some(&meta)), None, "{meta}");
        }
        let legacy = json!({"_meta": {"ui/resourceUri": "ui://old/view"}});
        assert_eq!(
            mcp_app(Some(&legacy)).unwrap().resource_uri,
            "ui://old/view"
        );
    }
}
