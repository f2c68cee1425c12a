//! `PresentationService`: stateless presentation.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::auth::access;

use super::convert::{PresentInput, RenderInput};
use super::pb::{self, presentation_service_server::PresentationService};
use super::status::check_size;
use crate::auth::Authenticator;
use crate::domain::Lifecycle;
use crate::error::Error;
use crate::present;
use crate::render;

/// The `PresentationService` implementation.
#[derive(Clone)]
pub struct PresentationApi {
    auth: Arc<Authenticator>,
    max_message_size: usize,
    max_update_bytes: usize,
    max_output_bytes: u64,
}

impl PresentationApi {
    /// Requests and responses stay within `max_message_size`, each rendered update within
    /// `max_update_bytes`, rendered output within the output cap ceiling `max_output_bytes`.
    /// Any valid token may call it (`auth`).
    pub fn new(
        auth: Arc<Authenticator>,
        max_message_size: usize,
        max_update_bytes: usize,
        max_output_bytes: u64,
    ) -> Self {
        PresentationApi {
            auth,
            max_message_size,
            max_update_bytes,
            max_output_bytes,
        }
    }
}

#[tonic::async_trait]
impl PresentationService for PresentationApi {
    async fn present(
        &self,
        req: Request<pb::PresentRequest>,
    ) -> Result<Response<pb::PresentResponse>, Status> {
        access(&self.auth, req.metadata())?;
        check_size(req.get_ref(), self.max_message_size)?;
        let input = PresentInput::try_from(req.into_inner()).map_err(Error::invalid)?;
        // Off the async workers: presenters of large inputs (diffs) take real CPU time.
        let (call, result) = tokio::task::spawn_blocking(move || {
            let (mut call, mut result) = present::present(
                &input.tool_name,
                &input.arguments_json,
                input.call_view,
                input.result.as_ref(),
            );
            // The cards as a UI gets them everywhere: each diff with its line runs.
            present::fill_runs(call.diffs_mut());
            if let Some(r) = result.as_mut() {
                present::fill_runs(r.diffs_mut());
            }
            (call, result)
        })
        .await
        .map_err(|e| Error::Internal(format!("presenting panicked: {e}").into()))?;
        Ok(Response::new(pb::PresentResponse {
            call: Some(call.into()),
            result: result.map(Into::into),
        }))
    }

    async fn render(
        &self,
        req: Request<pb::RenderRequest>,
    ) -> Result<Response<pb::RenderResponse>, Status> {
        access(&self.auth, req.metadata())?;
        check_size(req.get_ref(), self.max_message_size)?;
        let input = RenderInput::try_from(req.into_inner()).map_err(Error::invalid)?;
        // The same lifecycle rules as Publish, so Render shows what a session would.
        Lifecycle::default()
            .admit_batch(input.events.iter().map(|e| &e.body))
            .map_err(|e| Error::Lifecycle(e.to_string().into()))?;
        // As a subscriber would see it: the same normalized capabilities and update limit.
        // The response is bounded too: rendering stops once it outgrows a message. Off the
        // async workers, since presenters and diffs of large cards take real CPU time.
        let caps = input.capabilities.normalized(self.max_output_bytes);
        let limit = self.max_message_size;
        let max_update = self.max_update_bytes;
        let updates = tokio::task::spawn_blocking(move || {
            let mut renderer =
                render::Renderer::new(&input.session_cwd, input.target, caps, max_update);
            let mut total = 0usize;
            let mut updates = Vec::with_capacity(input.events.len());
            for (i, event) in input.events.iter().enumerate() {
                let (rendered, size) = renderer.step(event);
                total += size;
                if total > limit {
                    return Err(Error::TooLarge(
                        format!(
                            "the rendering of events[0..={i}] is over the {limit}-byte message \
                         limit; render fewer events at a time, or subscribe"
                        )
                        .into(),
                    ));
                }
                updates.push(rendered);
            }
            Ok(updates)
        })
        .await
        .map_err(|e| Error::Internal(format!("rendering panicked: {e}").into()))??;
        Ok(Response::new(pb::RenderResponse {
            updates: updates.into_iter().map(Into::into).collect(),
        }))
    }
}
