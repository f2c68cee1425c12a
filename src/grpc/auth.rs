//! Credentials at the gRPC edge: the bearer token from request metadata, and subscription
//! streams that end when their token does.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::SystemTime;

use tokio_stream::Stream;
use tonic::Status;

use crate::auth::{Access, Authenticator};
use crate::error::Error;

/// Checks a request's `authorization` metadata (gRPC and gRPC-Web alike).
pub fn access(
    auth: &Authenticator,
    metadata: &tonic::metadata::MetadataMap,
) -> Result<Access, Error> {
    let value = match metadata.get("authorization") {
        None => None,
        Some(v) => Some(v.to_str().map_err(|_| {
            Error::Unauthenticated("the authorization metadata is not ASCII text".into())
        })?),
    };
    auth.authenticate(value)
}

/// A stream that ends with `UNAUTHENTICATED` once `until` has passed: the client resumes from
/// its cursor with a fresh token and loses nothing.
pub struct Expiring<S> {
    inner: S,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    ended: bool,
}

impl<S> Expiring<S> {
    /// Wraps `inner`; with no `until` it never expires.
    pub fn new(inner: S, until: Option<SystemTime>) -> Self {
        let timer = until.map(|t| {
            let left = t.duration_since(SystemTime::now()).unwrap_or_default();
            Box::pin(tokio::time::sleep(left))
        });
        Expiring {
            inner,
            timer,
            ended: false,
        }
    }
}

impl<S, T> Stream for Expiring<S>
where
    S: Stream<Item = Result<T, Status>> + Unpin,
{
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        if let Some(timer) = self.timer.as_mut()
            && timer.as_mut().poll(cx).is_ready()
        {
            self.ended = true;
            return Poll::Ready(Some(Err(Status::from(Error::Unauthenticated(
                "the token expired; resume from the last cursor with a fresh token".into(),
            )))));
        }
        Pin::new(&mut self.inner).poll_next(cx)
    }
}
