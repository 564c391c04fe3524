//! The detail's assembly relations: an assembly's components as a tree (thumbnail, name,
//! quantity; a subassembly folds open; a click opens the component) and a part's *Used in* list
//! (each assembly that holds it, and the assemblies above it up to the top ones).
//!
//! While the assembly is shown in 3D, each row of the tree has a *3D* toggle (a click, or Space
//! with the keyboard on it) that lights that component in the viewport, every instance of it;
//! again, or Escape, clears it. A component the preview has no triangles of says so on hover.
//!
//! The record gives only its direct relations, shown at once; the whole tree comes from the task
//! layer's walk (`Command::LoadRelations`, limits in [`partlens_api::relation_walk`]) and replaces
//! them when it arrives.

use egui::Vec2;

use super::app_command::CommandQueue;
use super::detail_intent::DetailIntent;
use super::detail_model::ComponentLights;
use super::picture::{Picture, paint_caption, paint_fitted, picture};
use super::texture_cache::TextureCache;
use partlens_api::{ApiError, FileMap, FileUid, Relation, RelationNode, RelationTree, WalkStop};
use partlens_tasks::Command;
use partlens_tasks::models::{component_name, is_model_file_name};
use partlens_tasks::thumbnails::ImageRequest;
use partlens_tasks::wording::{Attempt, explain};

/// Side of a component's thumbnail in the tree, in points.
const THUMBNAIL_SIDE: f32 = 28.0;

/// Where one walk is.
#[derive(Clone, Debug, Default, PartialEq)]
enum WalkState {
    /// Not asked (the record has no relations in this direction).
    #[default]
    NotAsked,
    /// Asked; the record's direct relations are shown meanwhile.
    Loading,
    /// The whole tree.
    Ready(RelationTree),
    /// The walk failed; the record's direct relations stay, with the reason.
    Failed(String),
}

/// The relations of the record shown in the detail.
#[derive(Clone, Debug, Default)]
pub struct AssemblyRelations {
    uid: Option<FileUid>,
    components: WalkState,
    used_in: WalkState,
    /// The walk was asked of the task layer (the first frame that shows the record asks).
    asked: bool,
}

/// How many parts an assembly holds in all: each leaf's quantity times its assemblies' above it
/// (a relation without a quantity counts once).
pub fn parts_in_all(node: &RelationNode) -> u64 {
    node.related
        .iter()
        .map(|child| {
            let quantity = u64::from(child.quantity.unwrap_or(1));
            let below = if child.related.is_empty() {
                1
            } else {
                parts_in_all(child)
            };
            quantity.saturating_mul(below)
        })
        .fold(0u64, u64::saturating_add)
}

/// What the components heading says: "Assembly of 3 components (14 parts in all)".
fn components_heading(direct: usize, tree: Option<&RelationTree>) -> String {
    let noun = if direct == 1 {
        "component"
    } else {
        "components"
    };
    match tree.map(|tree| parts_in_all(&tree.root)) {
        Some(all) if all as usize != direct => {
            format!("Assembly of {direct} {noun} ({all} parts in all)")
        }
        _ => format!("Assembly of {direct} {noun}"),
    }
}

impl AssemblyRelations {
    /// Starts on a newly shown record: its relations are walked (asked by the next frame) when it
    /// has any; a reloaded record of the same file keeps the walk it has.
    pub fn start(&mut self, record: &FileMap) {
        let uid = record.file_uid();
        if self
            .uid
            .as_ref()
            .is_some_and(|shown| shown.canonical() == uid.canonical())
        {
            return;
        }
        let has_components = !record.components().is_empty();
        let has_parents = !record.used_in().is_empty();
        let asked = |has: bool| {
            if has {
                WalkState::Loading
            } else {
                WalkState::NotAsked
            }
        };
        *self = Self {
            uid: Some(uid),
            components: asked(has_components),
            used_in: asked(has_parents),
            asked: false,
        };
    }

