//! Compiles `proto/` with protox (pure Rust, no system `protoc`) and generates the tonic code.
//! The API's file descriptor set (with its imports, without the storage records) is written to
//! `OUT_DIR` so the server can offer reflection.

use std::{env, path::PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "proto/toolview/v1/views.proto",
        "proto/toolview/v1/events.proto",
        "proto/toolview/v1/rendering.proto",
        "proto/toolview/v1/presentation_service.proto",
        "proto/toolview/v1/session_service.proto",
        "proto/toolview/v1/permission_service.proto",
        "proto/toolview/v1/summary.proto",
        "proto/toolview/storage/v1/storage.proto",
    ];
    let fds = protox::compile(files, ["proto"])?;

    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    let mut api = fds.clone();
    api.file.retain(|f| {
        !f.name
            .as_deref()
            .is_some_and(|n| n.starts_with("toolview/storage/"))
    });
    std::fs::write(
        out_dir.join("toolview_descriptor.bin"),
        prost::Message::encode_to_vec(&api),
    )?;

    tonic_prost_build::configure()
        // Decode errors are INVALID_ARGUMENT, not tonic's INTERNAL (src/grpc/codec.rs).
        .codec_path("crate::grpc::codec::Codec")
        // Stream items are sent pre-encoded, once per lane (src/grpc/wire.rs).
        .extern_path(
            ".toolview.v1.SubscribeResponse",
            "crate::grpc::wire::SubscribeResponse",
        )
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;

    println!("cargo:rerun-if-changed=proto");
    Ok(())
}
