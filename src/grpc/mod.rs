//! The gRPC edge: generated code, conversions, status mapping, and thin service impls. This is
//! the only module that names generated types.

mod auth;
pub mod cli;
pub mod codec;
pub mod convert;
pub mod json;
mod presentation;
mod session;
mod status;

pub use presentation::PresentationApi;
pub use session::SessionApi;
pub use status::transport_status;

/// The generated code for package `toolview.v1`.
#[allow(clippy::all, missing_docs)]
pub mod pb {
    tonic::include_proto!("toolview.v1");

    /// The encoded file descriptor set of `proto/`, for server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        tonic::include_file_descriptor_set!("toolview_descriptor");
}
