//! The camera of the 3D preview: an orthographic view of the model, turned about its target by a
//! yaw (about the model's Z axis, which points up) and a pitch (elevation), with a zoom given as the
//! half-height of the view in model units. The seven standard views of a technical drawing are
//! named positions of it.

use egui::Vec2;

/// Radians the view turns per point dragged.
const ORBIT_RADIANS_PER_POINT: f32 = 0.01;

/// The closest and farthest zoom, relative to the fitted view: at the closest a twentieth of the
/// fitted view fills the viewport (closer, a part's surface fills it and the view seems to be
/// inside the part).
const ZOOM_LIMITS: (f32, f32) = (1.0 / 20.0, 20.0);

/// Zoom per point scrolled (as an exponent).
const ZOOM_PER_SCROLLED_POINT: f32 = 0.004;

/// The most one frame's scrolling zooms: a fifth of the distance, however far a wheel or a flung
/// touchpad scrolls in one frame.
const MAX_SCROLL_ZOOM: f32 = 1.2;

/// How much room a fitted view leaves around the model.
const FIT_MARGIN: f32 = 1.08;

/// A standard view of a technical drawing (Z up, front looking along +Y).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandardView {
    /// From −Y.
    Front,
    /// From +Y.
    Back,
    /// From +Z, looking down.
    Top,
    /// From −Z, looking up.
    Bottom,
    /// From −X.
    Left,
    /// From +X.
    Right,
    /// From the front-right-top corner, the three axes equally foreshortened.
    Isometric,
}

impl StandardView {
    /// The seven views, in the order the toolbar offers them.
    pub const ALL: [Self; 7] = [
        Self::Front,
        Self::Back,
        Self::Top,
        Self::Bottom,
        Self::Left,
        Self::Right,
        Self::Isometric,
    ];

    /// The button label (and accessible name).
    pub fn label(self) -> &'static str {
        match self {
            Self::Front => "Front",
            Self::Back => "Back",
            Self::Top => "Top",
            Self::Bottom => "Bottom",
            Self::Left => "Left",
            Self::Right => "Right",
            Self::Isometric => "Iso",
        }
    }

    /// Yaw and pitch, in radians.
    fn angles(self) -> (f32, f32) {
        use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
        match self {
            Self::Front => (0.0, 0.0),
            Self::Back => (PI, 0.0),
            Self::Top => (0.0, FRAC_PI_2),
            Self::Bottom => (0.0, -FRAC_PI_2),
            Self::Left => (-FRAC_PI_2, 0.0),
            Self::Right => (FRAC_PI_2, 0.0),
            // atan(1/√2): the elevation of the cube's diagonal.
            Self::Isometric => (FRAC_PI_4, (1.0_f32 / 2.0_f32.sqrt()).atan()),
        }
    }
}

/// Where the preview looks from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Turn about the Z axis, radians (0: looking from the front).
    pub yaw: f32,
    /// Elevation, radians, −π/2 (from below) to π/2 (from above).
    pub pitch: f32,
    /// The point in the middle of the view, in model units.
    pub target: [f32; 3],
    /// Half the height of the view, in model units (smaller: closer).
    pub half_height: f32,
    /// The half-height that shows the whole model (zoom is limited relative to it).
    pub fitted_half_height: f32,
}

/// The three directions of the camera in model coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraBasis {
    /// Screen right.
    pub right: [f32; 3],
    /// Screen up.
    pub up: [f32; 3],
    /// From the target toward the viewer.
    pub toward_viewer: [f32; 3],
}

impl Camera {
    /// A camera showing the whole box `bounds` from `view` in a viewport of this width / height:
    /// centred on the box, zoomed so its eight corners fit with a small margin.
    pub fn fitted(bounds: [[f32; 3]; 2], view: StandardView, aspect: f32) -> Self {
        let [low, high] = bounds;
        let target = [0, 1, 2].map(|k| (low[k] + high[k]) / 2.0);
        let (yaw, pitch) = view.angles();
        let mut camera = Self {
            yaw,
            pitch,
            target,
            half_height: 1.0,
            fitted_half_height: 1.0,
        };
        let basis = camera.basis();
        let aspect = aspect.clamp(0.1, 10.0);
        let mut half_height = f32::MIN_POSITIVE;
        for corner in 0..8 {
            let point = [0, 1, 2].map(|k| {
                let end = if corner >> k & 1 == 1 {
                    high[k]
                } else {
                    low[k]
                };
                end - target[k]
            });
            let dot = |a: [f32; 3]| a[0] * point[0] + a[1] * point[1] + a[2] * point[2];
            half_height = half_height
                .max(dot(basis.up).abs())
                .max(dot(basis.right).abs() / aspect);
        }
        camera.half_height = half_height * FIT_MARGIN;
        camera.fitted_half_height = camera.half_height;
        camera
    }

