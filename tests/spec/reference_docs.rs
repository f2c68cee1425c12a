//! Reference pages checked against the code: the flag table of `docs/operations.md` is generated
//! from the CLI's own definitions (clap), and every repository path `ARCHITECTURE.md` names
//! exists. `TOOLVIEW_WRITE_DOCS=1 cargo test --test spec reference_docs` rewrites the table after
//! a flag changes.

use std::path::Path;

use clap::CommandFactory as _;
use toolview::app::cli::Cli;

const OPERATIONS: &str = "docs/operations.md";
const BEGIN: &str = "<!-- flags: generated from `toolview serve`'s definitions (src/app/config.rs, \
                     src/app/nats.rs) by tests/spec/reference_docs.rs; run \
                     `TOOLVIEW_WRITE_DOCS=1 cargo test --test spec reference_docs` -->";
const END: &str = "<!-- /flags -->";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A Markdown table cell: pipes escaped, lines joined.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// One row per flag of `toolview serve`, in the order `--help` lists them.
fn flag_table() -> String {
    let mut cli = Cli::command();
    // Built, as for parsing: each argument's value count and names are settled then.
    cli.build();
    let serve = cli.find_subcommand("serve").expect("the serve subcommand");
    let mut out =
        String::from("| flag | variable | default | what it does |\n| --- | --- | --- | --- |\n");
    for arg in serve.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if matches!(long, "help" | "version") {
            continue;
        }
        let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
        let value = if !takes_value {
            String::new()
        } else if !arg.get_possible_values().is_empty() {
            let names: Vec<_> = arg
                .get_possible_values()
                .iter()
                .map(|v| v.get_name().to_owned())
                .collect();
            format!(" {}", names.join("\\|"))
        } else {
            let names: Vec<_> = arg
                .get_value_names()
                .unwrap_or_default()
                .iter()
                .map(ToString::to_string)
                .collect();
            let name = names
                .first()
                .cloned()
                .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
            format!(" {name}")
        };
        let env = arg
            .get_env()
            .map(|e| format!("`{}`", e.to_string_lossy()))
            .unwrap_or_else(|| "—".into());
        let defaults: Vec<_> = arg
            .get_default_values()
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
        let default = if defaults.is_empty() {
            "—".to_owned()
        } else {
            format!("`{}`", defaults.join(","))
        };
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .map(ToString::to_string)
            .unwrap_or_default();
        out.push_str(&format!(
            "| `--{long}{value}` | {env} | {default} | {} |\n",
            cell(&help)
        ));
    }
    out
}

#[test]
fn the_flag_table_is_the_clis() {
    let path = root().join(OPERATIONS);
    let page = std::fs::read_to_string(&path).unwrap();
    let (Some(start), Some(end)) = (page.find(BEGIN), page.find(END)) else {
        panic!("{OPERATIONS} lacks the markers:\n{BEGIN}\n…\n{END}");
    };
    let want = format!("{BEGIN}\n\n{}\n{END}", flag_table());
    let have = &page[start..end + END.len()];
    if have != want {
        if std::env::var_os("TOOLVIEW_WRITE_DOCS").is_some() {
            let page = format!("{}{want}{}", &page[..start], &page[end + END.len()..]);
            std::fs::write(&path, page).unwrap();
        } else {
            panic!(
                "{OPERATIONS}'s flag table is not the CLI's (a flag was added, renamed or its \
                 help changed): run `TOOLVIEW_WRITE_DOCS=1 cargo test --test spec reference_docs` \
                 and commit the page"
            );
        }
    }
}

/// The backticked names in ARCHITECTURE.md that are files or folders: a name of path
/// characters ending in a known extension or `/` (`src/session/`, `fold/state.rs`, `cap.rs`).
fn named_paths(text: &str) -> Vec<&str> {
    const EXTENSIONS: &[&str] = &[
        ".rs", ".md", ".ts", ".mjs", ".sh", ".json", ".html", ".css", ".js", ".proto", ".py",
    ];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| {
            t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        })
        .filter(|t| !t.starts_with(['/', '.']) || t.starts_with(".ci/"))
        .filter(|t| t.ends_with('/') || EXTENSIONS.iter().any(|e| t.ends_with(e)))
        // The shared spec and schema live beside the repository, not in it.
        .filter(|t| !t.starts_with("shared/"))
        .collect()
}

/// Every file of the repository (tracked, or new and not ignored), from its root.
fn tracked_files() -> Vec<String> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .current_dir(root())
        .output()
        .expect("git runs");
    // On disk: a file renamed but not yet committed is no longer there.
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| root().join(l).exists())
        .map(|l| format!("/{l}"))
        .collect()
}

/// A name exists when it is a path from the root, or the end of a tracked path (the map names
/// files inside the module it is describing: `fold/state.rs` under `src/render/`).
#[test]
fn every_path_architecture_names_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let names = named_paths(&text);
    assert!(names.len() > 50, "the map names its files: {names:?}");
    let files = tracked_files();
    let exists = |name: &&str| {
        let suffix = format!("/{name}");
        root().join(name).exists()
            || files.iter().any(|f| {
                if name.ends_with('/') {
                    f.contains(&suffix)
                } else {
                    f.ends_with(&suffix)
                }
            })
    };
    let missing: Vec<_> = names.iter().filter(|n| !exists(n)).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist (renamed or moved? update the map): {missing:?}"
    );
}
