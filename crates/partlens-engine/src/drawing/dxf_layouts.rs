//! The pages of a DXF drawing: model space first (when it has entities), then each paper-space
//! layout that has entities, in the layouts' tab order (the order of the tabs under AutoCAD's
//! drawing area; a layout of the same tab number after another by name).
//!
//! Where a layout's entities are: the active layout's (the block record `*Paper_Space`) in the
//! `ENTITIES` section with the paper-space flag, every other layout's in its own block
//! (`*Paper_Space0`, `*Paper_Space1`, …). A layout is tied to its block through the `LAYOUT`
//! object's block-record handle (group 330 of `AcDbLayout`, which the `dxf` crate keeps as
//! `__viewport_handle`). A file without `LAYOUT` objects (R12) has one paper space, the active one.
//! Each layout shows model space through its own viewports (`dxf_tags.rs`).

use std::collections::HashMap;

use dxf::Drawing;
use dxf::objects::ObjectType;

use super::dxf_tags::{self, Viewport};

/// The active layout's block record.
const ACTIVE_PAPER_SPACE: &str = "*paper_space";

/// Where a paper-space layout's entities are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutEntities {
    /// The active layout: the `ENTITIES` section's paper-space entities.
    Active,
    /// Another layout: the entities of this block.
    Block(String),
}

/// A paper-space layout with something on it.
#[derive(Clone, Debug, PartialEq)]
pub struct PaperLayout {
    /// Its name on its tab (`Layout1`); `Paper space` for an R12 file's.
    pub name: String,
    /// Where its entities are.
    pub entities: LayoutEntities,
    /// Its windows onto model space.
    pub viewports: Vec<Viewport>,
}

/// The drawing's paper-space layouts that have entities, in tab order; `bytes` is the file
/// (its viewports are read from it).
pub fn paper_layouts(drawing: &Drawing, bytes: &[u8]) -> Vec<PaperLayout> {
    let records: HashMap<u64, String> = drawing
        .block_records()
        .map(|record| (record.handle.0, record.name.clone()))
        .collect();
    let blocks_with_entities: HashMap<String, &str> = drawing
        .blocks()
        .filter(|block| !block.entities.is_empty())
        .map(|block| (block.name.to_lowercase(), block.name.as_str()))
        .collect();
    let active_has_entities = drawing
        .entities()
        .any(|entity| entity.common.is_in_paper_space);
    let mut found: Vec<(i32, PaperLayout)> = Vec::new();
    let mut active_named = false;
    for object in drawing.objects() {
        let ObjectType::Layout(layout) = &object.specific else {
            continue;
        };
        let Some(record) = records.get(&layout.__viewport_handle.0) else {
            continue;
        };
        let record = record.to_lowercase();
        let entities = if record == ACTIVE_PAPER_SPACE {
            active_named = true;
            if !active_has_entities {
                continue;
            }
            LayoutEntities::Active
        } else if let Some(block) = blocks_with_entities
            .get(&record)
            .filter(|_| record.starts_with(ACTIVE_PAPER_SPACE))
        {
            LayoutEntities::Block((*block).to_owned())
        } else {
            continue;
        };
        found.push((
            layout.tab_order,
            PaperLayout {
                name: layout.layout_name.clone(),
                entities,
                viewports: Vec::new(),
            },
        ));
    }
    if active_has_entities && !active_named {
        found.push((
            i32::MAX,
            PaperLayout {
                name: "Paper space".to_owned(),
                entities: LayoutEntities::Active,
                viewports: Vec::new(),
            },
        ));
    }
    found.sort_by(|(a_tab, a), (b_tab, b)| a_tab.cmp(b_tab).then(a.name.cmp(&b.name)));
    found
        .into_iter()
        .map(|(_, mut layout)| {
            layout.viewports = match &layout.entities {
                LayoutEntities::Active => dxf_tags::paper_viewports(bytes),
                LayoutEntities::Block(block) => dxf_tags::block_viewports(bytes, block),
            };
            layout
        })
        .collect()
}
