//! `toolview.v1.SubscribeResponse`, written by hand instead of generated (build.rs maps the
//! message here), so that a stream item can be sent pre-encoded.
//!
//! Every subscriber of a lane gets the same update at the same cursor, so the server encodes it
//! once ([`crate::session::Delivered::encoded`]) and every subscriber's stream copies those bytes
//! into its buffer: no per-subscriber conversion, allocation or encoding (the fan-out profile
//! spent about a sixth of the server's CPU there). Decoding is prost's, as generated: clients
//! see [`SubscribeResponse::item`] as before.

use std::sync::Arc;

use bytes::{Buf, BufMut, Bytes};
use prost::encoding::{DecodeContext, WireType};

use super::pb;
use crate::session::Delivered;

/// One stream item.
#[derive(Clone, Default)]
pub struct SubscribeResponse {
    /// What this item is (`None` for an item built from its encoding).
    pub item: Option<Item>,
    /// The message's encoding, when the item was built from it.
    encoded: Option<Encoded>,
}

/// Where an item's encoding is.
#[derive(Clone)]
enum Encoded {
    Owned(Bytes),
    /// In the lane's update (held by reference: subscribers cloning one `Bytes` contended on
    /// its count, a few percent of the fan-out's CPU).
    Shared(Arc<Delivered>),
}

impl Encoded {
    fn bytes(&self) -> &[u8] {
        match self {
            Encoded::Owned(bytes) => bytes,
            Encoded::Shared(d) => d.encoding().map_or(&[], |b| b),
        }
    }
}

/// What a stream item is (the message's `item` oneof).
// As prost generates oneofs: variants inline, so client code matches them as before.
#[expect(
    clippy::large_enum_variant,
    reason = "as prost generates oneofs: variants inline"
)]
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Item {
    /// A rendered update.
    #[prost(message, tag = "1")]
    Update(pb::RenderedUpdate),
    /// Sent while idle, every heartbeat interval.
    #[prost(message, tag = "2")]
    Heartbeat(pb::Heartbeat),
    /// The resume point was not usable: rebuild from the updates that follow.
    #[prost(message, tag = "3")]
    Reset(pb::Reset),
}

impl SubscribeResponse {
    /// An item to encode when sent.
    pub fn new(item: Item) -> Self {
        SubscribeResponse {
            item: Some(item),
            encoded: None,
        }
    }

    /// An item sent as `bytes`, the encoding of a `SubscribeResponse` (see [`encode`]).
    pub fn encoded(bytes: Bytes) -> Self {
        SubscribeResponse {
            item: None,
            encoded: Some(Encoded::Owned(bytes)),
        }
    }

    /// An item sent as the encoding `delivered` holds ([`Delivered::encoded`] made it).
    pub fn shared(delivered: Arc<Delivered>) -> Self {
        debug_assert!(delivered.encoding().is_some());
        SubscribeResponse {
            item: None,
            encoded: Some(Encoded::Shared(delivered)),
        }
    }
}

/// The encoding of a `SubscribeResponse` holding `item`.
pub fn encode(item: Item) -> Bytes {
    Bytes::from(prost::Message::encode_to_vec(&SubscribeResponse::new(item)))
}

impl PartialEq for SubscribeResponse {
    fn eq(&self, other: &Self) -> bool {
        match (&self.encoded, &other.encoded) {
            (None, None) => self.item == other.item,
            _ => prost::Message::encode_to_vec(self) == prost::Message::encode_to_vec(other),
        }
    }
}

impl std::fmt::Debug for SubscribeResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.encoded {
            Some(e) => write!(f, "SubscribeResponse({} encoded bytes)", e.bytes().len()),
            None => f
                .debug_struct("SubscribeResponse")
                .field("item", &self.item)
                .finish(),
        }
    }
}

impl prost::Message for SubscribeResponse {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        match (&self.encoded, &self.item) {
            (Some(e), _) => buf.put_slice(e.bytes()),
            (None, Some(item)) => item.encode(buf),
            (None, None) => {}
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        match tag {
            1..=3 => {
                self.encoded = None;
                Item::merge(&mut self.item, tag, wire_type, buf, ctx).map_err(|mut e| {
                    e.push("SubscribeResponse", "item");
                    e
                })
            }
            _ => prost::encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        match (&self.encoded, &self.item) {
            (Some(e), _) => e.bytes().len(),
            (None, Some(item)) => item.encoded_len(),
            (None, None) => 0,
        }
    }

    fn clear(&mut self) {
        self.item = None;
        self.encoded = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;

    #[test]
    fn an_encoded_item_decodes_as_the_item() {
        let item = Item::Update(pb::RenderedUpdate {
            cursor: Some(pb::Cursor {
                offset: 7,
                epoch: "e".into(),
            }),
            call_id: "c1".into(),
            message_id: String::new(),
            request_id: String::new(),
            body: Some(pb::rendered_update::Body::Markdown("**x**".into())),
        });
        let sent = SubscribeResponse::encoded(encode(item.clone()));
        let bytes = sent.encode_to_vec();
        assert_eq!(bytes.len(), sent.encoded_len());
        let got = SubscribeResponse::decode(bytes.as_slice()).unwrap();
        assert_eq!(got.item, Some(item.clone()));
        assert_eq!(got, sent);
        assert_eq!(bytes, SubscribeResponse::new(item).encode_to_vec());
    }
}
