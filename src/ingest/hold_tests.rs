use super::*;

const TRACE: &str = "0123456789abcdef0123456789abcdef";
const SECOND: Duration = Duration::from_secs(1);

fn span(id: u8, parent: Option<u8>) -> Span {
    Span {
        trace_id: TRACE.into(),
        span_id: format!("{id:016x}"),
        parent_span_id: parent.map(|p| format!("{p:016x}")).unwrap_or_default(),
        name: format!("span {id}"),
        ..Span::default()
    }
}

fn ids(spans: &[Span]) -> Vec<String> {
    let mut ids: Vec<String> = spans.iter().map(|s| s.name.clone()).collect();
    ids.sort();
    ids
}

fn hold(window: Duration, max_bytes: usize) -> Hold<&'static str> {
    Hold::new(HoldLimits { window, max_bytes })
}

/// One request through the hold: what is ready, and what the commit let go.
fn send(
    hold: &mut Hold<&'static str>,
    caller: Caller,
    spans: Vec<Span>,
    now: Instant,
) -> (Vec<String>, Vec<Released<&'static str>>) {
    let batch = hold.take(caller, "access", spans);
    let ready = ids(&batch.ready);
    (ready, hold.commit(batch, now))
}

#[test]
fn a_subtree_waits_for_its_parent_then_goes_with_it() {
    let mut hold = hold(10 * SECOND, 1 << 20);
    let t0 = Instant::now();
    // The subagent (3) and its call (4) end first; the tool span (2) that ran it, and the run (1),
    // come in the next export.
    let (ready, released) = send(&mut hold, 1, vec![span(3, Some(2)), span(4, Some(3))], t0);
    assert!(ready.is_empty() && released.is_empty());
    assert_eq!(hold.held().0, 2);
    let (ready, _) = send(
        &mut hold,
        1,
        vec![span(2, Some(1)), span(1, None)],
        t0 + SECOND,
    );
    assert_eq!(ready, ["span 1", "span 2", "span 3", "span 4"]);
    assert_eq!(hold.held(), (0, 0));
}

#[test]
fn trees_waiting_at_several_levels_go_with_their_top() {
    let mut hold = hold(10 * SECOND, 1 << 20);
    let t0 = Instant::now();
    send(&mut hold, 1, vec![span(4, Some(3))], t0);
    send(&mut hold, 1, vec![span(3, Some(2))], t0);
    let (ready, _) = send(&mut hold, 1, vec![span(2, Some(1))], t0);
    assert!(ready.is_empty(), "{ready:?}");
    assert_eq!(hold.held().0, 3);
    let (ready, _) = send(&mut hold, 1, vec![span(1, None)], t0);
    assert_eq!(ready, ["span 1", "span 2", "span 3", "span 4"]);
}

#[test]
fn a_wait_ends_after_the_window_and_later_children_of_that_parent_go_at_once() {
    let mut hold = hold(10 * SECOND, 1 << 20);
    let t0 = Instant::now();
    send(&mut hold, 1, vec![span(2, Some(1))], t0);
    send(&mut hold, 1, vec![span(5, Some(4))], t0 + 5 * SECOND);
    assert!(hold.expire(t0 + 9 * SECOND).is_empty());
    let released = hold.expire(t0 + 10 * SECOND);
    assert_eq!(released.len(), 1);
    assert_eq!(ids(&released[0].spans), ["span 2"]);
    assert_eq!(released[0].why, Release::Expired);
    // Span 1 runs long: its next children show at once.
    let (ready, _) = send(&mut hold, 1, vec![span(3, Some(1))], t0 + 11 * SECOND);
    assert_eq!(ready, ["span 3"]);
    assert_eq!(hold.held().0, 1, "span 5 waits on");
}

