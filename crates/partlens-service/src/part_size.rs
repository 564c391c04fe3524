//! The size of a model in search: its extents, read from the `bounding_box(mm)` attribute the
//! engine extracts from every model it reads (STEP, IGES, STL, OBJ, PLY), sorted so that a part
//! turned by quarter turns has the same size; and how far apart two sizes are, on a log scale.
//!
//! A STEP file's extents are in millimetres whatever unit the file states (the readers apply it). An
//! STL, OBJ or PLY file states none, and its numbers are taken as millimetres; but a mesh written in
//! inches or metres is the same part as its STEP file, so two sizes whose every extent differs by
//! the same factor of 25.4 or 1000, one of them from such a format, count as one size.
//!
//! A model searched by a model is ranked by shape and size ([`blend`]): the same shape at the same
//! size first, the same shape at other sizes next (a family stays together above unrelated
//! shapes: past a tenth, a size difference costs little), then the rest. Pictures, sketches and drawings have no size
//! and are ranked by shape alone.

pub use partlens_api::range::EXTENTS_ATTRIBUTE;

/// File extensions of model formats that carry no length unit (their numbers are taken as mm).
const UNITLESS_EXTENSIONS: [&str; 3] = [".stl", ".obj", ".ply"];

/// What a unit of size difference (see [`size_difference`]) costs a visual score in 0..1 near the
/// search's size, up to [`NEAR_DIFFERENCE`]: the same shape one standard size away (an M8 nut
/// for an M10, 0.2 apart) loses 0.1, more than a STEP file and its STL ever differ by shape
/// (the corpus's twins score 0.91–0.995 against each other; sizes of one part 0.9–0.99).
pub const NEAR_WEIGHT: f32 = 1.0;

/// The size difference up to which [`NEAR_WEIGHT`] applies.
pub const NEAR_DIFFERENCE: f32 = 0.1;

/// What a unit of size difference costs beyond that, up to [`FAR_DIFFERENCE`]: gently, so that
/// the sizes of one part stay together, above unrelated shapes (those score 0.73–0.85 against a
/// model of the corpus), with the nearer sizes first.
pub const FAR_WEIGHT: f32 = 0.05;

/// The size difference past which a candidate loses nothing more (a factor of e⁴, about 55).
pub const FAR_DIFFERENCE: f32 = 4.0;

/// Extents of a part below this share of its largest extent count as this share (a flat sheet
/// read as 0 mm thick still has a thickness to compare).
const THINNEST_SHARE: f32 = 0.01;

/// Unit factors that a unitless mesh may be off by (inch, metre), relative to millimetres.
const UNIT_FACTORS: [f32; 2] = [25.4, 1000.0];

/// How close every extent's ratio must be to a unit factor to be taken for it (2 %).
const UNIT_FACTOR_TOLERANCE: f32 = 0.02;

/// A model's size: its three extents in millimetres, smallest first, each above zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartSize {
    /// The extents, smallest first.
    pub extents: [f32; 3],
    /// The file's format states no unit (STL, OBJ, PLY): its numbers may be inches or metres.
    pub unitless: bool,
}

impl PartSize {
    /// The size a record's extracted attributes state, `None` when they state none (a picture, a
    /// drawing) or an unreadable one. `extension` is the record's (`.stl`), which says whether its
    /// format has units.
    pub fn of(extracted_attributes: &[String], extension: &str) -> Option<Self> {
        let value = extracted_attributes.iter().find_map(|attribute| {
            let (name, value) = attribute.split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case(EXTENTS_ATTRIBUTE)
                .then_some(value)
        })?;
        let mut extents = [0.0_f32; 3];
        let mut parts = value.split(['×', 'x', 'X']);
        for extent in &mut extents {
            let number: f32 = parts.next()?.trim().parse().ok()?;
            if !number.is_finite() || number < 0.0 {
                return None;
            }
            *extent = number;
        }
        if parts.next().is_some() {
            return None;
        }
        Self::from_extents(extents, UNITLESS_EXTENSIONS.contains(&extension))
    }

    /// The size of extents in any order; `None` when the part has no extent at all.
    pub fn from_extents(extents: [f32; 3], unitless: bool) -> Option<Self> {
        let mut extents = extents;
        extents.sort_by(f32::total_cmp);
        let largest = extents[2];
        if !(largest.is_finite() && largest > 0.0) {
            return None;
        }
        let floor = largest * THINNEST_SHARE;
        Some(Self {
            extents: extents.map(|extent| extent.max(floor)),
            unitless,
        })
    }
}

