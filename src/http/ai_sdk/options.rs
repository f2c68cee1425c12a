//! What a request asks of the AI SDK endpoint: a `useChat` POST (`{id, messages, trigger,
//! messageId}` plus the transport's `body`, where toolview's options go under `toolview`) or a
//! resume GET (`{api}/{id}/stream`, options in the query). Errors name the field.

use serde::Deserialize;
use serde_json::Value;

use crate::domain::FieldViolation;
use crate::domain::SessionId;
use crate::error::Error;
use crate::http::CapsInput;
use crate::render::Capabilities;
use crate::session::Start;

/// A stream, as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamOptions {
    /// The session: the chat's `id`.
    pub session: SessionId,
    /// From the beginning (the default), or only what is published from now on.
    pub start: Start,
    /// Stream live after the replay (the default), or finish at the head it found.
    pub follow: bool,
    /// What the UI can show.
    pub caps: Capabilities,
    /// The request carried a user's prompt, which goes nowhere (the stream says so).
    pub prompted: bool,
    /// Approvals the UI answered (`addToolApprovalResponse`) in its last assistant message.
    pub approvals: Vec<Approval>,
}

/// A tool part's approval as the UI answered it: the permission request (its approval id),
/// yes or no, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    /// The approval's id: toolview's permission request.
    pub request: String,
    /// Whether the UI approved.
    pub approved: bool,
    /// The reason the UI gave.
    pub reason: String,
    /// The tool part's call (`toolCallId`), when it names one.
    pub tool_call: Option<String>,
    /// Where it is in the request (`messages[3].parts[1].approval`), for refusals.
    pub field: String,
}

/// The approvals answered in the last assistant message (earlier ones were taken by earlier
/// requests; taking one twice is told it already was).
fn approvals(messages: &[Value]) -> Vec<Approval> {
    let Some((i, last)) = messages
        .iter()
        .enumerate()
        .rev()
        .find(|(_, m)| m["role"] == "assistant")
    else {
        return Vec::new();
    };
    let parts = last["parts"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    parts
        .iter()
        .enumerate()
        .filter_map(|(j, part)| {
            let approval = &part["approval"];
            Some(Approval {
                request: approval["id"].as_str()?.to_owned(),
                approved: approval["approved"].as_bool()?,
                reason: approval["reason"].as_str().unwrap_or_default().to_owned(),
                tool_call: part["toolCallId"].as_str().map(str::to_owned),
                field: format!("messages[{i}].parts[{j}].approval"),
            })
        })
        .collect()
}

/// The parts of a `useChat` request the endpoint reads.
#[derive(Deserialize)]
struct Post {
    id: Option<String>,
    #[serde(default)]
    messages: Vec<Value>,
    #[serde(default)]
    toolview: Option<Toolview>,
}

/// The transport's `body: {toolview: …}`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Toolview {
    #[serde(default)]
    live_only: bool,
    follow: Option<bool>,
    #[serde(default)]
    capabilities: CapsInput,
}

fn session(id: &str, field: &str) -> Result<SessionId, Error> {
    SessionId::new(id).map_err(|e| Error::invalid(FieldViolation::new(field, e)))
}

impl StreamOptions {
    /// Reads a `useChat` POST body.
    pub fn from_post(body: &[u8]) -> Result<Self, Error> {
        let post: Post = serde_json::from_slice(body)
            .map_err(|e| Error::bad_request(format!("the body is not a chat request: {e}")))?;
        let id = post.id.ok_or_else(|| {
            Error::invalid(FieldViolation::new(
                "id",
                "missing (the chat id names the session)",
            ))
        })?;
        let toolview = post.toolview.unwrap_or_default();
        let prompted = post.messages.last().is_some_and(|m| m["role"] == "user");
        let approvals = approvals(&post.messages);
        Ok(StreamOptions {
            session: session(&id, "id")?,
            start: if toolview.live_only {
                Start::LiveOnly
            } else {
                Start::FromBeginning
            },
            follow: toolview.follow.unwrap_or(true),
            caps: toolview.capabilities.into(),
            prompted,
            approvals,
        })
    }

