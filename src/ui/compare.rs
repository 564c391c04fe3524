//! The compare page of the Search place: two or more ticked results side by side, their pictures
//! with one zoom and pan for all (drag, Ctrl + scroll, *Fit*), for two of them an overlay (the second
//! picture over the first at a chosen opacity) and a difference picture (ink only in the first red,
//! only in the second blue, in both black: what two revisions of a drawing changed), and their
//! fields and attributes in one table with the differing rows marked. *Export CSV…* saves the table.
//!
//! The pictures are loaded as large images (at most [`COMPARE_MAX_SIDE`] pixels a side) under keys of
//! their own, so the page keeps their pixels for the difference; [`CompareView::wants`] tells the
//! Search place which answers are for it.

use std::collections::BTreeMap;

use egui::{Color32, Rect, Vec2};

use super::app_command::CommandQueue;
use super::detail::OpenedFrom;
use super::picture::paint_caption;
use super::results::ResultRow;
use partlens_api::Attribute;
use partlens_tasks::Command;
use partlens_tasks::thumbnails::{DecodedImage, ImageRequest};

/// Longest side of a compared picture, in pixels (six pictures stay under 25 MB).
pub const COMPARE_MAX_SIDE: u32 = 1024;

/// Side of the square scene every picture is fitted into, so one zoom and pan suits them all.
const SCENE_SIDE: f32 = 1000.0;

/// The closest and farthest zoom.
const ZOOM_RANGE: std::ops::RangeInclusive<f32> = 0.1..=16.0;

/// Height of the picture area, in points.
const PICTURE_HEIGHT: f32 = 340.0;

/// A pixel darker than this (0–255 luminance) counts as ink in the difference.
const INK_THRESHOLD: f32 = 160.0;

/// How the pictures are shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CompareMode {
    /// One pane a result.
    #[default]
    SideBySide,
    /// The second picture over the first (two results).
    Overlay,
    /// Where the two pictures differ (two results).
    Difference,
}

/// Where the page leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompareIntent {
    /// Back to where the comparison was opened from (the results, or a place).
    Back,
}

/// One row of the comparison table: a field or attribute and each result's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComparisonRow {
    /// The field or attribute (wire name, `weight(kg)`).
    pub label: String,
    /// One value a result, in the compared order (empty where a result has none).
    pub values: Vec<String>,
    /// True when the values are not all the same.
    pub differs: bool,
}

/// One compared picture.
enum ComparePicture {
    /// Asked for.
    Loading,
    /// Here, with its pixels for the difference.
    Ready {
        texture: egui::TextureHandle,
        size: [usize; 2],
        rgba: Vec<u8>,
    },
    /// Could not be had.
    Failed(String),
}

/// A compared picture that is here: its texture, size and pixels.
struct ReadyPicture<'a> {
    texture: &'a egui::TextureHandle,
    size: [usize; 2],
    rgba: &'a [u8],
}

/// The difference of the two pictures.
struct DifferencePicture {
    texture: egui::TextureHandle,
    /// Share of pixels with ink in one picture only.
    differing: f32,
}

/// The compare page's state.
pub struct CompareView {
    rows: Vec<ResultRow>,
    table: Vec<ComparisonRow>,
    mode: CompareMode,
    scene_rect: Rect,
    pictures: BTreeMap<String, ComparePicture>,
    overlay_opacity: f32,
    difference: Option<DifferencePicture>,
    /// Where the comparison was opened from: where its back button leads.
    opened_from: OpenedFrom,
}

impl Default for CompareView {
    fn default() -> Self {
        Self {
            rows: Vec::new(),
            table: Vec::new(),
            mode: CompareMode::SideBySide,
            scene_rect: Rect::ZERO,
            pictures: BTreeMap::new(),
            overlay_opacity: 0.5,
            difference: None,
            opened_from: OpenedFrom::Results,
        }
    }
}

impl std::fmt::Debug for CompareView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompareView")
            .field("rows", &self.rows.len())
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

/// The key a compared result's picture is loaded under.
fn picture_key(row: &ResultRow) -> Option<String> {
    row.search_image_url()
        .map(|url| format!("compare:{}", row.uid.canonical()) + ":" + url)
}

