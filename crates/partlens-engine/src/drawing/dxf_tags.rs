//! What the `dxf` crate does not give: an ASCII DXF file's raw group-code/value pairs, read
//! leniently, for two jobs.
//!
//! - **Recovering a damaged file's structure** ([`recovered`]): files written by small tools or
//!   cut and pasted together have tags outside any section, an `ENTITIES` section repeated, no
//!   `HEADER`, or no `EOF` (ezdxf's `recover01.dxf`: header variables between a dozen `ENTITIES`
//!   sections). The `dxf` crate refuses those; ezdxf's `recover` module reads them by dropping the
//!   stray tags and joining repeated sections, and so does this.
//! - **Paper-space viewports** ([`paper_viewports`]): the `dxf` crate reads no `VIEWPORT`
//!   entities, so a layout's windows onto model space (where and how large on the sheet, which part
//!   of the model at which scale) are read here, to place the model's texts and lines on the page.
//!
//! Binary DXF is left to the `dxf` crate (it gives `None` here). Both jobs stay within the file's
//! own size: the recovered file is never longer than the input plus the section markers added.

use std::borrow::Cow;

use super::scene::{Point2, Transform};

/// One group code and its value line, as written (value without its line end).
pub type Tag<'a> = (i32, &'a str);

/// Sections a recovered file may hold, in the order DXF writes them.
const SECTIONS: [&str; 7] = [
    "HEADER",
    "CLASSES",
    "TABLES",
    "BLOCKS",
    "ENTITIES",
    "OBJECTS",
    "THUMBNAILIMAGE",
];

/// The file as text: `None` for a binary DXF. Bytes that are not UTF-8 (a file in a legacy code
/// page) become U+FFFD: only the structure matters here.
pub fn text_of(bytes: &[u8]) -> Option<Cow<'_, str>> {
    (!bytes.starts_with(b"AutoCAD Binary DXF")).then(|| String::from_utf8_lossy(bytes))
}

/// The text's tags, or `None` when its group codes are not numbers (not a DXF file at all).
pub fn tags(text: &str) -> Option<Vec<Tag<'_>>> {
    let mut lines = text.lines();
    let mut found = Vec::new();
    while let Some(code) = lines.next() {
        let code = code.trim();
        if code.is_empty() {
            // Blank lines between tags (some writers end the file with several).
            continue;
        }
        let code: i32 = code.parse().ok()?;
        let value = lines.next().unwrap_or("");
        found.push((code, value.strip_suffix('\r').unwrap_or(value)));
    }
    Some(found)
}

/// A structurally valid copy of a damaged ASCII DXF: the tags of each known section in one section
/// (repeated sections joined, in the order DXF writes them), tags outside any section dropped,
/// `EOF` at the end. `None` when the file has no tags to recover or is binary.
pub fn recovered(bytes: &[u8]) -> Option<Vec<u8>> {
    let text = text_of(bytes)?;
    let tags = tags(&text)?;
    let mut sections: Vec<Vec<Tag<'_>>> = vec![Vec::new(); SECTIONS.len()];
    let mut current: Option<usize> = None;
    let mut index = 0;
    while index < tags.len() {
        let (code, value) = tags[index];
        let value = value.trim();
        match (code, current) {
            (0, _) if value == "EOF" => break,
            (0, _) if value == "SECTION" => {
                // The section's name follows as group 2; an unknown or missing one is skipped.
                current = match tags.get(index + 1) {
                    Some((2, name)) => {
                        index += 1;
                        SECTIONS.iter().position(|known| *known == name.trim())
                    }
                    _ => None,
                };
            }
            (0, _) if value == "ENDSEC" => current = None,
            (_, Some(section)) => sections[section].push((code, tags[index].1)),
            (_, None) => {}
        }
        index += 1;
    }
    if sections.iter().all(Vec::is_empty) {
        return None;
    }
    let mut out = String::with_capacity(bytes.len() + 64);
    for (name, section) in SECTIONS.iter().zip(&sections) {
        if section.is_empty() {
            continue;
        }
        out.push_str(&format!("  0\nSECTION\n  2\n{name}\n"));
        for (code, value) in section {
            out.push_str(&format!("{code:>3}\n{}\n", value.trim_end()));
        }
        out.push_str("  0\nENDSEC\n");
    }
    out.push_str("  0\nEOF\n");
    Some(out.into_bytes())
}

/// A paper-space viewport: a window on the sheet that shows part of model space.
#[derive(Clone, Debug, PartialEq)]
pub struct Viewport {
    /// The window's centre on the sheet (paper units).
    pub center: Point2,
    /// The window's width and height on the sheet.
    pub size: Point2,
    /// Model space → sheet.
    pub model_to_paper: Transform,
}

