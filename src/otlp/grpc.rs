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
use std::sync::Arc;

use tonic::codec::CompressionEncoding;
use tonic::service::interceptor::InterceptedService;
use tonic::{Request, Response, Status};

use super::Otlp;
use crate::auth::{Access, Authenticator, Right};

/// The method paths of both services (for the RPC metrics' labels).
pub const METHOD_PATHS: [&str; 2] = [
    "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
    "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
];

/// `routes` with both services, taking requests of at most the receiver's body limit
/// (decompressed), their callers checked before the request is decoded.
pub fn services(otlp: Otlp, routes: tonic::service::Routes) -> tonic::service::Routes {
    let max = otlp.limits.max_body;
    let check = caller(otlp.auth.clone());
    let traces = TraceServiceServer::new(otlp.clone())
        .accept_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(max);
    let logs = LogsServiceServer::new(otlp)
        .accept_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(max);
    routes
        .add_service(InterceptedService::new(traces, check.clone()))
        .add_service(InterceptedService::new(logs, check))
}

/// The caller's credentials and their publish right (on some session: which ones the export
/// names is known only once it is decoded and mapped), checked before tonic decodes the request,
/// so a token that may publish nothing costs no decoding. The access goes on to the handler.
fn caller(
    auth: Arc<Authenticator>,
) -> impl FnMut(Request<()>) -> Result<Request<()>, Status> + Clone {
    move |mut request: Request<()>| {
        let access = crate::grpc::access(&auth, request.metadata())?;
        access.require_somewhere(Right::Publish)?;
        request.extensions_mut().insert(access);
        Ok(request)
    }
}

/// The access [`caller`] checked.
fn checked<T>(request: &Request<T>) -> Result<Access, Status> {
    request
        .extensions()
        .get::<Access>()
        .cloned()
        .ok_or_else(|| Status::internal("the OTLP services run behind their caller check"))
}

#[tonic::async_trait]
impl TraceService for Otlp {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let access = checked(&request)?;
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
        let access = checked(&request)?;
        let outcome = self.logs(&access, request.into_inner()).await?;
        Ok(Response::new(outcome.into()))
    }
}