impl CompareView {
    /// Starts comparing `rows` (in the order they were ticked): the table is built and the pictures
    /// are asked for.
    pub fn open(&mut self, rows: Vec<ResultRow>, commands: &mut CommandQueue) {
        *self = Self {
            table: comparison_rows(&rows),
            ..Self::default()
        };
        for row in &rows {
            let Some(key) = picture_key(row) else {
                continue;
            };
            if self.pictures.contains_key(&key) {
                continue;
            }
            if let Some(url) = row.search_image_url() {
                let mut request = ImageRequest::large_image(url).of_record(row.uid.clone());
                request.key = key.clone();
                request.max_side = COMPARE_MAX_SIDE;
                commands.backend(Command::LoadImage(request));
                self.pictures.insert(key, ComparePicture::Loading);
            }
        }
        self.rows = rows;
    }

    /// Sets where the comparison was opened from (after [`Self::open`], which starts from the
    /// results).
    pub fn set_opened_from(&mut self, opened_from: OpenedFrom) {
        self.opened_from = opened_from;
    }

    /// Where the comparison was opened from.
    pub fn opened_from(&self) -> OpenedFrom {
        self.opened_from
    }

    /// The results compared.
    pub fn rows(&self) -> &[ResultRow] {
        &self.rows
    }

    /// The comparison table.
    pub fn table(&self) -> &[ComparisonRow] {
        &self.table
    }

    /// How the pictures are shown.
    pub fn mode(&self) -> CompareMode {
        self.mode
    }

    /// The zoom and pan all panes share (in scene units; empty until the first frame fits it).
    pub fn scene_rect(&self) -> Rect {
        self.scene_rect
    }

    /// True when an image answer with this key is for the compare page.
    pub fn wants(&self, key: &str) -> bool {
        self.pictures.contains_key(key)
    }

    /// True when every picture asked for has arrived or failed.
    pub fn pictures_settled(&self) -> bool {
        self.pictures
            .values()
            .all(|picture| !matches!(picture, ComparePicture::Loading))
    }

    /// Files a decoded picture.
    pub fn image_loaded(&mut self, ctx: &egui::Context, image: DecodedImage) {
        if !self.wants(&image.key) {
            return;
        }
        let pixels = egui::ColorImage::from_rgba_unmultiplied(image.size, &image.rgba);
        let texture = ctx.load_texture(image.key.clone(), pixels, egui::TextureOptions::LINEAR);
        self.pictures.insert(
            image.key,
            ComparePicture::Ready {
                texture,
                size: image.size,
                rgba: image.rgba,
            },
        );
        self.difference = None;
    }

    /// Files a picture that could not be had.
    pub fn image_failed(&mut self, key: &str, message: String) {
        if let Some(picture) = self.pictures.get_mut(key) {
            *picture = ComparePicture::Failed(message);
        }
    }

    /// The CSV text of the table: one row a field or attribute, one column a result, and whether
    /// the values differ.
    pub fn csv(&self) -> Result<String, csv::Error> {
        comparison_csv(&self.rows, &self.table)
    }

