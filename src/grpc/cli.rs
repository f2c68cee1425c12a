//! The gRPC side of the command line: the connection settings (`Remote`), `publish` (a harness
//! in a shell pipeline), `health` (a probe for containers) and the offline `render`; `tail` is
//! in `tail.rs`. Events are JSON lines in the protobuf JSON mapping of `ToolEvent`.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context as _, bail};
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::{Interceptor, interceptor::InterceptedService};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

use super::convert::events_from_pb;
use super::json::{event_from_json, to_json};
use super::pb::{self, session_service_client::SessionServiceClient};
use crate::domain::Lifecycle;
use crate::render::{self, Capabilities, Target, agui_run};

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
    let channel = channel(remote).await?;
    let bearer = remote
        .token
        .as_deref()
        .map(|t| format!("Bearer {}", t.trim()).parse())
        .transpose()
        .context("the token is not ASCII text")?;
    Ok(SessionServiceClient::with_interceptor(
        channel,
        Bearer(bearer),
    ))
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
        .with_context(|| format!("health check of {:?} at {}", service, remote.url))?
        .into_inner()
        .status;
    let status = ServingStatus::try_from(status).unwrap_or(ServingStatus::Unknown);
    writeln!(out, "{}", status.as_str_name())?;
    Ok(status == ServingStatus::Serving)
}

/// A channel to the remote, with its TLS settings.
async fn channel(remote: &Remote) -> anyhow::Result<Channel> {
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
        .with_context(|| format!("connecting to {url}"))
}

/// Reads `ToolEvent` JSON lines (blank lines skipped), naming the line of a bad one.
pub fn read_events(
    input: impl BufRead,
    session: Option<&str>,
) -> anyhow::Result<Vec<pb::ToolEvent>> {
    let mut events = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let mut event =
            event_from_json(&line).map_err(|e| anyhow::anyhow!("line {}: {e}", n + 1))?;
        if let Some(s) = session {
            event.session_id = s.to_owned();
        }
        events.push(event);
    }
    Ok(events)
}

pub(super) fn target_to_pb(t: Target) -> pb::Target {
    match t {
        Target::View => pb::Target::View,
        Target::Acp => pb::Target::Acp,
        Target::AgUi => pb::Target::AgUi,
        Target::Markdown => pb::Target::Markdown,
        Target::Ansi => pb::Target::Ansi,
    }
}

/// Prints one update: text targets as their text, JSON targets one message per line, VIEW as
/// the update's protobuf JSON. Session updates of text targets print nothing.
pub fn print_update(update: &pb::RenderedUpdate, out: &mut impl Write) -> std::io::Result<()> {
    use pb::rendered_update::Body;
    match &update.body {
        Some(Body::Markdown(s) | Body::Ansi(s)) if s.is_empty() => Ok(()),
        // Markdown carries tool output verbatim: its control characters are shown, not sent
        // to the terminal. ANSI is made safe by its renderer (only its own colours remain).
        Some(Body::Markdown(s)) => writeln!(out, "{}\n", crate::render::visible(s)),
        Some(Body::Ansi(s)) => writeln!(out, "{s}\n"),
        Some(Body::Acp(m) | Body::AgUi(m)) => m.json.iter().try_for_each(|j| writeln!(out, "{j}")),
        Some(Body::View(_)) | None => {
            writeln!(out, "{}", to_json(update, "toolview.v1.RenderedUpdate"))
        }
    }
}

/// `toolview publish`: sends the events as one batch and prints one ack per line.
pub async fn publish(
    server: &Remote,
    session: &str,
    input: impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let events = read_events(input, Some(session))?;
    let mut client = connect(server).await?;
    let acks = client
        .publish(pb::PublishRequest { events })
        .await
        .map_err(|s| anyhow::anyhow!("{}: {}", s.code(), s.message()))?;
    for ack in acks.into_inner().acks {
        writeln!(out, "{}", to_json(&ack, "toolview.v1.PublishAck"))?;
    }
    Ok(())
}

/// The AG-UI run `tail` and `render` frame their output in.
pub(super) struct AguiRun {
    pub(super) thread: String,
    pub(super) id: String,
    pub(super) last: Option<(String, u64)>,
}

impl AguiRun {
    pub(super) fn new(thread: &str, id: String) -> Self {
        AguiRun {
            thread: thread.to_owned(),
            id,
            last: None,
        }
    }

    pub(super) fn start_line(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out, "{}", agui_run::started(&self.thread, &self.id))
    }

    pub(super) fn finish_line(&self, out: &mut impl Write) -> std::io::Result<()> {
        let cursor = self.last.as_ref().map(|(e, o)| (e.as_str(), *o));
        writeln!(
            out,
            "{}",
            agui_run::finished(&self.thread, &self.id, cursor)
        )
    }
}

/// `toolview render`: folds and renders events offline, exactly as a subscriber would get them.
pub fn render_offline(
    target: Target,
    terminal: bool,
    input: impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let events = events_from_pb(read_events(input, None)?).map_err(|e| anyhow::anyhow!("{e}"))?;
    Lifecycle::default().admit_batch(events.iter().map(|e| &e.body))?;
    let caps = Capabilities::all(terminal);
    let run = (target == Target::AgUi).then(|| {
        let thread = events.first().map_or("offline", |e| e.session_id.as_str());
        AguiRun::new(thread, format!("{thread}@render"))
    });
    if let Some(run) = &run {
        run.start_line(out)?;
    }
    for rendered in render::render_all("", &events, target, &caps) {
        print_update(&pb::RenderedUpdate::from(rendered), out)?;
    }
    if let Some(run) = &run {
        run.finish_line(out)?;
    }
    Ok(())
}
