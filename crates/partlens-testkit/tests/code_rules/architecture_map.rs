//! The file map in docs/ARCHITECTURE.md ("## File map") names every file of every crate's `src/`
//! (and the root package's `src/`), and only files that exist.
//!
//! The map is parsed simply: inside the "## File map" section (up to the next "## " heading), a
//! `### ` heading whose first backtick-quoted text is a crate root (`crates/partlens-x` or `.` for
//! the root package) sets the crate the following rows belong to; a table row whose first cell is
//! a backtick-quoted path (`| \`src/lib.rs\` | what it holds |`) names that file relative to the
//! crate root. Several headings may name the same crate (subsections such as the service's
//! `store/`).

use std::collections::BTreeSet;
use std::path::Path;

use super::workspace_root;

/// The first backtick-quoted text of a line, if any.
fn first_quoted(line: &str) -> Option<&str> {
    let start = line.find('`')? + 1;
    let len = line[start..].find('`')?;
    Some(&line[start..start + len])
}

/// The files the map names, as paths relative to the workspace root.
fn mapped_files(architecture: &str) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    let mut in_map = false;
    let mut crate_root: Option<String> = None;
    for line in architecture.lines() {
        if line.starts_with("## ") {
            in_map = line.trim() == "## File map";
            crate_root = None;
            continue;
        }
        if !in_map {
            continue;
        }
        if line.starts_with("### ") {
            crate_root = first_quoted(line).map(str::to_owned);
            continue;
        }
        let Some(root) = &crate_root else { continue };
        let Some(cell) = line.trim_start().strip_prefix('|') else {
            continue;
        };
        let first_cell = cell.split('|').next().unwrap_or_default().trim();
        if let Some(path) = first_cell
            .strip_prefix('`')
            .and_then(|rest| rest.strip_suffix('`'))
        {
            files.insert(join(root, path));
        }
    }
    files
}

/// A crate root and a path inside it, as one workspace-relative path.
fn join(root: &str, path: &str) -> String {
    if root == "." {
        path.to_owned()
    } else {
        format!("{}/{path}", root.trim_end_matches('/'))
    }
}

/// Every file under `dir`, as paths relative to the workspace root, into `out`.
fn walk(workspace: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(workspace, &path, out);
        } else if let Ok(relative) = path.strip_prefix(workspace) {
            out.insert(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// Every file of the root package's `src/` and of each `crates/*/src/`.
fn source_files(workspace: &Path) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    walk(workspace, &workspace.join("src"), &mut files);
    if let Ok(crates) = std::fs::read_dir(workspace.join("crates")) {
        for krate in crates.flatten() {
            walk(workspace, &krate.path().join("src"), &mut files);
        }
    }
    files
}

#[test]
fn the_file_map_names_every_source_file_and_only_files_that_exist() {
    let workspace = workspace_root();
    let architecture = std::fs::read_to_string(workspace.join("docs/ARCHITECTURE.md"))
        .unwrap_or_else(|error| panic!("docs/ARCHITECTURE.md cannot be read: {error}"));
    let mapped = mapped_files(&architecture);
    assert!(
        !mapped.is_empty(),
        "docs/ARCHITECTURE.md has no \"## File map\" section with rows"
    );
    let sources = source_files(&workspace);
    assert!(
        !sources.is_empty(),
        "no source files found under src/ or crates/*/src/"
    );

    let missing: Vec<&String> = sources.difference(&mapped).collect();
    let stale: Vec<&String> = mapped
        .iter()
        .filter(|path| !workspace.join(path).is_file())
        .collect();
    let mut message = String::new();
    if !missing.is_empty() {
        message.push_str("rows to add to the file map of docs/ARCHITECTURE.md:\n");
        for path in &missing {
            message.push_str(&format!("  {path}\n"));
        }
    }
    if !stale.is_empty() {
        message.push_str("rows to remove (the file no longer exists):\n");
        for path in &stale {
            message.push_str(&format!("  {path}\n"));
        }
    }
    assert!(message.is_empty(), "{message}");
}

#[test]
fn the_parser_reads_crate_headings_and_path_rows() {
    let map = "## File map\n### `crates/partlens-x` — store/\n| File | What |\n|---|---|\n\
               | `src/store/mod.rs` | the store |\n### `.` (the app)\n| `src/main.rs` | main |\n\
               ## Next\n| `src/ignored.rs` | outside the map |\n";
    let mapped = mapped_files(map);
    let expected: BTreeSet<String> = ["crates/partlens-x/src/store/mod.rs", "src/main.rs"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(mapped, expected);
}