    /// Draws the page and returns where the user asked to go.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) -> Vec<CompareIntent> {
        let mut intents = Vec::new();
        ui.horizontal(|ui| {
            if ui.button(self.opened_from.back_label()).clicked() {
                intents.push(CompareIntent::Back);
            }
            ui.separator();
            ui.strong(self.opened_from.comparing_label(self.rows.len()));
            ui.separator();
            let pair = self.rows.len() == 2;
            ui.selectable_value(&mut self.mode, CompareMode::SideBySide, "Side by side");
            for (mode, label) in [
                (CompareMode::Overlay, "Overlay"),
                (CompareMode::Difference, "Difference"),
            ] {
                let response = ui
                    .add_enabled(pair, egui::Button::selectable(self.mode == mode, label))
                    .on_disabled_hover_text("Compare exactly two results for this");
                if response.clicked() {
                    self.mode = mode;
                }
            }
            ui.separator();
            if ui.button("Fit").clicked() {
                self.scene_rect = Rect::ZERO;
            }
            if ui.button("Export CSV…").clicked() {
                match self.csv() {
                    Ok(csv) => commands.backend(Command::ExportComparison {
                        suggested_name: "comparison.csv".to_owned(),
                        csv,
                    }),
                    Err(error) => tracing::warn!("the comparison could not be written: {error}"),
                }
            }
        });
        ui.weak("Drag to pan and Ctrl + scroll to zoom: every picture follows.");
        if self.scene_rect == Rect::ZERO || !self.scene_rect.is_finite() {
            self.scene_rect = Rect::from_min_size(egui::Pos2::ZERO, Vec2::splat(SCENE_SIDE));
        }
        match self.mode {
            CompareMode::SideBySide => self.side_by_side_ui(ui),
            CompareMode::Overlay => self.overlay_ui(ui),
            CompareMode::Difference => self.difference_ui(ui),
        }
        ui.separator();
        egui::ScrollArea::both()
            .id_salt("comparison table")
            .show(ui, |ui| self.table_ui(ui));
        intents
    }

    fn side_by_side_ui(&mut self, ui: &mut egui::Ui) {
        let count = self.rows.len().max(1);
        let spacing = ui.spacing().item_spacing.x;
        let width = (ui.available_width() - spacing * (count as f32 - 1.0)) / count as f32;
        let mut moved = None;
        ui.horizontal(|ui| {
            for row in &self.rows {
                ui.vertical(|ui| {
                    ui.set_width(width);
                    crate::ui::elide::file_name_label(ui, &row.name, egui::TextStyle::Body, true);
                    let (rect, _) = ui.allocate_exact_size(
                        Vec2::new(width, PICTURE_HEIGHT),
                        egui::Sense::hover(),
                    );
                    let picture = picture_key(row).and_then(|key| self.pictures.get(&key));
                    let layers = match picture {
                        Some(ComparePicture::Ready { texture, .. }) => vec![(texture, 1.0)],
                        other => {
                            paint_pane_caption(ui, rect, other);
                            return;
                        }
                    };
                    if let Some(rect_after) = scene_ui(ui, rect, self.scene_rect, &layers) {
                        moved = Some(rect_after);
                    }
                });
            }
        });
        if let Some(scene_rect) = moved {
            self.scene_rect = scene_rect;
        }
    }

    /// The two ready pictures, when both are here.
    fn pair(&self) -> Option<[ReadyPicture<'_>; 2]> {
        let ready = |row: &ResultRow| match picture_key(row).and_then(|key| self.pictures.get(&key))
        {
            Some(ComparePicture::Ready {
                texture,
                size,
                rgba,
            }) => Some(ReadyPicture {
                texture,
                size: *size,
                rgba,
            }),
            _ => None,
        };
        match self.rows.as_slice() {
            [first, second] => Some([ready(first)?, ready(second)?]),
            _ => None,
        }
    }

    fn overlay_ui(&mut self, ui: &mut egui::Ui) {
        let names = self.pair_names();
        ui.horizontal(|ui| {
            let label = ui.label(format!("Opacity of {}", names[1]));
            ui.add(egui::Slider::new(&mut self.overlay_opacity, 0.0..=1.0))
                .labelled_by(label.id);
            ui.weak(format!("over {}", names[0]));
        });
        let (rect, _) = ui.allocate_exact_size(
            Vec2::new(ui.available_width(), PICTURE_HEIGHT),
            egui::Sense::hover(),
        );
        let Some([first, second]) = self.pair() else {
            paint_caption(ui, ui.painter(), rect, "Loading the pictures…", 14.0);
            return;
        };
        let layers = vec![(first.texture, 1.0), (second.texture, self.overlay_opacity)];
        if let Some(scene_rect) = scene_ui(ui, rect, self.scene_rect, &layers) {
            self.scene_rect = scene_rect;
        }
    }

    fn difference_ui(&mut self, ui: &mut egui::Ui) {
        if self.difference.is_none()
            && let Some([first, second]) = self.pair()
        {
            let (pixels, differing) =
                difference_image(first.size, first.rgba, second.size, second.rgba);
            let texture =
                ui.ctx()
                    .load_texture("compare:difference", pixels, egui::TextureOptions::LINEAR);
            self.difference = Some(DifferencePicture { texture, differing });
        }
        let names = self.pair_names();
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                Color32::from_rgb(0xd0, 0x20, 0x20),
                format!("Only in {}", names[0]),
            );
            ui.colored_label(
                Color32::from_rgb(0x20, 0x40, 0xd0),
                format!("Only in {}", names[1]),
            );
            ui.label("Black: in both.");
            if let Some(difference) = &self.difference {
                ui.strong(format!(
                    "{:.1} % of the picture differs",
                    difference.differing * 100.0
                ));
            }
        });
        let (rect, _) = ui.allocate_exact_size(
            Vec2::new(ui.available_width(), PICTURE_HEIGHT),
            egui::Sense::hover(),
        );
        let Some(difference) = &self.difference else {
            paint_caption(ui, ui.painter(), rect, "Loading the pictures…", 14.0);
            return;
        };
        let layers = vec![(&difference.texture, 1.0)];
        if let Some(scene_rect) = scene_ui(ui, rect, self.scene_rect, &layers) {
            self.scene_rect = scene_rect;
        }
    }

    fn pair_names(&self) -> [String; 2] {
        [0, 1].map(|index| {
            self.rows
                .get(index)
                .map(|row| row.name.clone())
                .unwrap_or_default()
        })
    }

    /// The fields and attributes side by side, one column a file, each column a share of the
    /// width: long names and paths wrap in their column instead of running off the window.
    fn table_ui(&self, ui: &mut egui::Ui) {
        let marked = super::theme::warning_color(ui);
        let spacing = ui.spacing().item_spacing.x;
        let columns = self.rows.len() as f32 + 1.0;
        let column_width =
            ((ui.available_width() - spacing * (columns - 1.0)) / columns).max(MIN_COLUMN_WIDTH);
        let cell = |ui: &mut egui::Ui, text: egui::RichText| {
            ui.add(egui::Label::new(text).wrap());
        };
        egui::Grid::new("comparison grid")
            .num_columns(self.rows.len() + 1)
            .striped(true)
            .min_col_width(MIN_COLUMN_WIDTH)
            .max_col_width(column_width)
            .show(ui, |ui| {
                ui.strong("");
                for row in &self.rows {
                    cell(ui, egui::RichText::new(&row.name).strong());
                }
                ui.end_row();
                for line in &self.table {
                    if line.differs {
                        cell(
                            ui,
                            egui::RichText::new(format!("{} (differs)", line.label))
                                .strong()
                                .color(marked),
                        );
                    } else {
                        cell(ui, egui::RichText::new(&line.label));
                    }
                    for value in &line.values {
                        let text = egui::RichText::new(shown_value(value));
                        cell(
                            ui,
                            if line.differs {
                                text.color(marked)
                            } else {
                                text
                            },
                        );
                    }
                    ui.end_row();
                }
            });
    }
}

