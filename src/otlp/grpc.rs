//! OTLP/gRPC: the collector's trace and logs services (`opentelemetry.proto.collector.*.v1`),
//! gzip accepted, on the API port beside toolview's own services.

use opentelemetry_proto::tonic::collector::logs::v1::logs_service_server::{
    LogsService, LogsServiceServer,
};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use tonic::codec::CompressionEncoding;
use tonic::{Request, Response, Status};

use super::Otlp;

/// The method paths of both services (for the RPC metrics' labels).
pub const METHOD_PATHS: [&str; 2] = [
    "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
    "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
];

/// `routes` with both services, taking requests of at most the receiver's body limit
/// (decompressed).
pub fn services(otlp: Otlp, routes: tonic::service::Routes) -> tonic::service::Routes {
    let max = otlp.limits.max_body;
    let traces = TraceServiceServer::new(otlp.clone())
        .accept_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(max);
    let logs = LogsServiceServer::new(otlp)
        .accept_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(max);
    routes.add_service(traces).add_service(logs)
}

#[tonic::async_trait]
impl TraceService for Otlp {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let access = crate::grpc::access(&self.auth, request.metadata())?;
        let outcome = self.traces(&access, request.into_inner()).await?;
        Ok(Response::new(outcome.into()))
    }
}

#[tonic::async_trait]
impl LogsService for Otlp {
    async fn export(
        &self,
        request: Request<ExportLogsServiceRequest>,
    ) -> Result<Response<ExportLogsServiceResponse>, Status> {
        let access = crate::grpc::access(&self.auth, request.metadata())?;
        let outcome = self.logs(&access, request.into_inner()).await?;
        Ok(Response::new(outcome.into()))
    }
}
