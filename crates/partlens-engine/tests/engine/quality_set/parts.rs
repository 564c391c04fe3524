//! The quality set's parts: ten kinds (families) of mechanical part, five variants each, built as
//! triangle meshes in millimetres, lying or standing as they would on a table (z up). Variants of a
//! kind differ the way catalogue items do: tooth and hole counts, proportions, steps, head types.

use std::f64::consts::{FRAC_PI_2, PI, TAU};

use super::solids::{Point, Triangles, circle, extrude, moved, polar, revolve, sweep_tube, z_to_x};

/// Points of a full circle on round outlines.
const ROUND: usize = 64;
/// Points of a small hole.
const HOLE: usize = 20;

/// The kinds of part, in the order [`build`] takes them.
pub const FAMILIES: [&str; 10] = [
    "spur-gear",
    "flange",
    "washer",
    "hex-nut",
    "bolt",
    "stepped-shaft",
    "l-bracket",
    "pulley",
    "coil-spring",
    "pipe-elbow",
];

/// Variants of every kind.
pub const VARIANTS: usize = 5;

/// The mesh of variant `variant` (0..[`VARIANTS`]) of kind `family` (an index into [`FAMILIES`]).
pub fn build(family: usize, variant: usize) -> Triangles {
    let variant = variant % VARIANTS;
    match family % FAMILIES.len() {
        0 => spur_gear(variant),
        1 => flange(variant),
        2 => washer(variant),
        3 => hex_nut(variant),
        4 => bolt(variant),
        5 => stepped_shaft(variant),
        6 => l_bracket(variant),
        7 => pulley(variant),
        8 => coil_spring(variant),
        _ => pipe_elbow(variant),
    }
}

fn spur_gear(variant: usize) -> Triangles {
    let teeth = [12, 16, 20, 26, 32][variant];
    let width = [10.0, 12.0, 8.0, 14.0, 9.0][variant];
    let hub_height = [6.0, 0.0, 8.0, 4.0, 10.0][variant];
    let bore = [8.0, 10.0, 12.0, 9.0, 14.0][variant];
    let outside = 40.0;
    let module = 2.0 * outside / (f64::from(teeth) + 2.0);
    let root = outside - 2.25 * module;
    let pitch = TAU / f64::from(teeth);
    let mut outline = Vec::new();
    for tooth in 0..teeth {
        let start = f64::from(tooth) * pitch;
        outline.push(polar(root, start));
        outline.push(polar(outside, start + pitch * 0.2));
        outline.push(polar(outside, start + pitch * 0.42));
        outline.push(polar(root, start + pitch * 0.62));
    }
    let bore_outline = circle([0.0, 0.0], bore, ROUND, 0.0);
    let mut triangles = extrude(&outline, std::slice::from_ref(&bore_outline), 0.0, width);
    if hub_height > 0.0 {
        let hub = circle([0.0, 0.0], root * 0.5, ROUND, 0.0);
        triangles.extend(extrude(
            &hub,
            std::slice::from_ref(&bore_outline),
            width,
            width + hub_height,
        ));
    }
    triangles
}

fn flange(variant: usize) -> Triangles {
    let bolts = [4, 6, 8, 8, 12][variant];
    let plate = [10.0, 12.0, 8.0, 14.0, 10.0][variant];
    let neck_radius = [22.0, 25.0, 28.0, 24.0, 30.0][variant];
    let neck_height = [20.0, 15.0, 25.0, 8.0, 30.0][variant];
    let bore = [12.0, 14.0, 18.0, 12.0, 20.0][variant];
    let hole = [6.0, 5.0, 4.5, 4.0, 3.5][variant];
    let outside = 50.0;
    let bore_outline = circle([0.0, 0.0], bore, ROUND, 0.0);
    let mut holes = vec![bore_outline.clone()];
    for bolt in 0..bolts {
        let centre = polar(39.0, TAU * f64::from(bolt) / f64::from(bolts));
        holes.push(circle(centre, hole, HOLE, 0.0));
    }
    let mut triangles = extrude(&circle([0.0, 0.0], outside, ROUND, 0.0), &holes, 0.0, plate);
    triangles.extend(extrude(
        &circle([0.0, 0.0], neck_radius, ROUND, 0.0),
        &[bore_outline],
        plate,
        plate + neck_height,
    ));
    triangles
}

