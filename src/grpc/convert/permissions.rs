//! Permission requests and resolutions between the wire and the domain.

use super::enums::EnumError;
use crate::domain as d;
use crate::domain::permission as p;
use crate::domain::{FieldViolation, Violation, violation_error};
use crate::grpc::pb;

/// A bad permission event, its field path from the event kind down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionEventError {
    /// A bad `request_id`.
    RequestId(&'static str, d::IdError),
    /// A bad `permission_requested.call_id`.
    CallId(d::IdError),
    /// An option's kind unset or unknown.
    Kind(usize, EnumError),
    /// The options (or the expiry option) break a rule.
    Options(p::OptionsError),
    /// No outcome set.
    OutcomeUnset,
}

impl Violation for PermissionEventError {
    fn violation(&self) -> FieldViolation {
        use FieldViolation as V;
        use PermissionEventError as E;
        match self {
            E::RequestId(at, e) => V::new(format!("{at}.request_id"), e),
            E::CallId(e) => V::new("permission_requested.call_id", e),
            E::Kind(i, e) => V::new(format!("permission_requested.options[{i}].kind"), e),
            E::Options(e) => e.violation().under("permission_requested"),
            E::OutcomeUnset => V::new("permission_resolved.outcome", "not set"),
        }
    }
}

violation_error!(PermissionEventError);

/// An option from the wire; its kind must be one the schema knows.
pub(super) fn option_from_pb(o: pb::PermissionOption) -> Result<p::PermissionOption, EnumError> {
    let pb::PermissionOption {
        option_id,
        name,
        kind,
    } = o;
    Ok(p::PermissionOption {
        option_id,
        name,
        kind: kind_from_pb(kind)?,
    })
}

fn kind_from_pb(n: i32) -> Result<p::OptionKind, EnumError> {
    use pb::PermissionOptionKind as K;
    match K::try_from(n) {
        Ok(K::Unspecified) => Err(EnumError::Unset),
        Ok(K::AllowOnce) => Ok(p::OptionKind::AllowOnce),
        Ok(K::AllowAlways) => Ok(p::OptionKind::AllowAlways),
        Ok(K::RejectOnce) => Ok(p::OptionKind::RejectOnce),
        Ok(K::RejectAlways) => Ok(p::OptionKind::RejectAlways),
        Err(_) => Err(EnumError::Unknown(n)),
    }
}

fn kind_to_pb(k: p::OptionKind) -> pb::PermissionOptionKind {
    use pb::PermissionOptionKind as K;
    match k {
        p::OptionKind::AllowOnce => K::AllowOnce,
        p::OptionKind::AllowAlways => K::AllowAlways,
        p::OptionKind::RejectOnce => K::RejectOnce,
        p::OptionKind::RejectAlways => K::RejectAlways,
    }
}

/// A request id of the named event kind.
pub fn request_id(field: &'static str, id: String) -> Result<p::RequestId, PermissionEventError> {
    p::RequestId::new(id).map_err(|e| PermissionEventError::RequestId(field, e))
}

/// A request from the wire (its timeout's limit is the publish path's: a stored request is read
/// as it is).
pub fn requested_from_pb(
    r: pb::PermissionRequested,
) -> Result<p::PermissionRequested, PermissionEventError> {
    use PermissionEventError as E;
    let pb::PermissionRequested {
        request_id: id,
        call_id,
        title,
        description,
        options,
        expiry_option_id,
        timeout_ms,
        expires_at_unix_ms,
    } = r;
    let options = options
        .into_iter()
        .enumerate()
        .map(|(i, o)| option_from_pb(o).map_err(|e| E::Kind(i, e)))
        .collect::<Result<Vec<_>, E>>()?;
    p::check_options(&options, &expiry_option_id).map_err(E::Options)?;
    Ok(p::PermissionRequested {
        request_id: request_id("permission_requested", id)?,
        call_id: (!call_id.is_empty())
            .then(|| d::CallId::new(call_id).map_err(E::CallId))
            .transpose()?,
        title,
        description,
        options,
        expiry_option_id,
        timeout_ms,
        expires_at_ms: expires_at_unix_ms,
    })
}

impl From<p::PermissionRequested> for pb::PermissionRequested {
    fn from(r: p::PermissionRequested) -> Self {
        pb::PermissionRequested {
            request_id: r.request_id.into(),
            call_id: r.call_id.map(String::from).unwrap_or_default(),
            title: r.title,
            description: r.description,
            options: r.options.into_iter().map(Into::into).collect(),
            expiry_option_id: r.expiry_option_id,
            timeout_ms: r.timeout_ms,
            expires_at_unix_ms: r.expires_at_ms,
        }
    }
}

impl From<p::PermissionOption> for pb::PermissionOption {
    fn from(o: p::PermissionOption) -> Self {
        pb::PermissionOption {
            option_id: o.option_id,
            name: o.name,
            kind: kind_to_pb(o.kind).into(),
        }
    }
}

/// A resolution from the wire (a stored one, or one given to `Render`).
pub fn resolved_from_pb(
    r: pb::PermissionResolved,
) -> Result<p::PermissionResolved, PermissionEventError> {
    use pb::permission_resolved::Outcome;
    let pb::PermissionResolved {
        request_id: id,
        outcome,
        reason,
        resolved_by,
        resolved_at_unix_ms,
    } = r;
    let outcome = match outcome.ok_or(PermissionEventError::OutcomeUnset)? {
        Outcome::SelectedOptionId(option_id) => p::Outcome::Selected { option_id },
        Outcome::Expired(pb::PermissionExpired { option_id }) => p::Outcome::Expired { option_id },
        Outcome::Withdrawn(pb::PermissionWithdrawn {}) => p::Outcome::Withdrawn,
    };
    let pb::Responder { subject, via } = resolved_by.unwrap_or_default();
    Ok(p::PermissionResolved {
        request_id: request_id("permission_resolved", id)?,
        outcome,
        reason,
        resolved_by: p::Responder { subject, via },
        resolved_at_ms: resolved_at_unix_ms,
    })
}

impl From<p::PermissionResolved> for pb::PermissionResolved {
    fn from(r: p::PermissionResolved) -> Self {
        use pb::permission_resolved::Outcome;
        let outcome = match r.outcome {
            p::Outcome::Selected { option_id } => Outcome::SelectedOptionId(option_id),
            p::Outcome::Expired { option_id } => {
                Outcome::Expired(pb::PermissionExpired { option_id })
            }
            p::Outcome::Withdrawn => Outcome::Withdrawn(pb::PermissionWithdrawn {}),
        };
        pb::PermissionResolved {
            request_id: r.request_id.into(),
            outcome: Some(outcome),
            reason: r.reason,
            resolved_by: Some(pb::Responder {
                subject: r.resolved_by.subject,
                via: r.resolved_by.via,
            }),
            resolved_at_unix_ms: r.resolved_at_ms,
        }
    }
}