    /// Asks the task layer for the walk once, when one is waited for.
    fn ask(&mut self, commands: &mut CommandQueue) {
        let waiting = [&self.components, &self.used_in]
            .iter()
            .any(|state| **state == WalkState::Loading);
        if waiting
            && !self.asked
            && let Some(uid) = &self.uid
        {
            self.asked = true;
            commands.backend(Command::LoadRelations(uid.clone()));
        }
    }

    /// Files the walk's answer, when it is for the record shown.
    pub fn answer(
        &mut self,
        uid: &FileUid,
        components: Result<RelationTree, ApiError>,
        used_in: Result<RelationTree, ApiError>,
    ) {
        if self
            .uid
            .as_ref()
            .is_none_or(|shown| shown.canonical() != uid.canonical())
        {
            return;
        }
        let state = |walk: Result<RelationTree, ApiError>, asked: &WalkState| match walk {
            _ if *asked == WalkState::NotAsked => WalkState::NotAsked,
            Ok(tree) => WalkState::Ready(tree),
            Err(error) => WalkState::Failed(explain(&error, Attempt::LoadRecord)),
        };
        self.components = state(components, &self.components);
        self.used_in = state(used_in, &self.used_in);
    }

    /// Draws the components and the *Used in* list of `record`; with `lights` (the assembly shown
    /// in 3D), each component's row can light it there.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        record: &FileMap,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<DetailIntent>,
        lights: Option<&mut ComponentLights>,
    ) {
        self.ask(commands);
        let direct = record.components();
        if !direct.is_empty() {
            ui.add_space(6.0);
            let tree = match &self.components {
                WalkState::Ready(tree) => Some(tree),
                _ => None,
            };
            ui.strong(components_heading(direct.len(), tree));
            walk_note_ui(ui, &self.components, "Reading the subassemblies…");
            match tree {
                Some(tree) => {
                    let mut row = Row {
                        textures: &mut *textures,
                        commands: &mut *commands,
                        intents: &mut *intents,
                        lights,
                    };
                    for node in &tree.root.related {
                        row.component_ui(ui, node, &[]);
                    }
                    cut_short_ui(ui, tree);
                }
                None => direct_relations_ui(ui, &direct, intents),
            }
        }
        let parents = record.used_in();
        ui.add_space(6.0);
        if parents.is_empty() {
            if direct.is_empty() && is_model_file_name(&record.file_name) {
                ui.strong("Used in");
                ui.weak("No assembly of the library uses this part.");
            }
            return;
        }
        ui.strong(format!(
            "Used in {} {}",
            parents.len(),
            assemblies(parents.len())
        ));
        walk_note_ui(ui, &self.used_in, "Reading the assemblies above…");
        match &self.used_in {
            WalkState::Ready(tree) => {
                for node in &tree.root.related {
                    used_in_ui(ui, node, 0, intents);
                }
                top_assemblies_ui(ui, tree, intents);
                cut_short_ui(ui, tree);
            }
            _ => direct_relations_ui(ui, &parents, intents),
        }
    }
}

fn assemblies(count: usize) -> &'static str {
    if count == 1 { "assembly" } else { "assemblies" }
}

/// A spinner while the walk runs, or why it failed.
fn walk_note_ui(ui: &mut egui::Ui, state: &WalkState, loading: &str) {
    match state {
        WalkState::Loading => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak(loading);
            });
        }
        WalkState::Failed(reason) => {
            ui.colored_label(super::theme::warning_color(ui), reason);
        }
        WalkState::NotAsked | WalkState::Ready(_) => {}
    }
}