/// The narrowest a column of the comparison table gets (then the table scrolls sideways).
const MIN_COLUMN_WIDTH: f32 = 80.0;

/// A pane's caption when its picture is not shown.
fn paint_pane_caption(ui: &egui::Ui, rect: Rect, picture: Option<&ComparePicture>) {
    ui.painter()
        .rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let text = match picture {
        None => "This result has no picture.".to_owned(),
        Some(ComparePicture::Loading) => "Loading the picture…".to_owned(),
        Some(ComparePicture::Failed(reason)) => format!("The picture could not be shown: {reason}"),
        Some(ComparePicture::Ready { .. }) => String::new(),
    };
    paint_caption(ui, ui.painter(), rect, &text, 13.0);
}

/// Shows `layers` (textures with their opacity, bottom first) fitted into the shared scene square in
/// `rect` with zoom and pan; returns the scene rectangle when the user moved it.
fn scene_ui(
    ui: &mut egui::Ui,
    rect: Rect,
    scene_rect: Rect,
    layers: &[(&egui::TextureHandle, f32)],
) -> Option<Rect> {
    ui.painter()
        .rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    // Each pane's scene paints on a layer named after its ui's scope: a salt per pane keeps the
    // layers (and their transforms) apart.
    let salt = layers.first().map(|(texture, _)| texture.id());
    let mut child = ui.new_child(
        egui::UiBuilder::new()
            .id_salt(("compare pane", salt))
            .max_rect(rect),
    );
    child.set_clip_rect(rect.intersect(ui.clip_rect()));
    let mut shown = scene_rect;
    egui::Scene::new()
        .zoom_range(ZOOM_RANGE)
        .show(&mut child, &mut shown, |ui| {
            let square = Rect::from_min_size(egui::Pos2::ZERO, Vec2::splat(SCENE_SIDE));
            // Claims the square, so the scene knows its content.
            ui.allocate_rect(square, egui::Sense::hover());
            for (texture, opacity) in layers {
                let size = texture.size_vec2();
                let scale = (SCENE_SIDE / size.x).min(SCENE_SIDE / size.y);
                ui.painter().image(
                    texture.id(),
                    Rect::from_center_size(square.center(), size * scale),
                    Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                    Color32::WHITE.gamma_multiply(*opacity),
                );
            }
        });
    (shown != scene_rect).then_some(shown)
}

