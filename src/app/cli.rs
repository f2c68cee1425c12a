//! The command line: every command and its arguments (`commands.rs` runs them).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

use super::ServeConfig;
use super::config::DEFAULT_JWT_AUDIENCE;
use crate::auth::{self, GrantClaim};
use crate::client::Remote;

/// toolview: presentation for AI-agent tool calls.
#[derive(Debug, Parser)]
#[command(version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gRPC service.
    Serve(Box<ServeConfig>),
    /// Print the view JSON the presenters make for one call: the call view on one line, then the
    /// result view (with --result) on the next.
    Present(PresentArgs),
    /// Follow a session live, rendered for a terminal (ANSI) or another target.
    Tail(TailArgs),
    /// Publish `ToolEvent` JSON lines from stdin (protobuf JSON mapping) and print the acks.
    Publish(PublishArgs),
    /// Mint an HS256 token (for development and tests; production tokens come from an identity
    /// provider, checked with --jwt-jwks-file) and print it.
    Token(TokenArgs),
    /// Ask a server whether it serves: prints SERVING or NOT_SERVING and exits 0 only when
    /// serving (a container's HEALTHCHECK; images have no shell tools).
    Health(HealthArgs),
    /// An Agent Client Protocol agent over stdio, for editors (Zed's custom agents): shows a
    /// session's tool calls live in the editor's agent panel.
    Acp(AcpArgs),
    /// An MCP server over stdio, for chat apps and editors (Claude, ChatGPT, VS Code): lists
    /// sessions and shows one live as an MCP App, or as Markdown where apps are not shown.
    Mcp(McpArgs),
    /// Render `ToolEvent` JSON lines from stdin offline, with no server.
    Render(RenderArgs),
    /// Answer a permission request (the `approve` right): prints `{"won", "resolution"}` and
    /// exits 0 when this answer decided it, 3 when another decision came first (an answer, the
    /// expiry or a withdrawal).
    Approve(ApproveArgs),
    /// List the sessions the token may read, each with its state (`requires_action`,
    /// `running`, `failed`, `idle`, `ended`) and what it does now or waits for.
    Sessions(SessionsArgs),
    /// Print a new webhook signing secret (`whsec_` then 32 random bytes in base64, as
    /// Standard Webhooks writes one), for --webhook-secret-file and the receiver.
    WebhookSecret,
}

/// The arguments of `toolview sessions`.
#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    /// Only sessions in this state (repeatable).
    #[arg(long = "state", value_enum)]
    pub states: Vec<StateArg>,
    /// One JSON line per session (the protobuf JSON of `GetSessionResponse`) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Stay and follow the fleet live: a terminal's table is drawn again at each change (sessions
    /// waiting on a person first); piped, each change is one more line.
    #[arg(long)]
    pub watch: bool,
    /// With --watch: keys 1 to 9 answer the oldest prompt waiting with its option of that number
    /// (the token needs `approve`).
    #[arg(long, requires = "watch")]
    pub approve: bool,
    /// The server to ask.
    #[command(flatten)]
    pub server: ServerArg,
}

/// A session state, as `--state` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum StateArg {
    /// A permission request is pending.
    RequiresAction,
    /// A turn or a call is open.
    Running,
    /// The last turn stopped short.
    Failed,
    /// Nothing open or pending.
    Idle,
    /// The harness closed the session.
    Ended,
}

/// The arguments of `toolview approve`.
#[derive(Debug, clap::Args)]
pub struct ApproveArgs {
    /// The session.
    #[arg(long)]
    pub session: String,
    /// The permission request.
    #[arg(long)]
    pub request: String,
    /// The option chosen (one of the request's: `allow`, `reject`, …).
    #[arg(long)]
    pub option: String,
    /// Why (kept with the decision, shown to everyone).
    #[arg(long, default_value = "")]
    pub reason: String,
    /// The server to answer.
    #[command(flatten)]
    pub server: ServerArg,
}

/// The arguments of `toolview present`.
#[derive(Debug, clap::Args)]
pub struct PresentArgs {
    /// The tool name, e.g. `edit` or `Bash`.
    #[arg(long)]
    pub tool: String,
    /// The raw argument text (any text; invalid JSON is shown as a string).
    #[arg(long, default_value = "")]
    pub args: String,
    /// The result: `{"content":[…],"isError":bool,"meta":…}`.
    #[arg(long)]
    pub result: Option<String>,
}