/// The record's own relations, a link each (before the walk answers, or when it failed).
fn direct_relations_ui(ui: &mut egui::Ui, relations: &[Relation], intents: &mut Vec<DetailIntent>) {
    for relation in relations {
        ui.horizontal(|ui| {
            if ui
                .link(relation.title())
                .on_hover_text(relation.uid.to_string())
                .clicked()
            {
                intents.push(DetailIntent::OpenFile(relation.uid.clone()));
            }
            if let Some(quantity) = relation.quantity {
                ui.weak(format!("× {quantity}"));
            }
        });
    }
}

/// What each row of the tree draws with and tells.
struct Row<'a> {
    textures: &'a mut TextureCache<egui::TextureHandle>,
    commands: &'a mut CommandQueue,
    intents: &'a mut Vec<DetailIntent>,
    lights: Option<&'a mut ComponentLights>,
}

impl Row<'_> {
    /// One component: a row (thumbnail, name, quantity), and under it, folded open, its own
    /// components when it is a subassembly. `path` is the UIDs above it (ids of the folds).
    fn component_ui(&mut self, ui: &mut egui::Ui, node: &RelationNode, path: &[&FileUid]) {
        if node.related.is_empty() {
            self.node_row_ui(ui, node);
            return;
        }
        let mut below: Vec<&FileUid> = path.to_vec();
        below.push(&node.uid);
        let id = ui.make_persistent_id(("assembly component", &below));
        egui::collapsing_header::CollapsingState::load_with_default_open(
            ui.ctx(),
            id,
            path.len() < 2,
        )
        .show_header(ui, |ui| self.node_row_ui(ui, node))
        .body(|ui| {
            for child in &node.related {
                self.component_ui(ui, child, &below);
            }
        });
    }

    /// A component's row: the *3D* toggle, thumbnail, the name as a link, "× 2", the reference
    /// designator and why it was not followed.
    fn node_row_ui(&mut self, ui: &mut egui::Ui, node: &RelationNode) {
        ui.horizontal(|ui| {
            if let Some(lights) = self.lights.as_deref_mut() {
                light_toggle_ui(ui, node, lights);
            }
            thumbnail_ui(ui, node, self.textures, self.commands);
            node_link_ui(ui, node, "Open this component", self.intents);
            if let Some(quantity) = node.quantity {
                ui.weak(format!("× {quantity}"));
            }
            if let Some(designator) = &node.reference_designator {
                ui.weak(designator);
            }
            stop_note_ui(ui, node);
        });
    }
}

/// The toggle that lights a component in the 3D preview (every instance of it), or clears it;
/// greyed, with the reason on hover, when the preview has no triangles of it.
fn light_toggle_ui(ui: &mut egui::Ui, node: &RelationNode, lights: &mut ComponentLights) {
    let name = component_name(&node.file_name);
    let count = lights.counts.get(name).copied().unwrap_or(0);
    let lit = lights.lit.as_deref() == Some(name);
    let response = ui
        .add_enabled(count > 0, egui::Button::selectable(lit, "3D"))
        .on_hover_text(if lit {
            format!("{name} is lit in the 3D view: click again or press Escape to clear it")
        } else {
            format!("Light every {name} in the 3D view")
        })
        .on_disabled_hover_text(format!(
            "{name} is not in the 3D preview: the assembly's model has no part by this name"
        ));
    // Named for what it does, so a screen reader (and a test) tells the rows' toggles apart.
    response.widget_info(|| {
        egui::WidgetInfo::selected(
            egui::Role::Button,
            count > 0,
            lit,
            format!("Show {name} in 3D"),
        )
    });
    if response.clicked() {
        lights.chosen = Some((!lit).then(|| name.to_owned()));
    }
}

