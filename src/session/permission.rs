//! Permission requests in the session layer: answers, awaits, withdrawals and expiry.
//!
//! The log is the state machine. A request is an event the harness publishes; its resolution is
//! an event only the server appends, with the event id `resolved:<request id>`, through the same
//! publish path as everything else: whoever appends it first wins, and every later attempt — an
//! answer on another replica, the expiry — is a duplicate that is told the winner. What a
//! session's requests are is read from its log into a `Book` (once per loaded session, then only
//! the events since), so any replica can answer for any request.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::MutexGuard;

use super::{Entry, SessionError, Sessions};
use crate::domain::permission::{
    MAX_REASON_BYTES, Outcome, PermissionRequested, PermissionResolved, RequestId, Responder, cut,
};
use crate::domain::{EventBody, EventId, SessionId, ToolEvent};
use crate::metrics::{OutcomeLabels, PermissionOutcome};

/// Events read from the store at a time when a book catches up with its log.
const BOOK_PAGE: usize = 512;
/// Expiries this process keeps timers for at most; past it a request's expiry is applied when
/// someone next awaits or answers it (so a flood of requests cannot grow this without bound).
pub const MAX_SCHEDULED_EXPIRIES: usize = 100_000;

/// What a session's log says of its permission requests, read up to `read_to`.
#[derive(Default)]
pub(super) struct Book {
    epoch: Option<crate::domain::Epoch>,
    read_to: u64,
    requests: HashMap<RequestId, Asked>,
}

/// A request as the book knows it: pending with its options, or only its resolution.
enum Asked {
    Pending(PermissionRequested),
    Resolved(PermissionResolved),
}

impl Book {
    fn apply(&mut self, body: &EventBody) {
        match body {
            EventBody::PermissionRequested(r) => {
                self.requests
                    .entry(r.request_id.clone())
                    .or_insert_with(|| Asked::Pending(r.clone()));
            }
            EventBody::PermissionResolved(r) => {
                self.requests
                    .insert(r.request_id.clone(), Asked::Resolved(r.clone()));
            }
            EventBody::SessionStarted(_)
            | EventBody::SessionEnded(_)
            | EventBody::CallStarted(_)
            | EventBody::CallInputDelta(_)
            | EventBody::CallInputComplete(_)
            | EventBody::CallOutput(_)
            | EventBody::CallFinished(_)
            | EventBody::TurnStarted(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageStarted(_)
            | EventBody::MessageDelta(_)
            | EventBody::MessageFinished(_) => {}
        }
    }
}

/// Where a request is ([`Sessions::permission`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestState {
    /// Waiting for an answer.
    Pending(PermissionRequested),
    /// Decided.
    Resolved(PermissionResolved),
}

/// What became of an answer or a withdrawal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    /// Whether it decided the request.
    pub won: bool,
    /// The request's resolution: its own, or the one that came first.
    pub resolution: PermissionResolved,
}

/// What became of an attempt to append a resolution.
enum Appended {
    /// It is the request's resolution.
    Won,
    /// Another one was appended first, at this offset.
    Taken(u64),
}

/// What someone asks of a pending request.
enum Ask<'a> {
    Select {
        option_id: &'a str,
    },
    /// The first option that allows, or the first that rejects (a UI with only yes and no).
    Allow(bool),
    Withdraw,
    Expire,
}

/// The expiry timers: (due in Unix ms, session, request), earliest first.
#[derive(Default)]
pub(super) struct Expiries {
    due: parking_lot::Mutex<BTreeSet<(u64, SessionId, RequestId)>>,
    changed: tokio::sync::Notify,
}

impl Expiries {
    pub(super) fn schedule(&self, at: u64, session: &SessionId, request: &RequestId) {
        let mut due = self.due.lock();
        if due.len() < MAX_SCHEDULED_EXPIRIES {
            due.insert((at, session.clone(), request.clone()));
            drop(due);
            self.changed.notify_one();
        }
    }
}

