//! The time and size budget of meshing a STEP model, enforced inside truck's tessellation.
//!
//! truck cannot be interrupted, so the curves and surfaces it meshes are wrapped ([`Budgeted`]):
//! every time truck asks one how finely to divide itself or where a boundary point lies on it, the
//! wrapper first looks at the [`Budget`]. While the budget lasts it answers as the real geometry
//! does and counts the sample points it hands out; once the time is up or the points are spent it
//! answers with the coarsest division and no boundary points, so truck finishes in moments with a
//! mesh that is thrown away, and the reader reports which budget ran out.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use truck_meshalgo::prelude::{EuclideanSpace, HashGen, MetricSpace};
use truck_stepio::r#in::alias::{
    BoundedCurve, Curve3D, D2, ParameterDivision1D, ParameterDivision2D, ParameterRange,
    ParametricCurve, ParametricSurface, ParametricSurface3D, Point3, SPHint2D,
    SearchNearestParameter, SearchParameter, Surface, Vector3,
};

/// Which limit meshing ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// The time budget.
    Time,
    /// The sample-point (triangle) budget.
    Points,
}

const WITHIN: u8 = 0;
const OUT_OF_TIME: u8 = 1;
const OUT_OF_POINTS: u8 = 2;

/// What one meshing may spend: a deadline and a number of sample points (a face's grid of
/// `u × v` points, a curve's points), shared by every thread truck meshes on. A budget may be
/// part of a larger one ([`Budget::part_of`]): one face's share of the model's.
#[derive(Debug)]
pub struct Budget {
    time: Duration,
    deadline: Instant,
    max_points: usize,
    points: AtomicUsize,
    exceeded: AtomicU8,
    whole: Option<Arc<Budget>>,
}

impl Budget {
    /// A budget of `time` from now and `max_points` sample points.
    pub fn new(time: Duration, max_points: usize) -> Arc<Self> {
        let now = Instant::now();
        Arc::new(Self {
            time,
            deadline: now.checked_add(time).unwrap_or(now),
            max_points,
            points: AtomicUsize::new(0),
            exceeded: AtomicU8::new(WITHIN),
            whole: None,
        })
    }

    /// A budget of `time` from now (at most what is left of `whole`) whose points are taken from
    /// `whole` too: it runs out when its own time does or when `whole` runs out.
    pub fn part_of(whole: &Arc<Budget>, time: Duration) -> Arc<Self> {
        let now = Instant::now();
        let deadline = now.checked_add(time).unwrap_or(now).min(whole.deadline);
        Arc::new(Self {
            time,
            deadline,
            max_points: whole.max_points,
            points: AtomicUsize::new(0),
            exceeded: AtomicU8::new(WITHIN),
            whole: Some(Arc::clone(whole)),
        })
    }