/// A component's thumbnail, or an empty square when it has none.
fn thumbnail_ui(
    ui: &mut egui::Ui,
    node: &RelationNode,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
) {
    let (rect, _) = ui.allocate_exact_size(Vec2::splat(THUMBNAIL_SIDE), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
    if node.thumbnail_url.is_empty() {
        return;
    }
    let request = ImageRequest::thumbnail(&node.thumbnail_url).of_record(node.uid.clone());
    match picture(textures, request, commands) {
        Picture::Ready(texture) => paint_fitted(&painter, rect.shrink(1.0), texture),
        Picture::Loading => paint_caption(ui, &painter, rect, "…", 10.0),
        Picture::Failed(_) => paint_caption(ui, &painter, rect, "?", 10.0),
    }
}

/// A node's name as a link that opens it (`action` is the hover's last line), or its name marked
/// deleted when its record is gone.
fn node_link_ui(
    ui: &mut egui::Ui,
    node: &RelationNode,
    action: &str,
    intents: &mut Vec<DetailIntent>,
) {
    let title = node.title();
    if node.stop == Some(WalkStop::Missing) {
        ui.weak(format!("{title} (deleted)"));
    } else if ui
        .link(title)
        .on_hover_text(format!("{}\n{action}", node.file_name))
        .clicked()
    {
        intents.push(DetailIntent::OpenFile(node.uid.clone()));
    }
}

/// Why a node's relations were not followed, in words, when they were not.
fn stop_note_ui(ui: &mut egui::Ui, node: &RelationNode) {
    let note = match node.stop {
        Some(WalkStop::Cycle) => "(contains itself: not followed)",
        Some(WalkStop::Depth) => "(too deep: not followed)",
        Some(WalkStop::Records) => "(too many files: not read)",
        Some(WalkStop::Missing) | None => return,
    };
    ui.weak(note);
}

/// One assembly that uses the file (`depth` 0) or one above it, with the assemblies above it
/// indented under it.
fn used_in_ui(
    ui: &mut egui::Ui,
    node: &RelationNode,
    depth: usize,
    intents: &mut Vec<DetailIntent>,
) {
    ui.horizontal(|ui| {
        ui.add_space(16.0 * depth as f32);
        if depth > 0 {
            ui.weak("in");
        }
        node_link_ui(ui, node, "Open this assembly", intents);
        if let Some(quantity) = node.quantity {
            // How many of the file below this assembly holds (not how many of the assembly).
            ui.weak(format!("holds {quantity}"));
        }
        stop_note_ui(ui, node);
    });
    for above in &node.related {
        used_in_ui(ui, above, depth + 1, intents);
    }
}

/// "Top assemblies: …" when the file is used deeper than one level (each top once).
fn top_assemblies_ui(ui: &mut egui::Ui, tree: &RelationTree, intents: &mut Vec<DetailIntent>) {
    let mut tops: Vec<&RelationNode> = Vec::new();
    for (depth, node) in tree.root.flatten() {
        if depth > 1
            && node.related.is_empty()
            && node.stop.is_none()
            && !tops.iter().any(|top| top.uid == node.uid)
        {
            tops.push(node);
        }
    }
    if tops.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.weak(if tops.len() == 1 {
            "Top assembly:"
        } else {
            "Top assemblies:"
        });
        for top in tops {
            if ui.link(top.title()).clicked() {
                intents.push(DetailIntent::OpenFile(top.uid.clone()));
            }
        }
    });
}

