//! The server's gRPC services, assembled: the three API services with their limits, health and
//! reflection. `app` wires them into the HTTP stack without naming a generated type.

use std::sync::Arc;

use tonic::server::NamedService;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use super::pb::{
    self, permission_service_server::PermissionServiceServer,
    presentation_service_server::PresentationServiceServer,
    session_service_server::SessionServiceServer,
};
use super::{PermissionApi, PresentationApi, SessionApi};
use crate::auth::Authenticator;
use crate::session::Sessions;

/// Message limits of the API services.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest request or response message.
    pub max_message_size: usize,
    /// Largest rendered update.
    pub max_update_bytes: usize,
    /// The output cap ceiling.
    pub max_output_bytes: u64,
}

/// The routes of every gRPC service, and the health reporter that says which can serve.
pub struct Services {
    /// Every service's routes (sessions, permissions, presentation, health, reflection).
    pub routes: tonic::service::Routes,
    /// The health reporter, set serving once the store is ready.
    pub health: Health,
    /// The health service alone, for the admin listener.
    pub admin: tonic::service::Routes,
}

/// The health service's state: the server as a whole (`""`) and each API service.
#[derive(Clone)]
pub struct Health(HealthReporter);

impl Health {
    /// Whether `SessionService` (and with it the server, `""`) can serve: not while the store
    /// cannot write, nor once shutdown began. `PresentationService` is stateless and always can.
    pub async fn set_sessions_serving(&self, serving: bool) {
        let status = if serving {
            ServingStatus::Serving
        } else {
            ServingStatus::NotServing
        };
        self.0.set_service_status("", status).await;
        self.0
            .set_service_status(
                <SessionServiceServer<SessionApi> as NamedService>::NAME,
                status,
            )
            .await;
        self.0
            .set_service_status(
                <PermissionServiceServer<PermissionApi> as NamedService>::NAME,
                status,
            )
            .await;
    }
}

/// Every method path the server serves (`/package.Service/Method`): the API's and health's
/// from their descriptors, and server reflection's.
pub fn method_paths() -> Vec<String> {
    use prost::Message as _;
    let mut paths = vec![
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo".to_owned(),
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo".to_owned(),
    ];
    for set in [
        pb::FILE_DESCRIPTOR_SET,
        tonic_health::pb::FILE_DESCRIPTOR_SET,
    ] {
        let set = prost_types::FileDescriptorSet::decode(set).expect("an embedded descriptor set");
        for file in set.file {
            let package = file.package();
            for service in &file.service {
                for method in &service.method {
                    paths.push(format!("/{package}.{}/{}", service.name(), method.name()));
                }
            }
        }
    }
    paths
}

/// Builds the services. tonic checks a request's length prefix against `max_message_size`
/// before buffering it (its OUT_OF_RANGE becomes the API's RESOURCE_EXHAUSTED in
/// `transport_status`); the handlers check the decoded size too.
pub async fn services(
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    limits: Limits,
) -> anyhow::Result<Services> {
    let Limits {
        max_message_size: max,
        max_update_bytes,
        max_output_bytes,
    } = limits;
    let (reporter, health_service) = tonic_health::server::health_reporter();
    reporter
        .set_serving::<PresentationServiceServer<PresentationApi>>()
        .await;
    reporter
        .set_serving::<SessionServiceServer<SessionApi>>()
        .await;
    reporter
        .set_serving::<PermissionServiceServer<PermissionApi>>()
        .await;
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    let presentation = PresentationServiceServer::new(PresentationApi::new(
        auth.clone(),
        max,
        max_update_bytes,
        max_output_bytes,
    ))
    .max_decoding_message_size(max)
    .max_encoding_message_size(max);
    let permission =
        PermissionServiceServer::new(PermissionApi::new(sessions.clone(), auth.clone()))
            .max_decoding_message_size(max)
            .max_encoding_message_size(max);
    let session = SessionServiceServer::new(SessionApi::new(sessions, auth, max))
        .max_decoding_message_size(max)
        .max_encoding_message_size(max);
    let admin = tonic::service::Routes::new(health_service.clone());
    let routes = tonic::service::Routes::default()
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(presentation)
        .add_service(session)
        .add_service(permission);
    Ok(Services {
        routes,
        health: Health(reporter),
        admin,
    })
}
