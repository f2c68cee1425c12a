//! Language hints from file names.

/// The language hint for a path: from the extension of its last component (components are
/// separated by `/` or `\`), case-insensitively. Dotfiles without another `.` have none.
pub fn lang_for_path(path: &str) -> Option<&'static str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() {
        // `.bashrc`: the only dot starts the name.
        return None;
    }
    let lang = match ext.to_ascii_lowercase().as_str() {
        "ts" | "mts" | "cts" => "ts",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" => "js",
        "jsx" => "jsx",
        "json" | "jsonc" => "json",
        "py" => "py",
        "rb" => "rb",
        "go" => "go",
        "rs" => "rs",
        "java" => "java",
        "c" | "h" => "c",
        "cc" | "cpp" | "hpp" | "cxx" => "cpp",
        "cs" => "cs",
        "kt" => "kotlin",
        "swift" => "swift",
        "php" => "php",
        "sh" | "bash" | "zsh" => "sh",
        "yaml" | "yml" => "yaml",
        "toml" => "toml",
        "ini" => "ini",
        "md" | "markdown" => "md",
        "mdx" => "mdx",
        "html" | "htm" => "html",
        "css" => "css",
        "scss" => "scss",
        "less" => "less",
        "sql" => "sql",
        "xml" => "xml",
        "lua" => "lua",
        _ => return None,
    };
    Some(lang)
}

#[cfg(test)]
mod tests {
    use super::lang_for_path;

    #[test]
    fn extension_table() {
        let cases = [
            ("src/a.ts", Some("ts")),
            ("A.MTS", Some("ts")),
            ("x/.bashrc", None),
            (".eslintrc.json", Some("json")),
            ("C:\\w\\main.RS", Some("rs")),
            ("dir.d/file", None),
            ("Makefile", None),
            ("a.kt", Some("kotlin")),
            ("a.hpp", Some("cpp")),
            ("a.", None),
            ("notes.txt", None),
        ];
        for (path, want) in cases {
            assert_eq!(lang_for_path(path), want, "{path}");
        }
    }
}