    /// Ends this budget now, as if its time were up: what is meshed under it gets the coarsest
    /// answers from here on.
    pub fn end(&self) {
        let _ = self.exceeded.compare_exchange(
            WITHIN,
            OUT_OF_TIME,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// The time left before the deadline (zero once it has passed).
    pub fn time_left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// The limit met so far, if any (looking at the clock too, and at the whole budget this one
    /// is part of).
    pub fn exceeded(&self) -> Option<Exceeded> {
        if self.exceeded.load(Ordering::Relaxed) == WITHIN {
            if let Some(whole) = self.whole.as_ref().and_then(|whole| whole.exceeded()) {
                return Some(whole);
            }
            if Instant::now() >= self.deadline {
                self.exceeded.store(OUT_OF_TIME, Ordering::Relaxed);
            }
        }
        match self.exceeded.load(Ordering::Relaxed) {
            OUT_OF_TIME => Some(Exceeded::Time),
            OUT_OF_POINTS => Some(Exceeded::Points),
            _ => None,
        }
    }

    /// Takes `points` sample points from the budget; false (and nothing taken) when they do not
    /// fit or the budget is already spent.
    fn admit(&self, points: usize) -> bool {
        if self.exceeded().is_some() {
            return false;
        }
        let total = self
            .points
            .fetch_add(points, Ordering::Relaxed)
            .saturating_add(points);
        if total > self.max_points {
            self.exceeded.store(OUT_OF_POINTS, Ordering::Relaxed);
            return false;
        }
        self.whole.as_ref().is_none_or(|whole| whole.admit(points))
    }

    /// The time this budget allows.
    pub fn time(&self) -> Duration {
        self.time
    }

    /// Sample points handed out so far.
    pub fn points_used(&self) -> usize {
        self.points.load(Ordering::Relaxed)
    }
}

/// A curve or surface that answers truck's division and search questions within a [`Budget`].
#[derive(Clone, Debug)]
pub struct Budgeted<T> {
    inner: T,
    budget: Arc<Budget>,
}

impl<T> Budgeted<T> {
    /// Wraps `inner` under `budget`.
    pub fn new(inner: T, budget: &Arc<Budget>) -> Self {
        Self {
            inner,
            budget: Arc::clone(budget),
        }
    }
}

impl<C> ParametricCurve for Budgeted<C>
where
    C: ParametricCurve<Point = Point3, Vector = Vector3>,
{
    type Point = Point3;
    type Vector = Vector3;
    fn subs(&self, t: f64) -> Point3 {
        self.inner.subs(t)
    }
    fn der(&self, t: f64) -> Vector3 {
        self.inner.der(t)
    }
    fn der2(&self, t: f64) -> Vector3 {
        self.inner.der2(t)
    }
    fn parameter_range(&self) -> ParameterRange {
        self.inner.parameter_range()
    }
    fn period(&self) -> Option<f64> {
        self.inner.period()
    }
}

impl<C> BoundedCurve for Budgeted<C> where C: BoundedCurve<Point = Point3, Vector = Vector3> {}

impl ParameterDivision1D for Budgeted<Curve3D> {
    type Point = Point3;
    /// Lines and polylines as truck divides them (their ends; their corners); every other curve
    /// by truck's division of a curve (halving each piece until its middle is within `tol` of the
    /// chord, at a point jittered by the chord's hash, as `truck_geotrait::algo::curve` does), but
    /// halving at most [`MAX_CURVE_DEPTH`] times, never again a piece whose middle cannot be
    /// evaluated (NaN) and not past the budget. truck's own halves up to 100 times and takes a NaN
    /// as "not yet within": a FreeCAD trimming curve (PCURVE) that evaluates to NaN made it
    /// build a tree of 2^100 pieces, the reader's endless loop at gigabytes.
    fn parameter_division(&self, range: (f64, f64), tol: f64) -> (Vec<f64>, Vec<Point3>) {
        let ends = (self.inner.subs(range.0), self.inner.subs(range.1));
        let coarsest = || (vec![range.0, range.1], vec![ends.0, ends.1]);
        if self.budget.exceeded().is_some() {
            return coarsest();
        }
        if let Curve3D::Line(_) | Curve3D::Polyline(_) = &self.inner {
            let division = self.inner.parameter_division(range, tol);
            return match self.budget.admit(division.0.len()) {
                true => division,
                false => coarsest(),
            };
        }
        let mut division = CurveDivision {
            curve: &self.inner,
            tolerance_squared: tol * tol,
            budget: &self.budget,
            parameters: vec![range.0],
            points: vec![ends.0],
            halvings: 0,
        };
        division.divide(range, ends, MAX_CURVE_DEPTH);
        if self.budget.exceeded().is_some() || !self.budget.admit(division.parameters.len()) {
            return coarsest();
        }
        (division.parameters, division.points)
    }
}

/// The deepest a curve's parameter range is halved: 2^24 pieces is far finer than any view needs
/// (truck's own limit, 100, is no limit at all).
pub const MAX_CURVE_DEPTH: usize = 24;
/// How many halvings pass between two looks at the budget's clock.
const HALVINGS_BETWEEN_CLOCKS: usize = 256;

/// One curve's division in progress: the parameters and points so far, left to right.
struct CurveDivision<'a, C> {
    curve: &'a C,
    tolerance_squared: f64,
    budget: &'a Budget,
    parameters: Vec<f64>,
    points: Vec<Point3>,
    halvings: usize,
}

impl<C: ParametricCurve<Point = Point3, Vector = Vector3>> CurveDivision<'_, C> {
    /// Adds the division of `range` (whose first point is already in) to the end.
    fn divide(&mut self, range: (f64, f64), ends: (Point3, Point3), depth: usize) {
        let jitter = 0.5 + (0.2 * HashGen::hash1(ends.0.midpoint(ends.1)) - 0.1);
        let t = range.0 * (1.0 - jitter) + range.1 * jitter;
        let on_chord = ends.0 + (ends.1 - ends.0) * jitter;
        let distance_squared = self.curve.subs(t).distance2(on_chord);
        // NaN is not within the tolerance, but halving will never make it so.
        let within = distance_squared < self.tolerance_squared || distance_squared.is_nan();
        self.halvings += 1;
        let out_of_budget = self.halvings.is_multiple_of(HALVINGS_BETWEEN_CLOCKS)
            && self.budget.exceeded().is_some();
        if within || depth == 0 || out_of_budget {
            self.parameters.push(range.1);
            self.points.push(ends.1);
            return;
        }
        let middle = (range.0 + range.1) / 2.0;
        let middle_point = self.curve.subs(middle);
        self.divide((range.0, middle), (ends.0, middle_point), depth - 1);
        self.divide((middle, range.1), (middle_point, ends.1), depth - 1);
    }
}