fn washer(variant: usize) -> Triangles {
    // Plain, fender, thick spacer, square and a wide thin shim.
    let (outside, inside, thickness) = [
        (20.0, 10.5, 2.0),
        (30.0, 7.0, 2.5),
        (16.0, 9.0, 12.0),
        (20.0, 9.0, 3.0),
        (32.0, 22.0, 1.5),
    ][variant];
    let hole = circle([0.0, 0.0], inside, ROUND, 0.0);
    let outer: Vec<Point> = if variant == 3 {
        vec![
            [-outside, -outside],
            [outside, -outside],
            [outside, outside],
            [-outside, outside],
        ]
    } else {
        circle([0.0, 0.0], outside, ROUND, 0.0)
    };
    extrude(&outer, &[hole], 0.0, thickness)
}

fn hexagon(across_flats: f64) -> Vec<Point> {
    let corner = across_flats / 2.0 / (PI / 6.0).cos();
    (0..6)
        .map(|k| polar(corner, PI / 6.0 + f64::from(k) * PI / 3.0))
        .collect()
}

fn hex_nut(variant: usize) -> Triangles {
    // Regular, jam, coupling, flange nut and a nut with a washer face.
    let across_flats = 24.0;
    let bore = circle([0.0, 0.0], 7.0, ROUND, 0.0);
    let height = [13.0, 7.0, 40.0, 12.0, 14.0][variant];
    let base = match variant {
        3 => 3.0,
        4 => 2.0,
        _ => 0.0,
    };
    let mut triangles = extrude(
        &hexagon(across_flats),
        std::slice::from_ref(&bore),
        base,
        base + height,
    );
    if variant == 3 {
        triangles.extend(extrude(
            &circle([0.0, 0.0], 17.0, ROUND, 0.0),
            std::slice::from_ref(&bore),
            0.0,
            base,
        ));
    }
    if variant == 4 {
        triangles.extend(extrude(
            &circle([0.0, 0.0], 11.5, ROUND, 0.0),
            std::slice::from_ref(&bore),
            0.0,
            base,
        ));
    }
    triangles
}

fn bolt(variant: usize) -> Triangles {
    // Hex head short and long, flanged head, socket head cap screw, carriage bolt; lying along x.
    let length = [30.0, 70.0, 45.0, 40.0, 55.0][variant];
    let shank = 5.0;
    let mut triangles = revolve(
        &[[0.0, 0.0], [shank, 0.0], [shank, length], [0.0, length]],
        32,
    );
    let head: Triangles = match variant {
        0 | 1 => extrude(&hexagon(16.0), &[], -6.5, 0.0),
        2 => {
            let mut head = extrude(&hexagon(15.0), &[], -7.5, -2.0);
            head.extend(extrude(
                &circle([0.0, 0.0], 11.0, ROUND, 0.0),
                &[],
                -2.0,
                0.0,
            ));
            head
        }
        3 => extrude(
            &circle([0.0, 0.0], 8.5, ROUND, 0.0),
            &[hexagon(8.0)],
            -10.0,
            0.0,
        ),
        _ => {
            let mut head = revolve(
                &std::iter::once([0.0, 0.0])
                    .chain((0..=12).map(|step| {
                        let angle = FRAC_PI_2 * f64::from(step) / 12.0;
                        [12.0 * angle.cos(), -6.0 * angle.sin()]
                    }))
                    .collect::<Vec<_>>(),
                ROUND,
            );
            // The square neck under the dome.
            head.extend(extrude(
                &[[-5.5, -5.5], [5.5, -5.5], [5.5, 5.5], [-5.5, 5.5]],
                &[],
                0.0,
                5.0,
            ));
            head
        }
    };
    triangles.extend(head);
    // Lying on the table: the axis along x, resting on the head's flats.
    moved(z_to_x(triangles), [0.0, 0.0, 8.0])
}