/// The rows of the comparison: name, file name, score, then every attribute any result has
/// (sorted without regard to case), each with one value a result and whether they differ.
pub fn comparison_rows(rows: &[ResultRow]) -> Vec<ComparisonRow> {
    let line = |label: &str, values: Vec<String>| {
        let first = values.first().map(|value| normalised(value));
        let differs = values.iter().any(|value| Some(normalised(value)) != first);
        ComparisonRow {
            label: label.to_owned(),
            values,
            differs,
        }
    };
    let mut table = vec![
        line(
            "file name",
            rows.iter().map(|row| row.file_name.clone()).collect(),
        ),
        line(
            "score",
            rows.iter()
                .map(|row| {
                    row.score
                        .map(|score| format!("{score:.3}"))
                        .unwrap_or_default()
                })
                .collect(),
        ),
    ];
    for name in super::results::attribute_names(rows) {
        let values = rows
            .iter()
            .map(|row| {
                row.attribute(&name)
                    .map(Attribute::joined_values)
                    .unwrap_or_default()
            })
            .collect();
        table.push(line(&name, values));
    }
    table
}

/// A value as the page shows it: several values as "a, b" like the rest of the app (the CSV keeps
/// the wire's `a|b`), a dash where a result has none.
fn shown_value(value: &str) -> String {
    if value.trim().is_empty() {
        return "—".to_owned();
    }
    value
        .split('|')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as compared: trimmed, case ignored.
fn normalised(value: &str) -> String {
    value.trim().to_lowercase()
}

/// The CSV text of a comparison: `field`, one column a result (by name), `differs`.
pub fn comparison_csv(rows: &[ResultRow], table: &[ComparisonRow]) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["field".to_owned()];
    header.extend(rows.iter().map(|row| row.name.clone()));
    header.push("differs".to_owned());
    writer.write_record(&header)?;
    for line in table {
        let mut record = vec![line.label.clone()];
        record.extend(line.values.iter().cloned());
        record.push(if line.differs { "yes" } else { "no" }.to_owned());
        writer.write_record(&record)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|error| csv::Error::from(error.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The difference of two pictures (the second scaled to the first's size, nearest pixel): ink only
/// in the first red, only in the second blue, in both black, in neither white. Also the share of
/// pixels with ink in one picture only.
pub fn difference_image(
    first_size: [usize; 2],
    first: &[u8],
    second_size: [usize; 2],
    second: &[u8],
) -> (egui::ColorImage, f32) {
    let [width, height] = first_size;
    let ink = |rgba: &[u8], index: usize| -> f32 {
        let pixel = &rgba[index * 4..index * 4 + 4];
        let alpha = f32::from(pixel[3]) / 255.0;
        // Transparent pixels are paper.
        let luminance =
            0.299 * f32::from(pixel[0]) + 0.587 * f32::from(pixel[1]) + 0.114 * f32::from(pixel[2]);
        let luminance = luminance * alpha + 255.0 * (1.0 - alpha);
        ((INK_THRESHOLD - luminance) / INK_THRESHOLD)
            .clamp(0.0, 1.0)
            .sqrt()
    };
    let mut pixels = Vec::with_capacity(width * height);
    let mut differing = 0usize;
    for y in 0..height {
        let second_y = (y * second_size[1]) / height.max(1);
        for x in 0..width {
            let second_x = (x * second_size[0]) / width.max(1);
            let a = if first.len() >= (y * width + x + 1) * 4 {
                ink(first, y * width + x)
            } else {
                0.0
            };
            let b_index = second_y * second_size[0] + second_x;
            let b = if second.len() >= (b_index + 1) * 4 {
                ink(second, b_index)
            } else {
                0.0
            };
            if (a > 0.5) != (b > 0.5) {
                differing += 1;
            }
            let channel = |value: f32| (255.0 * value.clamp(0.0, 1.0)) as u8;
            pixels.push(Color32::from_rgb(
                channel(1.0 - b),
                channel(1.0 - a.max(b)),
                channel(1.0 - a),
            ));
        }
    }
    let total = (width * height).max(1);
    (
        egui::ColorImage::new([width, height], pixels),
        differing as f32 / total as f32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_api::FileUid;

    fn row(rank: usize, name: &str, attributes: &[&str]) -> ResultRow {
        ResultRow {
            rank,
            uid: FileUid::from_reply(&format!("00000000-0000-4000-8000-{rank:012}")),
            name: name.to_owned(),
            file_name: format!("Parts/{name}.png"),
            score: Some(0.9),
            query_kind: crate::ui::results::calibration::QueryKind::PictureToPicture,
            below_best: 0.0,
            thumbnail_url: String::new(),
            large_image_url: String::new(),
            attributes: attributes
                .iter()
                .map(|text| Attribute::parse(text).unwrap())
                .collect(),
            found_on_page: None,
            relations: Default::default(),
            mirrored: false,
        }
    }

    #[test]
    fn the_table_marks_differing_values_and_exports_as_csv() {
        let rows = vec![
            row(
                1,
                "Bracket",
                &["material=steel", "region=EU|US", "weight(kg)=1.2"],
            ),
            row(
                2,
                "Bracket B",
                &["material=Steel", "region=EU|US", "weight(kg)=1.5"],
            ),
        ];
        let table = comparison_rows(&rows);
        let differs: Vec<(&str, bool)> = table
            .iter()
            .map(|line| (line.label.as_str(), line.differs))
            .collect();
        assert_eq!(
            differs,
            [
                ("file name", true),
                ("score", false),
                ("material", false),
                ("region", false),
                ("weight(kg)", true)
            ]
        );
        let csv = comparison_csv(&rows, &table).unwrap();
        assert_eq!(csv.lines().next(), Some("field,Bracket,Bracket B,differs"));
        assert!(csv.contains("region,EU|US,EU|US,no"), "{csv}");
        assert!(csv.contains("weight(kg),1.2,1.5,yes"), "{csv}");
    }

    #[test]
    fn several_values_read_as_a_list_on_the_page() {
        assert_eq!(shown_value("EU|US"), "EU, US");
        assert_eq!(shown_value("steel"), "steel");
        assert_eq!(shown_value(" "), "—");
    }

    #[test]
    fn a_missing_attribute_differs() {
        let rows = vec![row(1, "a", &["coating=zinc"]), row(2, "b", &[])];
        let table = comparison_rows(&rows);
        let coating = table.iter().find(|line| line.label == "coating").unwrap();
        assert!(coating.differs);
        assert_eq!(coating.values, ["zinc", ""]);
    }

    #[test]
    fn the_difference_colours_ink_by_picture() {
        // 2×1 pictures: the first has ink left, the second right (and is twice as large).
        let white = [255u8, 255, 255, 255];
        let black = [0u8, 0, 0, 255];
        let first: Vec<u8> = [black, white].concat();
        let second: Vec<u8> = [white, white, black, black, white, white, black, black].concat();
        let (image, differing) = difference_image([2, 1], &first, [4, 2], &second);
        assert_eq!(image.pixels[0], Color32::from_rgb(255, 0, 0));
        assert_eq!(image.pixels[1], Color32::from_rgb(0, 0, 255));
        assert_eq!(differing, 1.0);
        let (same, none) = difference_image([2, 1], &first, [2, 1], &first);
        assert_eq!(same.pixels[0], Color32::from_rgb(0, 0, 0));
        assert_eq!(same.pixels[1], Color32::WHITE);
        assert_eq!(none, 0.0);
    }
}
