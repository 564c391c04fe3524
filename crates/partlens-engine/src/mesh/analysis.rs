//! What a mesh says about the part in numbers, as extracted attributes: its bounding box, triangle
//! count, surface area and, when the surface is closed, its volume. Units are taken to be
//! millimetres (STL, OBJ and PLY carry none; millimetres are what CAD exports by default). And
//! whether the model is an assembly ([`assembly_attribute`]).

use super::Mesh;
use partlens_geometry::{ProductTree, is_closed, volume};

/// The extracted attribute that says whether a model is an assembly: `is_assembly=true` or
/// `is_assembly=false` on every model whose shape was read (the service filters by it).
pub const ASSEMBLY_ATTRIBUTE: &str = "is_assembly";

/// [`ASSEMBLY_ATTRIBUTE`] of a model whose reader gave `tree`: true when the tree places at least
/// two parts (leaf occurrences); a single part, a mesh format, or a tree around one part is false.
pub fn assembly_attribute(tree: Option<&ProductTree>) -> String {
    let parts = tree.map_or(0, |tree| {
        tree.occurrences
            .iter()
            .filter(|occurrence| {
                tree.products
                    .get(occurrence.product)
                    .is_some_and(|product| !product.is_assembly)
            })
            .count()
    });
    format!("{ASSEMBLY_ATTRIBUTE}={}", parts >= 2)
}

/// The extracted attributes of a mesh, `name=value`, in file units taken as millimetres.
pub fn mesh_attributes(mesh: &Mesh) -> Vec<String> {
    let mut attributes = Vec::with_capacity(4);
    if let Some([low, high]) = mesh.bounds() {
        let size = [0, 1, 2].map(|k| format_number(f64::from(high[k] - low[k])));
        attributes.push(format!(
            "bounding_box(mm)={}×{}×{}",
            size[0], size[1], size[2]
        ));
    }
    attributes.push(format!("triangles={}", mesh.triangles.len()));
    attributes.push(format!(
        "surface_area(mm2)={}",
        format_number(mesh.surface_area())
    ));
    if is_closed(mesh) {
        attributes.push(format!("volume(mm3)={}", format_number(volume(mesh))));
    }
    attributes
}

/// A measurement with three significant decimals at most, no trailing zeros (`12.5`, `0.012`, `40`).
fn format_number(value: f64) -> String {
    let decimals = if value.abs() >= 100.0 {
        1
    } else if value.abs() >= 1.0 {
        3
    } else {
        4
    };
    let text = format!("{value:.decimals$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" || text.is_empty() {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(format_number(40.0), "40");
        assert_eq!(format_number(12.5), "12.5");
        assert_eq!(format_number(1234.56), "1234.6");
        assert_eq!(format_number(0.01234), "0.0123");
        assert_eq!(format_number(0.0), "0");
    }
}
