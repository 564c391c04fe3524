//! The part in a photograph whose background is not one plane of colour: a table and the wall
//! behind it, a table's grain, the part's shadow on it, things lying behind the part. The framing
//! (`framing.rs`) asks for this only when a plane fitted to the picture's border leaves much of the
//! border unexplained; a part on a plain backdrop never comes here.
//!
//! The background is grown from the border: the colours holding a fair share of the border ring
//! are where it starts, and it spreads from pixel to pixel as long as the colour changes little
//! from one to the next (a grain, a soft shadow and a gradient change slowly; a part's outline
//! does not). What is left is split into connected pieces, and the part is the piece that is
//! large, near the middle and shaded (a thing lying behind the part, a flat patch of one colour,
//! is not), with the other shaded pieces of a size near it (a part seen in two pieces through its
//! own hole or shadow).

use image::RgbImage;

/// Largest channel difference between neighbouring smoothed pixels across which the background
/// still spreads: a table's grain, a soft shadow and a backdrop's gradient change by less than
/// this from one pixel to the next; a part's outline by more.
const SPREAD_STEP: f32 = 7.0;
/// Width of the border ring the background starts from, in pixels.
const RING: u32 = 2;
/// Largest channel difference between a border colour and the colour of its group.
const GROUP_RADIUS: f32 = 28.0;
/// Share of the border ring a group of colours must hold to be background the spread starts
/// from (a part touching the border holds less).
const SEED_SHARE: f32 = 0.08;
/// Most groups of border colours kept apart.
const MOST_GROUPS: usize = 16;
/// Luminance spread (standard deviation, 0..255) of a piece's inside above which it counts as
/// shaded, a part, rather than a flat patch of one colour (whose spread is its noise, 1–2).
const FLAT_SPREAD: f32 = 6.0;
/// Spread a flat patch of one colour has (its noise after smoothing).
const NOISE_SPREAD: f32 = 2.0;
/// Distance from the background, in pixels, beyond which a piece's pixel is inside it (its edge
/// mixes its colour with the background's).
const EDGE: usize = 2;
/// A piece is kept beside the part when its score is at least this share of the part's.
const KEPT_SHARE: f32 = 0.25;
/// Smallest share of the picture the part may cover; below it the background grew over the part
/// and the caller falls back to the plane.
const SMALLEST_PART: f32 = 0.004;

/// The part's weight (0 or 1) per pixel of `image`, row-major; `None` when no piece of the picture
/// stands out as a part (the caller keeps the plane's weights).
pub(super) fn part_weight(image: &RgbImage) -> Option<Vec<f32>> {
    let (width, height) = image.dimensions();
    let (width, height) = (width as usize, height as usize);
    if width <= 2 * RING as usize || height <= 2 * RING as usize {
        return None;
    }
    let smoothed = smoothed(image);
    let background = grown_background(&smoothed, width, height);
    let pieces = Pieces::of(&background, &smoothed, width, height);
    let kept = pieces.part()?;
    let part: Vec<bool> = pieces
        .label
        .iter()
        .map(|label| label.is_some_and(|label| kept.contains(&label)))
        .collect();
    let weight: Vec<f32> = part.iter().map(|&on| if on { 1.0 } else { 0.0 }).collect();
    let covered = weight.iter().sum::<f32>() / weight.len() as f32;
    (covered >= SMALLEST_PART).then_some(weight)
}

/// The picture's colours averaged over 3×3 pixels (grain and JPEG noise smoothed away).
fn smoothed(image: &RgbImage) -> Vec<[f32; 3]> {
    let (width, height) = image.dimensions();
    let mut out = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            let mut sum = [0.0_f32; 3];
            let mut count = 0.0_f32;
            for ny in y.saturating_sub(1)..=(y + 1).min(height - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
                    let colour = image.get_pixel(nx, ny).0;
                    for k in 0..3 {
                        sum[k] += f32::from(colour[k]);
                    }
                    count += 1.0;
                }
            }
            out.push(sum.map(|value| value / count));
        }
    }
    out
}