impl<S> ParametricSurface for Budgeted<S>
where
    S: ParametricSurface<Point = Point3, Vector = Vector3>,
{
    type Point = Point3;
    type Vector = Vector3;
    fn subs(&self, u: f64, v: f64) -> Point3 {
        self.inner.subs(u, v)
    }
    fn uder(&self, u: f64, v: f64) -> Vector3 {
        self.inner.uder(u, v)
    }
    fn vder(&self, u: f64, v: f64) -> Vector3 {
        self.inner.vder(u, v)
    }
    fn uuder(&self, u: f64, v: f64) -> Vector3 {
        self.inner.uuder(u, v)
    }
    fn uvder(&self, u: f64, v: f64) -> Vector3 {
        self.inner.uvder(u, v)
    }
    fn vvder(&self, u: f64, v: f64) -> Vector3 {
        self.inner.vvder(u, v)
    }
    fn parameter_range(&self) -> (ParameterRange, ParameterRange) {
        self.inner.parameter_range()
    }
    fn u_period(&self) -> Option<f64> {
        self.inner.u_period()
    }
    fn v_period(&self) -> Option<f64> {
        self.inner.v_period()
    }
}

impl<S> ParametricSurface3D for Budgeted<S>
where
    S: ParametricSurface3D,
{
    fn normal(&self, u: f64, v: f64) -> Vector3 {
        self.inner.normal(u, v)
    }
}

impl ParameterDivision2D for Budgeted<Surface> {
    /// Planes, spheres, cylinders, tori and swept curves as truck divides them; B-spline and NURBS
    /// surfaces by truck's division (halving every row and column of the grid with a cell whose
    /// middle is farther than `tol` from its corners' blend, again until none is), but with the
    /// grid never past [`MAX_SURFACE_GRID`] points and not past the budget. truck's own halves
    /// until done, which on a large plate's spline face (a Voron build plate) grew the grid for
    /// longer than the file's whole time.
    fn parameter_division(
        &self,
        range: ((f64, f64), (f64, f64)),
        tol: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let coarsest = || (vec![range.0.0, range.0.1], vec![range.1.0, range.1.1]);
        if self.budget.exceeded().is_some() {
            return coarsest();
        }
        let (u, v) = match &self.inner {
            Surface::BSplineSurface(_) | Surface::NurbsSurface(_) => {
                divide_surface(&self.inner, range, tol, &self.budget)
            }
            _ => self.inner.parameter_division(range, tol),
        };
        if self.budget.exceeded().is_none() && self.budget.admit(u.len().saturating_mul(v.len())) {
            (u, v)
        } else {
            coarsest()
        }
    }
}

