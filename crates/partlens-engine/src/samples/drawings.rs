//! Synthetic drawings of sample parts: DXF drawings of the flange and the stepped shaft (outline
//! geometry, dimensions — linear, diameter with a tolerance —, a note, and a title-block INSERT whose
//! ATTRIBs give part number, material, drawing number, revision, scale and title), and a PDF drawing
//! of the L-bracket (vector paths, Helvetica texts, a labelled title block). Used by the tests, the benchmark and
//! `examples/make_sample_drawings.rs` (which writes them into the sample library). Deterministic.

use dxf::entities::{
    Attribute, AttributeDefinition, Circle, DiameterDimension, DimensionBase, Entity, EntityType,
    Insert, Line, LwPolyline, MText, RotatedDimension, Text,
};
use dxf::enums::{AcadVersion, AttachmentPoint, DimensionType};
use dxf::{Block, Drawing, LwPolylineVertex, Point};

/// A sample drawing: its file stem, the sample part it draws (the library image's stem) and the
/// title block's values.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleDrawing {
    /// File stem of the drawing (`flange-drawing`).
    pub name: &'static str,
    /// Stem of the sample part's library image (`flange`), whose attributes the drawing shares.
    pub part: &'static str,
    /// Part number in the title block.
    pub part_number: &'static str,
    /// Material in the title block.
    pub material: &'static str,
    /// Drawing number in the title block.
    pub drawing_number: &'static str,
    /// Revision in the title block.
    pub revision: &'static str,
    /// A word of the note, for free-text search.
    pub note_word: &'static str,
}

/// The sample drawings.
pub const SAMPLE_DRAWINGS: [SampleDrawing; 2] = [
    SampleDrawing {
        name: "flange-drawing",
        part: "flange",
        part_number: "PL-1002",
        material: "STAINLESS STEEL 1.4301",
        drawing_number: "DWG-1002",
        revision: "B",
        note_word: "DEBURR",
    },
    SampleDrawing {
        name: "stepped-shaft-drawing",
        part: "stepped-shaft",
        part_number: "PL-1007",
        material: "STEEL C45",
        drawing_number: "DWG-1007",
        revision: "A",
        note_word: "CHAMFER",
    },
];

/// The DXF bytes of a sample drawing (ASCII DXF, AutoCAD 2000).
pub fn sample_drawing_dxf(sample: &SampleDrawing) -> Result<Vec<u8>, dxf::DxfError> {
    let mut drawing = Drawing::new();
    drawing.header.version = AcadVersion::R2000;
    drawing.header.dimensioning_text_height = 3.5;
    // Fixed dates and GUIDs: the same drawing gives the same bytes (the crate stamps "now" and
    // random GUIDs otherwise).
    let fixed = chrono::NaiveDate::from_ymd_opt(2026, 1, 1)
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .unwrap_or_default();
    if let Some(local) = fixed.and_local_timezone(chrono::Local).earliest() {
        drawing.header.creation_date = local;
        drawing.header.update_date = local;
    }
    drawing.header.creation_date_universal = fixed.and_utc();
    drawing.header.update_date_universal = fixed.and_utc();
    drawing.header.fingerprint_guid =
        uuid::Uuid::from_u128(0x5041_5254_4c45_4e53_0000_0000_0000_0001);
    drawing.header.version_guid = uuid::Uuid::from_u128(0x5041_5254_4c45_4e53_0000_0000_0000_0002);
    drawing.header.dimensioning_scale_factor = 1.0;
    match sample.part {
        "stepped-shaft" => stepped_shaft(&mut drawing),
        _ => flange(&mut drawing),
    }
    title_block(&mut drawing, sample);
    let mut bytes = Vec::new();
    drawing.save(&mut bytes)?;
    Ok(bytes)
}

fn p(x: f64, y: f64) -> Point {
    Point::new(x, y, 0.0)
}

fn add(drawing: &mut Drawing, specific: EntityType) {
    drawing.add_entity(Entity::new(specific));
}

fn line(drawing: &mut Drawing, from: (f64, f64), to: (f64, f64)) {
    add(
        drawing,
        EntityType::Line(Line::new(p(from.0, from.1), p(to.0, to.1))),
    );
}

fn closed_polyline(points: &[(f64, f64)]) -> EntityType {
    let mut polyline = LwPolyline {
        ..LwPolyline::default()
    };
    polyline.set_is_closed(true);
    polyline.vertices = points
        .iter()
        .map(|&(x, y)| LwPolylineVertex {
            x,
            y,
            ..LwPolylineVertex::default()
        })
        .collect();
    EntityType::LwPolyline(polyline)
}

