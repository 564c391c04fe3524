//! The 3D part of a model's detail view: the model turned in a viewport with its measurements when
//! this computer has the file, else the service's picture with the reason and *Open model file…*.
//! *3D model* / *Picture* switch between the two. The model is asked for when first shown. An
//! assembly's component chosen in the detail's tree is lit in the viewport ([`ComponentLights`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use egui::Vec2;

use super::app_command::CommandQueue;
use super::model_view::shading::ModelStyle;
use super::model_view::{ModelEntry, ModelView, measurements_ui};
use partlens_api::FileUid;
use partlens_tasks::Command;
use partlens_tasks::models::{ModelPreview, ModelRequest};

/// The 3D preview of the record shown in the detail.
#[derive(Debug)]
pub struct DetailModel {
    request: ModelRequest,
    /// `None` until asked for.
    entry: Option<ModelEntry>,
    view: ModelView,
    showing_3d: bool,
    /// Triangles of each component in the preview, counted once for the preview (by address).
    component_counts: Option<(usize, Arc<HashMap<String, usize>>)>,
}

/// What the rows of an assembly's tree know of its 3D preview: how many triangles show each
/// component (by [`partlens_tasks::models::component_name`]) and which one is lit; a row that
/// chooses one (or clears it) says so in `chosen`.
#[derive(Clone, Debug)]
pub struct ComponentLights {
    /// Triangles of the preview showing each component.
    pub counts: Arc<HashMap<String, usize>>,
    /// The component lit.
    pub lit: Option<String>,
    /// What a row chose this frame: `Some(Some(name))` light it, `Some(None)` light nothing.
    pub chosen: Option<Option<String>>,
}

/// What the detail's left column shows this frame.
pub enum DetailPicture {
    /// The 3D viewport was drawn.
    Model,
    /// The service's picture, with a sentence above it when the model could not be had.
    Picture(Option<String>),
}

impl DetailModel {
    /// The preview of service file `uid` stored as `file_name`; `known_paths` are files on this
    /// computer known to hold its content (views the query bar searched by).
    pub fn of_file(uid: FileUid, file_name: &str, known_paths: Vec<PathBuf>) -> Self {
        Self {
            request: ModelRequest::stored_file(uid, file_name, known_paths),
            entry: None,
            view: ModelView::new(),
            showing_3d: true,
            component_counts: None,
        }
    }

    /// The key its answer comes under.
    pub fn key(&self) -> &str {
        &self.request.key
    }

    /// Where the model is (`None`: not asked for yet).
    pub fn entry(&self) -> Option<&ModelEntry> {
        self.entry.as_ref()
    }

    /// The viewport's state (its camera).
    pub fn view(&self) -> &ModelView {
        &self.view
    }

    /// True while the 3D model (not the picture) is chosen.
    pub fn showing_3d(&self) -> bool {
        self.showing_3d
    }

    /// Files the task layer's answer, when it is for this model.
    pub fn answer(&mut self, key: &str, entry: ModelEntry) {
        if key == self.request.key {
            self.entry = Some(entry);
        }
    }

    /// Shows a model file the user opened instead.
    pub fn open_file(&mut self, path: PathBuf) {
        self.request = ModelRequest::local_file(path);
        self.entry = None;
        self.view = ModelView::new();
        self.showing_3d = true;
    }

    /// The model, when it is ready.
    pub fn ready(&self) -> Option<&Arc<ModelPreview>> {
        match &self.entry {
            Some(ModelEntry::Ready(preview)) => Some(preview),
            _ => None,
        }
    }

    /// What the tree's rows need to light a component, while an assembly's model is shown in 3D.
    pub fn component_lights(&mut self) -> Option<ComponentLights> {
        let preview = self.ready().filter(|_| self.showing_3d)?.clone();
        if preview.parts.is_empty() {
            return None;
        }
        let address = Arc::as_ptr(&preview) as usize;
        let counts = match &self.component_counts {
            Some((counted, counts)) if *counted == address => counts.clone(),
            _ => {
                let counts = Arc::new(preview.component_triangle_counts());
                self.component_counts = Some((address, counts.clone()));
                counts
            }
        };
        Some(ComponentLights {
            counts,
            lit: self.lit_component().map(str::to_owned),
            chosen: None,
        })
    }

    /// Lights the component named `name` in the viewport (`None`: nothing); how many triangles
    /// are lit (0, and nothing lit, when the model is not ready or has none of it).
    pub fn light_component(&mut self, name: Option<&str>) -> usize {
        match self.ready().cloned() {
            Some(preview) => self.view.light_component(&preview, name),
            None => 0,
        }
    }

    /// The name of the component lit, if any.
    pub fn lit_component(&self) -> Option<&str> {
        self.view.lit_component().map(|lit| lit.name.as_str())
    }

    /// The switch between the 3D model and the picture, and *Open model file…*.
    pub fn mode_ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.showing_3d, true, "3D model");
            ui.selectable_value(&mut self.showing_3d, false, "Picture");
            ui.separator();
            if ui
                .button("Open model file…")
                .on_hover_text("Show a copy of this model from your computer in 3D")
                .clicked()
            {
                commands.backend(Command::PickModelFile);
            }
        });
    }

    /// The viewport `height` points high when the model is ready (asking for it the first time);
    /// otherwise what the picture area should say.
    pub fn viewport_ui(
        &mut self,
        ui: &mut egui::Ui,
        height: f32,
        commands: &mut CommandQueue,
    ) -> DetailPicture {
        if !self.showing_3d {
            return DetailPicture::Picture(None);
        }
        let entry = self.entry.get_or_insert_with(|| {
            commands.backend(Command::LoadModel(self.request.clone()));
            ModelEntry::Loading
        });
        match entry.clone() {
            ModelEntry::Ready(preview) => {
                self.view.toolbar_ui(ui);
                let size = Vec2::new(ui.available_width(), height);
                self.view.viewport_ui(ui, &preview, size);
                ui.weak("Drag to turn, right-drag or Shift + drag to pan, scroll to zoom");
                self.lit_note_ui(ui);
                DetailPicture::Model
            }
            ModelEntry::Loading => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Reading the model…");
                });
                DetailPicture::Picture(None)
            }
            ModelEntry::Unavailable(reason) => DetailPicture::Picture(Some(reason)),
        }
    }

    /// Which component is lit, with *Clear*, while one is.
    fn lit_note_ui(&mut self, ui: &mut egui::Ui) {
        let Some(lit) = self.view.lit_component() else {
            return;
        };
        let note = format!(
            "{} lit ({} triangles drawn); Escape clears it",
            lit.name, lit.count
        );
        let mut clear = false;
        ui.horizontal(|ui| {
            let accent = ModelStyle::for_visuals(ui.visuals(), true).accent;
            ui.label(egui::RichText::new(note).color(accent));
            clear = ui.small_button("Clear").clicked();
        });
        if clear {
            self.light_component(None);
        }
    }

    /// The measurements, when the model is ready and shown.
    pub fn measurements_ui(&self, ui: &mut egui::Ui) {
        if self.showing_3d
            && let Some(preview) = self.ready()
        {
            ui.strong("Model measurements");
            measurements_ui(ui, preview);
            ui.separator();
        }
    }
}
