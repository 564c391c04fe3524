//! The installable pieces under `packaging/` agree with the programs they describe: every program
//! answers `--version`; the man pages name every command and option the programs accept (so a new
//! option cannot ship undocumented); the desktop entries, the AppStream metainfo, the icons and the
//! window all use one application id; the icons are the sizes their folders say; the Debian
//! package's asset list covers the desktop files; the systemd unit, its user and its data folder
//! fit together. The installed package itself is exercised by `.ci/package.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use partlens::desktop::{APP_ID, WINDOW_ICON_PNG};

/// The three programs the package installs. The app is this package's own; the command line and
/// the service are built beside it by `cargo test --workspace` (they are other crates' programs).
const PROGRAM_NAMES: [&str; 3] = ["partlens", "partlens-cli", "partlens-service"];

/// Each program with the path of its binary in this build.
fn programs() -> [(&'static str, String); 3] {
    PROGRAM_NAMES.map(|name| (name, partlens_testkit::program(name).display().to_string()))
}

/// The icon sizes the hicolor theme gets.
const ICON_SIZES: [u32; 9] = [16, 22, 24, 32, 48, 64, 128, 256, 512];

fn packaging_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("packaging")
        .join(relative)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Runs a program with arguments (and no display: `partlens` must answer without one) and returns
/// its standard output, failing the test when it does not exit 0.
fn output_of(program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap_or_else(|error| panic!("{program}: {error}"));
    assert!(
        output.status.success(),
        "{program} {args:?} exited with {}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The `Commands:` of a clap help text, without `help`.
fn subcommands_in_help(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every `--long-option` a help text mentions.
fn long_options_in(text: &str) -> BTreeSet<String> {
    let mut options = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(found) = text[start..].find("--") {
        let begin = start + found;
        let mut end = begin + 2;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'-') {
            end += 1;
        }
        if end > begin + 2 && bytes[begin + 2].is_ascii_alphabetic() {
            options.insert(text[begin..end].to_owned());
        }
        start = end;
    }
    options
}

/// The help of a program and of every command and subcommand under it: (command path, help).
fn every_help(program: &str) -> Vec<(Vec<String>, String)> {
    let mut helps = Vec::new();
    let mut pending = vec![Vec::<String>::new()];
    while let Some(path) = pending.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = output_of(program, &args);
        for command in subcommands_in_help(&help) {
            let mut child = path.clone();
            child.push(command);
            pending.push(child);
        }
        helps.push((path, help));
    }
    helps
}

/// A man page's text with roff's escaped hyphens made plain.
fn man_page_text(name: &str) -> String {
    read(&packaging_path(&format!("man/{name}.1"))).replace("\\-", "-")
}

#[test]
fn every_program_answers_version_with_the_package_version() {
    for (name, program) in programs() {
        for flag in ["--version", "-V"] {
            let answer = output_of(&program, &[flag]);
            assert_eq!(
                answer.trim(),
                format!("{name} {}", env!("CARGO_PKG_VERSION")),
                "{name} {flag}"
            );
        }
    }
}

#[test]
fn man_pages_name_every_command_and_option_of_their_program() {
    for (name, program) in programs() {
        let page = man_page_text(name);
        let title = page
            .lines()
            .find(|line| line.starts_with(".TH "))
            .unwrap_or_else(|| panic!("{name}.1 has no .TH line"));
        assert!(
            title.contains(&format!("\"partlens {}\"", env!("CARGO_PKG_VERSION"))),
            "{name}.1 is not for version {}: {title}",
            env!("CARGO_PKG_VERSION")
        );
        for (path, help) in every_help(&program) {
            for command in &path {
                assert!(
                    page.contains(command.as_str()),
                    "{name}.1 does not name the command {command}"
                );
            }
            for option in long_options_in(&help) {
                assert!(
                    page.contains(&option),
                    "{name}.1 does not name {option} (from `{name} {} --help`)",
                    path.join(" ")
                );
            }
        }
    }
}

#[test]
fn the_help_reader_finds_commands_and_options() {
    let help = "Usage: x [OPTIONS] <COMMAND>\n\nCommands:\n  upload  Upload a file\n  attrs   \
                Set attributes\n  help    Print this message\n\nOptions:\n      --service <URL>  \
                Address\n      --password-stdin  Read it\n  -h, --help  Print help\n\nA -- b --1";
    assert_eq!(subcommands_in_help(help), ["upload", "attrs"]);
    let options: Vec<String> = long_options_in(help).into_iter().collect();
    assert_eq!(options, ["--help", "--password-stdin", "--service"]);
}

/// The `Key=value` lines of a desktop entry's main group.
fn desktop_entry(file: &str) -> Vec<(String, String)> {
    read(&packaging_path(&format!("linux/{file}")))
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

fn entry_value<'a>(entry: &'a [(String, String)], key: &str) -> &'a str {
    entry
        .iter()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.as_str())
        .unwrap_or_else(|| panic!("no {key}= in the desktop entry"))
}