/// How far apart two sizes are: the mean, over the sorted extents, of the absolute natural log of
/// their ratio (0 for the same size; 0.22 for every extent 25 % larger). A unitless mesh whose
/// every extent is off by the same unit factor (25.4, 1000) is taken as the same size.
pub fn size_difference(a: &PartSize, b: &PartSize) -> f32 {
    let ratios = [0, 1, 2].map(|k| a.extents[k] / b.extents[k]);
    if a.unitless || b.unitless {
        for factor in UNIT_FACTORS {
            for ratio in [factor, 1.0 / factor] {
                if ratios
                    .iter()
                    .all(|r| (r / ratio - 1.0).abs() <= UNIT_FACTOR_TOLERANCE)
                {
                    return mean_log(ratios.map(|r| r / ratio));
                }
            }
        }
    }
    mean_log(ratios)
}

fn mean_log(ratios: [f32; 3]) -> f32 {
    ratios.iter().map(|ratio| ratio.ln().abs()).sum::<f32>() / 3.0
}

/// The score of a candidate of shape score `visual` whose size is `difference` away from the
/// search's ([`size_difference`]): the visual score less [`NEAR_WEIGHT`] a unit of difference up
/// to [`NEAR_DIFFERENCE`] and [`FAR_WEIGHT`] a unit up to [`FAR_DIFFERENCE`], never below 0.
/// Tuned on the real-world corpus's twins and families (docs/PERFORMANCE.md).
pub fn blend(visual: f32, difference: f32) -> f32 {
    let near = NEAR_WEIGHT * difference.min(NEAR_DIFFERENCE);
    let far = FAR_WEIGHT * difference.min(FAR_DIFFERENCE);
    (visual - near - far).max(0.0)
}

/// The smallest size difference between a candidate and any of the search's sizes.
pub fn nearest_difference(query: &[PartSize], candidate: &PartSize) -> Option<f32> {
    query
        .iter()
        .map(|size| size_difference(size, candidate))
        .min_by(f32::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(text: &str, extension: &str) -> PartSize {
        PartSize::of(&[format!("bounding_box(mm)={text}")], extension).unwrap()
    }

    #[test]
    fn extents_are_read_sorted_from_the_attribute() {
        let read = PartSize::of(
            &[
                "triangles=12".to_owned(),
                "bounding_box(mm)=40×10×20.5".to_owned(),
            ],
            ".step",
        )
        .unwrap();
        assert_eq!(read.extents, [10.0, 20.5, 40.0]);
        assert!(!read.unitless);
        assert!(size("1×2×3", ".stl").unitless);
        for unreadable in ["", "1×2", "1×2×3×4", "a×2×3", "0×0×0", "-1×2×3", "NaN×1×1"]
        {
            assert_eq!(
                PartSize::of(&[format!("bounding_box(mm)={unreadable}")], ".step"),
                None,
                "{unreadable}"
            );
        }
        assert_eq!(PartSize::of(&["triangles=12".to_owned()], ".stl"), None);
    }

    #[test]
    fn a_flat_part_keeps_a_thickness_to_compare() {
        let sheet = size("100×50×0", ".step");
        assert_eq!(sheet.extents, [1.0, 50.0, 100.0]);
    }

    #[test]
    fn the_same_size_in_any_orientation_differs_by_nothing() {
        let a = size("8×13×6.8", ".step");
        let b = size("6.8×8×13", ".stl");
        assert!(size_difference(&a, &b) < 1e-6);
    }

    #[test]
    fn another_size_differs_by_the_log_of_its_ratio() {
        let m8 = size("13×14.4×6.8", ".step");
        let m10 = size("16×17.8×8.4", ".step");
        let difference = size_difference(&m8, &m10);
        assert!((0.15..0.25).contains(&difference), "{difference}");
        assert!((size_difference(&m10, &m8) - difference).abs() < 1e-6);
    }

    #[test]
    fn a_mesh_in_inches_or_metres_is_the_same_size_as_its_step_file() {
        let step = size("25.4×50.8×101.6", ".step");
        let inches = size("1×2×4", ".stl");
        let metres = size("0.0254×0.0508×0.1016", ".obj");
        assert!(size_difference(&step, &inches) < 0.01);
        assert!(size_difference(&metres, &step) < 0.01);
        // Two files with units are not excused.
        let step_in_inches_read_wrong = size("1×2×4", ".step");
        assert!(size_difference(&step, &step_in_inches_read_wrong) > 3.0);
        // Nor a mesh of another shape's proportions.
        let other = size("1×3×4", ".stl");
        assert!(size_difference(&step, &other) > 3.0);
    }

    #[test]
    fn the_same_size_ranks_first_other_sizes_next_then_the_rest() {
        // A twin (another format of the part) against the next standard size, which looks more
        // alike than the twin's own tessellation.
        let same = blend(0.92, 0.0);
        let other_size = blend(0.99, 0.22);
        let far_size = blend(0.99, 2.0);
        // The median score of an unrelated shape among a corpus model's first 30 results.
        let unrelated = blend(0.78, 0.0);
        assert!(same > other_size && other_size > far_size && far_size > unrelated);
        assert_eq!(blend(0.2, 3.0), 0.0);
        assert_eq!(blend(0.9, 10.0), blend(0.9, FAR_DIFFERENCE));
    }
}
