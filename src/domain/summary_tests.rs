//! The fold's rules, over every event kind.

use super::*;
use crate::domain::permission::{OptionKind, Outcome, PermissionResolved, RequestId, Responder};
use crate::domain::{
    CallFinished, CallId, CallInputComplete, CallInputDelta, CallOutput, EventId, MessageDelta,
    MessageFinished, MessageId, MessageStarted, SessionId, SessionStarted, TurnFinished, TurnId,
    TurnStarted,
};

fn ev(body: EventBody) -> ToolEvent {
    ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        event_id: EventId::new("e").unwrap(),
        body,
    }
}

fn call(id: &str) -> CallId {
    CallId::new(id).unwrap()
}

fn started(id: &str, tool: &str) -> EventBody {
    EventBody::CallStarted(CallStarted {
        call_id: call(id),
        tool_name: tool.into(),
        arguments_json: "{}".into(),
        view: None,
        input_streaming: false,
        parent: None,
    })
}

fn finished(id: &str, is_error: bool) -> EventBody {
    EventBody::CallFinished(CallFinished {
        call_id: call(id),
        content: Vec::new(),
        is_error,
        meta_json: String::new(),
        view: None,
    })
}

fn turn(id: &str) -> EventBody {
    EventBody::TurnStarted(TurnStarted {
        turn_id: TurnId::new(id).unwrap(),
    })
}

fn turn_end(id: &str, stop_reason: StopReason, usage: Option<TokenUsage>) -> EventBody {
    EventBody::TurnFinished(TurnFinished {
        turn_id: TurnId::new(id).unwrap(),
        stop_reason,
        usage,
    })
}

fn message(id: &str, role: MessageRole, text: &str) -> EventBody {
    EventBody::MessageStarted(MessageStarted {
        message_id: MessageId::new(id).unwrap(),
        role,
        text: text.into(),
        parent: None,
    })
}

fn option(id: &str, kind: OptionKind) -> PermissionOption {
    PermissionOption {
        option_id: id.into(),
        name: id.into(),
        kind,
    }
}

fn ask(id: &str) -> EventBody {
    EventBody::PermissionRequested(PermissionRequested {
        request_id: RequestId::new(id).unwrap(),
        call_id: Some(call("c1")),
        title: "Run rm -rf build?\nIt deletes the build directory.".into(),
        description: String::new(),
        options: vec![
            option("allow", OptionKind::AllowOnce),
            option("reject", OptionKind::RejectOnce),
        ],
        expiry_option_id: "reject".into(),
        timeout_ms: 60_000,
        expires_at_ms: 70_000,
    })
}

fn answer(id: &str) -> EventBody {
    EventBody::PermissionResolved(PermissionResolved {
        request_id: RequestId::new(id).unwrap(),
        outcome: Outcome::Selected {
            option_id: "allow".into(),
        },
        reason: String::new(),
        resolved_by: Responder::server(),
        resolved_at_ms: 20_000,
    })
}

/// The presenters' stand-in: the tool's name as its title.
fn title(c: &CallStarted) -> String {
    format!("Run {}", c.tool_name)
}

fn fold(bodies: Vec<EventBody>) -> SessionSummary {
    let mut s = SessionSummary::default();
    for (i, b) in bodies.into_iter().enumerate() {
        s.apply(&ev(b), 1_000 * (i as u64 + 1), &title);
    }
    s
}

#[test]
fn a_new_session_is_idle() {
    assert_eq!(SessionSummary::default().state(), SessionState::Idle);
    let s = fold(vec![EventBody::SessionStarted(SessionStarted {
        cwd: "/w".into(),
    })]);
    assert_eq!(s.state(), SessionState::Idle);
    assert_eq!(s.activity_ms, 1_000);
}

