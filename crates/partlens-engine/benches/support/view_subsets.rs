//! Fewer views stored a model (issue 51 item 1): which of a library model's views the corpus bench
//! keeps under `library_views=SUBSET`, to measure what a 100,000-part library loses when each
//! model is stored as fewer than its 163 views (211 for a flat part).
//!
//! A database model's views are laid out as `partlens_engine::mesh` indexes them: the
//! [`mesh::VIEW_DIRECTIONS`] around the sphere first, a flat part's
//! [`mesh::NEAR_EDGE_ON_DIRECTIONS`] next, its picture's view last. The subsets:
//!
//! - `all`: every view (today).
//! - `search_input`: the 33 a search by that model brings
//!   ([`mesh::search_input_views_of_database_model`]: the 32 directions of
//!   [`mesh::search_input_subset`] and the picture), no near-edge-on view.
//! - `sphereN` (32 ≤ N ≤ 162, e.g. `sphere92`, `sphere62`): N of the 162 directions chosen evenly,
//!   the picture, and a flat part's 48 near-edge-on views kept whole (they are what finds a flat
//!   part photographed close to its plane, where its picture changes fastest). The N start from the
//!   search input's 32, so that a model searched by still finds its own directions among a stored
//!   model's, then add one at a time the direction farthest from all chosen (ties to the first in
//!   the sphere's order): the 62 and the 92 are nested, and each is as even as a subset of the
//!   162 can be made greedily (the 92 of a geodesic sphere of frequency 3 are not among the 162).
//! - `sphereN+edgeM`: the same with only M of a flat part's 48 near-edge-on views (M of 0, 4, 8,
//!   12, 16, 24: every (48/M)th around each of its four rings, so both heights and both sides stay).
//!
//! Drawings, pictures and a model of any other view count keep every view.

use partlens_engine::ViewDescriptor;
use partlens_engine::mesh;

/// Which views of every library model the bench keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewSubset {
    /// Every view, as the service stores them today.
    All,
    /// The 33 views a search by the model brings.
    SearchInput,
    /// Some of the sphere's directions chosen evenly, the picture, some of a flat part's
    /// near-edge-on views.
    Sphere {
        /// How many of the sphere's directions.
        directions: usize,
        /// How many of a flat part's near-edge-on views.
        edge_on: usize,
    },
}

impl ViewSubset {
    /// The subset `text` names (`all`, `search_input`, `sphereN`), or why it names none.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "all" => return Ok(Self::All),
            "search_input" => return Ok(Self::SearchInput),
            _ => {}
        }
        let smallest = mesh::search_input_positions(mesh::VIEW_DIRECTIONS).len();
        let sphere = |text: &str| {
            let (directions, edge_on) = match text.split_once("+edge") {
                Some((directions, edge_on)) => (directions, edge_on.parse::<usize>().ok()?),
                None => (text, mesh::NEAR_EDGE_ON_DIRECTIONS),
            };
            let directions = directions.parse::<usize>().ok()?;
            let edge_on_fits = edge_on == 0
                || (mesh::NEAR_EDGE_ON_DIRECTIONS.is_multiple_of(edge_on)
                    && EDGE_ON_AROUND.is_multiple_of(mesh::NEAR_EDGE_ON_DIRECTIONS / edge_on));
            ((smallest..=mesh::VIEW_DIRECTIONS).contains(&directions) && edge_on_fits).then_some(
                Self::Sphere {
                    directions,
                    edge_on,
                },
            )
        };
        text.strip_prefix("sphere").and_then(sphere).ok_or_else(|| {
            format!(
                "`{text}` is no view subset: say all, search_input, sphereN with N from \
                 {smallest} to {} or sphereN+edgeM with M of 0, 4, 8, 12, 16, 24 or 48",
                mesh::VIEW_DIRECTIONS
            )
        })
    }

    /// The subset's name as the option spells it.
    pub fn name(self) -> String {
        match self {
            Self::All => "all".to_owned(),
            Self::SearchInput => "search_input".to_owned(),
            Self::Sphere {
                directions,
                edge_on,
            } if edge_on == mesh::NEAR_EDGE_ON_DIRECTIONS => format!("sphere{directions}"),
            Self::Sphere {
                directions,
                edge_on,
            } => format!("sphere{directions}+edge{edge_on}"),
        }
    }

    /// The positions kept among a database model's `views` views, in order (`None`: all of
    /// them, for this subset or for a file that is not a database model of today's layout).
    pub fn positions(self, views: usize) -> Option<Vec<usize>> {
        let flat = match views {
            mesh::VIEWS_PER_MODEL => false,
            mesh::VIEWS_PER_FLAT_MODEL => true,
            _ => return None,
        };
        match self {
            Self::All => None,
            Self::SearchInput => mesh::search_input_views_of_database_model(views),
            Self::Sphere {
                directions,
                edge_on,
            } => {
                let mut positions = mesh::spread_positions(mesh::VIEW_DIRECTIONS, directions);
                positions.sort_unstable();
                if flat && edge_on > 0 {
                    let every = mesh::NEAR_EDGE_ON_DIRECTIONS / edge_on;
                    positions.extend((mesh::VIEW_DIRECTIONS..views - 1).step_by(every));
                }
                positions.push(views - 1);
                Some(positions)
            }
        }
    }

    /// `views` restricted to the subset (all of them when the subset keeps all).
    pub fn restrict(self, views: &[ViewDescriptor]) -> Vec<ViewDescriptor> {
        match self.positions(views.len()) {
            Some(positions) => positions
                .into_iter()
                .filter_map(|at| views.get(at).cloned())
                .collect(),
            None => views.to_vec(),
        }
    }
}

/// Viewpoints around each ring of a flat part's near-edge-on views (`mesh::near_edge_on` lays
/// them out ring by ring, side by side, this many around each).
const EDGE_ON_AROUND: usize = 12;

/// How evenly the subset covers the sphere: the mean and the largest angle, in degrees, from any
/// direction (a Fibonacci spiral of [`COVERAGE_SAMPLES`]) to the nearest sphere direction kept.
pub fn coverage_degrees(subset: ViewSubset) -> (f32, f32) {
    let directions: Vec<[f32; 3]> = mesh::around_the_sphere(mesh::VIEW_DIRECTIONS)
        .iter()
        .map(mesh::Viewpoint::towards_viewer)
        .collect();
    let kept: Vec<[f32; 3]> = match subset.positions(mesh::VIEWS_PER_MODEL) {
        Some(positions) => positions
            .into_iter()
            .filter_map(|at| directions.get(at).copied())
            .collect(),
        None => directions,
    };
    let golden_turn = std::f32::consts::PI * (3.0 - 5.0_f32.sqrt());
    let angles: Vec<f32> = (0..COVERAGE_SAMPLES)
        .map(|at| {
            let z = 1.0 - 2.0 * (at as f32 + 0.5) / COVERAGE_SAMPLES as f32;
            let radius = (1.0 - z * z).max(0.0).sqrt();
            let around = golden_turn * at as f32;
            let sample = [radius * around.cos(), radius * around.sin(), z];
            let nearest = kept
                .iter()
                .map(|direction| dot(sample, *direction))
                .fold(f32::NEG_INFINITY, f32::max);
            nearest.clamp(-1.0, 1.0).acos().to_degrees()
        })
        .collect();
    let mean = angles.iter().sum::<f32>() / angles.len().max(1) as f32;
    (mean, angles.iter().copied().fold(0.0, f32::max))
}

/// Directions [`coverage_degrees`] measures from.
const COVERAGE_SAMPLES: usize = 20_000;

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