/// Says when a limit or a cycle left part of the tree out.
fn cut_short_ui(ui: &mut egui::Ui, tree: &RelationTree) {
    if tree.cut_short {
        ui.weak(format!(
            "Part of the tree is not shown: it goes deeper, loops back or holds more files than \
             the {} read.",
            tree.records_read
        ));
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::{NodeT as _, Queryable as _};

    use super::*;
    use crate::ui::app_command::AppCommand;

    fn node(name: &str, quantity: Option<u32>, related: Vec<RelationNode>) -> RelationNode {
        RelationNode {
            uid: FileUid::from_reply(&format!(
                "00000000-0000-4000-8000-0000000000{:02}",
                name.len()
            )),
            file_name: format!("Assemblies/as1/{name}.step"),
            display_name: name.to_owned(),
            thumbnail_url: String::new(),
            quantity,
            reference_designator: None,
            related,
            stop: None,
        }
    }

    /// AS1's shape: a plate, a rod assembly, two L-bracket sets of a bracket and three nut-and-bolt
    /// sets each.
    fn as1() -> RelationTree {
        let nut_bolt = || {
            node(
                "nut-bolt-assembly",
                Some(3),
                vec![node("nut", Some(1), vec![]), node("bolt", Some(1), vec![])],
            )
        };
        RelationTree {
            root: node(
                "as1",
                None,
                vec![
                    node("plate", Some(1), vec![]),
                    node(
                        "l-bracket-assembly",
                        Some(2),
                        vec![node("l-bracket", Some(1), vec![]), nut_bolt()],
                    ),
                    node(
                        "rod-assembly",
                        Some(1),
                        vec![node("rod", Some(1), vec![]), node("nut", Some(2), vec![])],
                    ),
                ],
            ),
            records_read: 8,
            cut_short: false,
        }
    }

    #[test]
    fn parts_in_all_multiply_down_the_tree() {
        // plate 1 + 2 × (bracket 1 + 3 × (nut + bolt)) + (rod 1 + nut 2) = 1 + 14 + 3.
        assert_eq!(parts_in_all(&as1().root), 18);
        assert_eq!(
            components_heading(3, Some(&as1())),
            "Assembly of 3 components (18 parts in all)"
        );
        assert_eq!(components_heading(1, None), "Assembly of 1 component");
    }

    fn record_with(children: serde_json::Value, parents: serde_json::Value) -> FileMap {
        serde_json::from_value(serde_json::json!({
            "UID": "00000000-0000-4000-8000-000000000003",
            "FileName": "Assemblies/as1.step",
            "AssemblyChildren": children,
            "AssemblyParents": parents,
        }))
        .unwrap()
    }

    /// AS1's record with one child, the plate, and no parents.
    fn as1_with_its_plate() -> FileMap {
        record_with(
            serde_json::json!([{"UID": "00000000-0000-4000-8000-000000000005", "DisplayName": "plate"}]),
            serde_json::json!([]),
        )
    }

    #[test]
    fn the_tree_shows_quantities_and_a_click_opens_a_component() {
        let record = as1_with_its_plate();
        let mut relations = AssemblyRelations::default();
        relations.start(&record);
        let mut commands = CommandQueue::default();
        relations.ask(&mut commands);
        relations.ask(&mut commands);
        assert_eq!(
            commands.drain(),
            [AppCommand::Backend(Command::LoadRelations(
                record.file_uid()
            ))],
            "a record with components asks for the walk, once"
        );
        relations.answer(
            &record.file_uid(),
            Ok(as1()),
            Ok(RelationTree {
                root: node("as1", None, vec![]),
                records_read: 1,
                cut_short: false,
            }),
        );
        let mut intents = Vec::new();
        let mut harness = Harness::new_ui(|ui| {
            let mut textures = TextureCache::new(1 << 20);
            let mut commands = CommandQueue::default();
            relations.ui(
                ui,
                &record,
                &mut textures,
                &mut commands,
                &mut intents,
                None,
            );
        });
        harness.run();
        harness.get_by_label("Assembly of 1 component (18 parts in all)");
        harness
            .get_all_by_label("× 3")
            .next()
            .expect("the nut-and-bolt sets' quantity");
        harness.get_by_label("rod").click();
        harness.run();
        drop(harness);
        assert!(
            intents.iter().any(|intent| matches!(intent, DetailIntent::OpenFile(uid) if *uid == node("rod", None, vec![]).uid)),
            "{intents:?}"
        );
    }

    #[test]
    fn a_part_says_where_it_is_used_up_to_the_top_assembly() {
        let record = record_with(
            serde_json::json!([]),
            serde_json::json!([{"UID": "00000000-0000-4000-8000-000000000012", "DisplayName": "rod-assembly"}]),
        );
        let mut relations = AssemblyRelations::default();
        relations.start(&record);
        let up = RelationTree {
            root: node(
                "nut",
                None,
                vec![node(
                    "rod-assembly",
                    Some(2),
                    vec![node("as1", Some(1), vec![])],
                )],
            ),
            records_read: 3,
            cut_short: false,
        };
        relations.answer(&record.file_uid(), Err(ApiError::Unauthorized), Ok(up));
        let mut harness = Harness::new_ui(|ui| {
            let mut textures = TextureCache::new(1 << 20);
            relations.ui(
                ui,
                &record,
                &mut textures,
                &mut CommandQueue::default(),
                &mut Vec::new(),
                None,
            );
        });
        harness.run();
        harness.get_by_label("Used in 1 assembly");
        harness.get_by_label("Top assembly:");
        harness
            .get_all_by_label("as1")
            .next()
            .expect("the top assembly named");
    }

    /// The rows' *3D* toggles: one lights a component the preview has, pressed again clears it;
    /// a component the preview lacks has its toggle greyed.
    #[test]
    fn a_row_lights_its_component_in_3d_and_one_not_there_cannot() {
        let record = as1_with_its_plate();
        let mut relations = AssemblyRelations::default();
        relations.start(&record);
        let up = RelationTree {
            root: node("as1", None, vec![]),
            records_read: 1,
            cut_short: false,
        };
        relations.answer(&record.file_uid(), Ok(as1()), Ok(up));
        // The preview has the nut and the plate, not the rod.
        let counts: std::collections::HashMap<String, usize> =
            [("nut".to_owned(), 96), ("plate".to_owned(), 12)].into();
        let lights = std::cell::RefCell::new(ComponentLights {
            counts: std::sync::Arc::new(counts),
            lit: None,
            chosen: None,
        });
        let mut harness = Harness::new_ui(|ui| {
            let mut textures = TextureCache::new(1 << 20);
            let mut lights = lights.borrow_mut();
            relations.ui(
                ui,
                &record,
                &mut textures,
                &mut CommandQueue::default(),
                &mut Vec::new(),
                Some(&mut lights),
            );
        });
        harness.run();
        let rods: Vec<bool> = harness
            .get_all_by_label("Show rod in 3D")
            .map(|rod| rod.accesskit_node().is_disabled())
            .collect();
        assert_eq!(
            rods,
            [true],
            "the rod is not in the preview: its toggle is greyed"
        );
        harness
            .get_all_by_label("Show nut in 3D")
            .next()
            .expect("the nut's toggle")
            .click();
        harness.run();
        let chosen = lights.borrow_mut().chosen.take();
        assert_eq!(chosen, Some(Some("nut".to_owned())));
        lights.borrow_mut().lit = Some("nut".to_owned());
        harness.run();
        harness
            .get_all_by_label("Show nut in 3D")
            .next()
            .expect("the nut's toggle")
            .click();
        harness.run();
        assert_eq!(
            lights.borrow_mut().chosen.take(),
            Some(None),
            "pressed again: cleared"
        );
    }

    #[test]
    fn a_part_used_nowhere_says_so() {
        let record: FileMap = serde_json::from_value(serde_json::json!({
            "UID": "00000000-0000-4000-8000-000000000003",
            "FileName": "Parts/washer.step",
        }))
        .unwrap();
        let mut commands = CommandQueue::default();
        let mut relations = AssemblyRelations::default();
        relations.start(&record);
        relations.ask(&mut commands);
        assert!(commands.drain().is_empty(), "nothing to walk");
        let mut harness = Harness::new_ui(|ui| {
            let mut textures = TextureCache::new(1 << 20);
            relations.ui(
                ui,
                &record,
                &mut textures,
                &mut CommandQueue::default(),
                &mut Vec::new(),
                None,
            );
        });
        harness.run();
        harness.get_by_label("No assembly of the library uses this part.");
    }
}