fn stepped_shaft(variant: usize) -> Triangles {
    let steps: &[(f64, f64)] = match variant {
        0 => &[(30.0, 10.0), (40.0, 14.0), (25.0, 11.0)],
        1 => &[
            (20.0, 8.0),
            (30.0, 12.0),
            (40.0, 16.0),
            (30.0, 12.0),
            (20.0, 8.0),
        ],
        2 => &[(50.0, 10.0), (12.0, 20.0), (35.0, 10.0)],
        3 => &[(25.0, 12.0), (70.0, 15.0), (25.0, 12.0), (15.0, 8.0)],
        _ => &[(15.0, 6.0), (25.0, 9.0), (35.0, 12.0), (25.0, 16.0)],
    };
    let mut profile: Vec<Point> = vec![[0.0, 0.0]];
    let mut at = 0.0;
    for &(length, radius) in steps {
        profile.push([radius, at]);
        at += length;
        profile.push([radius, at]);
    }
    profile.push([0.0, at]);
    let largest = steps.iter().map(|step| step.1).fold(0.0, f64::max);
    moved(z_to_x(revolve(&profile, ROUND)), [0.0, 0.0, largest])
}

/// A plate `width` × `length` (x across, y along from 0), `thickness` thick, with round holes.
fn plate(width: f64, length: f64, thickness: f64, holes: &[(Point, f64)]) -> Triangles {
    let outline = [
        [-width / 2.0, 0.0],
        [width / 2.0, 0.0],
        [width / 2.0, length],
        [-width / 2.0, length],
    ];
    let holes: Vec<Vec<Point>> = holes
        .iter()
        .map(|&(centre, radius)| circle(centre, radius, HOLE, 0.0))
        .collect();
    extrude(&outline, &holes, 0.0, thickness)
}

fn l_bracket(variant: usize) -> Triangles {
    let (base, upright, width, thickness) = [
        (40.0, 40.0, 30.0, 4.0),
        (60.0, 30.0, 22.0, 5.0),
        (50.0, 50.0, 50.0, 6.0),
        (30.0, 60.0, 25.0, 3.0),
        (70.0, 35.0, 40.0, 8.0),
    ][variant];
    let holes_along = |length: f64, count: usize, radius: f64, columns: &[f64]| {
        let mut holes = Vec::new();
        for k in 0..count {
            let along = thickness + (length - thickness) * (k as f64 + 1.0) / (count as f64 + 1.0);
            for &column in columns {
                holes.push(([column, along], radius));
            }
        }
        holes
    };
    let (base_holes, upright_holes, columns): (usize, usize, Vec<f64>) = match variant {
        0 => (1, 1, vec![0.0]),
        1 => (2, 1, vec![0.0]),
        2 => (2, 2, vec![-12.0, 12.0]),
        3 => (1, 3, vec![0.0]),
        _ => (2, 1, vec![-10.0, 10.0]),
    };
    let mut triangles = plate(
        width,
        base,
        thickness,
        &holes_along(base, base_holes, 3.0, &columns),
    );
    let standing = plate(
        width,
        upright,
        thickness,
        &holes_along(upright, upright_holes, 3.0, &columns),
    );
    // Standing at the heel: its length along z, its thickness along y. Swapping two axes mirrors,
    // so the corners are reordered to keep the triangles facing outwards.
    triangles.extend(standing.into_iter().map(|triangle| {
        let [a, b, c] = triangle.map(|[x, y, z]| [x, z, y]);
        [a, c, b]
    }));
    if variant == 4 {
        // A gusset between the legs in the middle.
        let gusset = extrude(&[[0.0, 0.0], [25.0, 0.0], [0.0, 25.0]], &[], -2.0, 2.0);
        triangles.extend(
            gusset
                .into_iter()
                .map(|triangle| triangle.map(|[x, y, z]| [z, x + thickness, y + thickness])),
        );
    }
    triangles
}