#[test]
fn an_open_turn_or_call_is_running_until_both_end() {
    let s = fold(vec![turn("t1")]);
    assert_eq!(
        (s.state(), s.turns, s.open_turns),
        (SessionState::Running, 1, 1)
    );
    let s = fold(vec![
        turn("t1"),
        started("c1", "bash"),
        turn_end("t1", StopReason::EndTurn, None),
    ]);
    // A call outliving its turn (background work) keeps the session running.
    assert_eq!((s.state(), s.open_calls), (SessionState::Running, 1));
    assert_eq!(s.activity, "Run bash");
    let s = fold(vec![
        turn("t1"),
        started("c1", "bash"),
        turn_end("t1", StopReason::EndTurn, None),
        finished("c1", true),
    ]);
    assert_eq!(
        (s.state(), s.open_calls, s.failed_calls),
        (SessionState::Idle, 0, 1)
    );
}

#[test]
fn a_pending_prompt_requires_action_above_everything_else() {
    let s = fold(vec![turn("t1"), started("c1", "bash"), ask("p1")]);
    assert_eq!(s.state(), SessionState::RequiresAction);
    assert_eq!(s.pending_count, 1);
    let p = &s.pending[0];
    assert_eq!(p.request_id, "p1");
    assert_eq!(p.call_id, "c1");
    assert_eq!(p.title, "Run rm -rf build?");
    assert_eq!(p.options.len(), 2);
    assert_eq!((p.requested_ms, p.expires_at_ms), (3_000, 70_000));
    let s = fold(vec![
        turn("t1"),
        started("c1", "bash"),
        ask("p1"),
        answer("p1"),
    ]);
    assert_eq!((s.state(), s.pending_count), (SessionState::Running, 0));
    assert!(s.pending.is_empty());
}

#[test]
fn pending_prompts_are_listed_oldest_first_up_to_the_bound_and_all_counted() {
    let ids: Vec<String> = (0..MAX_SUMMARY_PROMPTS + 3)
        .map(|i| format!("p{i}"))
        .collect();
    let mut bodies: Vec<EventBody> = ids.iter().map(|id| ask(id)).collect();
    let s = fold(bodies.clone());
    assert_eq!(s.pending.len(), MAX_SUMMARY_PROMPTS);
    assert_eq!(s.pending_count, ids.len() as u64);
    assert_eq!(s.pending[0].request_id, "p0");
    // Answering a listed one and an unlisted one: both counted down.
    bodies.push(answer("p0"));
    bodies.push(answer(&ids[ids.len() - 1]));
    let s = fold(bodies);
    assert_eq!(s.pending_count, ids.len() as u64 - 2);
    assert_eq!(s.pending[0].request_id, "p1");
}

#[test]
fn a_turn_that_stopped_short_is_failed_and_a_cancelled_one_idle() {
    for (reason, state) in [
        (StopReason::Unspecified, SessionState::Idle),
        (StopReason::EndTurn, SessionState::Idle),
        (StopReason::Cancelled, SessionState::Idle),
        (StopReason::MaxTokens, SessionState::Failed),
        (StopReason::MaxTurnRequests, SessionState::Failed),
        (StopReason::Refusal, SessionState::Failed),
    ] {
        let s = fold(vec![turn("t1"), turn_end("t1", reason, None)]);
        assert_eq!(s.state(), state, "{reason:?}");
    }
    // A new turn after a failed one runs, then ends well: idle again.
    let s = fold(vec![
        turn("t1"),
        turn_end("t1", StopReason::Refusal, None),
        turn("t2"),
    ]);
    assert_eq!(s.state(), SessionState::Running);
}

#[test]
fn usage_adds_up_and_the_context_is_the_latest() {
    let u = |input, context| TokenUsage {
        input_tokens: input,
        output_tokens: 10,
        context_tokens: context,
        context_window: 200_000,
        ..TokenUsage::default()
    };
    let s = fold(vec![
        turn("t1"),
        turn_end("t1", StopReason::EndTurn, Some(u(100, 5_000))),
        turn("t2"),
        turn_end("t2", StopReason::EndTurn, Some(u(50, 7_000))),
    ]);
    assert_eq!(s.usage.input_tokens, 150);
    assert_eq!(s.usage.output_tokens, 20);
    assert_eq!(
        (s.usage.context_tokens, s.usage.context_window),
        (7_000, 200_000)
    );
}

