//! The 3D models the Search place has asked for, by request key: loading, ready to draw, or
//! unavailable with the reason. Ready models are kept for the cards that show them on hover and the
//! detail that opens them; at most [`MAX_READY_MODELS`] are kept (each is the reduced display copy,
//! a few MB at most), the least recently shown go first.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ui::app_command::CommandQueue;
use partlens_tasks::Command;
use partlens_tasks::models::{ModelPreview, ModelRequest};

/// Most ready models kept.
pub const MAX_READY_MODELS: usize = 12;

/// Where one model is.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelEntry {
    /// Asked for; the task layer is reading it.
    Loading,
    /// Ready to draw.
    Ready(Arc<ModelPreview>),
    /// It cannot be shown; the sentence says why and what to do.
    Unavailable(String),
}

/// The models asked for, by key.
#[derive(Debug, Default)]
pub struct ModelCache {
    entries: HashMap<String, (ModelEntry, u64)>,
    clock: u64,
}

impl ModelCache {
    /// The entry for `request`, asking the task layer for it the first time.
    pub fn request(&mut self, request: ModelRequest, commands: &mut CommandQueue) -> &ModelEntry {
        self.clock += 1;
        let clock = self.clock;
        let key = request.key.clone();
        let entry = self.entries.entry(key).or_insert_with(|| {
            commands.backend(Command::LoadModel(request));
            (ModelEntry::Loading, clock)
        });
        entry.1 = clock;
        &entry.0
    }

    /// The entry under `key`, if it was asked for.
    pub fn get(&self, key: &str) -> Option<&ModelEntry> {
        self.entries.get(key).map(|(entry, _)| entry)
    }

    /// The model under `key`, when it is ready.
    pub fn ready(&self, key: &str) -> Option<Arc<ModelPreview>> {
        match self.get(key) {
            Some(ModelEntry::Ready(preview)) => Some(preview.clone()),
            _ => None,
        }
    }

    /// Files an answer of the task layer (only for keys asked for: a stale answer is dropped).
    pub fn answer(&mut self, key: &str, entry: ModelEntry) {
        if let Some(slot) = self.entries.get_mut(key) {
            slot.0 = entry;
        }
        self.evict();
    }

    /// Forgets `key`, so the next request reads it again.
    pub fn forget(&mut self, key: &str) {
        self.entries.remove(key);
    }

    /// How many models are ready.
    pub fn ready_count(&self) -> usize {
        self.entries
            .values()
            .filter(|(entry, _)| matches!(entry, ModelEntry::Ready(_)))
            .count()
    }

    fn evict(&mut self) {
        while self.ready_count() > MAX_READY_MODELS {
            let oldest = self
                .entries
                .iter()
                .filter(|(_, (entry, _))| matches!(entry, ModelEntry::Ready(_)))
                .min_by_key(|(_, (_, used))| *used)
                .map(|(key, _)| key.clone());
            match oldest {
                Some(key) => {
                    self.entries.remove(&key);
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::app_command::AppCommand;
    use partlens_geometry::Mesh;

    fn preview() -> Arc<ModelPreview> {
        let mesh = Mesh {
            vertices: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            triangles: vec![[0, 1, 2]],
        };
        Arc::new(ModelPreview::prepare("t", "test", &mesh, 10).unwrap())
    }

    #[test]
    fn a_model_is_asked_for_once_and_the_oldest_ready_ones_go_first() {
        let mut cache = ModelCache::default();
        let mut commands = CommandQueue::default();
        for round in 0..2 {
            for n in 0..MAX_READY_MODELS + 2 {
                let request = ModelRequest::local_file(format!("/m/{n}.stl"));
                let key = request.key.clone();
                cache.request(request, &mut commands);
                if round == 0 {
                    cache.answer(&key, ModelEntry::Ready(preview()));
                }
            }
            if round == 0 {
                assert_eq!(cache.ready_count(), MAX_READY_MODELS);
            }
        }
        let asked = commands
            .drain()
            .into_iter()
            .filter(|command| matches!(command, AppCommand::Backend(Command::LoadModel(_))))
            .count();
        // Every model once, and the two evicted ones again in the second round.
        assert_eq!(asked, MAX_READY_MODELS + 2 + 2);
        cache.answer("model:path:/never-asked.stl", ModelEntry::Ready(preview()));
        assert!(cache.get("model:path:/never-asked.stl").is_none());
    }
}
