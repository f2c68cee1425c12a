//! The gRPC edge: generated code, conversions, status mapping, and thin service impls. With
//! `client` (the command line's client programs), the only modules that name generated types.
//!
//! Where things are: `pb` (generated), `codec.rs` (prost encoding; a request that does not decode
//! is `INVALID_ARGUMENT`; buffers start at 1 KiB), `wire.rs` (`SubscribeResponse` by hand, mapped
//! by `build.rs`: a stream item can be the encoding its lane's update holds), `convert/`
//! (`TryFrom<pb::X>` inbound with typed errors, `From` outbound), `status.rs` (taxonomy →
//! `tonic::Code`, the one place; `transport_status` rewrites the statuses tonic answers before a
//! handler runs), thin service impls (`presentation.rs`, `session.rs`, `permission.rs`), `services.rs` (the API
//! services with their limits, health and reflection, assembled for `app`), `storage.rs`
//! (`StorageCodec`: records as `toolview.storage.v1` messages), `auth.rs` (the `authorization`
//! metadata → `Access`; `Expiring` ends a stream with `UNAUTHENTICATED` at its token's expiry),
//! `json.rs` (the protobuf JSON mapping, through the embedded descriptor set)

mod auth;
pub mod codec;
pub mod convert;
mod fleet;
pub mod json;
mod listing;
mod permission;
mod presentation;
mod services;
mod session;
mod status;
mod storage;
pub mod wire;

pub use crate::error::code_name;
pub use auth::access;
pub use convert::rendered_update;
pub use fleet::{FleetStream, watch as watch_fleet};
pub use permission::PermissionApi;
pub use presentation::PresentationApi;
pub use services::{Health, Limits, Services, method_paths, services};
pub use session::SessionApi;
pub use status::transport_status;
pub use storage::StorageCodec;

/// The generated code, in modules that mirror the proto packages (generated code refers across
/// packages by relative paths).
#[allow(clippy::all, missing_docs)]
mod generated {
    pub mod toolview {
        pub mod v1 {
            tonic::include_proto!("toolview.v1");

            // Written by hand, to be sent pre-encoded (build.rs maps the message there).
            pub use crate::grpc::wire::SubscribeResponse;
            /// The `item` oneof of [`SubscribeResponse`].
            pub mod subscribe_response {
                pub use crate::grpc::wire::Item;
            }

            /// The encoded file descriptor set of the API (`toolview/v1`), for reflection.
            pub const FILE_DESCRIPTOR_SET: &[u8] =
                tonic::include_file_descriptor_set!("toolview_descriptor");
        }
        pub mod storage {
            pub mod v1 {
                tonic::include_proto!("toolview.storage.v1");
            }
        }
    }
}

/// The generated code for the stored records, package `toolview.storage.v1`.
pub use generated::toolview::storage::v1 as storage_pb;
/// The generated code for the API, package `toolview.v1`.
pub use generated::toolview::v1 as pb;
