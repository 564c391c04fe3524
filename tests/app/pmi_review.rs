//! The PMI viewer on a scanned drawing read by OCR, driven with egui_kittest: the service's PMIData
//! (the items' `confidence` extension in the twice-parsed PMI string) reaches the viewer, each OCR'd
//! item shows its confidence on its row and its box, the one under the review confidence is marked
//! for review (row, box and legend), and "For review only" lists just it.

// Test helpers outside `#[test]` functions unwrap too: a failure there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::CommandQueue;
use partlens::ui::pmi::PmiView;
use partlens::ui::pmi::marks::REVIEW_CONFIDENCE;
use partlens::ui::texture_cache::TextureCache;
use partlens_api::FileUid;
use partlens_api::model::PmiDataWire;

const UID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

/// What `GET /api/PMIData` answers for a scanned plate read by OCR: the PMI a JSON string whose
/// items carry `confidence` (the vector reader's items have none).
const SCANNED_PLATE: &str = r#"{
    "PMI": "[{\"page\":1,\"ImageSize\":[1024,662],\"PMI\":[{\"box\":[100,80,180,100],\"type_id\":2,\"text\":\"213.00\",\"confidence\":91.2},{\"box\":[300,200,380,220],\"type_id\":2,\"text\":\"l96.9l\",\"confidence\":42.4},{\"box\":[700,560,980,590],\"type_id\":3,\"text\":\"PART NO: VRN-BP-VT-250\",\"confidence\":88.0}]}]",
    "UnstructuredText": "213.00\nl96.9l\nPART NO: VRN-BP-VT-250",
    "ExtractedAttributes": ["part_number=VRN-BP-VT-250"]
}"#;

struct Fixture {
    view: PmiView,
    textures: TextureCache<egui::TextureHandle>,
}

fn harness() -> Harness<'static, Fixture> {
    let wire: PmiDataWire = serde_json::from_str(SCANNED_PLATE).unwrap();
    let data = wire.parse().unwrap();
    let uid = FileUid::from_reply(UID);
    let mut view = PmiView::default();
    view.open(uid.clone(), "plate-scan.png", "");
    view.set_data(&uid, data);
    Harness::builder()
        .with_size([1100.0, 900.0])
        .build_ui_state(
            |ui, fixture: &mut Fixture| {
                let mut commands = CommandQueue::default();
                fixture.view.ui(ui, &mut fixture.textures, &mut commands);
            },
            Fixture {
                view,
                textures: TextureCache::new(1 << 26),
            },
        )
}

#[test]
fn a_low_confidence_ocr_item_is_marked_for_review_and_can_be_listed_alone() {
    assert_eq!(REVIEW_CONFIDENCE, 60.0);
    let mut harness = harness();
    harness.run();
    // Every OCR'd item shows its confidence; the unsure one is marked on its row and its box.
    harness.get_by_label("Dimension: 213.00 (OCR 91 %)");
    harness.get_by_label("Title block: PART NO: VRN-BP-VT-250 (OCR 88 %)");
    harness.get_by_label("Dimension: l96.9l (OCR 42 %, for review)");
    harness.get_by_label("Dimension box: l96.9l (OCR 42 %, for review)");
    harness.get_by_label("Dimension box: 213.00 (OCR 91 %)");
    harness.get_by_label("For review (1)");
    harness.get_by_label("3 of 3 items");
    harness.check_accessibility();

    // "For review only" lists just the unsure item.
    harness
        .get_by_label("For review only (1 under 60 %)")
        .click();
    harness.run();
    harness.get_by_label("1 of 3 items");
    harness.get_by_label("Dimension: l96.9l (OCR 42 %, for review)");
    assert!(
        harness
            .query_by_label("Dimension: 213.00 (OCR 91 %)")
            .is_none()
    );
    // The arrow keys step through the listed items only.
    harness.key_press(egui::Key::ArrowDown);
    harness.run();
    assert_eq!(harness.state().view.selected(), Some(1));
    harness.key_press(egui::Key::ArrowDown);
    harness.run();
    assert_eq!(harness.state().view.selected(), Some(1));
}
