//! Running the client commands (`serve` is `main.rs`'s: it owns the process's logging and
//! signals). Each takes its parsed arguments; the ones that talk to a server run on a small
//! single-threaded runtime of their own.

use std::io::IsTerminal as _;

use serde::Deserialize;

use super::cli::{
    AcpArgs, ApproveArgs, HealthArgs, McpArgs, PresentArgs, PublishArgs, RenderArgs, SessionsArgs,
    StateArg, TailArgs, TokenArgs, health_url,
};
use crate::client::{self, Remote, acp, tail};
use crate::domain::ContentBlock;
use crate::present::{self, FinishedInput};
use crate::render::Capabilities;
use crate::render::screen::Size;

/// A small runtime for a client command.
fn client_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

impl TailArgs {
    /// `toolview tail`: prints the session's updates to stdout.
    pub fn run(self) -> anyhow::Result<()> {
        let on_terminal = std::io::stdout().is_terminal();
        let colours = self
            .color
            .colours(on_terminal, std::env::var_os("NO_COLOR").as_deref());
        // Where colours show: keep a tool's own, unless asked not to.
        let tool_colors = !self.no_tool_colors && (self.tool_colors || colours);
        let options = tail::TailOptions {
            session: &self.session,
            target: self.target.into(),
            caps: Capabilities {
                tool_colors,
                reasoning: self.reasoning,
                ..Capabilities::all(self.terminal)
            },
            from_beginning: self.from_beginning,
            follow: !self.no_follow,
            terminal: (!self.plain && on_terminal)
                .then_some(crate::client::stdout_size as fn() -> Size),
            approve: self.approve,
        };
        let remote = self.server.remote();
        let runtime = client_runtime()?;
        match colours {
            true => runtime.block_on(tail::tail(&remote, options, &mut std::io::stdout())),
            false => {
                let mut out = crate::client::uncoloured::Uncoloured::new(std::io::stdout());
                runtime.block_on(tail::tail(&remote, options, &mut out))
            }
        }
    }
}

impl PublishArgs {
    /// `toolview publish`: events from stdin, acks to stdout.
    pub fn run(self) -> anyhow::Result<()> {
        let runtime = client_runtime()?;
        let published = runtime.block_on(client::publish(
            &self.server.remote(),
            &self.session,
            tokio::io::stdin(),
            &mut std::io::stdout(),
        ));
        // Stdin is read on a blocking thread, which may still wait for a line the writer never
        // sends (after a refusal): do not wait for it.
        runtime.shutdown_background();
        published
    }
}

impl TokenArgs {
    /// `toolview token`: prints a minted token.
    pub fn run(self) -> anyhow::Result<()> {
        let token = crate::auth::mint(&crate::auth::MintRequest {
            secret: crate::auth::read_secret(&self.secret_file)?,
            grants: self.grants,
            ttl: self.ttl,
            audience: self.aud,
            issuer: self.iss,
            subject: self.sub,
        })?;
        println!("{token}");
        Ok(())
    }
}

impl HealthArgs {
    /// `toolview health`: prints the answer; exits 1 when the server does not serve.
    pub fn run(self) -> anyhow::Result<()> {
        let timeout = std::time::Duration::from_millis(self.timeout_ms);
        let url = self.server.unwrap_or_else(|| {
            let var = |name| std::env::var(name).ok();
            health_url(
                var("TOOLVIEW_METRICS_LISTEN").as_deref(),
                var("TOOLVIEW_LISTEN").as_deref(),
            )
        });
        let remote = Remote {
            url: url.clone(),
            token: None,
            tls_ca: self.tls_ca,
            tls_identity: None,
        };
        let mut out = std::io::stdout();
        let check = client::health(&remote, &self.service, &mut out);
        let serving = client_runtime()?
            .block_on(async { tokio::time::timeout(timeout, check).await })
            .map_err(|_| anyhow::anyhow!("no answer from {url} within {timeout:?}"))??;
        if !serving {
            std::process::exit(1);
        }
        Ok(())
    }
}