/// Largest channel difference of two colours.
fn difference(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max)
}

/// Luminance of a colour, 0..255.
fn luminance(colour: [f32; 3]) -> f32 {
    0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]
}

/// Largest channel difference from a border colour of a pixel anywhere in the picture that is
/// taken as that background seen through a hole of the part.
const HOLE_RADIUS: f32 = 12.0;
/// Largest step from one pixel to the next at the edge of a shadow (a shadow's edge is steeper
/// than a grain, but keeps the background's chromaticity).
const SHADOW_STEP: f32 = 24.0;
/// Largest channel difference from a border colour that is still that background (its grain).
const BACKGROUND_RADIUS: f32 = 40.0;
/// Chromaticity difference within which a darker or a little lighter colour is the background in
/// shadow or in more light.
const SHADOW_CHROMA: f32 = 0.03;
/// Luminance of a shadow against its background's: at least this share of it…
const DARKEST_SHADOW: f32 = 0.2;
/// …and at most this share (a little more light).
const LIGHTEST_SHADOW: f32 = 1.1;

/// Whether a colour can be the background of the border colour `group`: near it, or the same
/// colour in shadow (a part's surface changes colour with the light only by its tint, and a
/// surface far from the background's colour is not reached by spreading).
fn like_background(colour: [f32; 3], group: [f32; 3]) -> bool {
    if difference(colour, group) <= BACKGROUND_RADIUS {
        return true;
    }
    let ratio = luminance(colour) / luminance(group).max(1.0);
    same_chromaticity(colour, group) && (DARKEST_SHADOW..=LIGHTEST_SHADOW).contains(&ratio)
}

/// Whether two colours have the same chromaticity (within [`SHADOW_CHROMA`]): one is the other in
/// more or less light.
fn same_chromaticity(colour: [f32; 3], other: [f32; 3]) -> bool {
    let (own, theirs) = (chromaticity(colour), chromaticity(other));
    (own[0] - theirs[0]).abs().max((own[1] - theirs[1]).abs()) <= SHADOW_CHROMA
}

/// Pixels of the border ring, as indices.
fn ring_pixels(width: usize, height: usize) -> Vec<usize> {
    let ring = RING as usize;
    (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| x < ring || y < ring || x + ring >= width || y + ring >= height)
        .map(|(x, y)| y * width + x)
        .collect()
}