/// The arguments of `toolview tail`.
#[derive(Debug, clap::Args)]
pub struct TailArgs {
    /// The session id.
    #[arg(long)]
    pub session: String,
    /// The server to follow.
    #[command(flatten)]
    pub server: ServerArg,
    /// The rendering target.
    #[arg(long, value_enum, default_value = "ansi")]
    pub target: TargetArg,
    /// Render as for a client that shows terminals (ACP, AG-UI and VIEW; ANSI and Markdown
    /// always show a command as a terminal).
    #[arg(long)]
    pub terminal: bool,
    /// Replay the session from its start instead of only new events.
    #[arg(long)]
    pub from_beginning: bool,
    /// Print what the session holds now, from its start, and exit (nothing for a session
    /// that does not exist).
    #[arg(long)]
    pub no_follow: bool,
    /// Keep the colours a tool printed in its terminal output (SGR sequences only; every
    /// other escape sequence is still shown as text). The default when stdout is a terminal.
    #[arg(long, overrides_with = "no_tool_colors")]
    pub tool_colors: bool,
    /// Show a tool's output without its colours, on a terminal too.
    #[arg(long, overrides_with = "tool_colors")]
    pub no_tool_colors: bool,
    /// On a terminal too, print as for a pipe: live output lines as they arrive and each card
    /// once when it finishes, with no redrawing in place.
    #[arg(long)]
    pub plain: bool,
    /// Show the agent's reasoning messages (left out unless asked for).
    #[arg(long)]
    pub reasoning: bool,
    /// Answer the session's permission requests: a pending one is answered with a key per
    /// option (1–9, no Enter); the token needs the `approve` right.
    #[arg(long)]
    pub approve: bool,
    /// Colours in the ANSI drawing: `auto` when stdout is a terminal and `NO_COLOR` is unset
    /// or empty, `always` (for `less -R`), or `never`.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
}

/// When `toolview tail` colours its drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    /// On a terminal, unless `NO_COLOR` says no (<https://no-color.org>).
    Auto,
    /// Always, to a pipe too.
    Always,
    /// Never.
    Never,
}

impl ColorArg {
    /// Whether to colour, for stdout on a terminal or not and `NO_COLOR`'s value.
    pub fn colours(self, on_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
        match self {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => on_terminal && no_color.is_none_or(std::ffi::OsStr::is_empty),
        }
    }
}

/// The arguments of `toolview publish`.
#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    /// The session the events go to (it replaces each event's `sessionId`).
    #[arg(long)]
    pub session: String,
    /// The server to read from.
    #[command(flatten)]
    pub server: ServerArg,
}

/// The arguments of `toolview token`.
#[derive(Debug, clap::Args)]
pub struct TokenArgs {
    /// The file with the server's --jwt-secret-file secret.
    #[arg(long, env = "TOOLVIEW_JWT_SECRET_FILE")]
    pub secret_file: PathBuf,
    /// RIGHTS:GLOB, e.g. `publish,subscribe:team-a/*` (rights: publish, subscribe, read,
    /// approve);
    /// repeat for more.
    #[arg(long = "grant", required = true, value_parser = auth::parse_grant)]
    pub grants: Vec<GrantClaim>,
    /// How long the token is valid: a number and s, m, h or d.
    #[arg(long, default_value = "1h", value_parser = auth::parse_ttl)]
    pub ttl: Duration,
    /// The audience (`aud`); the server's --jwt-audience.
    #[arg(long, default_value = DEFAULT_JWT_AUDIENCE)]
    pub aud: String,
    /// The issuer (`iss`), if the server checks one.
    #[arg(long)]
    pub iss: Option<String>,
    /// The subject (`sub`), shown in the server's logs.
    #[arg(long)]
    pub sub: Option<String>,
}