fn pulley(variant: usize) -> Triangles {
    let grooves = [1, 2, 3, 0, 1][variant];
    let outside = 40.0;
    let groove_width = 12.0;
    let rim = if grooves == 0 {
        30.0
    } else {
        groove_width * f64::from(grooves) + 4.0
    };
    let (bore, hub, hub_out) = (8.0, 16.0, [6.0, 4.0, 0.0, 8.0, 10.0][variant]);
    let web = if variant == 4 { 6.0 } else { rim };
    // The profile, counter-clockwise in (radius, height): up the bore, the hub's top, the web (thin
    // on the last variant), the rim's top, down the grooved face, back along the bottom.
    let mid = rim / 2.0;
    let mut profile: Vec<Point> = vec![[bore, -hub_out], [hub, -hub_out]];
    if web < rim {
        profile.push([hub, mid - web / 2.0]);
        profile.push([outside - 6.0, mid - web / 2.0]);
    }
    profile.push([outside - 6.0, 0.0]);
    let groove_depth = 8.0;
    if grooves == 0 {
        // A flat belt pulley with a crowned face.
        for step in 0..=8 {
            let t = f64::from(step) / 8.0;
            let crown = 1.5 * (PI * t).sin();
            profile.push([outside + crown, rim * t]);
        }
    } else {
        profile.push([outside, 0.0]);
        for groove in 0..grooves {
            let start = 2.0 + groove_width * f64::from(groove);
            profile.push([outside, start]);
            profile.push([outside - groove_depth, start + groove_width * 0.4]);
            profile.push([outside - groove_depth, start + groove_width * 0.6]);
            profile.push([outside, start + groove_width]);
        }
        profile.push([outside, rim]);
    }
    profile.push([outside - 6.0, rim]);
    if web < rim {
        profile.push([outside - 6.0, mid + web / 2.0]);
        profile.push([hub, mid + web / 2.0]);
    }
    profile.push([hub, rim + hub_out]);
    profile.push([bore, rim + hub_out]);
    revolve(&profile, ROUND)
}

fn coil_spring(variant: usize) -> Triangles {
    let (coil, wire, turns, pitch) = [
        (15.0, 1.5, 6.0, 8.0),
        (12.0, 2.0, 9.0, 6.0),
        (18.0, 2.5, 5.0, 12.0),
        (10.0, 1.2, 12.0, 4.0),
        (16.0, 3.0, 7.0, 10.0),
    ][variant];
    let steps = (turns * 24.0) as usize;
    let path: Vec<[f64; 3]> = (0..=steps)
        .map(|step| {
            let t = turns * step as f64 / steps as f64;
            let angle = TAU * t;
            [coil * angle.cos(), coil * angle.sin(), wire + pitch * t]
        })
        .collect();
    sweep_tube(&path, wire, 0.0, 12)
}

fn pipe_elbow(variant: usize) -> Triangles {
    let (bend, degrees, straight): (f64, f64, f64) = [
        (30.0, 90.0, 0.0),
        (40.0, 90.0, 20.0),
        (28.0, 45.0, 12.0),
        (35.0, 60.0, 0.0),
        (32.0, 180.0, 15.0),
    ][variant];
    let (outer, inner) = (12.0, 9.0);
    let mut path: Vec<[f64; 3]> = Vec::new();
    // A straight run along −y into the bend, the bend about the origin in the xy-plane, a straight
    // run out along the bend's final direction; lying on the table.
    for step in 0..=4 {
        let along = straight * (1.0 - f64::from(step) / 4.0);
        if straight > 0.0 || step == 4 {
            path.push([bend, -along, outer]);
        }
    }
    let arc_steps = (degrees / 6.0) as usize;
    let sweep = degrees.to_radians();
    for step in 1..=arc_steps {
        let angle = sweep * step as f64 / arc_steps as f64;
        path.push([bend * angle.cos(), bend * angle.sin(), outer]);
    }
    if straight > 0.0 {
        let end = [bend * sweep.cos(), bend * sweep.sin()];
        let direction = [-sweep.sin(), sweep.cos()];
        for step in 1..=4 {
            let along = straight * f64::from(step) / 4.0;
            path.push([
                end[0] + direction[0] * along,
                end[1] + direction[1] * along,
                outer,
            ]);
        }
    }
    sweep_tube(&path, outer, inner, 32)
}
