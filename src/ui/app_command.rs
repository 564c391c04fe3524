//! What views ask the app to do. Views never await and never touch distant state: they push
//! [`AppCommand`]s, which the app drains once a frame (backend commands go to the task layer).

use std::path::PathBuf;

use super::place::Place;
use partlens_tasks::Command;

/// A request from a view.
#[derive(Clone, Debug, PartialEq)]
pub enum AppCommand {
    /// Hand this to the task layer.
    Backend(Command),
    /// Go to a place.
    Navigate(Place),
    /// Put files into the upload form (and show it).
    StageFiles(Vec<PathBuf>),
    /// Open the login form over the current place.
    ShowLogin,
    /// Put the keyboard focus in the search field.
    FocusSearch,
}

/// The commands views pushed this frame.
#[derive(Debug, Default)]
pub struct CommandQueue {
    commands: Vec<AppCommand>,
}

impl CommandQueue {
    /// Queues a command.
    pub fn push(&mut self, command: AppCommand) {
        self.commands.push(command);
    }

    /// Queues a command for the task layer.
    pub fn backend(&mut self, command: Command) {
        self.commands.push(AppCommand::Backend(command));
    }

    /// Takes every queued command, in order.
    pub fn drain(&mut self) -> Vec<AppCommand> {
        std::mem::take(&mut self.commands)
    }
}