/// The arguments of `toolview health`.
#[derive(Debug, clap::Args)]
pub struct HealthArgs {
    /// The server's URL. By default, the server this environment configures: its admin
    /// listener (`TOOLVIEW_METRICS_LISTEN`, plaintext), else `TOOLVIEW_LISTEN`, else
    /// `http://127.0.0.1:50051`; an unspecified address (`0.0.0.0`, `::`) means loopback.
    #[arg(long = "server", env = "TOOLVIEW_SERVER", value_parser = server_url)]
    pub server: Option<String>,
    /// The CA certificate (PEM) an https:// server's certificate must chain to.
    #[arg(long, env = "TOOLVIEW_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// The service asked about: the session service (`NOT_SERVING` while the store cannot
    /// write, and from the start of a shutdown), or `""` for the server as a whole.
    #[arg(long, default_value = "toolview.v1.SessionService")]
    pub service: String,
    /// Give up (and fail) after this many milliseconds.
    #[arg(long, default_value_t = DEFAULT_HEALTH_TIMEOUT_MS)]
    pub timeout_ms: u64,
}

/// The arguments of `toolview acp`.
#[derive(Debug, clap::Args)]
pub struct AcpArgs {
    /// The server to connect to.
    #[command(flatten)]
    pub server: ServerArg,
    /// The session a new thread (`session/new`) shows; without it, the editor loads
    /// sessions by id (`session/load`).
    #[arg(long)]
    pub session: Option<String>,
    /// A new thread starts live (calls in flight first) instead of replaying the session.
    #[arg(long)]
    pub live_only: bool,
    /// Show the agent's reasoning as thought chunks (left out unless asked for).
    #[arg(long)]
    pub reasoning: bool,
    /// While a call's input streams, send the editor at most one `rawInput` replacement per
    /// call per this many milliseconds, the latest winning (0: every one the server sends).
    #[arg(long, env = "TOOLVIEW_ACP_INPUT_THROTTLE_MS", default_value_t = crate::client::DEFAULT_INPUT_THROTTLE_MS)]
    pub input_throttle_ms: u64,
}

/// The arguments of `toolview mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The server to connect to (the MCP server acts with its token, never more).
    #[command(flatten)]
    pub server: ServerArg,
}

/// The arguments of `toolview render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The rendering target.
    #[arg(long, value_enum)]
    pub target: TargetArg,
    /// Render as for a client that shows terminals.
    #[arg(long)]
    pub terminal: bool,
    /// Show the agent's reasoning messages (left out unless asked for).
    #[arg(long)]
    pub reasoning: bool,
}

/// A probe answers within a container runtime's or Kubernetes' default probe timeout (1 s is
/// Kubernetes' default, but a starting server on a busy node may need more).
pub const DEFAULT_HEALTH_TIMEOUT_MS: u64 = 5_000;

/// Where `toolview health` asks by default (see its `--server`), from the `serve` settings in
/// the environment, so a container's HEALTHCHECK follows the listeners it configures.
pub fn health_url(metrics_listen: Option<&str>, listen: Option<&str>) -> String {
    let local = |addr: std::net::SocketAddr| {
        let ip = match addr.ip() {
            std::net::IpAddr::V4(ip) if ip.is_unspecified() => std::net::Ipv4Addr::LOCALHOST.into(),
            std::net::IpAddr::V6(ip) if ip.is_unspecified() => std::net::Ipv6Addr::LOCALHOST.into(),
            ip => ip,
        };
        format!("http://{}", std::net::SocketAddr::new(ip, addr.port()))
    };
    metrics_listen
        .or(listen)
        .and_then(|a| a.parse().ok())
        .map_or_else(|| "http://127.0.0.1:50051".to_owned(), local)
}

/// A `--server`: a URL (`http://…`, or `https://…` for TLS), or `host:port`, which means
/// `http://host:port` (what the docs and the client libraries take too). Any other scheme is an
/// error naming it, not a connection that fails later.
fn server_url(s: &str) -> Result<String, String> {
    match s.split_once("://") {
        Some(("http" | "https", rest)) if !rest.is_empty() => Ok(s.to_owned()),
        Some((scheme, _)) => Err(format!(
            "{s:?}: the server is http://HOST:PORT, https://HOST:PORT (TLS) or HOST:PORT, \
             not {scheme:?}"
        )),
        None if s.is_empty() || s.contains(['/', '?', '#', ' ']) => Err(format!(
            "{s:?}: the server is http://HOST:PORT, https://HOST:PORT (TLS) or HOST:PORT"
        )),
        None => Ok(format!("http://{s}")),
    }
}