fn text(drawing: &mut Drawing, at: (f64, f64), height: f64, value: &str) {
    let text = Text {
        location: p(at.0, at.1),
        text_height: height,
        value: value.to_owned(),
        ..Text::default()
    };
    add(drawing, EntityType::Text(text));
}

fn note(drawing: &mut Drawing, at: (f64, f64), value: &str) {
    let mtext = MText {
        insertion_point: p(at.0, at.1),
        initial_text_height: 3.5,
        reference_rectangle_width: 120.0,
        attachment_point: AttachmentPoint::TopLeft,
        text: value.to_owned(),
        ..MText::default()
    };
    add(drawing, EntityType::MText(mtext));
}

/// A horizontal (`rotation` 0) or vertical (90) linear dimension between two points.
fn linear(
    drawing: &mut Drawing,
    from: (f64, f64),
    to: (f64, f64),
    line_at: (f64, f64),
    rotation: f64,
    text: &str,
) {
    let mut dimension = RotatedDimension {
        dimension_base: dimension_base(line_at, DimensionType::RotatedHorizontalOrVertical, text),
        definition_point_2: p(from.0, from.1),
        definition_point_3: p(to.0, to.1),
        rotation_angle: rotation,
        ..RotatedDimension::default()
    };
    let middle = if rotation == 0.0 {
        ((from.0 + to.0) / 2.0, line_at.1 + 2.5)
    } else {
        (line_at.0 - 2.5, (from.1 + to.1) / 2.0)
    };
    dimension.dimension_base.text_mid_point = p(middle.0, middle.1);
    add(drawing, EntityType::RotatedDimension(dimension));
}

fn dimension_base(on_line: (f64, f64), kind: DimensionType, text: &str) -> DimensionBase {
    DimensionBase {
        definition_point_1: p(on_line.0, on_line.1),
        dimension_type: kind,
        text: text.to_owned(),
        block_name: String::new(),
        ..DimensionBase::default()
    }
}

fn diameter(
    drawing: &mut Drawing,
    center: (f64, f64),
    radius: f64,
    angle_degrees: f64,
    text: &str,
) {
    let (sin, cos) = angle_degrees.to_radians().sin_cos();
    let mut dimension = DiameterDimension {
        ..DiameterDimension::default()
    };
    let far = (center.0 - radius * cos, center.1 - radius * sin);
    let near = (center.0 + radius * cos, center.1 + radius * sin);
    dimension.dimension_base = dimension_base(far, DimensionType::Diameter, text);
    dimension.definition_point_2 = p(near.0, near.1);
    let outside = (
        center.0 + (radius + 12.0) * cos,
        center.1 + (radius + 12.0) * sin,
    );
    dimension.dimension_base.text_mid_point = p(outside.0, outside.1);
    add(drawing, EntityType::DiameterDimension(dimension));
}

/// Flange Ø160 with a Ø60 H7 bore and eight Ø14 holes on a Ø120 circle (as the sample flange model
/// and picture have): front view and side view.
fn flange(drawing: &mut Drawing) {
    let center = (100.0, 150.0);
    for radius in [80.0, 30.0] {
        add(
            drawing,
            EntityType::Circle(Circle::new(p(center.0, center.1), radius)),
        );
    }
    for eighth in 0..8 {
        let angle = (22.5 + 45.0 * f64::from(eighth)).to_radians();
        let hole = (center.0 + 60.0 * angle.cos(), center.1 + 60.0 * angle.sin());
        add(
            drawing,
            EntityType::Circle(Circle::new(p(hole.0, hole.1), 7.0)),
        );
    }
    line(drawing, (10.0, 150.0), (190.0, 150.0));
    line(drawing, (100.0, 60.0), (100.0, 240.0));
    // Side view: plate 20 thick with a hub, bore hidden.
    add(
        drawing,
        closed_polyline(&[
            (240.0, 70.0),
            (260.0, 70.0),
            (260.0, 110.0),
            (275.0, 110.0),
            (275.0, 190.0),
            (260.0, 190.0),
            (260.0, 230.0),
            (240.0, 230.0),
        ]),
    );
    line(drawing, (240.0, 120.0), (275.0, 120.0));
    line(drawing, (240.0, 180.0), (275.0, 180.0));
    diameter(drawing, center, 80.0, 30.0, "");
    diameter(drawing, center, 30.0, 200.0, "%%c<> H7 %%p0.015");
    linear(
        drawing,
        (240.0, 230.0),
        (260.0, 230.0),
        (250.0, 245.0),
        0.0,
        "",
    );
    linear(
        drawing,
        (260.0, 110.0),
        (275.0, 110.0),
        (267.5, 95.0),
        0.0,
        "",
    );
    text(drawing, (20.0, 50.0), 3.5, "8X %%c14 EQ SP ON %%c120 PCD");
    note(
        drawing,
        (20.0, 40.0),
        "{\\fArial|b1;NOTES:}\\P1. BREAK ALL SHARP EDGES\\P2. DEBURR BOLT HOLES",
    );
}

