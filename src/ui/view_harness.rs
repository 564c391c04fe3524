//! Test support for the views that draw with the texture cache and answer with intents (results,
//! detail, PMI): one kittest harness around the view, its texture cache and the intents it returned.

use egui_kittest::Harness;

use super::texture_cache::TextureCache;

/// What a view test holds: the view, its texture cache and every intent the view returned so far.
pub(crate) struct Fixture<View, Intent> {
    /// The view under test.
    pub view: View,
    /// The texture cache it draws with.
    pub textures: TextureCache<egui::TextureHandle>,
    /// The intents returned by its frames, oldest first.
    pub intents: Vec<Intent>,
}

/// How a view draws one frame: its `ui` method.
pub(crate) type DrawView<View, Intent> =
    fn(&mut View, &mut egui::Ui, &mut TextureCache<egui::TextureHandle>) -> Vec<Intent>;

/// A harness of `size` points drawing `view` every frame with `draw`, with a texture cache of
/// `texture_budget` bytes.
pub(crate) fn harness<View: 'static, Intent: 'static>(
    view: View,
    size: [f32; 2],
    texture_budget: usize,
    draw: DrawView<View, Intent>,
) -> Harness<'static, Fixture<View, Intent>> {
    Harness::builder().with_size(size).build_ui_state(
        move |ui, fixture: &mut Fixture<View, Intent>| {
            let intents = draw(&mut fixture.view, ui, &mut fixture.textures);
            fixture.intents.extend(intents);
        },
        Fixture {
            view,
            textures: TextureCache::new(texture_budget),
            intents: Vec::new(),
        },
    )
}