impl Viewport {
    /// Whether a point of the sheet is inside the window.
    pub fn contains(&self, [x, y]: Point2) -> bool {
        (x - self.center[0]).abs() <= self.size[0] / 2.0
            && (y - self.center[1]).abs() <= self.size[1] / 2.0
    }

    /// The window's corners (min, max) on the sheet.
    pub fn bounds(&self) -> (Point2, Point2) {
        let half = [self.size[0] / 2.0, self.size[1] / 2.0];
        (
            [self.center[0] - half[0], self.center[1] - half[1]],
            [self.center[0] + half[0], self.center[1] + half[1]],
        )
    }
}

/// Viewports read, at most; a drawing has a handful.
pub const MAX_VIEWPORTS: usize = 64;

/// The paper-space viewports of the file's `ENTITIES` section (the active layout's), except the
/// layout's own overall view (id 1) and viewports that are off or of zero size. Plan views only:
/// a viewport whose view direction is not along z (a 3D view of the model) is left out.
pub fn paper_viewports(bytes: &[u8]) -> Vec<Viewport> {
    let Some(text) = text_of(bytes) else {
        return Vec::new();
    };
    let Some(tags) = tags(&text) else {
        return Vec::new();
    };
    let mut in_entities = false;
    let mut found = Vec::new();
    let mut index = 0;
    while index < tags.len() && found.len() < MAX_VIEWPORTS {
        let (code, value) = (tags[index].0, tags[index].1.trim());
        index += 1;
        if code == 2 && index >= 2 && tags[index - 2] == (0, "SECTION") {
            in_entities = value == "ENTITIES";
            continue;
        }
        if code != 0 || value != "VIEWPORT" || !in_entities {
            continue;
        }
        let end = tags[index..]
            .iter()
            .position(|(code, _)| *code == 0)
            .map_or(tags.len(), |offset| index + offset);
        if let Some(viewport) = viewport(&tags[index..end]) {
            found.push(viewport);
        }
        index = end;
    }
    found
}

/// The viewports of a layout kept in a block (`*Paper_Space0`: a layout that is not the active
/// one), chosen as [`paper_viewports`] chooses.
pub fn block_viewports(bytes: &[u8], block_name: &str) -> Vec<Viewport> {
    let Some(text) = text_of(bytes) else {
        return Vec::new();
    };
    let Some(tags) = tags(&text) else {
        return Vec::new();
    };
    let mut in_blocks = false;
    let mut in_block = false;
    let mut found = Vec::new();
    let mut index = 0;
    while index < tags.len() && found.len() < MAX_VIEWPORTS {
        let (code, value) = (tags[index].0, tags[index].1.trim());
        index += 1;
        if code == 2 && index >= 2 && tags[index - 2] == (0, "SECTION") {
            in_blocks = value == "BLOCKS";
            continue;
        }
        if !in_blocks || code != 0 {
            continue;
        }
        let end = tags[index..]
            .iter()
            .position(|(code, _)| *code == 0)
            .map_or(tags.len(), |offset| index + offset);
        match value {
            "BLOCK" => {
                in_block = tags[index..end]
                    .iter()
                    .any(|(code, name)| *code == 2 && name.trim().eq_ignore_ascii_case(block_name));
            }
            "ENDBLK" => in_block = false,
            "VIEWPORT" if in_block => {
                if let Some(viewport) = viewport_of_layout(&tags[index..end], true) {
                    found.push(viewport);
                }
            }
            _ => {}
        }
        index = end;
    }
    found
}