/// The most points a surface's division grid may have (256 × 256): finer than a view needs.
pub const MAX_SURFACE_GRID: usize = 1 << 16;

fn divide_surface<S: ParametricSurface<Point = Point3, Vector = Vector3>>(
    surface: &S,
    (u_range, v_range): ((f64, f64), (f64, f64)),
    tolerance: f64,
    budget: &Budget,
) -> (Vec<f64>, Vec<f64>) {
    let mut u_division = vec![u_range.0, u_range.1];
    let mut v_division = vec![v_range.0, v_range.1];
    loop {
        if budget.exceeded().is_some()
            || u_division.len().saturating_mul(v_division.len()) > MAX_SURFACE_GRID
        {
            break;
        }
        let mut halve_u = vec![false; u_division.len() - 1];
        let mut halve_v = vec![false; v_division.len() - 1];
        for (u, halve_this_u) in u_division.windows(2).zip(&mut halve_u) {
            for (v, halve_this_v) in v_division.windows(2).zip(&mut halve_v) {
                if *halve_this_u && *halve_this_v {
                    continue;
                }
                let centre = surface.subs((u[0] + u[1]) / 2.0, (v[0] + v[1]) / 2.0);
                let p = 0.5 + (0.2 * HashGen::hash1(centre) - 0.1);
                let (u0, v0) = (u[0] * (1.0 - p) + u[1] * p, v[0] * (1.0 - p) + v[1] * p);
                let corners = [
                    surface.subs(u[0], v[0]).to_vec() * (1.0 - p) * (1.0 - p),
                    surface.subs(u[0], v[1]).to_vec() * (1.0 - p) * p,
                    surface.subs(u[1], v[0]).to_vec() * p * (1.0 - p),
                    surface.subs(u[1], v[1]).to_vec() * p * p,
                ];
                let blend = Point3::from_vec(corners.into_iter().sum());
                // NaN is not far: halving will never bring it nearer.
                let far = surface.subs(u0, v0).distance2(blend) > tolerance * tolerance;
                *halve_this_u |= far;
                *halve_this_v |= far;
            }
        }
        if !halve_u.contains(&true) && !halve_v.contains(&true) {
            break;
        }
        u_division = halved(&u_division, &halve_u);
        v_division = halved(&v_division, &halve_v);
    }
    (u_division, v_division)
}

/// `division` with the pieces marked in `halve` cut in two.
fn halved(division: &[f64], halve: &[bool]) -> Vec<f64> {
    let mut out = Vec::with_capacity(division.len() * 2);
    out.extend(division.first());
    for (piece, &cut) in division.windows(2).zip(halve) {
        if cut {
            out.push((piece[0] + piece[1]) / 2.0);
        }
        out.push(piece[1]);
    }
    out
}

impl<S> SearchParameter<D2> for Budgeted<S>
where
    S: SearchParameter<D2, Point = Point3>,
{
    type Point = Point3;
    fn search_parameter<H: Into<SPHint2D>>(
        &self,
        point: Point3,
        hint: H,
        trials: usize,
    ) -> Option<(f64, f64)> {
        if self.budget.exceeded().is_some() {
            return None;
        }
        self.inner.search_parameter(point, hint, trials)
    }
}

