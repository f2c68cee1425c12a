//! `PresentationService`: stateless presentation.

use tonic::{Request, Response, Status};

use super::convert::PresentInput;
use super::pb::{self, presentation_service_server::PresentationService};
use crate::error::Error;
use crate::present;

/// The `PresentationService` implementation.
#[derive(Debug, Clone, Default)]
pub struct PresentationApi;

#[tonic::async_trait]
impl PresentationService for PresentationApi {
    async fn present(
        &self,
        req: Request<pb::PresentRequest>,
    ) -> Result<Response<pb::PresentResponse>, Status> {
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
        _req: Request<pb::RenderRequest>,
    ) -> Result<Response<pb::RenderResponse>, Status> {
        // Rendering (fold + targets) is not built yet; say so rather than answer wrongly.
        Err(Status::unimplemented("Render is not implemented yet"))
    }
}