    /// Looks from a standard view, keeping target and zoom.
    pub fn set_view(&mut self, view: StandardView) {
        (self.yaw, self.pitch) = view.angles();
    }

    /// The standard view this camera shows, if it shows one.
    pub fn standard_view(&self) -> Option<StandardView> {
        StandardView::ALL.into_iter().find(|view| {
            let (yaw, pitch) = view.angles();
            (pitch - self.pitch).abs() < 1e-4 && angle_difference(yaw, self.yaw) < 1e-4
        })
    }

    /// Turns the view by a drag of `delta` points: sideways about Z, up and down in elevation.
    pub fn orbit(&mut self, delta: Vec2) {
        self.yaw = wrap_angle(self.yaw - delta.x * ORBIT_RADIANS_PER_POINT);
        self.pitch = (self.pitch + delta.y * ORBIT_RADIANS_PER_POINT)
            .clamp(-std::f32::consts::FRAC_PI_2, std::f32::consts::FRAC_PI_2);
    }

    /// Moves the view by a drag of `delta` points in a viewport `viewport_height` points high: the
    /// model follows the pointer.
    pub fn pan(&mut self, delta: Vec2, viewport_height: f32) {
        let units_per_point = 2.0 * self.half_height / viewport_height.max(1.0);
        let basis = self.basis();
        for k in 0..3 {
            self.target[k] -= (basis.right[k] * delta.x - basis.up[k] * delta.y) * units_per_point;
        }
    }

    /// Zooms by `factor` (above one: closer), within limits around the fitted view.
    pub fn zoom(&mut self, factor: f32) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        let (closest, farthest) = ZOOM_LIMITS;
        self.half_height = (self.half_height / factor).clamp(
            self.fitted_half_height * closest,
            self.fitted_half_height * farthest,
        );
    }

    /// Zooms by one frame's scrolling (`scrolled_points` up: closer), by at most a fifth of the
    /// distance, never closer than the closest zoom.
    pub fn zoom_by_scroll(&mut self, scrolled_points: f32) {
        let factor = (scrolled_points * ZOOM_PER_SCROLLED_POINT).exp();
        self.zoom(factor.clamp(1.0 / MAX_SCROLL_ZOOM, MAX_SCROLL_ZOOM));
    }

    /// The camera's directions in model coordinates.
    pub fn basis(&self) -> CameraBasis {
        let (sin_yaw, cos_yaw) = self.yaw.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch.sin_cos();
        let toward_viewer = [cos_pitch * sin_yaw, -cos_pitch * cos_yaw, sin_pitch];
        let right = [cos_yaw, sin_yaw, 0.0];
        // up = right × forward, with forward = −toward_viewer.
        let forward = toward_viewer.map(|value| -value);
        let up = [
            right[1] * forward[2] - right[2] * forward[1],
            right[2] * forward[0] - right[0] * forward[2],
            right[0] * forward[1] - right[1] * forward[0],
        ];
        CameraBasis {
            right,
            up,
            toward_viewer,
        }
    }
}

/// An angle in −π..π.
fn wrap_angle(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    (angle + PI).rem_euclid(TAU) - PI
}

