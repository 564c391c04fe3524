//! Rasterising a scene onto its page: black strokes two pixels wide on white, filled outlines, and
//! texts "greeked" (a grey bar a word, from baseline to x-height) since no glyphs are drawn.

use image::{Rgb, RgbImage};
use imageproc::drawing::{draw_line_segment_mut, draw_polygon_mut};
use imageproc::point::Point;

use super::page::Page;
use super::scene::{Point2, Scene};

const INK: Rgb<u8> = Rgb([0, 0, 0]);
const TEXT_INK: Rgb<u8> = Rgb([110, 110, 110]);

/// The page as an RGB image on white.
pub fn render(scene: &Scene, page: &Page) -> RgbImage {
    let mut image = RgbImage::from_pixel(page.width, page.height, Rgb([255, 255, 255]));
    for stroke in &scene.strokes {
        let pixels: Vec<Point2> = stroke.iter().map(|point| page.page_point(*point)).collect();
        for pair in pixels.windows(2) {
            thick_line(&mut image, pair[0], pair[1], INK);
        }
    }
    for outline in &scene.fills {
        let pixels: Vec<Point2> = outline
            .iter()
            .map(|point| page.page_point(*point))
            .collect();
        fill(&mut image, &pixels, INK);
    }
    for text in scene.texts.iter().filter(|text| text.visible) {
        for word in text.word_shapes() {
            let pixels: Vec<Point2> = word.iter().map(|point| page.page_point(*point)).collect();
            fill(&mut image, &pixels, TEXT_INK);
        }
    }
    image
}

fn thick_line(image: &mut RgbImage, from: Point2, to: Point2, colour: Rgb<u8>) {
    let start = (from[0] as f32, from[1] as f32);
    let end = (to[0] as f32, to[1] as f32);
    draw_line_segment_mut(image, start, end, colour);
    // The second pixel goes across the line's main direction.
    let (dx, dy) = if (to[0] - from[0]).abs() > (to[1] - from[1]).abs() {
        (0.0, 1.0)
    } else {
        (1.0, 0.0)
    };
    draw_line_segment_mut(
        image,
        (start.0 + dx, start.1 + dy),
        (end.0 + dx, end.1 + dy),
        colour,
    );
}

/// Fills a polygon given in page pixels; one too thin to have an area is drawn as its outline.
fn fill(image: &mut RgbImage, pixels: &[Point2], colour: Rgb<u8>) {
    let limit = f64::from(image.width().max(image.height())) * 4.0;
    let mut points: Vec<Point<i32>> = Vec::with_capacity(pixels.len());
    for [x, y] in pixels {
        let point = Point::new(
            x.round().clamp(-limit, limit) as i32,
            y.round().clamp(-limit, limit) as i32,
        );
        if points.last() != Some(&point) {
            points.push(point);
        }
    }
    while points.len() > 1 && points.first() == points.last() {
        points.pop();
    }
    let doubled_area: i64 = (0..points.len())
        .map(|index| {
            let a = points[index];
            let b = points[(index + 1) % points.len()];
            i64::from(a.x) * i64::from(b.y) - i64::from(b.x) * i64::from(a.y)
        })
        .sum();
    if points.len() >= 3 && doubled_area != 0 {
        draw_polygon_mut(image, &points, colour);
    } else {
        for pair in pixels.windows(2) {
            thick_line(image, pair[0], pair[1], colour);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::engine::drawing::PmiItemKind;
    use crate::service::engine::drawing::scene::{PlacedText, Transform};

    #[test]
    fn strokes_and_texts_are_drawn_on_white() {
        let scene = Scene {
            strokes: vec![vec![[0.0, 0.0], [100.0, 0.0], [100.0, 50.0]]],
            fills: vec![vec![[0.0, 40.0], [10.0, 40.0], [10.0, 50.0]]],
            texts: vec![PlacedText {
                text: "NOTE".into(),
                kind: PmiItemKind::Note,
                tag: None,
                frame: Transform::translate(40.0, 20.0),
                height: 5.0,
                char_width: 3.0,
                line_pitch: 8.0,
                visible: true,
            }],
        };
        let (min, max) = scene.extents().unwrap();
        let page = Page::fitting(min, max);
        let image = render(&scene, &page);
        assert_eq!((image.width(), image.height()), (page.width, page.height));
        let [x, y] = page.page_point([50.0, 0.0]);
        assert_eq!(image.get_pixel(x as u32, y as u32), &INK);
        let [x, y] = page.page_point([45.0, 21.0]);
        assert_eq!(image.get_pixel(x as u32, y as u32), &TEXT_INK);
        let [x, y] = page.page_point([50.0, 45.0]);
        assert_eq!(image.get_pixel(x as u32, y as u32), &Rgb([255, 255, 255]));
    }
}