impl Sessions {
    /// Gives each permission request its effective timeout and its expiry, by this server's
    /// clock (a value the harness sent is replaced).
    pub(super) fn stamp_permission_requests(&self, events: &mut [ToolEvent]) {
        let now = self.config.clock.now_ms();
        let max = duration_ms(self.config.max_permission_timeout);
        for e in events {
            if let EventBody::PermissionRequested(r) = &mut e.body {
                let timeout = match r.timeout_ms {
                    0 => duration_ms(self.config.permission_timeout),
                    t => t,
                }
                .min(max);
                r.timeout_ms = timeout;
                r.expires_at_ms = now.saturating_add(timeout);
            }
        }
    }

    /// Starts the expiry timers of the requests a publish appended.
    pub(super) fn schedule_expiries(&self, events: &[ToolEvent], acks: &[super::Ack]) {
        for (e, ack) in events.iter().zip(acks) {
            if let EventBody::PermissionRequested(r) = &e.body
                && !ack.duplicate
            {
                self.expiries
                    .schedule(r.expires_at_ms, &e.session_id, &r.request_id);
            }
        }
    }

    /// The session's book, caught up with its durable log.
    async fn book<'a>(&self, entry: &'a Entry) -> Result<MutexGuard<'a, Book>, SessionError> {
        {
            let mut state = entry.state.lock().await;
            self.ensure_loaded(entry, &mut state).await?;
        }
        let head = entry.head.borrow().clone();
        let mut book = entry.permissions.lock().await;
        if book.epoch != head.epoch {
            *book = Book {
                epoch: head.epoch.clone(),
                read_to: head.first.saturating_sub(1),
                requests: HashMap::new(),
            };
        }
        while book.read_to < head.last {
            let records = self.store.read(&entry.id, book.read_to, BOOK_PAGE).await?;
            let Some(last) = records.last().map(|r| r.offset) else {
                break;
            };
            for r in &records {
                book.apply(&r.event.body);
                if let EventBody::PermissionRequested(req) = &r.event.body
                    && matches!(book.requests.get(&req.request_id), Some(Asked::Pending(_)))
                {
                    self.expiries
                        .schedule(req.expires_at_ms, &entry.id, &req.request_id);
                }
            }
            book.read_to = last;
        }
        Ok(book)
    }

    /// Answers a pending request with one of its options. The first answer wins; a later one
    /// (or one after the request expired) is told the resolution that did. `reason` is kept to
    /// its first [`MAX_REASON_BYTES`] (cut at a character boundary), so an edge passes it as
    /// it came.
    pub async fn respond_permission(
        &self,
        session: &SessionId,
        request: &RequestId,
        option_id: &str,
        reason: &str,
        by: Responder,
    ) -> Result<Decided, SessionError> {
        self.decide(session, request, Ask::Select { option_id }, reason, by)
            .await
    }

    /// Answers a pending request yes or no, as a UI with only two buttons does (the AI SDK's
    /// approvals): the request's first allow-kind option, or its first reject-kind one.
    pub async fn respond_permission_allowing(
        &self,
        session: &SessionId,
        request: &RequestId,
        allow: bool,
        reason: &str,
        by: Responder,
    ) -> Result<Decided, SessionError> {
        self.decide(session, request, Ask::Allow(allow), reason, by)
            .await
    }

    /// Withdraws a pending request (the harness stopped waiting).
    pub async fn withdraw_permission(
        &self,
        session: &SessionId,
        request: &RequestId,
        reason: &str,
        by: Responder,
    ) -> Result<Decided, SessionError> {
        self.decide(session, request, Ask::Withdraw, reason, by)
            .await
    }

    async fn decide(
        &self,
        session: &SessionId,
        request: &RequestId,
        ask: Ask<'_>,
        reason: &str,
        by: Responder,
    ) -> Result<Decided, SessionError> {
        let entry = self.entry(session);
        // Twice at most: a lost race is read back from the log the second time.
        for _ in 0..2 {
            let resolution = {
                let book = self.book(&entry).await?;
                match book.requests.get(request) {
                    None => return Err(unknown(session, request)),
                    Some(Asked::Resolved(r)) => {
                        return Ok(Decided {
                            won: false,
                            resolution: r.clone(),
                        });
                    }
                    Some(Asked::Pending(req)) => (
                        self.resolution(req, &ask, reason, &by)?,
                        req.expires_at_ms.saturating_sub(req.timeout_ms),
                    ),
                }
            };
            let (resolution, asked_at) = resolution;
            let expired = matches!(resolution.outcome, Outcome::Expired { .. })
                && !matches!(ask, Ask::Expire);
            match self.append_resolution(session, &resolution).await? {
                Appended::Won => {
                    self.count_resolution(&resolution, asked_at);
                    return Ok(Decided {
                        // An answer that came after the expiry lost to it.
                        won: !expired,
                        resolution,
                    });
                }
                // Another resolution holds the id; it may still be on its way to the disk.
                Appended::Taken(offset) => {
                    let mut head = entry.head.subscribe();
                    let mut shutdown = self.shutdown.subscribe();
                    tokio::select! {
                        r = head.wait_for(|h| h.last >= offset) => { r.map_err(|_| SessionError::ShuttingDown)?; }
                        _ = shutdown.wait_for(|stop| *stop) => return Err(SessionError::ShuttingDown),
                    }
                }
            }
        }
        let book = self.book(&entry).await?;
        match book.requests.get(request) {
            Some(Asked::Resolved(r)) => Ok(Decided {
                won: false,
                resolution: r.clone(),
            }),
            Some(Asked::Pending(_)) | None => Err(unknown(session, request)),
        }
    }

    fn count_resolution(&self, resolution: &PermissionResolved, asked_at: u64) {
        let outcome = match resolution.outcome {
            Outcome::Selected { .. } => PermissionOutcome::selected,
            Outcome::Expired { .. } => PermissionOutcome::expired,
            Outcome::Withdrawn => PermissionOutcome::withdrawn,
        };
        let m = &self.config.metrics;
        m.permission_resolutions
            .get_or_create(&OutcomeLabels { outcome })
            .inc();
        let waited = resolution.resolved_at_ms.saturating_sub(asked_at);
        m.permission_wait_seconds.observe(waited as f64 / 1000.0);
    }

    /// The resolution `ask` makes of a pending request: the expiry's once it is due.
    fn resolution(
        &self,
        req: &PermissionRequested,
        ask: &Ask<'_>,
        reason: &str,
        by: &Responder,
    ) -> Result<PermissionResolved, SessionError> {
        let now = self.config.clock.now_ms();
        let expiry = || PermissionResolved {
            request_id: req.request_id.clone(),
            outcome: Outcome::Expired {
                option_id: req.expiry_option_id.clone(),
            },
            reason: String::new(),
            resolved_by: Responder::server(),
            resolved_at_ms: now,
        };
        if now >= req.expires_at_ms {
            return Ok(expiry());
        }
        let outcome = match ask {
            Ask::Expire => return Ok(expiry()),
            Ask::Withdraw => Outcome::Withdrawn,
            Ask::Allow(allow) => Outcome::Selected {
                option_id: req
                    .options
                    .iter()
                    .find(|o| o.kind.allows() == *allow)
                    .map(|o| o.option_id.clone())
                    .unwrap_or_else(|| req.expiry_option_id.clone()),
            },
            Ask::Select { option_id } => {
                if req.option(option_id).is_none() {
                    return Err(SessionError::UnknownOption {
                        request: req.request_id.clone(),
                        option: (*option_id).to_owned(),
                    });
                }
                Outcome::Selected {
                    option_id: (*option_id).to_owned(),
                }
            }
        };
        Ok(PermissionResolved {
            request_id: req.request_id.clone(),
            outcome,
            reason: cut(reason, MAX_REASON_BYTES).to_owned(),
            resolved_by: by.clone(),
            resolved_at_ms: now,
        })
    }

    /// Appends a resolution, unless the request already has one (its event id is taken).
    async fn append_resolution(
        &self,
        session: &SessionId,
        resolution: &PermissionResolved,
    ) -> Result<Appended, SessionError> {
        let event = ToolEvent {
            session_id: session.clone(),
            event_id: EventId::new(resolution.request_id.resolution_event_id())
                .expect("a request id leaves room for the prefix"),
            body: EventBody::PermissionResolved(resolution.clone()),
        };
        let acks = self.publish(vec![event]).await?;
        Ok(match acks.first() {
            Some(a) if a.duplicate => Appended::Taken(a.cursor.offset),
            Some(_) | None => Appended::Won,
        })
    }

    /// Where a request is now: waiting, with what it asks, or decided.
    pub async fn permission(
        &self,
        session: &SessionId,
        request: &RequestId,
    ) -> Result<RequestState, SessionError> {
        let entry = self.entry(session);
        let book = self.book(&entry).await?;
        match book.requests.get(request) {
            None => Err(unknown(session, request)),
            Some(Asked::Pending(r)) => Ok(RequestState::Pending(r.clone())),
            Some(Asked::Resolved(r)) => Ok(RequestState::Resolved(r.clone())),
        }
    }

    /// Waits for a request's resolution, applying its expiry when it is due. Ends with
    /// `ShuttingDown` when the server stops (the caller asks again).
    pub async fn await_permission(
        &self,
        session: &SessionId,
        request: &RequestId,
    ) -> Result<PermissionResolved, SessionError> {
        let entry = self.entry(session);
        let mut shutdown = self.shutdown.subscribe();
        loop {
            let mut moved = entry.head.subscribe();
            let due = {
                let book = self.book(&entry).await?;
                match book.requests.get(request) {
                    None => return Err(unknown(session, request)),
                    Some(Asked::Resolved(r)) => return Ok(r.clone()),
                    Some(Asked::Pending(req)) => req.expires_at_ms,
                }
            };
            let now = self.config.clock.now_ms();
            if now >= due {
                self.expire_permission(session, request).await?;
                continue;
            }
            tokio::select! {
                _ = moved.changed() => {}
                () = tokio::time::sleep(Duration::from_millis(due - now)) => {}
                _ = shutdown.wait_for(|stop| *stop) => return Err(SessionError::ShuttingDown),
            }
        }
    }

    /// Applies a request's expiry if it is still pending.
    async fn expire_permission(
        &self,
        session: &SessionId,
        request: &RequestId,
    ) -> Result<(), SessionError> {
        self.decide(session, request, Ask::Expire, "", Responder::server())
            .await
            .map(drop)
    }

    /// Applies expiries as they fall due, for the requests this process has seen; ends at
    /// shutdown.
    pub async fn expire_permissions(self: Arc<Self>) {
        let mut shutdown = self.shutdown.subscribe();
        loop {
            let now = self.config.clock.now_ms();
            let (due, next) = {
                let mut set = self.expiries.due.lock();
                let mut due = Vec::new();
                while let Some(first) = set.first().filter(|(at, ..)| *at <= now).cloned() {
                    set.remove(&first);
                    due.push(first);
                }
                (due, set.first().map(|(at, ..)| *at))
            };
            for (_, session, request) in due {
                if let Err(e) = self.expire_permission(&session, &request).await {
                    tracing::warn!(%session, %request, error = %e, "cannot apply a permission expiry");
                }
            }
            let wait = next.map_or(Duration::from_secs(3600), |at| {
                Duration::from_millis(at.saturating_sub(now).max(1))
            });
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = self.expiries.changed.notified() => {}
                _ = shutdown.wait_for(|stop| *stop) => return,
            }
        }
    }
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn unknown(session: &SessionId, request: &RequestId) -> SessionError {
    SessionError::UnknownRequest {
        session: session.clone(),
        request: request.clone(),
    }
}