/// The border's colours in groups: each ring pixel's group, each group's count and mean colour.
fn border_groups(smoothed: &[[f32; 3]], ring: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<[f32; 3]>) {
    let mut means: Vec<[f32; 3]> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut group_of = Vec::with_capacity(ring.len());
    for &at in ring {
        let colour = smoothed[at];
        let nearest = means
            .iter()
            .enumerate()
            .map(|(group, mean)| (group, difference(*mean, colour)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let group = match nearest {
            Some((group, distance)) if distance <= GROUP_RADIUS || means.len() >= MOST_GROUPS => {
                let count = counts[group] as f32;
                for k in 0..3 {
                    means[group][k] = (means[group][k] * count + colour[k]) / (count + 1.0);
                }
                counts[group] += 1;
                group
            }
            _ => {
                means.push(colour);
                counts.push(1);
                means.len() - 1
            }
        };
        group_of.push(group);
    }
    (group_of, counts, means)
}

/// Which pixels are background: grown from the border's main colours (see the module comment).
fn grown_background(smoothed: &[[f32; 3]], width: usize, height: usize) -> Vec<bool> {
    let ring = ring_pixels(width, height);
    let (group_of, counts, means) = border_groups(smoothed, &ring);
    let mut background = vec![false; smoothed.len()];
    let mut grown_from = vec![0_usize; smoothed.len()];
    let mut queue = std::collections::VecDeque::new();
    let seeding: Vec<usize> = (0..means.len())
        .filter(|&group| counts[group] as f32 >= SEED_SHARE * ring.len() as f32)
        .collect();
    for (&at, &group) in ring.iter().zip(&group_of) {
        if seeding.contains(&group) {
            background[at] = true;
            grown_from[at] = group;
            queue.push_back(at);
        }
    }
    // The background seen through the part's holes: pixels of a border colour itself, or of a
    // coloured border colour in shadow (a grey one in shadow is any grey part).
    for (at, colour) in smoothed.iter().enumerate() {
        if background[at] {
            continue;
        }
        if let Some(&group) = seeding.iter().find(|&&group| {
            difference(*colour, means[group]) <= HOLE_RADIUS
                || (coloured(means[group]) && like_background(*colour, means[group]))
        }) {
            background[at] = true;
            grown_from[at] = group;
            queue.push_back(at);
        }
    }
    while let Some(at) = queue.pop_front() {
        let group = means[grown_from[at]];
        let (x, y) = (at % width, at / width);
        let neighbours = [
            (x > 0).then(|| at - 1),
            (x + 1 < width).then(|| at + 1),
            (y > 0).then(|| at - width),
            (y + 1 < height).then(|| at + width),
        ];
        for next in neighbours.into_iter().flatten() {
            let step = difference(smoothed[at], smoothed[next]);
            if !background[next]
                && like_background(smoothed[next], group)
                && (step <= SPREAD_STEP
                    || (step <= SHADOW_STEP && same_chromaticity(smoothed[next], group)))
            {
                background[next] = true;
                grown_from[next] = grown_from[at];
                queue.push_back(next);
            }
        }
    }
    background
}

/// Whether a colour is coloured enough for its shadow to be told from a grey part: its
/// chromaticity at least [`COLOURED`] from grey's.
fn coloured(colour: [f32; 3]) -> bool {
    let [red, green] = chromaticity(colour);
    (red - 1.0 / 3.0).abs().max((green - 1.0 / 3.0).abs()) >= COLOURED
}

/// See [`coloured`].
const COLOURED: f32 = 0.04;

/// A colour's chromaticity: its red and green shares of the sum.
fn chromaticity(colour: [f32; 3]) -> [f32; 2] {
    let sum = (colour[0] + colour[1] + colour[2]).max(1.0);
    [colour[0] / sum, colour[1] / sum]
}

/// Which pixels are more than [`EDGE`] pixels from the background (a box count over an integral
/// image of the background).
fn inside(background: &[bool], width: usize, height: usize) -> Vec<bool> {
    let mut integral = vec![0_u32; (width + 1) * (height + 1)];
    for y in 0..height {
        let mut row = 0_u32;
        for x in 0..width {
            row += u32::from(background[y * width + x]);
            integral[(y + 1) * (width + 1) + x + 1] = integral[y * (width + 1) + x + 1] + row;
        }
    }
    (0..width * height)
        .map(|at| {
            let (x, y) = (at % width, at / width);
            let (left, top) = (x.saturating_sub(EDGE), y.saturating_sub(EDGE));
            let (right, bottom) = ((x + EDGE + 1).min(width), (y + EDGE + 1).min(height));
            let count = integral[bottom * (width + 1) + right] + integral[top * (width + 1) + left]
                - integral[top * (width + 1) + right]
                - integral[bottom * (width + 1) + left];
            count == 0
        })
        .collect()
}

/// The connected pieces of what is not background (8-connected), with what tells a part.
struct Pieces {
    /// Each pixel's piece (`None` for background).
    label: Vec<Option<usize>>,
    /// Each piece's score: its size, how near the middle it is, whether it is shaded.
    score: Vec<f32>,
}

/// Sums over one piece.
#[derive(Default)]
struct PieceSums {
    count: f32,
    x: f32,
    y: f32,
    inside: f32,
    luminance: f32,
    luminance_squared: f32,
}

impl Pieces {
    fn of(background: &[bool], smoothed: &[[f32; 3]], width: usize, height: usize) -> Self {
        let inside = inside(background, width, height);
        let mut label: Vec<Option<usize>> = vec![None; background.len()];
        let mut sums: Vec<PieceSums> = Vec::new();
        let mut stack = Vec::new();
        for start in 0..background.len() {
            if background[start] || label[start].is_some() {
                continue;
            }
            let piece = sums.len();
            let mut piece_sums = PieceSums::default();
            label[start] = Some(piece);
            stack.push(start);
            while let Some(at) = stack.pop() {
                let (x, y) = (at % width, at / width);
                piece_sums.count += 1.0;
                piece_sums.x += x as f32;
                piece_sums.y += y as f32;
                if inside[at] {
                    let value = luminance(smoothed[at]);
                    piece_sums.inside += 1.0;
                    piece_sums.luminance += value;
                    piece_sums.luminance_squared += value * value;
                }
                for ny in y.saturating_sub(1)..=(y + 1).min(height - 1) {
                    for nx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
                        let next = ny * width + nx;
                        if !background[next] && label[next].is_none() {
                            label[next] = Some(piece);
                            stack.push(next);
                        }
                    }
                }
            }
            sums.push(piece_sums);
        }
        let half_diagonal = ((width * width + height * height) as f32).sqrt() / 2.0;
        let score = sums
            .iter()
            .map(|piece| {
                // A piece that is all edge (the line where a wall meets a table) is no part.
                if piece.inside < 1.0 {
                    return 0.0;
                }
                let (cx, cy) = (piece.x / piece.count, piece.y / piece.count);
                let off_centre =
                    ((cx - width as f32 / 2.0).powi(2) + (cy - height as f32 / 2.0).powi(2)).sqrt()
                        / half_diagonal;
                let inside = piece.inside.max(1.0);
                let mean = piece.luminance / inside;
                let spread = (piece.luminance_squared / inside - mean * mean)
                    .max(0.0)
                    .sqrt();
                let shading = ((spread - NOISE_SPREAD) / (FLAT_SPREAD - NOISE_SPREAD))
                    .clamp(0.05, 1.0)
                    .powi(2);
                piece.count * (1.0 - 0.8 * off_centre).max(0.05) * shading
            })
            .collect();
        Self { label, score }
    }

    /// The pieces taken as the part: the best scoring and those scoring near it.
    fn part(&self) -> Option<Vec<usize>> {
        let best = self.score.iter().copied().fold(0.0_f32, f32::max);
        if best <= 0.0 {
            return None;
        }
        Some(
            self.score
                .iter()
                .enumerate()
                .filter(|(_, score)| **score >= KEPT_SHARE * best)
                .map(|(piece, _)| piece)
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture: a wooden table's stripes below a wall, a flat disc behind, and a shaded square
    /// part in the middle.
    fn cluttered() -> RgbImage {
        RgbImage::from_fn(200, 150, |x, y| {
            let (fx, fy) = (x as f32, y as f32);
            if (60.0..=130.0).contains(&fx) && (50.0..=110.0).contains(&fy) {
                let shade = 80.0 + fx - 60.0;
                return image::Rgb([shade as u8, shade as u8, (shade + 10.0) as u8]);
            }
            if (fx - 170.0).powi(2) + (fy - 30.0).powi(2) < 400.0 {
                return image::Rgb([220, 170, 140]);
            }
            if y < 40 {
                return image::Rgb([200, 200, 190]);
            }
            let grain = 15.0 * (fx / 6.0).sin();
            image::Rgb([(150.0 + grain) as u8, (110.0 + grain) as u8, 70])
        })
    }

    #[test]
    fn the_part_is_found_on_a_table_below_a_wall_and_not_the_flat_thing_behind_it() {
        let picture = cluttered();
        let weight = part_weight(&picture).expect("a part");
        let at = |x: usize, y: usize| weight[y * 200 + x];
        assert_eq!(at(95, 80), 1.0, "the part");
        assert_eq!(at(170, 30), 0.0, "the disc behind it");
        assert_eq!(at(20, 120), 0.0, "the table");
        assert_eq!(at(20, 10), 0.0, "the wall");
    }

    #[test]
    fn a_picture_of_one_colour_has_no_part() {
        let plain = RgbImage::from_pixel(64, 48, image::Rgb([120, 130, 140]));
        assert!(part_weight(&plain).is_none());
    }
}
