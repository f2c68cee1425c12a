//! The protobuf JSON mapping of our messages (the CLI's JSON lines, the MCP view's updates),
//! through the descriptor set compiled into the binary.

use std::sync::OnceLock;

use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, SerializeOptions};

use crate::grpc::pb;

fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        DescriptorPool::decode(pb::FILE_DESCRIPTOR_SET)
            .expect("the embedded descriptor set decodes")
    })
}

fn descriptor(name: &str) -> prost_reflect::MessageDescriptor {
    pool()
        .get_message_by_name(name)
        .unwrap_or_else(|| panic!("{name} is in the descriptor set"))
}

/// Parses one `ToolEvent` in the protobuf JSON mapping.
pub fn event_from_json(text: &str) -> Result<pb::ToolEvent, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let dynamic = DynamicMessage::deserialize(descriptor("toolview.v1.ToolEvent"), &mut de)
        .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    dynamic
        .transcode_to::<pb::ToolEvent>()
        .map_err(|e| e.to_string())
}

/// `message` as a reflected message (prost-reflect's transcoding).
fn dynamic<M: Message>(message: &M, full_name: &str) -> DynamicMessage {
    let mut dynamic = DynamicMessage::new(descriptor(full_name));
    dynamic
        .transcode_from(message)
        .expect("a message transcodes to its own descriptor");
    dynamic
}

/// A message in the protobuf JSON mapping, as a JSON value.
pub fn to_json_value<M: Message>(message: &M, full_name: &str) -> serde_json::Value {
    dynamic(message, full_name)
        .serialize_with_options(serde_json::value::Serializer, &SerializeOptions::new())
        .expect("messages serialize to JSON")
}

/// A message in the protobuf JSON mapping, on one line.
pub fn to_json<M: Message>(message: &M, full_name: &str) -> String {
    let dynamic = dynamic(message, full_name);
    let mut out = serde_json::Serializer::new(Vec::new());
    dynamic
        .serialize_with_options(&mut out, &SerializeOptions::new())
        .expect("messages serialize to JSON");
    String::from_utf8(out.into_inner()).expect("JSON is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_json() {
        let line = r#"{"sessionId":"s","eventId":"e1","callStarted":{"callId":"c1","toolName":"bash","argumentsJson":"{}"}}"#;
        let event = event_from_json(line).unwrap();
        assert_eq!(event.event_id, "e1");
        assert_eq!(to_json(&event, "toolview.v1.ToolEvent"), line);
        assert!(event_from_json(r#"{"sessionId":"s","bogus":1}"#).is_err());
    }
}
