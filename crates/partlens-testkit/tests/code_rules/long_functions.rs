//! No library function is longer than [`MAX_LINES`] lines unless a comment right above it says
//! why (a line comment starting `// Long:` among its doc comment and attributes).
//!
//! Library code is every `src/` of the workspace (the crates' and the root package's), less test
//! code: files named `tests.rs` or `*_tests.rs`, and items under `#[cfg(test)]`. Functions are
//! found on a copy of each file with its comments, strings and character literals blanked, so
//! that braces inside them do not count; a function runs from its `fn` line to the line of the
//! brace that closes its body.

use std::path::{Path, PathBuf};

use super::workspace_root;

/// The most lines a library function may have without a comment that says why.
const MAX_LINES: usize = 120;

/// The marker of the comment that says why a function is longer.
const WHY_MARKER: &str = "// Long:";

/// The `.rs` files under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}

/// Whether a file holds test code only.
fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The source with comments, string literals (plain, byte and raw) and character literals replaced
/// by spaces, line breaks kept, so that line numbers and code braces stay where they were.
fn blank_non_code(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, span: &[char]| {
        out.extend(span.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let after_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let end = if rest.starts_with(&['/', '/']) {
            rest.iter().position(|&c| c == '\n').unwrap_or(rest.len())
        } else if rest.starts_with(&['/', '*']) {
            block_comment_len(rest)
        } else if !after_word && let Some(len) = raw_string_len(rest) {
            len
        } else if rest[0] == '"' || (!after_word && rest.starts_with(&['b', '"'])) {
            let open = if rest[0] == 'b' { 2 } else { 1 };
            quoted_len(rest, open, '"')
        } else if rest[0] == '\'' {
            char_literal_len(rest).unwrap_or(0)
        } else {
            0
        };
        if end == 0 {
            out.push(rest[0]);
            i += 1;
        } else {
            blank(&mut out, &rest[..end]);
            i += end;
        }
    }
    out
}

/// The length of a (nested) block comment at the start of `rest`.
fn block_comment_len(rest: &[char]) -> usize {
    let mut depth = 0;
    let mut i = 0;
    while i < rest.len() {
        if rest[i..].starts_with(&['/', '*']) {
            depth += 1;
            i += 2;
        } else if rest[i..].starts_with(&['*', '/']) {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    rest.len()
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br#"…"#`) at the start of `rest`.
fn raw_string_len(rest: &[char]) -> Option<usize> {
    let start = match rest {
        ['b', 'r', ..] => 2,
        ['r', ..] => 1,
        _ => return None,
    };
    let hashes = rest[start..].iter().take_while(|&&c| c == '#').count();
    if rest.get(start + hashes) != Some(&'"') {
        return None;
    }
    let body = start + hashes + 1;
    let closing: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    let close = (body..rest.len()).find(|&i| rest[i..].starts_with(&closing));
    Some(close.map_or(rest.len(), |i| i + closing.len()))
}

/// The length of a literal that opens with `open` characters and ends at an unescaped `quote`.
fn quoted_len(rest: &[char], open: usize, quote: char) -> usize {
    let mut i = open;
    while i < rest.len() {
        match rest[i] {
            '\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    rest.len()
}

/// The length of a character literal at the start of `rest` (`'x'`, `'\n'`, `'\u{1F600}'`), or
/// `None` for a lifetime or label.
fn char_literal_len(rest: &[char]) -> Option<usize> {
    match rest {
        ['\'', '\\', ..] => {
            let close = rest[2..].iter().position(|&c| c == '\'')?;
            (close <= 10).then_some(close + 3)
        }
        ['\'', c, '\'', ..] if *c != '\'' => Some(3),
        _ => None,
    }
}

/// The name of the function a (blanked) line declares, if it does.
fn declared_function(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after.trim_start();
        if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start();
        }
    }
    for qualifier in ["const", "async", "unsafe", "extern"] {
        if let Some(after) = rest.strip_prefix(qualifier)
            && after.starts_with(char::is_whitespace)
        {
            rest = after.trim_start();
        }
    }
    let after = rest.strip_prefix("fn")?;
    if !after.starts_with(char::is_whitespace) {
        return None;
    }
    let name = after.trim_start();
    let len = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    (len > 0).then(|| &name[..len])
}

/// The index of the line that closes the item opening at `start` (its body's closing brace, or
/// the line ending it with `;` when it has no body), or `None` when it has no body.
fn item_end(lines: &[&str], start: usize) -> Option<usize> {
    let mut depth = 0_i64;
    let mut opened = false;
    for (index, line) in lines.iter().enumerate().skip(start) {
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                ';' if !opened => return None,
                _ => {}
            }
            if opened && depth == 0 {
                return Some(index);
            }
        }
    }
    None
}

/// Whether the lines just above `fn_line` (doc comments, attributes, line comments) hold the
/// marker that says why the function is long. Read on the original source, comments kept.
fn says_why(original: &[&str], fn_line: usize) -> bool {
    original[..fn_line]
        .iter()
        .rev()
        .map(|line| line.trim_start())
        .take_while(|line| line.starts_with("//") || line.starts_with("#["))
        .any(|line| line.starts_with(WHY_MARKER))
}

/// The functions of one file over [`MAX_LINES`] lines without a comment that says why, as
/// `path:line name (N lines)`.
fn long_functions_in(path: &Path, relative: &str) -> Vec<String> {
    let Ok(source) = std::fs::read_to_string(path) else {
        return vec![format!("{relative}: could not be read")];
    };
    let blanked = blank_non_code(&source);
    let lines: Vec<&str> = blanked.lines().collect();
    let original: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].trim_start();
        if line.starts_with("#[cfg(test)]") {
            // Skip the test item that follows (a module or a function).
            index = item_end(&lines, index + 1).unwrap_or(index) + 1;
            continue;
        }
        if let Some(name) = declared_function(lines[index])
            && let Some(end) = item_end(&lines, index)
        {
            let length = end - index + 1;
            if length > MAX_LINES && !says_why(&original, index) {
                found.push(format!("{relative}:{} {name} ({length} lines)", index + 1));
            }
        }
        index += 1;
    }
    found
}

