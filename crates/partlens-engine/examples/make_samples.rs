//! Generates the sample library in `assets/samples/`: one clean 512×512 drawing per part (the
//! company-database files), two query views per part (`views/<part>-a.png`, `views/<part>-b.jpg`,
//! photographed again: turned, resized, moved, other line weight and paper, noise, JPEG), and
//! `manifest.json` with each part's stored path and attributes. Deterministic: running it twice gives
//! the same bytes.
//!
//! The manifest is written from scratch, so the 3D models' entries (under `models/`) and the
//! drawings' entries (under `drawings/`) go: run `examples/make_sample_models.rs` and
//! `examples/make_sample_drawings.rs` afterwards to add them back (each replaces only its own entries).
//!
//! ```text
//! cargo run -p partlens-engine --example make_samples -- assets/samples
//! cargo run -p partlens-engine --example make_sample_models -- assets/samples
//! cargo run -p partlens-engine --example make_sample_drawings -- assets/samples
//! ```

use std::path::{Path, PathBuf};

use anyhow::Context;
use partlens_engine::samples::parts::{Pose, draw_part, encode_jpeg, encode_png};
use partlens_engine::samples::{SampleManifest, SamplePart, write_manifest};

/// Side of the library drawings.
const LIBRARY_SIDE: u32 = 512;
/// Side of the query views (smaller, as a phone photo cropped by a user would be; keeps the folder
/// small).
const VIEW_SIDE: u32 = 384;
/// JPEG quality of the `-b` views.
const VIEW_JPEG_QUALITY: u8 = 72;

/// One part of the library and its attributes (`name=value`, `|` between values, unit in the name).
struct Part {
    name: &'static str,
    attributes: [&'static str; 6],
}

const PARTS: [Part; 12] = [
    Part {
        name: "gear",
        attributes: [
            "part_number=PL-1001",
            "material=steel",
            "category=gear",
            "weight(kg)=0.8",
            "supplier=Acme",
            "teeth=14",
        ],
    },
    Part {
        name: "flange",
        attributes: [
            "part_number=PL-1002",
            "material=steel|stainless steel",
            "category=flange",
            "weight(kg)=1.2",
            "supplier=Acme",
            "diameter(mm)=160",
        ],
    },
    Part {
        name: "l-bracket",
        attributes: [
            "part_number=PL-1003",
            "material=aluminium",
            "category=bracket",
            "weight(kg)=0.3",
            "supplier=Norder GmbH",
            "finish=anodised|powder coated",
        ],
    },
    Part {
        name: "washer",
        attributes: [
            "part_number=PL-1004",
            "material=stainless steel",
            "category=fastener",
            "weight(kg)=0.01",
            "supplier=Keystone Fasteners",
            "diameter(mm)=24",
        ],
    },
    Part {
        name: "hex-nut",
        attributes: [
            "part_number=PL-1005",
            "material=steel|brass",
            "category=fastener",
            "weight(kg)=0.02",
            "supplier=Keystone Fasteners",
            "thread=M12",
        ],
    },
    Part {
        name: "bolt",
        attributes: [
            "part_number=PL-1006",
            "material=steel",
            "category=fastener",
            "weight(kg)=0.05",
            "supplier=Keystone Fasteners",
            "thread=M12",
        ],
    },
    Part {
        name: "stepped-shaft",
        attributes: [
            "part_number=PL-1007",
            "material=steel",
            "category=shaft",
            "weight(kg)=2.4",
            "supplier=Norder GmbH",
            "length(mm)=320",
        ],
    },
    Part {
        name: "plate-with-holes",
        attributes: [
            "part_number=PL-1008",
            "material=aluminium",
            "category=plate",
            "weight(kg)=1.5",
            "supplier=Acme",
            "finish=anodised",
        ],
    },
    Part {
        name: "pulley",
        attributes: [
            "part_number=PL-1009",
            "material=cast iron",
            "category=pulley",
            "weight(kg)=3.1",
            "supplier=Norder GmbH",
            "diameter(mm)=200",
        ],
    },
    Part {
        name: "hinge",
        attributes: [
            "part_number=PL-1010",
            "material=brass|stainless steel",
            "category=hinge",
            "weight(kg)=0.15",
            "supplier=Acme",
            "finish=polished",
        ],
    },
    Part {
        name: "spring",
        attributes: [
            "part_number=PL-1011",
            "material=spring steel",
            "category=spring",
            "weight(kg)=0.04",
            "supplier=Keystone Fasteners",
            "length(mm)=80",
        ],
    },
    Part {
        name: "t-slot-profile",
        attributes: [
            "part_number=PL-1012",
            "material=aluminium",
            "category=profile",
            "weight(kg)=1.1",
            "supplier=Norder GmbH",
            "length(mm)=500",
        ],
    },
];

/// The two query views' poses for part number `index` (0-based): different enough from each other
/// and from the library drawing to be a real test, fixed so the output is reproducible.
fn view_poses(index: usize) -> [Pose; 2] {
    let turn = if index.is_multiple_of(2) { 1.0 } else { -1.0 };
    let step = index as f32 / 11.0;
    [
        Pose {
            rotation_degrees: turn * (12.0 + 6.0 * step),
            scale: 0.75 + 0.1 * step,
            shift: (30.0 - 50.0 * step, -25.0 + 40.0 * step),
            line_width: 5.0,
            background: [236, 236, 236],
            noise: 0.0,
            seed: 0,
        },
        Pose {
            rotation_degrees: -turn * (18.0 - 6.0 * step),
            scale: 1.25 - 0.15 * step,
            shift: (-20.0 + 30.0 * step, 20.0 - 35.0 * step),
            line_width: 2.5,
            background: [222, 222, 218],
            noise: 4.0,
            seed: 1000 + index as u64,
        },
    ]
}

fn main() -> anyhow::Result<()> {
    let folder = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "assets/samples".to_owned()),
    );
    std::fs::create_dir_all(folder.join("views"))
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let mut manifest = SampleManifest::default();
    for (index, part) in PARTS.iter().enumerate() {
        let file = format!("{}.png", part.name);
        let drawing = draw_part(part.name, &Pose::default(), LIBRARY_SIDE)
            .with_context(|| format!("no drawing for {}", part.name))?;
        write(&folder.join(&file), &encode_png(&drawing)?)?;

        let [first, second] = view_poses(index);
        let first_view = format!("views/{}-a.png", part.name);
        let second_view = format!("views/{}-b.jpg", part.name);
        let picture = draw_part(part.name, &first, VIEW_SIDE)
            .with_context(|| format!("no drawing for {}", part.name))?;
        write(&folder.join(&first_view), &encode_png(&picture)?)?;
        let picture = draw_part(part.name, &second, VIEW_SIDE)
            .with_context(|| format!("no drawing for {}", part.name))?;
        write(
            &folder.join(&second_view),
            &encode_jpeg(&picture, VIEW_JPEG_QUALITY)?,
        )?;

        manifest.parts.push(SamplePart {
            stored_path: format!("Samples/{file}"),
            file,
            attributes: part.attributes.iter().map(|a| (*a).to_owned()).collect(),
            views: vec![first_view, second_view],
        });
    }
    write_manifest(&folder, &manifest).map_err(anyhow::Error::msg)?;
    println!(
        "wrote {} parts and {} views to {}",
        manifest.parts.len(),
        manifest.parts.len() * 2,
        folder.display()
    );
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