/// `toolview approve`'s exit status when another decision came first.
const EXIT_DECIDED_BEFORE: i32 = 3;

impl ApproveArgs {
    /// `toolview approve`: the decision to stdout; exits 3 when this answer did not decide.
    pub fn run(self) -> anyhow::Result<()> {
        let answer = client::Answer {
            session: &self.session,
            request: &self.request,
            option: &self.option,
            reason: &self.reason,
            via: "cli",
        };
        let remote = self.server.remote();
        let won =
            client_runtime()?.block_on(client::approve(&remote, answer, &mut std::io::stdout()))?;
        if !won {
            std::process::exit(EXIT_DECIDED_BEFORE);
        }
        Ok(())
    }
}

impl SessionsArgs {
    /// `toolview sessions`: a table, or JSON lines.
    pub fn run(self) -> anyhow::Result<()> {
        let listing = client::Listing {
            states: self.states.iter().map(|s| s.to_pb()).collect(),
            json: self.json,
            watch: self.watch,
            approve: self.approve,
        };
        let remote = self.server.remote();
        let mut out = std::io::stdout().lock();
        let runtime = client_runtime()?;
        if listing.watch {
            runtime.block_on(client::watch_sessions(&remote, &listing, &mut out))
        } else {
            runtime.block_on(client::list_sessions(&remote, &listing, &mut out))
        }
    }
}

impl StateArg {
    fn to_pb(self) -> crate::grpc::pb::SessionState {
        use crate::grpc::pb::SessionState as S;
        match self {
            StateArg::RequiresAction => S::RequiresAction,
            StateArg::Running => S::Running,
            StateArg::Failed => S::Failed,
            StateArg::Idle => S::Idle,
            StateArg::Ended => S::Ended,
        }
    }
}

impl AcpArgs {
    /// `toolview acp`: an ACP agent on stdin and stdout.
    pub fn run(self) -> anyhow::Result<()> {
        client_runtime()?.block_on(acp::serve_stdio(acp::AgentOptions {
            remote: self.server.remote(),
            session: self.session,
            live_only: self.live_only,
            reasoning: self.reasoning,
            input_throttle: std::time::Duration::from_millis(self.input_throttle_ms),
        }))
    }
}

impl McpArgs {
    /// `toolview mcp`: an MCP server on stdin and stdout.
    pub fn run(self) -> anyhow::Result<()> {
        client_runtime()?.block_on(client::serve_mcp(self.server.remote()))
    }
}

impl RenderArgs {
    /// `toolview render`: events from stdin, rendered to stdout, no server.
    pub fn run(self) -> anyhow::Result<()> {
        client::render_offline(
            self.target.into(),
            Capabilities {
                reasoning: self.reasoning,
                ..Capabilities::all(self.terminal)
            },
            std::io::stdin().lock(),
            &mut std::io::stdout().lock(),
        )
    }
}

impl PresentArgs {
    /// `toolview present`: the view JSON of one call to stdout.
    pub fn run(self) -> anyhow::Result<()> {
        present_command(
            &self.tool,
            &self.args,
            self.result.as_deref(),
            &mut std::io::stdout().lock(),
        )
    }
}

/// `--result` JSON.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ResultArg {
    #[serde(default)]
    content: Vec<ContentBlock>,
    #[serde(default)]
    is_error: bool,
    #[serde(default)]
    meta: Option<serde_json::Value>,
}

/// `toolview present`: writes JSON lines to `out`.
fn present_command(
    tool: &str,
    args: &str,
    result: Option<&str>,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    let result: Option<ResultArg> = result
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--result: {e}"))?;
    let result = result.map(|r| FinishedInput {
        content: r.content,
        is_error: r.is_error,
        meta: r.meta.filter(|m| !m.is_null()),
        view: None,
    });
    let (call, result) = present::present(tool, args, None, result.as_ref());
    writeln!(out, "{}", serde_json::to_string(&call)?)?;
    if let Some(r) = result {
        writeln!(out, "{}", serde_json::to_string(&r)?)?;
    }
    out.flush()?;
    Ok(())
}
