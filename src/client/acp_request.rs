//! What `toolview acp` reads from the editor: JSON-RPC messages, each request's params read with
//! the ACP schema crate's request types (a field that is not the method's is an
//! `INVALID_PARAMS` naming it).

use agent_client_protocol_schema::v1 as acp;
use serde_json::Value;

/// JSON-RPC: the params are not the method's.
pub(super) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: no such method.
pub(super) const METHOD_NOT_FOUND: i64 = -32601;

/// A JSON-RPC message from the editor: a request, a notification, or a response to ours.
#[derive(serde::Deserialize)]
pub(super) struct Incoming {
    #[serde(default)]
    pub(super) id: Option<Value>,
    #[serde(default)]
    pub(super) method: Option<String>,
    #[serde(default)]
    pub(super) params: Option<Value>,
    #[serde(default)]
    pub(super) result: Option<Value>,
}

/// A request this agent answers, its params read with the schema crate's request types.
pub(super) enum Request {
    Initialize(Box<acp::InitializeRequest>),
    Authenticate,
    NewSession,
    Load(Box<acp::LoadSessionRequest>),
    List(Box<acp::ListSessionsRequest>),
    Resume(Box<acp::ResumeSessionRequest>),
    Close(Box<acp::CloseSessionRequest>),
    Prompt(Box<acp::PromptRequest>),
}

impl Request {
    /// The request `method` names, or the JSON-RPC error to answer: an unknown method, or
    /// params that are not the method's (naming the field).
    pub(super) fn parse(method: &str, params: Value) -> Result<Request, (i64, String)> {
        fn read<T: serde::de::DeserializeOwned>(params: Value) -> Result<Box<T>, (i64, String)> {
            serde_path_to_error::deserialize(params)
                .map(Box::new)
                .map_err(|e| match e.path().to_string().as_str() {
                    "." => (INVALID_PARAMS, format!("params: {}", e.inner())),
                    path => (INVALID_PARAMS, format!("params.{path}: {}", e.inner())),
                })
        }
        Ok(match method {
            "initialize" => Request::Initialize(read(params)?),
            "authenticate" => Request::Authenticate,
            "session/new" => Request::NewSession,
            "session/load" => Request::Load(read(params)?),
            "session/list" => Request::List(read(params)?),
            "session/resume" => Request::Resume(read(params)?),
            "session/close" => Request::Close(read(params)?),
            "session/prompt" => Request::Prompt(read(params)?),
            other => {
                let why = format!("{other}: not supported by toolview");
                return Err((METHOD_NOT_FOUND, why));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn params_are_read_with_the_schema_types_and_a_bad_field_is_named() {
        let load = json!({"sessionId": "s", "cwd": "/w", "mcpServers": []});
        assert!(
            matches!(Request::parse("session/load", load), Ok(Request::Load(r)) if r.session_id.to_string() == "s")
        );
        let (code, why) = Request::parse(
            "session/load",
            json!({"sessionId": 3, "cwd": "/w", "mcpServers": []}),
        )
        .err()
        .unwrap();
        assert_eq!(code, INVALID_PARAMS);
        assert!(why.starts_with("params.sessionId:"), "{why}");
        let (code, why) = Request::parse("session/close", json!({})).err().unwrap();
        assert_eq!(code, INVALID_PARAMS);
        assert!(why.contains("sessionId"), "{why}");
        let (code, _) = Request::parse("session/fork", json!({})).err().unwrap();
        assert_eq!(code, METHOD_NOT_FOUND);
        assert!(matches!(
            Request::parse("session/list", json!({})),
            Ok(Request::List(_))
        ));
    }
}
