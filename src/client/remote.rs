//! How a client command reaches the server: the connection settings (`Remote`), a session
//! client with its token, and `health` (a probe for containers).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context as _, bail};
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::{Interceptor, interceptor::InterceptedService};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

use crate::grpc::pb::session_service_client::SessionServiceClient;

/// How a client command reaches the server.
#[derive(Debug, Clone, Default)]
pub struct Remote {
    /// `http://host:port`, or `https://…` for TLS.
    pub url: String,
    /// A bearer token (JWT), sent with every call.
    pub token: Option<String>,
    /// The CA to trust instead of the system's roots (PEM).
    pub tls_ca: Option<PathBuf>,
    /// A client certificate and its key (PEM), for mutual TLS.
    pub tls_identity: Option<(PathBuf, PathBuf)>,
}

/// Adds `authorization: Bearer …` to every call.
#[derive(Clone)]
pub struct Bearer(Option<MetadataValue<Ascii>>);

impl Interceptor for Bearer {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            req.metadata_mut().insert("authorization", value.clone());
        }
        Ok(req)
    }
}

/// A session client with the remote's TLS settings and token.
pub type Client = SessionServiceClient<InterceptedService<Channel, Bearer>>;

/// Connects to the remote.
pub async fn connect(remote: &Remote) -> anyhow::Result<Client> {
    Ok(SessionServiceClient::with_interceptor(
        channel(remote).await?,
        bearer(remote)?,
    ))
}

/// The remote's token as an interceptor.
pub(crate) fn bearer(remote: &Remote) -> anyhow::Result<Bearer> {
    let value = remote
        .token
        .as_deref()
        .map(|t| format!("Bearer {}", t.trim()).parse())
        .transpose()
        .context("the token is not ASCII text")?;
    Ok(Bearer(value))
}

/// `toolview health`: asks the server's `grpc.health.v1.Health` about `service` (`""` for the
/// server as a whole) and prints the answer; `true` when it is `SERVING`. Health needs no token.
pub async fn health(remote: &Remote, service: &str, out: &mut impl Write) -> anyhow::Result<bool> {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    let mut client = HealthClient::new(channel(remote).await?);
    let request = HealthCheckRequest {
        service: service.to_owned(),
    };
    let status = client
        .check(request)
        .await
        .map_err(|s| super::failure::call_failed(&s, remote))
        .with_context(|| format!("health check of {:?} at {}", service, remote.url))?
        .into_inner()
        .status;
    let status = ServingStatus::try_from(status).unwrap_or(ServingStatus::Unknown);
    writeln!(out, "{}", status.as_str_name())?;
    Ok(status == ServingStatus::Serving)
}

/// A channel to the remote, with its TLS settings.
pub(crate) async fn channel(remote: &Remote) -> anyhow::Result<Channel> {
    let url = &remote.url;
    let read = |p: &PathBuf| std::fs::read(p).with_context(|| format!("reading {}", p.display()));
    let mut endpoint = Endpoint::from_shared(url.clone()).with_context(|| format!("{url:?}"))?;
    if url.starts_with("https://") {
        let mut tls = ClientTlsConfig::new();
        tls = match &remote.tls_ca {
            Some(ca) => tls.ca_certificate(Certificate::from_pem(read(ca)?)),
            None => tls.with_native_roots(),
        };
        if let Some((cert, key)) = &remote.tls_identity {
            tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        endpoint = endpoint.tls_config(tls)?;
    } else if remote.tls_ca.is_some() || remote.tls_identity.is_some() {
        bail!("TLS options need an https:// server URL, not {url:?}");
    }
    endpoint
        .connect()
        .await
        .map_err(|e| super::failure::connect_failed(&e, url))
}
