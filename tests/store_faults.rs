//! The embedded store's faults against the real binary: damaged bytes on disk are reported as
//! data loss for their session only (finding 8), and a full disk is reported and recovered from
//! without losing or skipping anything acknowledged (finding 6).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::process::{ServerProcess, serve_command};
use support::sessions::*;
use tonic::Code;
use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};
use toolview::grpc::pb::{self, subscribe_response::Item};

/// Reads a session from the beginning: its updates until the stream errors or `last` arrives.
async fn replay(url: &str, session: &str, last: u64) -> (Vec<u64>, Option<tonic::Status>) {
    let mut c = client(url).await;
    let mut s = subscribe(
        &mut c,
        request(session, pb::Target::View, true, from_beginning()),
    )
    .await;
    let mut offsets = Vec::new();
    loop {
        match next_item(&mut s).await {
            Ok(Some(Item::Update(u))) => {
                let o = u.cursor.unwrap().offset;
                offsets.push(o);
                if o >= last {
                    return (offsets, None);
                }
            }
            Ok(other) => panic!("unexpected {other:?}"),
            Err(status) => return (offsets, Some(status)),
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the marker is in the file")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_records_are_data_loss_for_their_session_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolview.redb");
    let marker = "DAMAGE-ME-0123456789";
    let mut server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    for k in 0..3 {
        let id = format!("g{k}");
        publish(&mut c, vec![start_call("good", &id, &id, "job_list", "{}")])
            .await
            .unwrap();
    }
    // A large value of its own, so damage to it stays away from the other session's pages.
    let big = format!("{}{marker}{}", "a".repeat(20_000), "b".repeat(20_000));
    publish(
        &mut c,
        vec![
            bash_call("bad", "b1", "c1"),
            output("bad", "b2", "c1", &big),
            finish("bad", "b3", "c1", "done", ""),
        ],
    )
    .await
    .unwrap();
    // A clean stop: after a crash redb repairs the file on open, verifying its own page
    // checksums and rolling back a damaged last commit; this test is about damage it reads.
    server.stop();

    // One byte edited inside the stored event.
    let mut bytes = std::fs::read(&file).unwrap();
    let at = find(&bytes, marker.as_bytes()) + 3;
    bytes[at] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let (offsets, error) = replay(&server.url, "bad", 3).await;
    assert_eq!(
        offsets,
        vec![1],
        "the events before the damaged one are served"
    );
    let error = error.expect("the damaged event is not served as data");
    assert_eq!(error.code(), Code::DataLoss, "{error:?}");
    assert!(
        error.message().contains("session bad"),
        "{}",
        error.message()
    );
    let (offsets, error) = replay(&server.url, "good", 3).await;
    assert_eq!((offsets, error.map(|e| e.code())), (vec![1, 2, 3], None));
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![start_call("good", "g3", "g3", "job_list", "{}")],
    )
    .await
    .unwrap();
    let mut server = server;
    server.stop();

    // A zeroed page: still data loss for that session, no panic text, the other one served.
    let mut bytes = std::fs::read(&file).unwrap();
    let page = find(
        &bytes,
        b"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    ) / 4096
        * 4096;
    bytes[page..page + 4096].fill(0);
    std::fs::write(&file, &bytes).unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let (_, error) = replay(&server.url, "bad", 3).await;
    let error = error.expect("the zeroed page is not served as data");
    assert_eq!(error.code(), Code::DataLoss, "{error:?}");
    assert!(!error.message().contains("panic"), "{}", error.message());
    let (offsets, error) = replay(&server.url, "good", 4).await;
    assert_eq!((offsets, error.map(|e| e.code())), (vec![1, 2, 3, 4], None));
}

/// A tmpfs of a few MiB, unmounted when dropped.
struct SmallDisk {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl SmallDisk {
    fn new(mib: u32) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("disk");
        std::fs::create_dir(&path).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
            .arg(&path)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mounting a tmpfs needs root (CI runs as root)");
        SmallDisk { path, _dir: dir }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}

async fn health(url: &str) -> ServingStatus {
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut h = tonic_health::pb::health_client::HealthClient::new(channel);
    let r = h
        .check(HealthCheckRequest {
            service: "toolview.v1.SessionService".into(),
        })
        .await
        .unwrap();
    ServingStatus::try_from(r.into_inner().status).unwrap()
}

/// Waits (up to `PATIENCE`) for the health status.
async fn health_becomes(url: &str, want: ServingStatus) {
    let waited = tokio::time::timeout(PATIENCE, async {
        while health(url).await != want {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "health never became {want:?}");
}

fn fill(path: &Path) {
    use std::io::Write;
    let mut f = std::fs::File::create(path).unwrap();
    let block = vec![0u8; 64 << 10];
    while f.write_all(&block).is_ok() {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_is_reported_and_recovered_from() {
    let disk = SmallDisk::new(24);
    let data = disk.path.join("data");
    let log = disk.path.join("..").join("server.log");
    let mut cmd = serve_command(&data, &["--store-cache-mb", "1"]);
    cmd.env("TOOLVIEW_LOG", "info")
        .stderr(std::fs::File::create(&log).unwrap());
    let server = ServerProcess::from_command(cmd);
    assert_eq!(health(&server.url).await, ServingStatus::Serving);
    let mut c = client(&server.url).await;
    let chunk = "x".repeat(32 << 10);
    publish(&mut c, vec![bash_call("s", "e0", "c1")])
        .await
        .unwrap();

    // Fill the disk, then publish until a write fails.
    let ballast = disk.path.join("ballast");
    fill(&ballast);
    let mut acked = vec![(1u64, "e0".to_owned())];
    let mut n = 0;
    let failure = loop {
        n += 1;
        let id = format!("e{n}");
        match publish(&mut c, vec![output("s", &id, "c1", &chunk)]).await {
            Ok(acks) => acked.push((acks[0].cursor.as_ref().unwrap().offset, id)),
            Err(status) => break status,
        }
        assert!(n < 10_000, "the disk never filled");
    };
    assert_eq!(failure.code(), Code::Unavailable, "{failure:?}");
    health_becomes(&server.url, ServingStatus::NotServing).await;
    // Still refused while full.
    let err = publish(&mut c, vec![output("s", "late", "c1", &chunk)])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);

    // Space is back: the server recovers by itself.
    std::fs::remove_file(&ballast).unwrap();
    health_becomes(&server.url, ServingStatus::Serving).await;
    let retry = format!("e{n}");
    let mut offset = 0;
    for id in [retry.as_str(), "after-1", "after-2"] {
        let acks = publish(&mut c, vec![output("s", id, "c1", "y")])
            .await
            .unwrap();
        offset = acks[0].cursor.as_ref().unwrap().offset;
        acked.push((offset, id.to_owned()));
    }
    // No gap, nothing acked lost: offsets run 1..=head, and each acked id is at its offset.
    assert_eq!(offset, acked.len() as u64);
    let (offsets, error) = replay(&server.url, "s", offset).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(offsets, (1..=offset).collect::<Vec<_>>());
    let again = publish(
        &mut c,
        acked
            .iter()
            .map(|(_, id)| output("s", id, "c1", "z"))
            .collect(),
    )
    .await
    .unwrap();
    for ((offset, _), ack) in acked.iter().zip(again) {
        assert!(ack.duplicate);
        assert_eq!(ack.cursor.unwrap().offset, *offset);
    }
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("store commit failed"), "{log}");
    assert!(log.contains("takes writes again"), "{log}");
}