    /// Reads a resume: `rest` is the path after `{api}/` (`<id>/stream`; ids may hold `/`), the
    /// query `follow=false`, `liveOnly=true` and the capability flags (`terminal=true`, …,
    /// `maxOutputBytes=N`).
    pub fn from_resume(rest: &str, query: Option<&str>) -> Result<Self, Error> {
        let id = rest.strip_suffix("/stream").ok_or_else(|| {
            Error::NotFound(format!("no route {rest:?}: resume is {{id}}/stream").into())
        })?;
        let mut toolview = Toolview::default();
        let mut caps = serde_json::Map::new();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let flag = || match value {
                "true" | "1" | "" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(Error::invalid(FieldViolation::new(
                    key,
                    "not true or false",
                ))),
            };
            match key {
                "follow" => toolview.follow = Some(flag()?),
                "liveOnly" => toolview.live_only = flag()?,
                "maxOutputBytes" => {
                    let n: u64 = value.parse().map_err(|_| {
                        Error::invalid(FieldViolation::new(
                            "maxOutputBytes",
                            "not an unsigned integer",
                        ))
                    })?;
                    caps.insert(key.into(), n.into());
                }
                "terminal" | "diff" | "read" | "search" | "web" | "reasoning" | "outputAppends" => {
                    caps.insert(key.into(), flag()?.into());
                }
                _ => {
                    return Err(Error::invalid(FieldViolation::new(
                        key,
                        "not an option of the stream",
                    )));
                }
            }
        }
        let caps: CapsInput = serde_json::from_value(Value::Object(caps))
            .map_err(|e| Error::invalid(FieldViolation::new("query", e)))?;
        Ok(StreamOptions {
            session: session(id, "id")?,
            start: if toolview.live_only {
                Start::LiveOnly
            } else {
                Start::FromBeginning
            },
            follow: toolview.follow.unwrap_or(true),
            caps: caps.into(),
            prompted: false,
            approvals: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_posts_and_resumes() {
        let body = br#"{"id":"team-a/s1","messages":[{"id":"u","role":"user","parts":[]}],
            "trigger":"submit-message","messageId":null,
            "toolview":{"follow":false,"capabilities":{"terminal":true,"reasoning":true}}}"#;
        let o = StreamOptions::from_post(body).unwrap();
        assert_eq!(o.session.as_str(), "team-a/s1");
        assert!(!o.follow && o.prompted && o.caps.terminal && o.caps.reasoning);
        let r = StreamOptions::from_resume("team-a/s1/stream", Some("follow=false&liveOnly=true"))
            .unwrap();
        assert_eq!(r.session.as_str(), "team-a/s1");
        assert_eq!((r.follow, r.start), (false, Start::LiveOnly));
    }

    #[test]
    fn errors_name_the_field() {
        for (body, want) in [
            (&b"[]"[..], "chat request"),
            (br#"{"messages":[]}"#, "id: missing"),
            (br#"{"id":"a b"}"#, "id: may only"),
            (br#"{"id":"s","toolview":{"nope":1}}"#, "unknown field"),
        ] {
            let e = StreamOptions::from_post(body).unwrap_err().to_string();
            assert!(e.contains(want), "{e} should say {want}");
        }
        let e = StreamOptions::from_resume("s/stream", Some("follow=maybe")).unwrap_err();
        assert!(e.to_string().contains("follow: not true or false"), "{e}");
        let e = StreamOptions::from_resume("s/stream", Some("x=1")).unwrap_err();
        assert!(e.to_string().contains("x: not an option"), "{e}");
        assert!(matches!(
            StreamOptions::from_resume("s", None),
            Err(Error::NotFound(_))
        ));
    }
}