#[test]
fn the_activity_is_the_latest_call_or_message_and_chunks_only_move_its_time() {
    let s = fold(vec![
        started("c1", "bash"),
        message("m1", MessageRole::Assistant, "\nLet me look.\nMore."),
    ]);
    assert_eq!(s.activity, "Let me look.");
    // Reasoning is not activity; a message that starts empty takes its first delta's line.
    let s = fold(vec![
        started("c1", "bash"),
        message("r1", MessageRole::Reasoning, "thinking"),
    ]);
    assert_eq!(s.activity, "Run bash");
    let delta = |id: &str, text: &str| {
        EventBody::MessageDelta(MessageDelta {
            message_id: MessageId::new(id).unwrap(),
            text: text.into(),
        })
    };
    let s = fold(vec![
        message("m1", MessageRole::Assistant, ""),
        delta("m1", "Done: 3 files."),
        delta("m1", " And more."),
    ]);
    assert_eq!(s.activity, "Done: 3 files.");
    // Output, input deltas and the rest change nothing but the time.
    let before = fold(vec![started("c1", "bash")]);
    for body in [
        EventBody::CallOutput(CallOutput {
            call_id: call("c1"),
            data: "lots of output".into(),
        }),
        EventBody::CallInputDelta(CallInputDelta {
            call_id: call("c1"),
            text: "{".into(),
        }),
        EventBody::CallInputComplete(CallInputComplete {
            call_id: call("c1"),
            arguments_json: "{}".into(),
            view: None,
        }),
        delta("m9", "x"),
        EventBody::MessageFinished(MessageFinished {
            message_id: MessageId::new("m1").unwrap(),
        }),
    ] {
        let mut s = before.clone();
        s.apply(&ev(body), 9_000, &title);
        assert_eq!(
            SessionSummary {
                activity_ms: 1_000,
                ..s
            },
            before
        );
    }
}

/// The transitions each step of a session makes, folded one event at a time.
fn steps(bodies: Vec<EventBody>) -> Vec<Vec<Transition>> {
    let mut summary: Option<SessionSummary> = None;
    let mut out = Vec::new();
    for body in bodies {
        let event = ev(body);
        let mut after = summary.clone().unwrap_or_default();
        after.apply(&event, 1, &title);
        let before = summary.as_ref().map(SessionSummary::state);
        out.push(transitions(before, &after, std::iter::once(&event), 1));
        summary = Some(after);
    }
    out
}

#[test]
fn transitions_name_each_new_prompt_and_the_failed_and_idle_states_entered() {
    let names = |ts: &Vec<Transition>| -> Vec<String> {
        ts.iter()
            .map(|t| match t {
                Transition::Waiting(p) => format!("waiting {}", p.request_id),
                Transition::Failed | Transition::Idle | Transition::Ended => {
                    t.state().name().to_owned()
                }
            })
            .collect()
    };
    let got: Vec<Vec<String>> = steps(vec![
        EventBody::SessionStarted(SessionStarted { cwd: "/w".into() }),
        turn("t1"),
        started("c1", "bash"),
        ask("p1"),
        ask("p2"),
        answer("p1"),
        answer("p2"),
        finished("c1", false),
        turn_end("t1", StopReason::EndTurn, None),
        turn("t2"),
        turn_end("t2", StopReason::MaxTokens, None),
        turn("t3"),
        turn_end("t3", StopReason::Refusal, None),
        turn("t4"),
        turn_end("t4", StopReason::Cancelled, None),
    ])
    .iter()
    .map(names)
    .collect();
    let want: Vec<Vec<&str>> = vec![
        // A new session, nothing open: it has not become idle, it has not begun.
        vec![],
        vec![],
        vec![],
        vec!["waiting p1"],
        vec!["waiting p2"],
        vec![],
        vec![],
        vec![],
        vec!["idle"],
        vec![],
        vec!["failed"],
        vec![],
        // Failed again after a running turn: entered again, told again.
        vec!["failed"],
        vec![],
        vec!["idle"],
    ];
    assert_eq!(got, want);
}

