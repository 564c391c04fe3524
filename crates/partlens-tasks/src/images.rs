//! The backend's image commands: `LoadImage` hands a request to the [`ImageLoader`] (fetch, decode
//! and scale off the UI thread, see [`super::thumbnails`]) and answers `ImageLoaded` or `ImageFailed`;
//! `CancelImage` stops a load whose card scrolled away.
//!
//! [`ImageLoader`]: super::thumbnails::ImageLoader

use super::backend::Backend;
use super::event::Event;
use super::thumbnails::ImageRequest;

impl Backend {
    /// Loads an image for a view.
    pub(super) fn load_image(&self, request: ImageRequest) {
        // Local views load without a session; URLs wait for none either (a card shown before a
        // login would be a stale one) and fail, to be asked for again by the next search.
        let client = self.lock().session().map(|session| session.client.clone());
        let backend = self.clone();
        self.shared.images.request(
            &self.shared.runtime,
            client.as_ref(),
            request,
            move |outcome| match outcome.result {
                Ok(image) => backend.emit(Event::ImageLoaded(image)),
                Err(error) => backend.emit(Event::ImageFailed {
                    key: outcome.key,
                    message: error.to_string(),
                }),
            },
        );
    }
}
