//! Panics inside a real server process, injected with fail points (the `failpoints` feature,
//! on in `scripts/test.sh`): a panicking subscription ends its client's stream with INTERNAL,
//! not as a clean end; a panic while a lock is held breaks nothing for later requests; a panic
//! inside the database's read path is DATA_LOSS for that read, with no panic text (finding 7).

use support::process::{ServerProcess, serve_command};
use support::sessions::*;
use tonic::Code;
use toolview::grpc::pb::{self, subscribe_response::Item};

/// A server whose fail points are `failpoints` (`name=action;…`), logging errors to a file.
fn server_with(dir: &std::path::Path, failpoints: &str) -> (ServerProcess, std::path::PathBuf) {
    let log = dir.join("server.log");
    let mut cmd = serve_command(&dir.join("data"), &[]);
    cmd.env("FAILPOINTS", failpoints)
        .env("TOOLVIEW_LOG", "error")
        .stderr(std::fs::File::create(&log).unwrap());
    (ServerProcess::from_command(cmd), log)
}

/// The first item of a fresh subscription to `s`: an update, or the error that ended it.
async fn first(url: &str) -> Result<Option<Item>, tonic::Status> {
    let mut c = client(url).await;
    let mut s = subscribe(
        &mut c,
        request("s", pb::Target::Acp, true, from_beginning()),
    )
    .await;
    next_item(&mut s).await
}

async fn published(url: &str) {
    let mut c = client(url).await;
    publish(&mut c, vec![bash_call("s", "e1", "c1")])
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs --features failpoints")]
async fn a_panicking_subscription_ends_with_internal() {
    let dir = tempfile::tempdir().unwrap();
    let (server, log) = server_with(dir.path(), "subscription=1*panic(injected boom)");
    published(&server.url).await;
    let err = first(&server.url).await.expect_err("not a clean end");
    assert_eq!(err.code(), Code::Internal, "{err:?}");
    assert!(!err.message().contains("boom"), "{}", err.message());
    // The next subscription works, and the panic is in the log.
    assert!(matches!(
        first(&server.url).await,
        Ok(Some(Item::Update(_)))
    ));
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.contains("injected boom") && log.contains("a subscription panicked"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs --features failpoints")]
async fn a_panic_under_a_lock_breaks_nothing_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = server_with(dir.path(), "lane-cache=1*panic(injected boom)");
    published(&server.url).await;
    let err = first(&server.url)
        .await
        .expect_err("the panicking reader's stream fails");
    assert_eq!(err.code(), Code::Internal, "{err:?}");
    // The lane's cache lock was held by the panic; later readers and writers go on.
    assert!(matches!(
        first(&server.url).await,
        Ok(Some(Item::Update(_)))
    ));
    let mut c = client(&server.url).await;
    publish(&mut c, vec![bash_call("s", "e2", "c2")])
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs --features failpoints")]
async fn a_panic_inside_the_database_sends_no_text() {
    let dir = tempfile::tempdir().unwrap();
    // Stored in the database itself (a clean stop applies the journal), so that the reads below
    // go to it rather than to the journal's overlay.
    let mut first_run = ServerProcess::spawn(&dir.path().join("data"), &[]);
    published(&first_run.url).await;
    first_run.stop();
    let (server, log) = server_with(dir.path(), "store-read=1*panic(injected boom)");
    let err = first(&server.url).await.expect_err("the read failed");
    assert_eq!(err.code(), Code::DataLoss, "{err:?}");
    assert!(err.message().contains("session s"), "{}", err.message());
    assert!(!err.message().contains("boom"), "{}", err.message());
    // The database is still there for the next read.
    assert!(matches!(
        first(&server.url).await,
        Ok(Some(Item::Update(_)))
    ));
    let log = std::fs::read_to_string(log).unwrap();
    assert!(log.contains("injected boom"), "{log}");
}
