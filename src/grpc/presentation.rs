//! `PresentationService`: stateless presentation.

use tonic::{Request, Response, Status};

use super::convert::{PresentInput, RenderInput};
use super::pb::{self, presentation_service_server::PresentationService};
use super::status::check_size;
use crate::domain::Lifecycle;
use crate::error::Error;
use crate::present;
use crate::render;

/// The `PresentationService` implementation.
#[derive(Debug, Clone)]
pub struct PresentationApi {
    max_message_size: usize,
}

impl PresentationApi {
    pub fn new(max_message_size: usize) -> Self {
        PresentationApi { max_message_size }
    }
}

#[tonic::async_trait]
impl PresentationService for PresentationApi {
    async fn present(
        &self,
        req: Request<pb::PresentRequest>,
    ) -> Result<Response<pb::PresentResponse>, Status> {
        check_size(req.get_ref(), self.max_message_size)?;
        let input = PresentInput::try_from(req.into_inner()).map_err(Error::invalid)?;
        let (call, result) = present::present(
            &input.tool_name,
            &input.arguments_json,
            input.call_view,
            input.result.as_ref(),
        );
        Ok(Response::new(pb::PresentResponse {
            call: Some(call.into()),
            result: result.map(Into::into),
        }))
    }

    async fn render(
        &self,
        req: Request<pb::RenderRequest>,
    ) -> Result<Response<pb::RenderResponse>, Status> {
        check_size(req.get_ref(), self.max_message_size)?;
        let input = RenderInput::try_from(req.into_inner()).map_err(Error::invalid)?;
        // The same lifecycle rules as Publish, so Render shows what a session would.
        let mut lifecycle = Lifecycle::default();
        for (i, e) in input.events.iter().enumerate() {
            lifecycle
                .admit(&e.body)
                .map_err(|err| Error::Lifecycle(format!("events[{i}]: {err}")))?;
        }
        let updates = render::render_all(
            &input.session_cwd,
            &input.events,
            input.target,
            &input.capabilities,
        );
        Ok(Response::new(pb::RenderResponse {
            updates: updates.into_iter().map(Into::into).collect(),
        }))
    }
}