/// Stepped shaft 320 long: Ø30 × 80, Ø50 × 140, Ø40 × 100, chamfered ends.
fn stepped_shaft(drawing: &mut Drawing) {
    let axis = 150.0;
    let steps = [(0.0, 80.0, 15.0), (80.0, 220.0, 25.0), (220.0, 320.0, 20.0)];
    let x0 = 20.0;
    let mut outline = Vec::new();
    for &(start, end, radius) in &steps {
        outline.push((x0 + start, axis + radius));
        outline.push((x0 + end, axis + radius));
    }
    for &(start, end, radius) in steps.iter().rev() {
        outline.push((x0 + end, axis - radius));
        outline.push((x0 + start, axis - radius));
    }
    add(drawing, closed_polyline(&outline));
    for &(start, _, _) in &steps[1..] {
        line(
            drawing,
            (x0 + start, axis - 25.0),
            (x0 + start, axis + 25.0),
        );
    }
    line(drawing, (x0 - 10.0, axis), (x0 + 330.0, axis));
    linear(
        drawing,
        (x0, axis + 15.0),
        (x0 + 80.0, axis + 15.0),
        (x0 + 40.0, axis + 45.0),
        0.0,
        "",
    );
    linear(
        drawing,
        (x0, axis - 15.0),
        (x0 + 320.0, axis - 20.0),
        (x0 + 160.0, axis - 50.0),
        0.0,
        "",
    );
    linear(
        drawing,
        (x0 + 150.0, axis - 25.0),
        (x0 + 150.0, axis + 25.0),
        (x0 + 120.0, axis),
        90.0,
        "%%c<> h6 %%p0.008",
    );
    linear(
        drawing,
        (x0 + 40.0, axis - 15.0),
        (x0 + 40.0, axis + 15.0),
        (x0 + 10.0, axis),
        90.0,
        "%%c<>",
    );
    linear(
        drawing,
        (x0 + 280.0, axis - 20.0),
        (x0 + 280.0, axis + 20.0),
        (x0 + 250.0, axis),
        90.0,
        "%%c<>",
    );
    note(
        drawing,
        (20.0, 70.0),
        "NOTES:\\P1. CHAMFER ALL ENDS 1 X 45%%d\\P2. SURFACE Ra 1.6 ON BEARING SEATS",
    );
}

