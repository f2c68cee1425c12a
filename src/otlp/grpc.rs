//! OTLP/gRPC: the collector's trace and logs services (`opentelemetry.proto.collector.*.v1`),
//! gzip accepted, on the API port beside toolview's own services.
//!
//! Served here rather than by `opentelemetry-proto`'s generated servers, which decode with
//! tonic's prost codec: this one checks the caller's right before anything is decoded, counts a
//! message's entries (`scan`) before decoding it, and answers a message that does not decode
//! with `INVALID_ARGUMENT`, as OTLP/HTTP and `Publish` do.

use std::convert::Infallible;
use std::marker::PhantomData;
use std::task::{Context, Poll};

use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message;
use tonic::body::Body;
use tonic::codec::{
    BufferSettings, CompressionEncoding, DecodeBuf, Decoder, EnabledCompressionEncodings,
};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstEncoder;

use super::scan::{self, Budget, Kind};
use super::{Otlp, Outcome};
use crate::auth::{Access, Right};
use crate::error::Error;

/// The method paths of both services (for the RPC metrics' labels).
pub const METHOD_PATHS: [&str; 2] = [Traces::PATH, Logs::PATH];

/// One OTLP export service: its names, its messages, and what the receiver does with one.
pub trait Export: Send + Sync + 'static {
    /// The gRPC service name.
    const SERVICE: &'static str;
    /// The `Export` method's path.
    const PATH: &'static str;
    /// The request's message, for the scan.
    const KIND: Kind;
    /// The request.
    type Request: Message + Default + Send + 'static;
    /// The answer.
    type Response: Message + From<Outcome> + Send + 'static;
    /// Ingests one request for `access`.
    fn ingest(
        otlp: &Otlp,
        access: &Access,
        request: Self::Request,
    ) -> impl Future<Output = Result<Outcome, Error>> + Send;
}

/// `opentelemetry.proto.collector.trace.v1.TraceService`.
pub struct Traces;

impl Export for Traces {
    const SERVICE: &'static str = "opentelemetry.proto.collector.trace.v1.TraceService";
    const PATH: &'static str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
    const KIND: Kind = Kind::Traces;
    type Request = ExportTraceServiceRequest;
    type Response = ExportTraceServiceResponse;
    async fn ingest(otlp: &Otlp, access: &Access, r: Self::Request) -> Result<Outcome, Error> {
        otlp.traces(access, r).await
    }
}

/// `opentelemetry.proto.collector.logs.v1.LogsService`.
pub struct Logs;

impl Export for Logs {
    const SERVICE: &'static str = "opentelemetry.proto.collector.logs.v1.LogsService";
    const PATH: &'static str = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";
    const KIND: Kind = Kind::Logs;
    type Request = ExportLogsServiceRequest;
    type Response = ExportLogsServiceResponse;
    async fn ingest(otlp: &Otlp, access: &Access, r: Self::Request) -> Result<Outcome, Error> {
        otlp.logs(access, r).await
    }
}

/// `routes` with both services.
pub fn services(otlp: Otlp, routes: tonic::service::Routes) -> tonic::service::Routes {
    routes
        .add_service(Service::<Traces>::new(otlp.clone()))
        .add_service(Service::<Logs>::new(otlp))
}

/// One export service, taking messages of at most the receiver's body limit (decompressed).
pub struct Service<E> {
    otlp: Otlp,
    export: PhantomData<fn() -> E>,
}

impl<E> Service<E> {
    fn new(otlp: Otlp) -> Self {
        Service {
            otlp,
            export: PhantomData,
        }
    }
}

impl<E> Clone for Service<E> {
    fn clone(&self) -> Self {
        Service::new(self.otlp.clone())
    }
}

impl<E: Export> NamedService for Service<E> {
    const NAME: &'static str = E::SERVICE;
}

impl<E: Export> tower::Service<http::Request<Body>> for Service<E> {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future =
        std::pin::Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let otlp = self.otlp.clone();
        Box::pin(async move {
            if request.uri().path() != E::PATH {
                return Ok(Status::unimplemented("").into_http());
            }
            // The caller's right (on some session: which ones the export names is known only
            // once it is decoded and mapped) before a byte of the message is read.
            let access = crate::http::authenticate(&otlp.auth, request.headers())
                .and_then(|a| a.require_somewhere(Right::Publish).map(|()| a));
            let access = match access {
                Ok(access) => access,
                Err(e) => return Ok(Status::from(e).into_http()),
            };
            let mut gzip = EnabledCompressionEncodings::default();
            gzip.enable(CompressionEncoding::Gzip);
            let codec = Scanned::<E> {
                budget: otlp.limits.budget(),
                export: PhantomData,
            };
            let mut grpc = Grpc::new(codec)
                .apply_compression_config(gzip, EnabledCompressionEncodings::default())
                .apply_max_message_size_config(Some(otlp.limits.max_body), None);
            Ok(grpc
                .unary(
                    Method::<E> {
                        otlp,
                        access,
                        export: PhantomData,
                    },
                    request,
                )
                .await)
        })
    }
}

/// The `Export` method for one caller.
struct Method<E> {
    otlp: Otlp,
    access: Access,
    export: PhantomData<fn() -> E>,
}

impl<E: Export> UnaryService<E::Request> for Method<E> {
    type Response = E::Response;
    type Future =
        std::pin::Pin<Box<dyn Future<Output = Result<Response<E::Response>, Status>> + Send>>;

    fn call(&mut self, request: Request<E::Request>) -> Self::Future {
        let (otlp, access) = (self.otlp.clone(), self.access.clone());
        Box::pin(async move {
            let outcome = E::ingest(&otlp, &access, request.into_inner()).await?;
            Ok(Response::new(outcome.into()))
        })
    }
}

/// prost's encoding; a message counted against the budget before it is decoded, and decode
/// errors as `INVALID_ARGUMENT`.
struct Scanned<E> {
    budget: Budget,
    export: PhantomData<fn() -> E>,
}

impl<E: Export> tonic::codec::Codec for Scanned<E> {
    type Encode = E::Response;
    type Decode = E::Request;
    type Encoder = ProstEncoder<E::Response>;
    type Decoder = Self;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        Scanned {
            budget: self.budget,
            export: PhantomData,
        }
    }
}

impl<E: Export> Decoder for Scanned<E> {
    type Item = E::Request;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<E::Request>, Status> {
        use bytes::Buf as _;
        // A message is one contiguous buffer (tonic gathers it, decompressed, before decoding).
        let message = buf.copy_to_bytes(buf.remaining());
        scan::protobuf(&message, E::KIND, &self.budget)?;
        E::Request::decode(message)
            .map(Some)
            .map_err(|e| Status::invalid_argument(format!("request body: {e}")))
    }
}
