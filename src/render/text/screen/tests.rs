//! Unit tests of `Screen`: what each mode prints, and the terminal region's accounting.

use super::*;
use crate::domain::{TerminalCallView, TerminalExit, TerminalResultView, ToolCallView};

fn card(id: &str, status: CallStatus, streamed: &str) -> ViewUpdate {
    let result = (status != CallStatus::InProgress).then(|| {
        ToolResultView::Terminal(TerminalResultView {
            title: None,
            output: Some(streamed.to_owned()),
            exit: Some(TerminalExit::Code(0)),
        })
    });
    ViewUpdate::Card(Box::new(CardSnapshot {
        call_id: id.into(),
        tool_name: "bash".into(),
        status,
        call: Some(ToolCallView::Terminal(TerminalCallView {
            title: format!("make {id}"),
            description: None,
            cwd: None,
        })),
        result,
        streamed: streamed.into(),
        input: String::new(),
        parent_call_id: String::new(),
        depth: 0,
        children: None,
        mcp_app: None,
    }))
}

fn append(id: &str, text: &str) -> ViewUpdate {
    ViewUpdate::OutputAppended {
        call_id: id.into(),
        text: text.into(),
    }
}

fn run(mode: Mode, updates: Vec<ViewUpdate>) -> String {
    let mut screen = Screen::new(Style::Ansi, mode, Capabilities::all(true));
    let mut out = Vec::new();
    for u in updates {
        screen.apply(u, &mut out).unwrap();
        if screen.dirty() {
            screen.draw(Size { rows: 10, cols: 40 }, &mut out).unwrap();
        }
    }
    screen.finish(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn plain_prints_lines_as_they_come_and_each_card_once_without_them() {
    let out = run(
        Mode::Plain,
        vec![
            card("c1", CallStatus::InProgress, ""),
            append("c1", "one\ntw"),
            append("c1", "o\n"),
            card("c1", CallStatus::Completed, "one\ntwo\n"),
        ],
    );
    assert_eq!(out.matches("one").count(), 1, "{out}");
    assert_eq!(out.matches("make c1").count(), 1, "{out}");
    assert!(out.find("one").unwrap() < out.find("make c1").unwrap());
    assert!(out.contains("[exit 0]"), "{out}");
}

#[test]
fn plain_labels_interleaved_output_by_call() {
    let out = run(
        Mode::Plain,
        vec![
            card("a", CallStatus::InProgress, ""),
            card("b", CallStatus::InProgress, ""),
            append("a", "a1\n"),
            append("b", "b1\n"),
            append("a", "a2\n"),
        ],
    );
    assert_eq!(out.matches("── bash a ──").count(), 2, "{out}");
    assert_eq!(out.matches("── bash b ──").count(), 1, "{out}");
    // The running cards are printed once at the end, without their printed output.
    assert_eq!(out.matches("a1").count(), 1, "{out}");
}

#[test]
fn terminal_region_fits_the_screen_and_a_finished_card_is_printed_once() {
    let many: String = (0..50).map(|i| format!("line {i}\n")).collect();
    let mut screen = Screen::new(Style::Ansi, Mode::Terminal, Capabilities::all(true));
    let mut out = Vec::new();
    screen
        .apply(card("c1", CallStatus::InProgress, ""), &mut out)
        .unwrap();
    screen.apply(append("c1", &many), &mut out).unwrap();
    screen.draw(Size { rows: 10, cols: 40 }, &mut out).unwrap();
    assert!(screen.region <= 9, "{}", screen.region);
    let drawn = String::from_utf8_lossy(&out).into_owned();
    assert!(drawn.contains("line 49") && !drawn.contains("line 10\n"));
    screen
        .apply(card("c1", CallStatus::Completed, &many), &mut out)
        .unwrap();
    screen.finish(&mut out).unwrap();
    let all = String::from_utf8_lossy(&out).into_owned();
    let final_card = &all[drawn.len()..];
    assert_eq!(final_card.matches("make c1").count(), 1);
    assert!(final_card.contains("line 0") && final_card.contains("line 49"));
}

#[test]
fn a_notice_on_the_terminal_clears_the_region_and_it_is_drawn_again() {
    let size = Size { rows: 10, cols: 40 };
    let mut screen = Screen::new(Style::Ansi, Mode::Terminal, Capabilities::all(true));
    let mut out = Vec::new();
    screen
        .apply(card("c1", CallStatus::InProgress, ""), &mut out)
        .unwrap();
    screen.draw(size, &mut out).unwrap();
    let drawn = screen.region;
    assert!(drawn > 0 && !screen.dirty());
    out.clear();
    screen.make_room(&mut out).unwrap();
    assert_eq!(screen.region, 0);
    assert!(screen.dirty());
    assert!(String::from_utf8_lossy(&out).starts_with(&format!("\x1b[{drawn}A")));
    screen.draw(size, &mut out).unwrap();
    assert_eq!(screen.region, drawn);
}

#[test]
fn transcript_prints_every_card_once_in_its_last_state() {
    let out = run(
        Mode::Transcript,
        vec![
            card("a", CallStatus::InProgress, ""),
            append("a", "x\n"),
            card("a", CallStatus::Completed, "x\n"),
            card("b", CallStatus::InProgress, ""),
            append("b", "y\n"),
        ],
    );
    assert_eq!(out.matches("make a").count(), 1, "{out}");
    assert_eq!(out.matches("make b").count(), 1, "{out}");
    assert!(out.contains("[exit 0]") && out.contains('y'), "{out}");
}

#[test]
fn fit_cuts_visible_width_and_keeps_colours() {
    assert_eq!(fit("\x1b[2mabcdef\x1b[0m", 3), "\x1b[2mabc\x1b[0m");
    assert_eq!(fit("a\tb", 10), "a       b");
}

#[test]
fn messages_print_once_complete_and_turns_as_lines() {
    let message = |id: &str, role, text: &str, status| ViewUpdate::Message {
        message_id: id.into(),
        role,
        text: text.into(),
        status,
        parent_call_id: String::new(),
        depth: 0,
    };
    let updates = || {
        vec![
            ViewUpdate::Turn {
                turn_id: "t1".into(),
                finished: false,
                stop_reason: None,
                usage: None,
            },
            message("m1", MessageRole::User, "fix it", MessageStatus::Complete),
            message(
                "m2",
                MessageRole::Assistant,
                "On it",
                MessageStatus::Streaming,
            ),
            ViewUpdate::MessageAppended {
                message_id: "m2".into(),
                text: " now\x1b[2J".into(),
            },
            message(
                "m2",
                MessageRole::Assistant,
                "On it now\x1b[2J",
                MessageStatus::Complete,
            ),
        ]
    };
    for mode in [Mode::Plain, Mode::Transcript, Mode::Terminal] {
        let out = run(mode, updates());
        // On a terminal the streaming answer is drawn in the running region first.
        let answers = if mode == Mode::Terminal { 2 } else { 1 };
        assert_eq!(out.matches("On it now").count(), answers, "{mode:?}: {out}");
        assert_eq!(out.matches("fix it").count(), 1, "{mode:?}: {out}");
        assert!(out.contains("── turn t1 ──"), "{mode:?}: {out}");
        assert!(
            !out.contains("\x1b[2J"),
            "{mode:?}: a message's escapes are shown, not sent"
        );
        let (turn, user) = (out.find("turn t1").unwrap(), out.find("fix it").unwrap());
        assert!(
            turn < user && user < out.find("On it now").unwrap(),
            "{out}"
        );
    }
}
