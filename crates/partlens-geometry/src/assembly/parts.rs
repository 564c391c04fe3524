//! Which triangles of an assembled mesh are which component: one [`MeshPart`] a placed instance
//! (the nut placed eight times is eight parts named `NUT`), named as the component's record is
//! named ([`component_names`], the one rule for both the service's component records and the
//! preview's parts), so the app can light up the component chosen in the detail's tree.
//!
//! A part's range is the instance's own geometry only; a subassembly's instance is a part too
//! (usually with no triangles of its own) and its components name it as their `parent`, so
//! choosing a subassembly lights everything in it. The parts are listed depth-first, their ranges
//! in order and apart; triangles of the top assembly's own geometry and of geometry no product
//! reaches belong to none.
//!
//! Limits: at most [`MAX_MESH_PARTS`] parts (an assembly with more instances gets none: it is
//! drawn, nothing lights up), names at most [`MAX_COMPONENT_NAME_CHARS`] characters.
//! [`check_mesh_parts`] checks both and the ranges where parts cross a process boundary.

use std::collections::HashSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::ProductTree;

/// Most parts (placed instances) an assembled mesh lists.
pub const MAX_MESH_PARTS: usize = 20_000;

/// Most characters of a component's name (its record's file name before the extension).
pub const MAX_COMPONENT_NAME_CHARS: usize = 100;

/// One placed instance of a component in an assembled (or reduced) mesh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshPart {
    /// The component's name, as its record's file name is made ([`component_names`]).
    pub name: String,
    /// The instance of the subassembly it is placed in (an index into the same list, always
    /// before it); `None` for a component of the top assembly.
    pub parent: Option<u32>,
    /// Its own triangles in the mesh (not its components').
    pub triangles: Range<u32>,
}

/// Each product's component name (`None` for the roots, which are no component): the product's
/// name, else its key, with `/ \ :` and control characters made `_`, trimmed of spaces and dots,
/// at most [`MAX_COMPONENT_NAME_CHARS`] characters (`component` when nothing is left), and
/// ` (2)`, ` (3)`, … after the first of names that are the same in any case, in the tree's order.
pub fn component_names(tree: &ProductTree) -> Vec<Option<String>> {
    let mut taken = HashSet::new();
    tree.products
        .iter()
        .enumerate()
        .map(|(index, product)| {
            if tree.roots.contains(&index) {
                return None;
            }
            let wanted = if product.name.trim().is_empty() {
                &product.key
            } else {
                &product.name
            };
            Some(unique_name(&mut taken, &file_name(wanted)))
        })
        .collect()
}