/// One `VIEWPORT` entity from its group codes.
fn viewport(tags: &[Tag<'_>]) -> Option<Viewport> {
    viewport_of_layout(tags, false)
}

/// One `VIEWPORT` entity from its group codes; `in_layout_block` when it was found in a layout's
/// block, where every entity is paper space whatever its flag says.
fn viewport_of_layout(tags: &[Tag<'_>], in_layout_block: bool) -> Option<Viewport> {
    let number = |wanted: i32| {
        tags.iter()
            .find(|(code, _)| *code == wanted)
            .and_then(|(_, value)| value.trim().parse::<f64>().ok())
            .filter(|value| value.is_finite())
    };
    let paper_space = in_layout_block || number(67).is_some_and(|flag| flag == 1.0);
    let id = number(69).unwrap_or(0.0);
    // A negative status (group 68) is a viewport that is off; 0 one that is not shown.
    let status = number(68).unwrap_or(1.0);
    if !paper_space || id == 1.0 || status <= 0.0 {
        return None;
    }
    let center = [number(10)?, number(20)?];
    let size = [number(40)?, number(41)?];
    let view_center = [number(12).unwrap_or(0.0), number(22).unwrap_or(0.0)];
    let view_height = number(45)?;
    let direction = [
        number(16).unwrap_or(0.0),
        number(26).unwrap_or(0.0),
        number(36).unwrap_or(1.0),
    ];
    let target = [number(17).unwrap_or(0.0), number(27).unwrap_or(0.0)];
    let twist = number(51).unwrap_or(0.0).to_radians();
    let plan = direction[0].abs() < 1e-9 && direction[1].abs() < 1e-9 && direction[2] > 0.0;
    if !plan || size[0] <= 0.0 || size[1] <= 0.0 || view_height <= 0.0 {
        return None;
    }
    let scale = size[1] / view_height;
    // Model → view (DCS: the target at the origin, turned by the twist) → centred on the view
    // centre → scaled → moved to the window's centre on the sheet.
    let model_to_paper = Transform::translate(center[0], center[1])
        .then_inner(&Transform::scale(scale, scale))
        .then_inner(&Transform::translate(-view_center[0], -view_center[1]))
        .then_inner(&Transform::rotate(twist))
        .then_inner(&Transform::translate(-target[0], -target[1]));
    let corner = model_to_paper.apply([1.0, 1.0]);
    (scale.is_finite() && corner.iter().all(|value| value.is_finite())).then_some(Viewport {
        center,
        size,
        model_to_paper,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dxf(body: &str) -> Vec<u8> {
        body.trim_start()
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()
    }

    #[test]
    fn stray_tags_are_dropped_and_repeated_sections_joined() {
        let damaged = dxf("
            0
            SECTION
            2
            ENTITIES
            0
            TEXT
            1
            first
            0
            ENDSEC
            9
            $EXTMIN
            10
            0.0
            0
            ENDSEC
            0
            SECTION
            2
            ENTITIES
            0
            TEXT
            1
            second
            0
            ENDSEC
        ");
        let recovered = String::from_utf8(recovered(&damaged).unwrap()).unwrap();
        let tags = tags(&recovered).unwrap();
        assert_eq!(tags.iter().filter(|tag| **tag == (0, "SECTION")).count(), 1);
        assert_eq!(tags.iter().filter(|tag| **tag == (0, "ENDSEC")).count(), 1);
        assert!(tags.contains(&(1, "first")) && tags.contains(&(1, "second")));
        assert!(!tags.iter().any(|tag| tag.1 == "$EXTMIN"));
        assert_eq!(tags.last(), Some(&(0, "EOF")));
    }

    #[test]
    fn what_is_not_a_dxf_file_has_nothing_to_recover() {
        assert_eq!(recovered(b"hello\nworld\n"), None);
        assert_eq!(recovered(b"AutoCAD Binary DXF\r\n\x1a\0"), None);
        assert_eq!(
            recovered(b"  0\nSECTION\n  2\nNOWHERE\n  0\nENDSEC\n"),
            None
        );
        assert_eq!(tags(""), Some(Vec::new()));
    }

    #[test]
    fn a_paper_space_viewport_maps_its_model_window_onto_the_sheet() {
        // The layout's own view (id 1), then a window of 40 x 20 at (50, 30) on the sheet showing
        // model space around (200, 100) at 1:5 (20 sheet units high = 100 model units).
        let file = dxf("
            0
            SECTION
            2
            ENTITIES
            0
            VIEWPORT
            67
            1
            10
            0
            20
            0
            40
            300
            41
            200
            45
            200
            69
            1
            0
            VIEWPORT
            67
            1
            10
            50
            20
            30
            40
            40
            41
            20
            12
            200
            22
            100
            45
            100
            69
            2
            68
            1
            0
            ENDSEC
            0
            EOF
        ");
        let viewports = paper_viewports(&file);
        assert_eq!(viewports.len(), 1);
        let viewport = &viewports[0];
        let [x, y] = viewport.model_to_paper.apply([200.0, 100.0]);
        assert!((x - 50.0).abs() < 1e-9 && (y - 30.0).abs() < 1e-9);
        let [x, y] = viewport.model_to_paper.apply([250.0, 100.0]);
        assert!((x - 60.0).abs() < 1e-9 && (y - 30.0).abs() < 1e-9);
        assert!(viewport.contains([69.0, 39.0]) && !viewport.contains([71.0, 30.0]));
    }
}
