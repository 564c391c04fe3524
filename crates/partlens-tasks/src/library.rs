//! The Library's pages: one call of `GET /api/Files` a page (this project's service lists the
//! company's database files newest first). A page that meets a 401 is parked and asked for again
//! after the login, like the other reads; any other failure is answered with the error, so the
//! Library can say what to do next.

use super::backend::Backend;
use super::command::Command;
use super::event::Event;
use partlens_api::ApiError;

impl Backend {
    /// Runs [`Command::LoadLibraryPage`].
    pub(super) fn load_library_page(&self, command: Command) {
        let Command::LoadLibraryPage { request, query } = &command else {
            return;
        };
        let (request, query) = (*request, query.clone());
        let Some((client, generation, _)) = self.client_or_park(&command) else {
            return;
        };
        let backend = self.clone();
        self.spawn(async move {
            match client.list_files(&query).await {
                Ok(page) => backend.emit(Event::LibraryPageLoaded { request, page }),
                Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                Err(error) => backend.emit(Event::LibraryPageFailed {
                    request,
                    offset: query.offset,
                    error,
                }),
            }
        });
    }
}