impl<S> SearchNearestParameter<D2> for Budgeted<S>
where
    S: SearchNearestParameter<D2, Point = Point3>,
{
    type Point = Point3;
    fn search_nearest_parameter<H: Into<SPHint2D>>(
        &self,
        point: Point3,
        hint: H,
        trials: usize,
    ) -> Option<(f64, f64)> {
        if self.budget.exceeded().is_some() {
            return None;
        }
        self.inner.search_nearest_parameter(point, hint, trials)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_counted_until_the_budget_is_spent() {
        let budget = Budget::new(Duration::from_secs(3600), 10);
        assert!(budget.admit(6));
        assert!(!budget.admit(6));
        assert_eq!(budget.exceeded(), Some(Exceeded::Points));
        assert!(!budget.admit(1), "a spent budget admits nothing");
    }

    /// A test curve over [0, 1] given by where it is at each parameter.
    #[derive(Clone)]
    struct TestCurve(fn(f64) -> Point3);

    impl ParametricCurve for TestCurve {
        type Point = Point3;
        type Vector = Vector3;
        fn subs(&self, t: f64) -> Point3 {
            (self.0)(t)
        }
        fn der(&self, _: f64) -> Vector3 {
            Vector3::new(1.0, 0.0, 0.0)
        }
        fn der2(&self, _: f64) -> Vector3 {
            Vector3::new(0.0, 0.0, 0.0)
        }
        fn parameter_range(&self) -> ParameterRange {
            use std::ops::Bound::Included;
            (Included(0.0), Included(1.0))
        }
    }

    /// A curve that evaluates to NaN between its ends, as a trimming curve that leaves its
    /// surface's domain does.
    const NOT_A_NUMBER_INSIDE: TestCurve = TestCurve(|t| match t {
        0.0 => Point3::new(0.0, 0.0, 0.0),
        1.0 => Point3::new(1.0, 0.0, 0.0),
        _ => Point3::new(f64::NAN, 0.0, 0.0),
    });

    /// A curve that never comes within any tolerance of its chords (a sawtooth of period 1e-9).
    const SAWTOOTH: TestCurve =
        TestCurve(|t| Point3::new(t, if (t * 1e9) as i64 % 2 == 0 { 0.0 } else { 1.0 }, 0.0));

    fn divide<C: ParametricCurve<Point = Point3, Vector = Vector3>>(
        curve: &C,
        budget: &Budget,
    ) -> Vec<f64> {
        let mut division = CurveDivision {
            curve,
            tolerance_squared: 1e-6,
            budget,
            parameters: vec![0.0],
            points: vec![curve.subs(0.0)],
            halvings: 0,
        };
        division.divide(
            (0.0, 1.0),
            (curve.subs(0.0), curve.subs(1.0)),
            MAX_CURVE_DEPTH,
        );
        assert_eq!(division.parameters.len(), division.points.len());
        division.parameters
    }

    #[test]
    fn a_curve_that_evaluates_to_nan_is_not_halved_without_end() {
        let budget = Budget::new(Duration::from_secs(3600), usize::MAX);
        assert_eq!(divide(&NOT_A_NUMBER_INSIDE, &budget), vec![0.0, 1.0]);
    }

    #[test]
    fn a_curve_that_never_comes_within_the_tolerance_stops_at_the_depth_or_the_clock() {
        let budget = Budget::new(Duration::from_secs(3600), usize::MAX);
        let parameters = divide(&SAWTOOTH, &budget);
        assert!(parameters.len() <= (1 << MAX_CURVE_DEPTH) + 1);
        assert!(parameters.windows(2).all(|pair| pair[0] < pair[1]));
        let spent = Budget::new(Duration::ZERO, usize::MAX);
        let parameters = divide(&SAWTOOTH, &spent);
        assert!(
            parameters.len() <= HALVINGS_BETWEEN_CLOCKS + 1,
            "{} pieces after the time was up",
            parameters.len()
        );
    }

    #[test]
    fn a_budget_without_time_is_out_of_time_at_once() {
        let budget = Budget::new(Duration::ZERO, 10);
        assert_eq!(budget.exceeded(), Some(Exceeded::Time));
        assert!(!budget.admit(1));
        assert_eq!(budget.points_used(), 0);
    }
}
