//! A webhook's answer link in a real browser: the notice's link opens the viewer on the prompt
//! with a confirmation button; opening it answers nothing; confirming answers the request as
//! the hook, via webhook (the harness's wait returns it); the link opened again says who decided.
//! Screenshot: `target/test-artifacts/viewer-answer-link.png`.

use std::time::Duration;

use support::permissions::{asking, requested, resolution};
use support::server::Server;
use support::sessions::*;
use support::webhooks::{Receiver, new_secret};
use toolview::app::ServeConfig;
use toolview::grpc::pb::permission_resolved::Outcome;

use crate::driver::{Viewer, artifact};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_link_shows_the_prompt_and_answers_only_when_confirmed() {
    let shot = artifact("viewer-answer-link.png");
    let dir = tempfile::tempdir().unwrap();
    let secret = new_secret();
    let receiver = Receiver::start(0, &secret, dir.path());
    let secret_file = dir.path().join("hook.secret");
    std::fs::write(&secret_file, &secret).unwrap();
    let mut config = ServeConfig::memory();
    config.webhooks.webhook_urls = vec![format!("http://127.0.0.1:{}/ops", receiver.port)];
    config.webhooks.secret_file = Some(secret_file);
    let server = Server::start_with(config).await;
    let mut c = client(&server.url).await;
    let ask = asking(
        "agent/deploy",
        requested("p1", "c1", "Deploy to production?"),
    );
    publish(&mut c, vec![bash_call("agent/deploy", "e1", "c1"), ask])
        .await
        .unwrap();
    let arrivals = receiver.wait_for(Duration::from_secs(30), |a| !a.is_empty());
    let options = &arrivals[0]["body"]["data"]["prompt"]["options"];
    assert_eq!(options[0]["optionId"], "allow");
    let link = options[0]["answerUrl"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("{}/#answer=", server.url)),
        "{link}"
    );

    let viewer = Viewer::script("viewer_answer_link.cjs", &[link, shot.to_str().unwrap()]).await;
    // Shown, not answered.
    let grant = link.split_once("#answer=").unwrap().1;
    let addr = server.url.trim_start_matches("http://");
    let (_, looked) =
        support::http::exchange(addr, &format!("GET /links/{grant} HTTP/1.1\r\n"), "");
    assert!(looked.contains(r#""state":"pending""#), "{looked}");
    let summary = viewer.finish().await;
    assert_eq!(summary["opened"]["title"], "Deploy to production?");
    assert_eq!(summary["opened"]["confirm"], "Confirm: Allow");
    assert_eq!(summary["answered"]["note"], "Answered: Allow.");
    assert_eq!(
        summary["again"]["note"],
        "Already decided: webhook-1 via webhook chose allow."
    );
    let decided = resolution(&server.url, "agent/deploy", "p1").await;
    assert_eq!(
        decided.outcome,
        Some(Outcome::SelectedOptionId("allow".into()))
    );
    let by = decided.resolved_by.unwrap();
    assert_eq!(
        (by.subject.as_str(), by.via.as_str()),
        ("webhook-1", "webhook")
    );
}
