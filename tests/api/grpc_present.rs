//! `Present` over a real gRPC server on a loopback port, through the generated client.

use serde_json::{Value, json};
use support::server::Server;
use tonic::{Code, transport::Channel};
use toolview::domain::{ToolCallView, ToolResultView};
use toolview::grpc::pb::{self, presentation_service_client::PresentationServiceClient};

async fn client(server: &Server) -> PresentationServiceClient<Channel> {
    PresentationServiceClient::connect(server.url.clone())
        .await
        .unwrap()
}

fn call_json(resp: &pb::PresentResponse) -> Value {
    ToolCallView::try_from(resp.call.clone().unwrap())
        .unwrap()
        .to_json()
}

#[tokio::test]
async fn present_edit_over_grpc() {
    let server = Server::start().await;
    let mut client = client(&server).await;
    let resp = client
        .present(pb::PresentRequest {
            tool_name: "edit".into(),
            arguments_json: r#"{"file_path":"a.txt","old_string":"x","new_string":"y"}"#.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        call_json(&resp),
        json!({"card":"diff","title":"Edit a.txt","diffs":[{"path":"a.txt","oldText":"x","newText":"y"}],"locations":[{"path":"a.txt"}]})
    );
    assert!(resp.result.is_none());
    server.shutdown().await;
}

#[tokio::test]
async fn present_result_with_meta_over_grpc() {
    let server = Server::start().await;
    let mut client = client(&server).await;
    let text = pb::ContentBlock {
        block: Some(pb::content_block::Block::Text(pb::TextContent {
            text: "oops\n[exit code: 3]".into(),
        })),
    };
    let resp = client
        .present(pb::PresentRequest {
            tool_name: "bash".into(),
            arguments_json: r#"{"command":"make","description":"Build"}"#.into(),
            result: Some(pb::PresentResult {
                content: vec![text],
                is_error: false,
                meta_json: String::new(),
                view: None,
            }),
            call_view: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        call_json(&resp),
        json!({"card":"terminal","title":"make","description":"Build"})
    );
    let result = ToolResultView::try_from(resp.result.unwrap())
        .unwrap()
        .to_json();
    assert_eq!(
        result,
        json!({"card":"terminal","output":"oops","exitCode":3})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn unset_oneof_is_invalid_argument_naming_the_field() {
    let server = Server::start().await;
    let mut client = client(&server).await;

    // A harness view whose card is not set.
    let err = client
        .present(pb::PresentRequest {
            tool_name: "custom".into(),
            call_view: Some(pb::ToolCallView { card: None }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(err.message(), "call_view.card: not set");

    // An inner oneof, deeper down: the search shape of a result view.
    let search = pb::SearchResultView {
        title: None,
        truncated: false,
        total: 0,
        shape: None,
    };
    let err = client
        .present(pb::PresentRequest {
            tool_name: "grep".into(),
            result: Some(pb::PresentResult {
                view: Some(pb::ToolResultView {
                    card: Some(pb::tool_result_view::Card::Search(search)),
                }),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(err.message(), "result.view.search.shape: not set");

    // A content block without its oneof, and invalid meta JSON.
    let err = client
        .present(pb::PresentRequest {
            tool_name: "bash".into(),
            result: Some(pb::PresentResult {
                content: vec![pb::ContentBlock { block: None }],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.message(), "result.content[0].block: not set");
    let err = client
        .present(pb::PresentRequest {
            tool_name: "bash".into(),
            result: Some(pb::PresentResult {
                meta_json: "{nope".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message()
            .starts_with("result.meta_json: not valid JSON"),
        "{}",
        err.message()
    );

    // The server is still serving after bad input.
    let ok = client
        .present(pb::PresentRequest {
            tool_name: "job_list".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        call_json(&ok),
        json!({"card":"generic","title":"List background jobs","kind":"read"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn harness_views_follow_the_result_rules() {
    let server = Server::start().await;
    let mut client = client(&server).await;
    // A terminal result view on a non-terminal call: the orphan guard turns it generic with the
    // raw content.
    let text = pb::ContentBlock {
        block: Some(pb::content_block::Block::Text(pb::TextContent {
            text: "raw".into(),
        })),
    };
    let terminal = pb::TerminalResultView {
        title: None,
        output: Some("o".into()),
        exit: None,
    };
    let resp = client
        .present(pb::PresentRequest {
            tool_name: "job_list".into(),
            result: Some(pb::PresentResult {
                content: vec![text],
                view: Some(pb::ToolResultView {
                    card: Some(pb::tool_result_view::Card::Terminal(terminal)),
                }),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let result = ToolResultView::try_from(resp.result.unwrap())
        .unwrap()
        .to_json();
    assert_eq!(
        result,
        json!({"card":"generic","content":[{"type":"text","text":"raw"}]})
    );
    server.shutdown().await;
}