#[test]
fn a_tree_joined_later_keeps_its_first_arrival() {
    let mut hold = hold(10 * SECOND, 1 << 20);
    let t0 = Instant::now();
    send(&mut hold, 1, vec![span(3, Some(2))], t0);
    // Span 2 arrives, still without its parent: 3 now waits with it, since t0.
    send(&mut hold, 1, vec![span(2, Some(1))], t0 + 8 * SECOND);
    let released = hold.expire(t0 + 10 * SECOND);
    assert_eq!(ids(&released[0].spans), ["span 2", "span 3"]);
}

#[test]
fn past_the_byte_limit_the_longest_wait_ends() {
    let one = span_bytes(&span(2, Some(1)));
    let mut hold = hold(10 * SECOND, one * 2);
    let t0 = Instant::now();
    send(&mut hold, 1, vec![span(2, Some(1))], t0);
    send(&mut hold, 1, vec![span(4, Some(3))], t0 + SECOND);
    let (_, released) = send(&mut hold, 1, vec![span(6, Some(5))], t0 + 2 * SECOND);
    assert_eq!(released.len(), 1);
    assert_eq!(released[0].why, Release::Full);
    assert_eq!(ids(&released[0].spans), ["span 2"]);
    assert!(hold.held().1 <= one * 2);
}

#[test]
fn one_callers_spans_never_join_anothers() {
    let mut hold = hold(10 * SECOND, 1 << 20);
    let t0 = Instant::now();
    send(&mut hold, 1, vec![span(2, Some(1))], t0);
    let (ready, _) = send(&mut hold, 2, vec![span(1, None)], t0);
    assert_eq!(ready, ["span 1"]);
    let (ready, _) = send(&mut hold, 1, vec![span(1, None)], t0);
    assert_eq!(ready, ["span 1", "span 2"]);
}

#[test]
fn a_refused_request_leaves_what_it_took_waiting() {
    let mut hold = hold(10 * SECOND, 1 << 20);
    let t0 = Instant::now();
    send(&mut hold, 1, vec![span(2, Some(1))], t0);
    let batch = hold.take(1, "access", vec![span(1, None), span(7, Some(6))]);
    assert_eq!(ids(&batch.ready), ["span 1", "span 2"]);
    assert_eq!(ids(&batch.waiting), ["span 7"]);
    assert!(hold.abort(batch, t0 + SECOND).is_empty());
    assert_eq!(
        hold.held().0,
        1,
        "span 2 waits again; span 7 was refused with its request"
    );
    let released = hold.expire(t0 + 10 * SECOND);
    assert_eq!(
        ids(&released[0].spans),
        ["span 2"],
        "its first arrival kept"
    );
}

#[test]
fn roots_cycles_bad_ids_a_zero_window_and_a_stop_hold_nothing() {
    let t0 = Instant::now();
    let mut open = hold(10 * SECOND, 1 << 20);
    let (ready, _) = send(&mut open, 1, vec![span(1, None), span(2, Some(1))], t0);
    assert_eq!(ready.len(), 2);
    let (ready, _) = send(&mut open, 1, vec![span(8, Some(9)), span(9, Some(8))], t0);
    assert_eq!(ready.len(), 2, "a cycle has no parent to wait for");
    let mut bad = span(3, Some(2));
    bad.span_id = "zz".into();
    let (ready, _) = send(&mut open, 1, vec![bad], t0);
    assert_eq!(ready.len(), 1, "refused at once, in the request's answer");

    let mut remote = span(4, Some(3));
    remote.parent_remote = true;
    let (ready, _) = send(&mut open, 1, vec![remote], t0);
    assert_eq!(ready.len(), 1, "another process's parent is not waited for");

    let mut off = hold(Duration::ZERO, 1 << 20);
    let (ready, _) = send(&mut off, 1, vec![span(2, Some(1))], t0);
    assert_eq!(ready, ["span 2"]);

    send(&mut open, 1, vec![span(5, Some(4))], t0);
    let released = open.stop();
    assert_eq!(released[0].why, Release::Stopped);
    let (ready, _) = send(&mut open, 1, vec![span(6, Some(4))], t0);
    assert_eq!(ready, ["span 6"]);
    assert_eq!(open.held(), (0, 0));
}