#[test]
fn every_prompt_is_told_even_past_the_listed_ones_and_not_one_answered_at_once() {
    let mut bodies: Vec<EventBody> = (0..=MAX_SUMMARY_PROMPTS)
        .map(|i| ask(&format!("p{i}")))
        .collect();
    bodies.push(answer("p0"));
    let got = steps(bodies);
    let last = MAX_SUMMARY_PROMPTS;
    assert!(
        matches!(&got[last][..], [Transition::Waiting(p)] if p.request_id == format!("p{last}")),
        "the ninth is told though not listed: {:?}",
        got[last]
    );
    // Asked and answered in one append: it never waited.
    let (asked, answered) = (ev(ask("q")), ev(answer("q")));
    let mut after = SessionSummary::default();
    after.apply(&asked, 1, &title);
    after.apply(&answered, 1, &title);
    let batch = [asked, answered];
    assert_eq!(
        transitions(Some(SessionState::Idle), &after, batch.iter(), 1),
        vec![]
    );
}

#[test]
fn a_new_session_whose_first_append_ran_a_turn_to_its_end_became_idle() {
    let batch = [
        ev(turn("t1")),
        ev(turn_end("t1", StopReason::EndTurn, None)),
    ];
    let mut after = SessionSummary::default();
    for e in &batch {
        after.apply(e, 1, &title);
    }
    assert_eq!(
        transitions(None, &after, batch.iter(), 1),
        vec![Transition::Idle]
    );
    // One that only started has not begun.
    let start = [ev(EventBody::SessionStarted(SessionStarted {
        cwd: "/w".into(),
    }))];
    assert_eq!(
        transitions(None, &SessionSummary::default(), start.iter(), 1),
        vec![]
    );
}

fn end(reason: &str) -> EventBody {
    EventBody::SessionEnded(crate::domain::SessionEnded {
        reason: reason.into(),
    })
}

#[test]
fn a_closed_session_is_ended_above_everything_until_anything_starts() {
    // Closed with a call and a prompt still open: nobody answers in a closed session.
    let s = fold(vec![
        turn("t1"),
        started("c1", "bash"),
        ask("p1"),
        end("user quit"),
    ]);
    assert_eq!(s.state(), SessionState::Ended);
    assert_eq!(
        (s.pending_count, s.open_calls),
        (1, 1),
        "the counts stay as they are"
    );
    // Endings and resolutions of what was open do not resume it.
    for quiet in [
        finished("c1", false),
        answer("p1"),
        turn_end("t1", StopReason::EndTurn, None),
    ] {
        let mut after = s.clone();
        after.apply(&ev(quiet), 9, &title);
        assert_eq!(after.state(), SessionState::Ended);
    }
    // Anything starting does.
    let resumes = [
        EventBody::SessionStarted(SessionStarted { cwd: "/w".into() }),
        turn("t2"),
        started("c2", "bash"),
        message("m1", MessageRole::User, "again"),
        ask("p2"),
    ];
    for body in resumes {
        let mut after = s.clone();
        after.apply(&ev(body.clone()), 9, &title);
        assert_ne!(after.state(), SessionState::Ended, "{body:?}");
        assert!(!after.ended);
    }
}

#[test]
fn ending_is_a_transition_once() {
    let got = steps(vec![turn("t1"), end(""), end("again")]);
    assert_eq!(got[1], vec![Transition::Ended]);
    assert_eq!(got[2], vec![], "already ended");
}