/// A product's name as a file name (see [`component_names`]).
fn file_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .take(MAX_COMPONENT_NAME_CHARS)
        .collect();
    let trimmed = cleaned.trim_matches(|c: char| c.is_whitespace() || c == '.');
    if trimmed.is_empty() {
        "component".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// `name`, or `name (2)`, `name (3)`, … when a name the same in any case is taken; marks it taken.
fn unique_name(taken: &mut HashSet<String>, name: &str) -> String {
    let mut candidate = name.to_owned();
    let mut number = 1;
    while !taken.insert(candidate.to_lowercase()) {
        number += 1;
        candidate = format!("{name} ({number})");
    }
    candidate
}

/// The parts of the mesh `tree` was assembled with: every occurrence below a root, depth-first;
/// none when there are more than [`MAX_MESH_PARTS`].
pub fn mesh_parts(tree: &ProductTree) -> Vec<MeshPart> {
    let placed = tree
        .occurrences
        .iter()
        .filter(|occurrence| occurrence.parent.is_some())
        .count();
    if placed > MAX_MESH_PARTS {
        return Vec::new();
    }
    let names = component_names(tree);
    let mut part_of: Vec<Option<u32>> = vec![None; tree.occurrences.len()];
    let mut parts = Vec::with_capacity(placed);
    for (at, occurrence) in tree.occurrences.iter().enumerate() {
        let Some(parent) = occurrence.parent else {
            continue;
        };
        let Some(Some(name)) = names.get(occurrence.product) else {
            continue;
        };
        // Its own geometry comes first in its range, its components' after it.
        let first_child = tree
            .occurrences
            .get(at + 1)
            .filter(|next| next.parent == Some(at))
            .map(|next| next.triangles.start);
        let end = first_child.unwrap_or(occurrence.triangles.end);
        part_of[at] = Some(parts.len() as u32);
        parts.push(MeshPart {
            name: name.clone(),
            parent: part_of.get(parent).copied().flatten(),
            triangles: occurrence.triangles.start..end.max(occurrence.triangles.start),
        });
    }
    parts
}

/// Checks parts that came from elsewhere (another process) against a mesh of `triangle_count`
/// triangles: at most [`MAX_MESH_PARTS`], names of 1 to [`MAX_COMPONENT_NAME_CHARS`] characters,
/// each parent before its part, ranges inside the mesh, in order and apart. Says what is wrong.
pub fn check_mesh_parts(parts: &[MeshPart], triangle_count: usize) -> Result<(), String> {
    if parts.len() > MAX_MESH_PARTS {
        return Err(format!("{} parts, more than {MAX_MESH_PARTS}", parts.len()));
    }
    let mut previous_end = 0_u32;
    for (index, part) in parts.iter().enumerate() {
        let chars = part.name.chars().count();
        // A name made unique (" (12)") may pass the cap by its number.
        if chars == 0 || chars > MAX_COMPONENT_NAME_CHARS + 12 {
            return Err(format!("part {index} has a name of {chars} characters"));
        }
        if part.parent.is_some_and(|parent| parent as usize >= index) {
            return Err(format!("part {index} names a parent after it"));
        }
        let Range { start, end } = part.triangles;
        if start > end || start < previous_end || end as usize > triangle_count {
            return Err(format!(
                "part {index}'s triangles {start}..{end} are not in order inside the mesh's \
                 {triangle_count}"
            ));
        }
        previous_end = end;
    }
    Ok(())
}

/// The triangles of every part named `name` and of everything placed in one (a subassembly's
/// components), as ranges in order; empty when no part is named so.
pub fn triangles_of(parts: &[MeshPart], name: &str) -> Vec<Range<u32>> {
    let mut chosen = vec![false; parts.len()];
    let mut ranges = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        let inside = part
            .parent
            .and_then(|parent| chosen.get(parent as usize).copied())
            .unwrap_or(false);
        chosen[index] = inside || part.name == name;
        if chosen[index] && !part.triangles.is_empty() {
            ranges.push(part.triangles.clone());
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, parent: Option<u32>, triangles: Range<u32>) -> MeshPart {
        MeshPart {
            name: name.to_owned(),
            parent,
            triangles,
        }
    }

    #[test]
    fn component_names_are_file_names_unique_in_any_case() {
        assert_eq!(file_name("NUT"), "NUT");
        assert_eq!(file_name("a/b\\c:d\u{7}"), "a_b_c_d_");
        assert_eq!(file_name("  ..  "), "component");
        assert_eq!(file_name(&"x".repeat(300)).len(), MAX_COMPONENT_NAME_CHARS);
        let mut taken = HashSet::new();
        assert_eq!(unique_name(&mut taken, "Nut"), "Nut");
        assert_eq!(unique_name(&mut taken, "NUT"), "NUT (2)");
        assert_eq!(unique_name(&mut taken, "nut"), "nut (3)");
    }

    #[test]
    fn a_subassembly_chosen_lights_what_it_holds() {
        let parts = [
            part("SET", None, 0..0),
            part("NUT", Some(0), 0..4),
            part("BOLT", Some(0), 4..10),
            part("NUT", None, 10..14),
            part("PLATE", None, 14..20),
        ];
        assert_eq!(check_mesh_parts(&parts, 20), Ok(()));
        assert_eq!(triangles_of(&parts, "NUT"), [0..4, 10..14]);
        assert_eq!(triangles_of(&parts, "SET"), [0..4, 4..10]);
        assert!(triangles_of(&parts, "ROD").is_empty());
    }

    #[test]
    fn parts_from_elsewhere_are_checked() {
        let overlapping = [part("A", None, 0..5), part("B", None, 4..6)];
        assert!(check_mesh_parts(&overlapping, 10).is_err());
        let outside = [part("A", None, 0..11)];
        assert!(check_mesh_parts(&outside, 10).is_err());
        let parent_after = [part("A", Some(1), 0..1), part("B", None, 1..2)];
        assert!(check_mesh_parts(&parent_after, 10).is_err());
        let unnamed = [part("", None, 0..1)];
        assert!(check_mesh_parts(&unnamed, 10).is_err());
        let many = vec![part("A", None, 0..0); MAX_MESH_PARTS + 1];
        assert!(check_mesh_parts(&many, 10).is_err());
    }
}