/// The title block: a block with its frame, labels and attribute definitions, inserted at the
/// bottom right with the drawing's values.
fn title_block(drawing: &mut Drawing, sample: &SampleDrawing) {
    let fields = [
        (
            "TITLE",
            "TITLE",
            sample.part.to_uppercase().replace('-', " "),
        ),
        ("PART NO", "PART_NO", sample.part_number.to_owned()),
        ("MATERIAL", "MATERIAL", sample.material.to_owned()),
        ("DWG NO", "DWG_NO", sample.drawing_number.to_owned()),
        ("REV", "REV", sample.revision.to_owned()),
        ("SCALE", "SCALE", "1:2".to_owned()),
    ];
    let mut block = Block {
        name: "TITLE_BLOCK".to_owned(),
        base_point: p(0.0, 0.0),
        ..Block::default()
    };
    let (width, row) = (120.0, 8.0);
    let height = row * fields.len() as f64;
    let frame = closed_polyline(&[(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]);
    block.entities.push(Entity::new(frame));
    for index in 1..fields.len() {
        let y = row * index as f64;
        block.entities.push(Entity::new(EntityType::Line(Line::new(
            p(0.0, y),
            p(width, y),
        ))));
    }
    block.entities.push(Entity::new(EntityType::Line(Line::new(
        p(30.0, 0.0),
        p(30.0, height),
    ))));
    let origin = (280.0, 10.0);
    let mut insert = Insert {
        name: block.name.clone(),
        location: p(origin.0, origin.1),
        ..Insert::default()
    };
    let mut attributes = Vec::new();
    for (index, (label, tag, value)) in fields.iter().enumerate() {
        let baseline = height - row * (index as f64 + 1.0) + 2.5;
        let label_text = Text {
            location: p(2.0, baseline),
            text_height: 2.5,
            value: (*label).to_owned(),
            ..Text::default()
        };
        block
            .entities
            .push(Entity::new(EntityType::Text(label_text)));
        let definition = AttributeDefinition {
            location: p(32.0, baseline),
            text_height: 3.0,
            text_tag: (*tag).to_owned(),
            prompt: (*label).to_owned(),
            ..AttributeDefinition::default()
        };
        block
            .entities
            .push(Entity::new(EntityType::AttributeDefinition(definition)));
        let attribute = Attribute {
            location: p(origin.0 + 32.0, origin.1 + baseline),
            text_height: 3.0,
            attribute_tag: (*tag).to_owned(),
            value: value.clone(),
            ..Attribute::default()
        };
        attributes.push(attribute);
    }
    drawing.add_block(block);
    for attribute in attributes {
        insert.add_attribute(drawing, attribute);
    }
    add(drawing, EntityType::Insert(insert));
}

/// The sample PDF drawing: an L-bracket on an A4 landscape sheet, drawn with vector paths and
/// Helvetica texts (WinAnsi), with dimensions, a note and a labelled title block
/// (`PART NO: PL-1003`, …).
pub const SAMPLE_PDF_DRAWING: SampleDrawing = SampleDrawing {
    name: "l-bracket-drawing",
    part: "l-bracket",
    part_number: "PL-1003",
    material: "ALUMINIUM 6061-T6",
    drawing_number: "DWG-1003",
    revision: "C",
    note_word: "ANODISE",
};

/// The PDF bytes of [`SAMPLE_PDF_DRAWING`] (PDF 1.5, one page, uncompressed content).
pub fn sample_drawing_pdf(sample: &SampleDrawing) -> Result<Vec<u8>, lopdf::Error> {
    // A white background rectangle painted first is paper, not ink.
    let mut page = vec![
        pdf_operation("g", &[1.0]),
        pdf_operation("re", &[0.0, 0.0, 842.0, 595.0]),
        lopdf::content::Operation::new("f", vec![]),
        pdf_operation("g", &[0.0]),
    ];
    page.extend(l_bracket_pdf_paths());
    page.extend(l_bracket_pdf_texts(sample));
    one_page_pdf(page)
}

/// A number operand.
fn pdf_number(value: f64) -> lopdf::Object {
    lopdf::Object::Real(value as f32)
}

/// An operator with number operands.
fn pdf_operation(operator: &str, operands: &[f64]) -> lopdf::content::Operation {
    lopdf::content::Operation::new(
        operator,
        operands.iter().map(|value| pdf_number(*value)).collect(),
    )
}

/// A stroked polyline through `points` (at least one), closed when asked.
fn pdf_polyline(points: &[(f64, f64)], closed: bool) -> Vec<lopdf::content::Operation> {
    use lopdf::content::Operation;
    let Some((&(x, y), rest)) = points.split_first() else {
        return Vec::new();
    };
    let mut path = vec![pdf_operation("m", &[x, y])];
    path.extend(rest.iter().map(|&(x, y)| pdf_operation("l", &[x, y])));
    if closed {
        path.push(Operation::new("h", vec![]));
    }
    path.push(Operation::new("S", vec![]));
    path
}

/// The sample PDF's side view (the L, 80 high, 60 wide, 8 thick, 2.5 pt a mm), front view (the
/// upright leg with two Ø8 holes), dimension lines and title block frame.
fn l_bracket_pdf_paths() -> Vec<lopdf::content::Operation> {
    use lopdf::content::Operation;
    let mut operations = vec![pdf_operation("w", &[1.2])];
    let mm = 2.5;
    let (x0, y0) = (100.0, 200.0);
    let side = [
        (0.0, 0.0),
        (60.0, 0.0),
        (60.0, 8.0),
        (8.0, 8.0),
        (8.0, 80.0),
        (0.0, 80.0),
    ]
    .map(|(x, y)| (x0 + x * mm, y0 + y * mm));
    operations.extend(pdf_polyline(&side, true));
    let (fx, fy) = (400.0, 200.0);
    let front = [(0.0, 0.0), (40.0, 0.0), (40.0, 80.0), (0.0, 80.0)]
        .map(|(x, y)| (fx + x * mm, fy + y * mm));
    operations.extend(pdf_polyline(&front, true));
    for hole_y in [25.0, 60.0] {
        let (cx, cy, r) = (fx + 20.0 * mm, fy + hole_y * mm, 4.0 * mm);
        let k = 0.552_284_75 * r;
        operations.push(pdf_operation("m", &[cx + r, cy]));
        for quarter in [
            [cx + r, cy + k, cx + k, cy + r, cx, cy + r],
            [cx - k, cy + r, cx - r, cy + k, cx - r, cy],
            [cx - r, cy - k, cx - k, cy - r, cx, cy - r],
            [cx + k, cy - r, cx + r, cy - k, cx + r, cy],
        ] {
            operations.push(pdf_operation("c", &quarter));
        }
        operations.push(Operation::new("S", vec![]));
    }
    // Dimension lines (thin) and the title block frame.
    operations.push(pdf_operation("w", &[0.5]));
    operations.extend(pdf_polyline(
        &[(x0, y0 - 20.0), (x0 + 60.0 * mm, y0 - 20.0)],
        false,
    ));
    operations.extend(pdf_polyline(
        &[(x0 - 20.0, y0), (x0 - 20.0, y0 + 80.0 * mm)],
        false,
    ));
    operations.push(pdf_operation("re", &[560.0, 30.0, 250.0, 110.0]));
    operations.push(Operation::new("S", vec![]));
    operations
}

/// The sample PDF's texts in Helvetica (font `F1`, WinAnsi, which holds Ø, ± and ° at their
/// Latin-1 codes): dimensions, notes and the labelled title block.
fn l_bracket_pdf_texts(sample: &SampleDrawing) -> Vec<lopdf::content::Operation> {
    use lopdf::content::Operation;
    use lopdf::{Object, StringFormat};
    let win_ansi = |text: &str| -> Vec<u8> {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect()
    };
    let (x0, y0, fx, fy) = (100.0, 200.0, 400.0, 200.0);
    let texts: Vec<(f64, f64, f64, String)> = vec![
        (x0 + 60.0, y0 - 32.0, 10.0, "60".to_owned()),
        (x0 - 45.0, y0 + 95.0, 10.0, "80".to_owned()),
        (fx + 110.0, fy + 62.0, 10.0, "2X Ø8 H7 ±0.015".to_owned()),
        (fx + 110.0, fy + 150.0, 10.0, "R4".to_owned()),
        (60.0, 120.0, 10.0, "NOTES:".to_owned()),
        (
            60.0,
            106.0,
            10.0,
            format!("1. {} BLACK AFTER MACHINING", sample.note_word),
        ),
        (60.0, 92.0, 10.0, "2. REMOVE ALL BURRS".to_owned()),
        (570.0, 122.0, 9.0, "TITLE: L BRACKET".to_owned()),
        (
            570.0,
            105.0,
            9.0,
            format!("PART NO: {}", sample.part_number),
        ),
        (570.0, 88.0, 9.0, format!("MATERIAL: {}", sample.material)),
        (
            570.0,
            71.0,
            9.0,
            format!("DWG NO: {}", sample.drawing_number),
        ),
        (570.0, 54.0, 9.0, format!("REV: {}", sample.revision)),
        (570.0, 37.0, 9.0, "SCALE: 1:1".to_owned()),
    ];
    let mut operations = Vec::new();
    for (x, y, size, text) in texts {
        operations.push(Operation::new("BT", vec![]));
        operations.push(Operation::new(
            "Tf",
            vec![Object::Name(b"F1".to_vec()), pdf_number(size)],
        ));
        operations.push(pdf_operation("Td", &[x, y]));
        operations.push(Operation::new(
            "Tj",
            vec![Object::String(win_ansi(&text), StringFormat::Literal)],
        ));
        operations.push(Operation::new("ET", vec![]));
    }
    operations
}

/// A PDF 1.5 document of one A4 landscape page drawn by `operations`, with Helvetica as `F1`.
fn one_page_pdf(operations: Vec<lopdf::content::Operation>) -> Result<Vec<u8>, lopdf::Error> {
    use lopdf::content::Content;
    use lopdf::{Document, Object, Stream, dictionary};
    let mut document = Document::with_version("1.5");
    let pages_id = document.new_object_id();
    let font_id = document.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = document.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font_id },
    });
    let content = Content { operations }.encode()?;
    let content_id = document.add_object(Stream::new(dictionary! {}, content));
    let page_id = document.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
    });
    document.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![page_id.into()],
            "Count" => 1,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 842.into(), 595.into()],
        }),
    );
    let catalog_id = document.add_object(dictionary! {
        "Type" => "Catalog",
        "Pages" => pages_id,
    });
    document.trailer.set("Root", catalog_id);
    let mut bytes = Vec::new();
    document.save_to(&mut bytes)?;
    Ok(bytes)
}