#[test]
fn no_library_function_is_long_without_saying_why() {
    let root = workspace_root();
    let mut source_dirs = vec![root.join("src")];
    let crates = std::fs::read_dir(root.join("crates")).expect("the workspace has crates/");
    source_dirs.extend(crates.flatten().map(|entry| entry.path().join("src")));
    let mut files = Vec::new();
    for dir in &source_dirs {
        rust_files(dir, &mut files);
    }
    assert!(
        files.len() > 300,
        "only {} source files found under {}: the scan is looking in the wrong place",
        files.len(),
        root.display()
    );
    let long: Vec<String> = files
        .iter()
        .filter(|path| !is_test_file(path))
        .flat_map(|path| {
            let relative = path
                .strip_prefix(&root)
                .unwrap_or(path)
                .display()
                .to_string();
            long_functions_in(path, &relative)
        })
        .collect();
    assert!(
        long.is_empty(),
        "library functions over {MAX_LINES} lines without a `{WHY_MARKER}` comment above them; \
         split them into named steps or say why:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_scan_measures_a_function_through_braces_in_strings_and_comments() {
    let source = "/// Doc.\npub(crate) async fn sample<'a>(x: &'a str) -> char {\n    let s = \"}}}\";\n    \
                  // } in a comment\n    let r = r#\"{\"#;\n    let c = '}';\n    '{'\n}\n\n#[cfg(test)]\n\
                  mod tests {\n    fn inside() {}\n}\n";
    let blanked = blank_non_code(source);
    let lines: Vec<&str> = blanked.lines().collect();
    assert_eq!(declared_function(lines[1]), Some("sample"));
    assert_eq!(item_end(&lines, 1), Some(7), "blanked:\n{blanked}");
    assert_eq!(declared_function("    fn_like();"), None);
    assert_eq!(
        declared_function("    pub const fn size() -> usize {"),
        Some("size")
    );
    let original: Vec<&str> = "// Long: one match arm an operator.\n#[allow(x)]\nfn f() {"
        .lines()
        .collect();
    assert!(says_why(&original, 2));
    assert!(!says_why(&original[1..], 1));
}