#[test]
fn desktop_entries_open_files_under_the_app_id_and_its_icon() {
    let open = desktop_entry(&format!("{APP_ID}.desktop"));
    let search = desktop_entry(&format!("{APP_ID}.search.desktop"));
    for entry in [&open, &search] {
        assert_eq!(entry_value(entry, "StartupWMClass"), APP_ID);
        assert_eq!(entry_value(entry, "Icon"), APP_ID);
        assert_eq!(entry_value(entry, "TryExec"), "partlens");
    }
    assert_eq!(entry_value(&open, "Exec"), "partlens %F");
    assert_eq!(entry_value(&search, "Exec"), "partlens --search %F");
    assert_eq!(entry_value(&search, "NoDisplay"), "true");
    let mime_types = entry_value(&open, "MimeType");
    assert_eq!(entry_value(&search, "MimeType"), mime_types);
    for wanted in [
        "image/png",
        "image/jpeg",
        "model/stl",
        "model/obj",
        "model/x-ply",
        "image/vnd.dxf",
        "application/pdf",
        "model/step",
        "model/iges",
    ] {
        assert!(
            mime_types.split(';').any(|mime_type| mime_type == wanted),
            "the desktop entry does not open {wanted}"
        );
    }
    let packager_template = read(&packaging_path("linux/packager.desktop.hbs"));
    assert!(packager_template.contains(&format!("StartupWMClass={APP_ID}\n")));
    assert!(packager_template.contains(&format!("MimeType={mime_types}\n")));
}

#[test]
fn metainfo_names_the_app_id_its_desktop_entry_and_icon() {
    let metainfo = read(&packaging_path(&format!("linux/{APP_ID}.metainfo.xml")));
    for element in [
        format!("<id>{APP_ID}</id>"),
        format!("<launchable type=\"desktop-id\">{APP_ID}.desktop</launchable>"),
        format!("<icon type=\"stock\">{APP_ID}</icon>"),
        format!("<release version=\"{}\"", env!("CARGO_PKG_VERSION")),
    ] {
        assert!(metainfo.contains(&element), "the metainfo lacks {element}");
    }
    for name in PROGRAM_NAMES {
        assert!(metainfo.contains(&format!("<binary>{name}</binary>")));
    }
}

#[test]
fn icons_have_the_sizes_their_folders_say_and_the_window_uses_the_256_px_one() {
    for size in ICON_SIZES {
        let path = packaging_path(&format!("icons/hicolor/{size}x{size}/apps/{APP_ID}.png"));
        let icon = image::open(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(
            (icon.width(), icon.height()),
            (size, size),
            "{}",
            path.display()
        );
    }
    let svg = read(&packaging_path(&format!(
        "icons/hicolor/scalable/apps/{APP_ID}.svg"
    )));
    assert!(svg.contains("viewBox=\"0 0 256 256\""));
    let window_icon = image::load_from_memory(WINDOW_ICON_PNG).unwrap();
    assert_eq!((window_icon.width(), window_icon.height()), (256, 256));
    let installed = std::fs::read(packaging_path(&format!(
        "icons/hicolor/256x256/apps/{APP_ID}.png"
    )))
    .unwrap();
    assert_eq!(WINDOW_ICON_PNG, installed.as_slice());
    let ico = std::fs::read(packaging_path("icons/partlens.ico")).unwrap();
    assert_eq!(&ico[..4], &[0, 0, 1, 0], "partlens.ico is not an icon file");
    assert_eq!(
        u16::from_le_bytes([ico[4], ico[5]]),
        4,
        "partlens.ico holds 4 sizes"
    );
}

#[test]
fn the_debian_package_installs_the_desktop_files_man_pages_and_unit() {
    let manifest = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    let deb = &manifest[manifest
        .find("[package.metadata.deb]")
        .expect("Cargo.toml has no [package.metadata.deb]")..];
    for entry in std::fs::read_dir(packaging_path("linux")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".hbs") {
            continue; // cargo-packager's template, not installed by the .deb
        }
        assert!(
            deb.contains(&format!("\"packaging/linux/{name}\"")),
            "the .deb does not install packaging/linux/{name}"
        );
    }
    for name in PROGRAM_NAMES {
        assert!(deb.contains(&format!(
            "[\"target/release/{name}\", \"usr/bin/\", \"755\"]"
        )));
    }
    for asset in [
        "\"packaging/man/*.1\"",
        "\"packaging/icons/hicolor/*/apps/io.github.partlens.Partlens.*\"",
        "\"assets/samples/**/*\", \"usr/share/partlens/samples/\"",
        "unit-name = \"partlens-service\", enable = false, start = false",
    ] {
        assert!(deb.contains(asset), "the .deb configuration lacks {asset}");
    }
}

#[test]
fn the_service_unit_runs_as_its_own_user_on_its_state_directory() {
    let unit = read(&packaging_path("systemd/partlens-service.service"));
    let sysusers = read(&packaging_path("systemd/partlens.sysusers"));
    let tmpfiles = read(&packaging_path("systemd/partlens-service.tmpfile"));
    let environment = read(&packaging_path("systemd/partlens-service.default"));
    let user_line = sysusers
        .lines()
        .find(|line| line.starts_with("u "))
        .expect("partlens.sysusers creates no user");
    assert!(user_line.split_whitespace().nth(1) == Some("partlens"));
    assert!(user_line.ends_with(" /var/lib/partlens"));
    for line in [
        "User=partlens",
        "StateDirectory=partlens",
        "EnvironmentFile=-/etc/default/partlens-service",
        "ExecStart=/usr/bin/partlens-service --data /var/lib/partlens serve --addr ${PARTLENS_SERVICE_ADDR} $PARTLENS_SERVICE_OPTIONS",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
    ] {
        assert!(
            unit.lines().any(|unit_line| unit_line == line),
            "the unit lacks {line}"
        );
    }
    assert!(tmpfiles.contains("d /var/lib/partlens 0750 partlens partlens -"));
    let address = environment
        .lines()
        .find_map(|line| line.strip_prefix("PARTLENS_SERVICE_ADDR="))
        .expect("the environment file sets no address");
    assert!(
        address.parse::<std::net::SocketAddr>().is_ok(),
        "{address} is not an address the service accepts"
    );
}
