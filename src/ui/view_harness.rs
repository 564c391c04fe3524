//! Test support for the views that draw with the texture cache (results, detail, attribute editor,
//! PMI, query bar): one kittest harness around the view, its texture cache, the commands it sent to
//! the task layer and the intents it returned.

use egui_kittest::Harness;

use super::app_command::{AppCommand, CommandQueue};
use super::texture_cache::TextureCache;
use partlens_tasks::Command;

/// What a view test holds: the view, its texture cache, and every command and intent of its frames.
pub(crate) struct Fixture<View, Intent> {
    /// The view under test.
    pub view: View,
    /// The texture cache it draws with.
    pub textures: TextureCache<egui::TextureHandle>,
    /// The commands for the task layer its frames sent, oldest first.
    pub commands: Vec<Command>,
    /// The intents returned by its frames, oldest first.
    pub intents: Vec<Intent>,
}

impl<View, Intent> Fixture<View, Intent> {
    /// How many of the commands sent so far match `wanted`.
    pub fn count_commands(&self, wanted: impl Fn(&Command) -> bool) -> usize {
        self.commands
            .iter()
            .filter(|command| wanted(command))
            .count()
    }
}

/// How a view draws one frame: its `ui` method (or a wrapper around it).
pub(crate) type DrawView<View, Intent> = fn(
    &mut View,
    &mut egui::Ui,
    &mut TextureCache<egui::TextureHandle>,
    &mut CommandQueue,
) -> Vec<Intent>;

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
            let mut queue = CommandQueue::default();
            let intents = draw(&mut fixture.view, ui, &mut fixture.textures, &mut queue);
            fixture.intents.extend(intents);
            for command in queue.drain() {
                match command {
                    AppCommand::Backend(command) => fixture.commands.push(command),
                    other => panic!("a view sent {other:?}, which views leave to the app"),
                }
            }
        },
        Fixture {
            view,
            textures: TextureCache::new(texture_budget),
            commands: Vec::new(),
            intents: Vec::new(),
        },
    )
}