/// The distance between two angles, 0..π.
fn angle_difference(a: f32, b: f32) -> f32 {
    wrap_angle(a - b).abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5)
    }

    #[test]
    fn the_standard_views_look_along_the_axes() {
        let bounds = [[0.0, 0.0, 0.0], [40.0, 20.0, 10.0]];
        let toward = |view| Camera::fitted(bounds, view, 1.5).basis().toward_viewer;
        assert!(close(toward(StandardView::Front), [0.0, -1.0, 0.0]));
        assert!(close(toward(StandardView::Back), [0.0, 1.0, 0.0]));
        assert!(close(toward(StandardView::Right), [1.0, 0.0, 0.0]));
        assert!(close(toward(StandardView::Left), [-1.0, 0.0, 0.0]));
        assert!(close(toward(StandardView::Top), [0.0, 0.0, 1.0]));
        assert!(close(toward(StandardView::Bottom), [0.0, 0.0, -1.0]));
        let third = 1.0 / 3.0_f32.sqrt();
        assert!(close(
            toward(StandardView::Isometric),
            [third, -third, third]
        ));
        // The front view has Z up and X to the right; the top view has Y up.
        let front = Camera::fitted(bounds, StandardView::Front, 1.5).basis();
        assert!(close(front.up, [0.0, 0.0, 1.0]) && close(front.right, [1.0, 0.0, 0.0]));
        let top = Camera::fitted(bounds, StandardView::Top, 1.5).basis();
        assert!(close(top.up, [0.0, 1.0, 0.0]));
        for view in StandardView::ALL {
            assert_eq!(
                Camera::fitted(bounds, view, 1.5).standard_view(),
                Some(view)
            );
        }
    }

    #[test]
    fn fit_orbit_pan_and_zoom() {
        let bounds = [[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]];
        // From the front a cube shows a square: in a wide viewport its height fills the view.
        let front = Camera::fitted(bounds, StandardView::Front, 2.0);
        assert!((front.half_height - FIT_MARGIN).abs() < 1e-5);
        // A narrow viewport fits the width instead.
        assert!(
            (Camera::fitted(bounds, StandardView::Front, 0.5).half_height - 2.0 * FIT_MARGIN).abs()
                < 1e-5
        );
        let mut camera = Camera::fitted(bounds, StandardView::Isometric, 2.0);
        assert_eq!(camera.target, [0.0, 0.0, 0.0]);
        // The isometric cube's outline is a hexagon with corners at ±2/√6·… in height: √2·√(2/3).
        assert!(
            camera.half_height > FIT_MARGIN && camera.half_height < 3.0_f32.sqrt() * FIT_MARGIN
        );
        camera.orbit(Vec2::new(10.0, 0.0));
        assert_eq!(camera.standard_view(), None);
        camera.orbit(Vec2::new(0.0, 1000.0));
        assert_eq!(camera.pitch, std::f32::consts::FRAC_PI_2);
        camera.set_view(StandardView::Front);
        camera.pan(Vec2::new(10.0, 0.0), 100.0);
        // Dragging right moves the model right: the target moves left (−X in the front view).
        assert!(camera.target[0] < 0.0 && camera.target[2].abs() < 1e-6);
        camera.zoom(2.0);
        assert!((camera.half_height - camera.fitted_half_height / 2.0).abs() < 1e-5);
        camera.zoom(1e9);
        assert!(camera.half_height >= camera.fitted_half_height * ZOOM_LIMITS.0 * 0.999);
        camera.zoom(f32::NAN);
        assert!(camera.half_height.is_finite());
    }

    #[test]
    fn scrolling_zooms_by_a_fraction_and_never_into_the_part() {
        let bounds = [[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]];
        let mut camera = Camera::fitted(bounds, StandardView::Front, 2.0);
        let fitted = camera.half_height;
        // One wheel notch flung hard (thousands of points in a frame) zooms a fifth, not all the way.
        camera.zoom_by_scroll(5000.0);
        assert!((camera.half_height - fitted / MAX_SCROLL_ZOOM).abs() < 1e-5);
        camera.zoom_by_scroll(-5000.0);
        assert!((camera.half_height - fitted).abs() < 1e-5);
        // A small scroll zooms a little.
        camera.zoom_by_scroll(10.0);
        assert!(camera.half_height < fitted && camera.half_height > fitted / MAX_SCROLL_ZOOM);
        // However long the scrolling, the view stays a twentieth of the fitted one or larger.
        for _ in 0..1000 {
            camera.zoom_by_scroll(5000.0);
        }
        assert!((camera.half_height - fitted / 20.0).abs() < 1e-5);
    }
}
