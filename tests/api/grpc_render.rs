//! `Render` over a real gRPC server: the same fold and renderers as sessions use.

use serde_json::Value;
use support::server::Server;
use tonic::Code;
use toolview::grpc::pb::{
    self, presentation_service_client::PresentationServiceClient, tool_event::Event,
};

fn ev(id: &str, event: Event) -> pb::ToolEvent {
    pb::ToolEvent {
        session_id: "s1".into(),
        event_id: id.into(),
        event: Some(event),
    }
}

fn text(t: &str) -> pb::ContentBlock {
    pb::ContentBlock {
        block: Some(pb::content_block::Block::Text(pb::TextContent {
            text: t.into(),
        })),
    }
}

/// A bash call that streams one chunk and fails with exit code 3.
fn terminal_call() -> Vec<pb::ToolEvent> {
    vec![
        ev(
            "e1",
            Event::SessionStarted(pb::SessionStarted {
                cwd: "/work/proj".into(),
            }),
        ),
        ev(
            "e2",
            Event::CallStarted(pb::ToolCallStarted {
                parent_call_id: String::new(),
                input_streaming: false,
                call_id: "c1".into(),
                tool_name: "bash".into(),
                arguments_json: r#"{"command":"make test","description":"Run the tests"}"#.into(),
                view: None,
            }),
        ),
        ev(
            "e3",
            Event::CallOutput(pb::ToolCallOutput {
                call_id: "c1".into(),
                data: "running 3 tests\n".into(),
            }),
        ),
        ev(
            "e4",
            Event::CallFinished(pb::ToolCallFinished {
                call_id: "c1".into(),
                content: vec![text("running 3 tests\n1 failed\n[exit code: 3]")],
                is_error: false,
                meta_json: String::new(),
                view: None,
            }),
        ),
    ]
}

fn render_request(terminal: bool, events: Vec<pb::ToolEvent>) -> pb::RenderRequest {
    pb::RenderRequest {
        session_cwd: String::new(),
        target: pb::Target::Acp as i32,
        capabilities: Some(pb::Capabilities {
            terminal,
            ..Default::default()
        }),
        events,
    }
}

/// The `update` objects of each rendered update, every message schema-validated.
fn acp_updates(resp: pb::RenderResponse) -> Vec<Vec<Value>> {
    resp.updates
        .into_iter()
        .map(|u| match u.body {
            Some(pb::rendered_update::Body::Acp(m)) => m
                .json
                .iter()
                .map(|j| support::acp::validate(j).unwrap())
                .collect(),
            other => panic!("not ACP: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn render_acp_terminal_capability_on_and_off() {
    let server = Server::start().await;
    let mut client = PresentationServiceClient::connect(server.url.clone())
        .await
        .unwrap();

    let off = acp_updates(
        client
            .render(render_request(false, terminal_call()))
            .await
            .unwrap()
            .into_inner(),
    );
    assert_eq!(off.len(), 4, "one update per event");
    assert!(off[0].is_empty(), "a session update carries no ACP message");
    assert_eq!(off[1][0]["sessionUpdate"], "tool_call");
    assert!(off[1][0].get("_meta").is_none());
    assert_eq!(
        off[2][0]["content"][0]["content"]["text"],
        "```console\nrunning 3 tests\n```"
    );
    let last = &off[3][0];
    assert_eq!(last["status"], "completed");
    let text = last["content"][0]["content"]["text"].as_str().unwrap();
    assert!(text.ends_with("\n```\n\nexit code 3"), "{text}");

    let on = acp_updates(
        client
            .render(render_request(true, terminal_call()))
            .await
            .unwrap()
            .into_inner(),
    );
    assert_eq!(on[1][0]["_meta"]["terminal_info"]["cwd"], "/work/proj");
    assert_eq!(on[1][0]["content"][1]["type"], "terminal");
    assert_eq!(
        on[2][0]["_meta"]["terminal_output"]["data"],
        "running 3 tests\n"
    );
    let last = &on[3][0];
    assert_eq!(last["_meta"]["terminal_exit"]["exit_code"], 3);
    assert_eq!(last["_meta"]["terminal_output"]["data"], "1 failed");
    assert!(
        last.get("content").is_none(),
        "no content key with the terminal capability: {last}"
    );

    // The update carries its call id; the session update has none.
    let raw = client
        .render(render_request(true, terminal_call()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(raw.updates[0].call_id, "");
    assert_eq!(raw.updates[1].call_id, "c1");
    assert!(raw.updates[1].cursor.is_none());
    server.shutdown().await;
}

#[tokio::test]
async fn render_rejects_bad_requests() {
    let server = Server::start().await;
    let mut client = PresentationServiceClient::connect(server.url.clone())
        .await
        .unwrap();

    let mut req = render_request(false, terminal_call());
    req.target = pb::Target::Unspecified as i32;
    let err = client.render(req).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().starts_with("target: unknown target 0"),
        "{}",
        err.message()
    );

    let mut events = terminal_call();
    events[1].event = Some(Event::CallStarted(pb::ToolCallStarted {
        call_id: "c1".into(),
        view: Some(pb::ToolCallView { card: None }),
        ..Default::default()
    }));
    let err = client
        .render(render_request(false, events))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(err.message(), "events[1].call_started.view.card: not set");

    let mut events = terminal_call();
    events.push(events[2].clone());
    let err = client
        .render(render_request(false, events))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert_eq!(
        err.message(),
        "events[4]: call c1 has already finished: no more output"
    );

    let mut events = terminal_call();
    events[3].session_id = "other".into();
    let err = client
        .render(render_request(false, events))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "events[3].session_id: all events of a Render request must be of one session"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn render_view_degrades_to_declared_capabilities() {
    let server = Server::start().await;
    let mut client = PresentationServiceClient::connect(server.url.clone())
        .await
        .unwrap();
    let mut req = render_request(false, terminal_call());
    req.target = pb::Target::View as i32;
    let resp = client.render(req).await.unwrap().into_inner();
    let Some(pb::rendered_update::Body::View(pb::ViewUpdate {
        update: Some(pb::view_update::Update::Card(card)),
    })) = &resp.updates[3].body
    else {
        panic!("not a card: {:?}", resp.updates[3]);
    };
    // No terminal capability declared: the terminal cards arrive as generic ones.
    assert!(matches!(
        card.call.as_ref().unwrap().card,
        Some(pb::tool_call_view::Card::Generic(_))
    ));
    assert!(matches!(
        card.result.as_ref().unwrap().card,
        Some(pb::tool_result_view::Card::Generic(_))
    ));
    // The command exited unclean: failed, as every drawing says, though the harness did not flag
    // the result an error.
    assert_eq!(card.status, pb::CallStatus::Failed as i32);
    assert_eq!(card.streamed, "running 3 tests\n");
    server.shutdown().await;
}
