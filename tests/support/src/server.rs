//! A real server on a loopback port 0, stopped on demand.

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use toolview::app::{self, ServeConfig};

pub struct Server {
    pub url: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl Server {
    /// A server with the in-memory store.
    pub async fn start() -> Server {
        Self::start_with(ServeConfig::memory()).await
    }

    pub async fn start_with(config: ServeConfig) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(app::run(listener, config, async {
            let _ = stopped.await;
        }));
        Server {
            url,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops the server and waits for it to drain.
    pub async fn shutdown(mut self) {
        self.stop.take().unwrap().send(()).unwrap();
        self.task.take().unwrap().await.unwrap().unwrap();
    }
}
