//! `run(listener, config, shutdown)`: the whole server on a listener the caller bound, so tests
//! start real servers on port 0.

use std::future::Future;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Server;

use super::ServeConfig;
use crate::grpc::{PresentationApi, pb::presentation_service_server::PresentationServiceServer};

/// Serves every service on `listener` until `shutdown` resolves, then drains in-flight calls.
pub async fn run(
    listener: TcpListener,
    config: ServeConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    let presentation = PresentationServiceServer::new(PresentationApi)
        .max_decoding_message_size(config.max_message_size)
        .max_encoding_message_size(config.max_message_size);
    tracing::info!(addr = %listener.local_addr()?, store = ?config.store, "serving");
    Server::builder()
        .trace_fn(|req| tracing::info_span!("rpc", path = %req.uri().path()))
        .add_service(presentation)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown)
        .await?;
    tracing::info!("stopped");
    Ok(())
}
