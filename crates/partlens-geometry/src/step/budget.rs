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

use truck_stepio::r#in::alias::{
    BoundedCurve, D2, ParameterDivision1D, ParameterDivision2D, ParameterRange, ParametricCurve,
    ParametricSurface, ParametricSurface3D, Point3, SPHint2D, SearchNearestParameter,
    SearchParameter, Vector3,
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
/// `u × v` points, a curve's points), shared by every thread truck meshes on.
#[derive(Debug)]
pub struct Budget {
    time: Duration,
    deadline: Instant,
    max_points: usize,
    points: AtomicUsize,
    exceeded: AtomicU8,
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
        })
    }

    /// The limit met so far, if any (looking at the clock too).
    pub fn exceeded(&self) -> Option<Exceeded> {
        if self.exceeded.load(Ordering::Relaxed) == WITHIN && Instant::now() >= self.deadline {
            self.exceeded.store(OUT_OF_TIME, Ordering::Relaxed);
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
        true
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

impl<C> ParameterDivision1D for Budgeted<C>
where
    C: ParametricCurve<Point = Point3, Vector = Vector3> + ParameterDivision1D<Point = Point3>,
{
    type Point = Point3;
    fn parameter_division(&self, range: (f64, f64), tol: f64) -> (Vec<f64>, Vec<Point3>) {
        let coarsest = || {
            (
                vec![range.0, range.1],
                vec![self.inner.subs(range.0), self.inner.subs(range.1)],
            )
        };
        if self.budget.exceeded().is_some() {
            return coarsest();
        }
        let division = self.inner.parameter_division(range, tol);
        if self.budget.admit(division.0.len()) {
            division
        } else {
            coarsest()
        }
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

impl<S> ParameterDivision2D for Budgeted<S>
where
    S: ParameterDivision2D,
{
    fn parameter_division(
        &self,
        range: ((f64, f64), (f64, f64)),
        tol: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let coarsest = || (vec![range.0.0, range.0.1], vec![range.1.0, range.1.1]);
        if self.budget.exceeded().is_some() {
            return coarsest();
        }
        let (u, v) = self.inner.parameter_division(range, tol);
        if self.budget.admit(u.len().saturating_mul(v.len())) {
            (u, v)
        } else {
            coarsest()
        }
    }
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

    #[test]
    fn a_budget_without_time_is_out_of_time_at_once() {
        let budget = Budget::new(Duration::ZERO, 10);
        assert_eq!(budget.exceeded(), Some(Exceeded::Time));
        assert!(!budget.admit(1));
        assert_eq!(budget.points_used(), 0);
    }
}
