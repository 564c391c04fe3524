//! partlens, the desktop app: the egui views ([`ui`]), the app's place on the desktop and its
//! platform services ([`desktop`]: application id, keyring, file dialogs) and the local workspace
//! ([`workspace`]: the service started in-process with a sample library).
//!
//! The layers below it are crates of their own (docs/ARCHITECTURE.md): `partlens_tasks` (commands
//! in, events out), `partlens_api` (the wire), `partlens_service` (the local service, for the local
//! workspace), `partlens_engine` and `partlens_geometry`. Nothing imports this crate but the
//! `partlens` binary and its tests.

pub mod desktop;
pub mod ui;
pub mod workspace;
