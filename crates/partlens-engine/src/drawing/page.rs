//! The page: how drawing units map to page pixels. The page is the scene's extents plus a margin,
//! scaled so its longest side is [`LARGE_IMAGE_SIZE`] pixels; the rendered page *is* the large image,
//! so PMI boxes drawn over the large image line up 1:1. Page pixels have their origin top-left, y down.

use super::super::LARGE_IMAGE_SIZE;
use super::scene::Point2;

/// Blank border around the drawing, in page pixels.
pub const MARGIN_PX: f64 = 16.0;
/// Shortest side of a page, in pixels (a drawing of a single line is still a page).
pub const MIN_SIDE_PX: u32 = 64;

/// Maps drawing units to page pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Page {
    /// Page width in pixels.
    pub width: u32,
    /// Page height in pixels.
    pub height: u32,
    min: Point2,
    max_y: f64,
    pixels_per_unit: f64,
    offset: Point2,
}

impl Page {
    /// The page that shows everything between `min` and `max` (drawing units).
    pub fn fitting(min: Point2, max: Point2) -> Self {
        let longest = f64::from(LARGE_IMAGE_SIZE);
        let span = [(max[0] - min[0]).max(0.0), (max[1] - min[1]).max(0.0)];
        let largest_span = span[0].max(span[1]);
        let pixels_per_unit = if largest_span > 0.0 && largest_span.is_finite() {
            (longest - 2.0 * MARGIN_PX) / largest_span
        } else {
            1.0
        };
        let side = |extent: f64| {
            let pixels = (extent * pixels_per_unit + 2.0 * MARGIN_PX).round();
            (pixels.clamp(f64::from(MIN_SIDE_PX), longest)) as u32
        };
        let width = side(span[0]);
        let height = side(span[1]);
        // A side widened to the minimum keeps the drawing centred in it.
        let offset = [
            (f64::from(width) - span[0] * pixels_per_unit) / 2.0,
            (f64::from(height) - span[1] * pixels_per_unit) / 2.0,
        ];
        Self {
            width,
            height,
            min,
            max_y: max[1],
            pixels_per_unit,
            offset,
        }
    }

    /// A sheet of paper (a PDF page's media box, `min` to `max` in points) at `pixels_per_unit`, with
    /// no margin.
    pub fn sheet(min: Point2, max: Point2, pixels_per_unit: f64) -> Self {
        Self::sheet_up_to(min, max, pixels_per_unit, LARGE_IMAGE_SIZE)
    }

    /// A sheet like [`Page::sheet`] whose sides may reach `max_side` pixels: a print of the page at
    /// a scanner's resolution (the scanned-drawing tests).
    pub fn sheet_up_to(min: Point2, max: Point2, pixels_per_unit: f64, max_side: u32) -> Self {
        let side = |extent: f64| {
            let pixels = (extent.max(0.0) * pixels_per_unit).round();
            (pixels.clamp(f64::from(MIN_SIDE_PX), f64::from(max_side.max(MIN_SIDE_PX)))) as u32
        };
        Self {
            width: side(max[0] - min[0]),
            height: side(max[1] - min[1]),
            min,
            max_y: max[1],
            pixels_per_unit,
            offset: [0.0, 0.0],
        }
    }

    /// A drawing point in page pixels (fractional).
    pub fn page_point(&self, [x, y]: Point2) -> Point2 {
        [
            self.offset[0] + (x - self.min[0]) * self.pixels_per_unit,
            self.offset[1] + (self.max_y - y) * self.pixels_per_unit,
        ]
    }

    /// The PMI box (`[left, top, right, bottom]`, whole pixels, inside the page) around drawing points.
    pub fn box_in_page(&self, corners: &[Point2]) -> [i64; 4] {
        let mut left = f64::INFINITY;
        let mut top = f64::INFINITY;
        let mut right = f64::NEG_INFINITY;
        let mut bottom = f64::NEG_INFINITY;
        for corner in corners {
            let [x, y] = self.page_point(*corner);
            left = left.min(x);
            right = right.max(x);
            top = top.min(y);
            bottom = bottom.max(y);
        }
        let clamp_x = |value: f64| value.clamp(0.0, f64::from(self.width)) as i64;
        let clamp_y = |value: f64| value.clamp(0.0, f64::from(self.height)) as i64;
        if !(left.is_finite() && top.is_finite() && right.is_finite() && bottom.is_finite()) {
            return [0, 0, 0, 0];
        }
        [
            clamp_x(left.floor()),
            clamp_y(top.floor()),
            clamp_x(right.ceil()),
            clamp_y(bottom.ceil()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_side_is_the_large_image_size_and_y_points_down() {
        let page = Page::fitting([0.0, 0.0], [200.0, 100.0]);
        assert_eq!(page.width, LARGE_IMAGE_SIZE);
        assert_eq!(page.height, (100.0 * (1024.0 - 32.0) / 200.0 + 32.0) as u32);
        // The drawing's top-left corner is the page's top-left inside the margin.
        assert_eq!(page.page_point([0.0, 100.0]), [MARGIN_PX, MARGIN_PX]);
        let [_, y_low] = page.page_point([0.0, 0.0]);
        let [_, y_high] = page.page_point([0.0, 50.0]);
        assert!(y_low > y_high);
    }

    #[test]
    fn boxes_are_left_top_right_bottom_inside_the_page() {
        let page = Page::fitting([0.0, 0.0], [100.0, 100.0]);
        let [left, top, right, bottom] = page.box_in_page(&[[10.0, 20.0], [30.0, 40.0]]);
        assert!(left < right && top < bottom);
        // Higher y in the drawing is nearer the top of the page.
        assert_eq!(top, page.page_point([0.0, 40.0])[1].floor() as i64);
        let outside = page.box_in_page(&[[-1000.0, -1000.0], [1000.0, 1000.0]]);
        assert_eq!(
            outside,
            [0, 0, i64::from(page.width), i64::from(page.height)]
        );
        // A degenerate drawing still gets a page.
        let dot = Page::fitting([5.0, 5.0], [5.0, 5.0]);
        assert_eq!((dot.width, dot.height), (MIN_SIDE_PX, MIN_SIDE_PX));
    }
}