/// Where and how the client commands connect.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArg {
    /// The server: `http://host:port`, `https://host:port` for TLS, or `host:port` (plain HTTP).
    #[arg(
        long = "server",
        env = "TOOLVIEW_SERVER",
        default_value = "http://127.0.0.1:50051",
        value_parser = server_url
    )]
    pub url: String,
    /// The bearer token (JWT) for a server with --auth jwt.
    #[arg(long, env = "TOOLVIEW_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The CA certificate (PEM) an https:// server's certificate must chain to, instead of the
    /// system's roots.
    #[arg(long, env = "TOOLVIEW_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// A client certificate (PEM), for a server that requires one (--tls-client-ca).
    #[arg(long, env = "TOOLVIEW_TLS_CLIENT_CERT", requires = "tls_client_key")]
    pub tls_client_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(long, env = "TOOLVIEW_TLS_CLIENT_KEY", requires = "tls_client_cert")]
    pub tls_client_key: Option<PathBuf>,
}

impl ServerArg {
    /// The connection settings.
    pub fn remote(&self) -> Remote {
        Remote {
            url: self.url.clone(),
            token: self.token.clone(),
            tls_ca: self.tls_ca.clone(),
            tls_identity: self
                .tls_client_cert
                .clone()
                .zip(self.tls_client_key.clone()),
        }
    }
}

/// A rendering target on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetArg {
    /// ANSI text for a terminal.
    Ansi,
    /// Markdown.
    Markdown,
    /// ACP `session/update` notifications (JSON lines).
    Acp,
    /// AG-UI events (JSON lines).
    AgUi,
    /// The AI SDK's UI message stream chunks (JSON lines).
    AiSdk,
    /// The structured card updates (JSON lines).
    View,
}

impl From<TargetArg> for crate::render::Target {
    fn from(t: TargetArg) -> Self {
        use crate::render::Target;
        match t {
            TargetArg::Ansi => Target::Ansi,
            TargetArg::Markdown => Target::Markdown,
            TargetArg::Acp => Target::Acp,
            TargetArg::AgUi => Target::AgUi,
            TargetArg::AiSdk => Target::AiSdk,
            TargetArg::View => Target::View,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{health_url, server_url};

    #[test]
    fn colours_follow_the_terminal_and_no_color() {
        use super::ColorArg::{Always, Auto, Never};
        let set = Some(std::ffi::OsStr::new("1"));
        let empty = Some(std::ffi::OsStr::new(""));
        assert!(Auto.colours(true, None) && Auto.colours(true, empty));
        assert!(!Auto.colours(true, set) && !Auto.colours(false, None));
        assert!(Always.colours(false, set) && !Never.colours(true, None));
    }

    #[test]
    fn a_server_is_a_url_or_host_and_port() {
        assert_eq!(
            server_url("127.0.0.1:50051").unwrap(),
            "http://127.0.0.1:50051"
        );
        assert_eq!(server_url("[::1]:50051").unwrap(), "http://[::1]:50051");
        assert_eq!(server_url("localhost").unwrap(), "http://localhost");
        for url in ["http://h:1", "https://toolview.example.com"] {
            assert_eq!(server_url(url).unwrap(), url);
        }
        for bad in ["grpc://h:1", "", "h:1/path", "http://"] {
            assert!(server_url(bad).is_err(), "{bad}");
        }
        assert!(server_url("ftp://h").unwrap_err().contains("\"ftp\""));
    }

    #[test]
    fn health_asks_the_admin_listener_first_on_loopback() {
        assert_eq!(
            health_url(Some("0.0.0.0:9090"), Some("0.0.0.0:50051")),
            "http://127.0.0.1:9090"
        );
        assert_eq!(health_url(None, Some("[::]:7000")), "http://[::1]:7000");
        assert_eq!(
            health_url(None, Some("10.0.0.5:7000")),
            "http://10.0.0.5:7000"
        );
        assert_eq!(health_url(None, None), "http://127.0.0.1:50051");
    }
}
