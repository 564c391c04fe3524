//! The jobs list: every upload with its phase (queued, uploading n %, indexing with the time it has
//! taken, done, failed with the service's reason, cancelled), with cancel, retry and remove, and
//! what a finished file is for (a search input's search, a database file's record), as a table
//! whose state and actions stay on screen at any window size ([`super::columns`]).

use chrono::Utc;

use egui_extras::TableBuilder;

use super::app_command::CommandQueue;
use super::columns::{ColumnLayout, TableColumn};
use super::theme;
use partlens_api::FileUid;
use partlens_tasks::{Command, Job, JobPhase, JobRole};

/// What the jobs list asks of the app: what a finished upload is for.
#[derive(Clone, Debug, PartialEq)]
pub enum JobsIntent {
    /// Search by the uploaded search input (its UID: nothing uploaded again).
    SearchBy {
        /// The search input's UID.
        uid: FileUid,
        /// Its file's name, shown in the query bar.
        file_name: String,
    },
    /// Open the uploaded company-database file's record.
    OpenDetail(FileUid),
}

/// How a phase reads in the list ("Uploading 42 %", "Indexing for 12 s").
pub fn phase_text(job: &Job, now: chrono::DateTime<Utc>) -> String {
    match &job.phase {
        JobPhase::Queued if job.waiting_for_login => "Waiting for login".to_owned(),
        JobPhase::Queued | JobPhase::Indexing { .. } if job.waiting_for_service => {
            "Waiting for the service".to_owned()
        }
        JobPhase::Queued => "Queued".to_owned(),
        // Every byte is sent; the service holds the reply until it has stored (and, for database
        // files, indexed) the file.
        JobPhase::Uploading { sent, total } if sent >= total && *total > 0 => {
            "Uploaded, the service is processing it".to_owned()
        }
        JobPhase::Uploading { .. } => {
            format!("Uploading {} %", job.phase.upload_percent().unwrap_or(0))
        }
        JobPhase::Indexing { .. } if job.waiting_for_login => "Waiting for login".to_owned(),
        JobPhase::Indexing { since } => {
            let seconds = (now - *since).num_seconds().max(0);
            format!("Indexing for {}", elapsed_text(seconds))
        }
        JobPhase::Done { .. } => "Done".to_owned(),
        JobPhase::Failed { .. } => "Failed".to_owned(),
        JobPhase::Cancelled => "Cancelled".to_owned(),
    }
}

fn elapsed_text(seconds: i64) -> String {
    if seconds < 60 {
        format!("{seconds} s")
    } else {
        format!("{} min {} s", seconds / 60, seconds % 60)
    }
}

/// "indexed at 14:03:12" in local time, from the service's ISO 8601 timestamp (as given when it
/// cannot be read).
fn indexed_at_text(indexed_at: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(indexed_at.trim()) {
        Ok(time) => format!(
            "indexed at {}",
            time.with_timezone(&chrono::Local).format("%H:%M:%S")
        ),
        Err(_) => format!("indexed at {indexed_at}"),
    }
}

/// "35 B", "850 KB", "36.7 MB".
pub fn size_text(bytes: u64) -> String {
    const KB: f64 = 1000.0;
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let bytes = bytes as f64;
    if bytes < KB * KB {
        format!("{:.0} KB", (bytes / KB).max(1.0))
    } else if bytes < KB * KB * KB {
        format!("{:.1} MB", bytes / (KB * KB))
    } else {
        format!("{:.2} GB", bytes / (KB * KB * KB))
    }
}

/// Where a job's file is stored: its company-database path, or that it is a search input.
fn stored_as_text(role: &JobRole) -> String {
    match role {
        JobRole::SearchInput => "Search input (temporary)".to_owned(),
        JobRole::Database { stored_path, .. } => stored_path.clone(),
    }
}

/// Draws the jobs of `jobs` (newest first), sending cancel/retry/remove commands; returns what a
/// finished upload was asked for (its search, its record).
pub fn jobs_ui(
    ui: &mut egui::Ui,
    jobs: &[Job],
    current_service: &str,
    commands: &mut CommandQueue,
) -> Vec<JobsIntent> {
    let mut intents = Vec::new();
    ui.horizontal(|ui| {
        ui.heading("Jobs");
        let active = jobs.iter().filter(|job| !job.phase.is_finished()).count();
        if active > 0 {
            ui.label(egui::RichText::new(format!("{active} running")).weak());
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let finished = jobs.iter().any(|job| job.phase.is_finished());
            if ui
                .add_enabled(finished, egui::Button::new("Clear finished"))
                .on_hover_text("Take done, failed and cancelled jobs off the list.")
                .clicked()
            {
                commands.backend(Command::ClearFinishedJobs);
            }
        });
    });
    ui.add_space(6.0);
    if jobs.is_empty() {
        egui::Frame::group(ui.style())
            .inner_margin(24.0)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.vertical_centered(|ui| {
                    ui.label("No jobs yet — drop files here or press Ctrl+O.");
                    ui.add_space(6.0);
                    if ui.button("Add files…").clicked() {
                        commands.backend(Command::PickFiles);
                    }
                });
            });
        return intents;
    }
    let now = Utc::now();
    let mut ordered: Vec<&Job> = jobs.iter().collect();
    ordered.sort_by_key(|job| std::cmp::Reverse(job.created));
    if ordered
        .iter()
        .any(|job| matches!(job.phase, JobPhase::Indexing { .. }))
    {
        // The elapsed time ticks.
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_secs(1));
    }
    jobs_table_ui(ui, &ordered, now, current_service, commands, &mut intents);
    intents
}

/// The jobs' columns: the file (taking the width left), its state and progress, where it is
/// stored, the actions. When the window is narrow *Stored as* goes first: the state and the
/// actions always stay.
fn job_columns() -> Vec<TableColumn> {
    vec![
        TableColumn::remainder("File", 150.0),
        TableColumn::resizable("State", 240.0, 160.0, 0),
        TableColumn::resizable("Stored as", 200.0, 80.0, 1),
        TableColumn::fixed("Actions", ACTIONS_WIDTH),
    ]
}

/// The jobs as a table, one row a job, only the rows on screen laid out.
fn jobs_table_ui(
    ui: &mut egui::Ui,
    jobs: &[&Job],
    now: chrono::DateTime<Utc>,
    current_service: &str,
    commands: &mut CommandQueue,
    intents: &mut Vec<JobsIntent>,
) {
    let columns = job_columns();
    let layout = ColumnLayout::fit(ui, &columns);
    layout.left_out_ui(ui);
    let stored_as = layout.shows(2);
    let table = TableBuilder::new(ui)
        .striped(true)
        .resizable(true)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .min_scrolled_height(0.0);
    layout
        .apply(table, &columns, "jobs table")
        .header(24.0, |mut header| {
            for (index, column) in columns.iter().enumerate() {
                if layout.shows(index) {
                    header.col(|ui| {
                        ui.strong(column.title.as_str());
                    });
                }
            }
        })
        .body(|body| {
            body.rows(JOB_ROW_HEIGHT, jobs.len(), |mut row| {
                let job = jobs[row.index()];
                row.col(|ui| job_file_ui(ui, job));
                row.col(|ui| job_state_ui(ui, job, now, current_service));
                if stored_as {
                    row.col(|ui| {
                        let stored = stored_as_text(&job.role);
                        crate::ui::elide::file_name_cell(ui, &stored);
                    });
                }
                row.col(|ui| {
                    job_actions_ui(ui, job, job.service == current_service, commands, intents);
                });
            });
        });
}

/// Height of a job's row: its state on one line and a note under it.
const JOB_ROW_HEIGHT: f32 = 44.0;

/// Width of the actions: Cancel, Retry, Search or Open, and Remove.
const ACTIONS_WIDTH: f32 = 150.0;

/// The file's name (elided in the middle, its path on hover) and size.
fn job_file_ui(ui: &mut egui::Ui, job: &Job) {
    ui.vertical(|ui| {
        crate::ui::elide::file_path_cell(ui, &job.file_name(), &job.path.display().to_string());
        if job.size > 0 {
            ui.label(egui::RichText::new(size_text(job.size)).small().weak());
        }
    });
}

/// Where the job is: a progress bar while it uploads, a spinner while it is indexed, done with
/// the time, failed with the service's reason (whole on hover), and a note when it waits for
/// another service.
fn job_state_ui(ui: &mut egui::Ui, job: &Job, now: chrono::DateTime<Utc>, current_service: &str) {
    ui.vertical(|ui| {
        let text = phase_text(job, now);
        match &job.phase {
            JobPhase::Uploading { sent, total } if sent >= total && *total > 0 => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.add(egui::Label::new(text).truncate());
                });
            }
            JobPhase::Uploading { .. } => {
                let fraction = f32::from(job.phase.upload_percent().unwrap_or(0)) / 100.0;
                let width = ui.available_width().min(180.0);
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(width)
                        .text(text),
                );
            }
            JobPhase::Indexing { .. } if !job.waiting_for_login && !job.waiting_for_service => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.add(egui::Label::new(text).truncate());
                });
            }
            JobPhase::Done { indexed_at, .. } => {
                ui.horizontal(|ui| {
                    ui.colored_label(theme::success_color(ui), text);
                    ui.add(
                        egui::Label::new(
                            egui::RichText::new(indexed_at_text(indexed_at))
                                .small()
                                .weak(),
                        )
                        .truncate(),
                    );
                });
            }
            JobPhase::Failed { reason } => {
                ui.colored_label(theme::error_color(ui), text);
                // A truncated label shows its whole text on hover itself; a second hover text
                // said the reason twice (the walkthrough's screenshot 06).
                ui.add(egui::Label::new(egui::RichText::new(reason).small()).truncate());
            }
            _ => {
                ui.label(text);
            }
        }
        if job.service != current_service && !job.phase.is_finished() {
            ui.add(
                egui::Label::new(
                    egui::RichText::new("Continues when its service is in use again.")
                        .small()
                        .weak(),
                )
                .truncate(),
            );
        }
    });
}

/// Two fixed slots, so that a job finishing under the pointer never turns "Cancel" into
/// "Remove": the first holds Cancel or Retry, or for a file done on the service in use (`here`)
/// what it is for (Search by a search input, Open a database file's record); the second Remove.
fn job_actions_ui(
    ui: &mut egui::Ui,
    job: &Job,
    here: bool,
    commands: &mut CommandQueue,
    intents: &mut Vec<JobsIntent>,
) {
    let name = job.file_name();
    if !job.phase.is_finished() {
        if ui
            .button("Cancel")
            .accessible_name(format!("Cancel {name}"))
            .clicked()
        {
            commands.backend(Command::CancelJob(job.id));
        }
    } else if matches!(job.phase, JobPhase::Failed { .. } | JobPhase::Cancelled) {
        if ui
            .button("Retry")
            .accessible_name(format!("Retry {name}"))
            .on_hover_text("Upload the file again.")
            .clicked()
        {
            commands.backend(Command::RetryJob(job.id));
        }
    } else if let (JobPhase::Done { uid, .. }, true) = (&job.phase, here) {
        let (label, hint, intent) = match job.role {
            JobRole::SearchInput => (
                "Search",
                "Search by this file (nothing is uploaded again).",
                JobsIntent::SearchBy {
                    uid: uid.clone(),
                    file_name: name.clone(),
                },
            ),
            JobRole::Database { .. } => (
                "Open",
                "Open the file's record.",
                JobsIntent::OpenDetail(uid.clone()),
            ),
        };
        if ui
            .button(label)
            .accessible_name(format!("{label} {name}"))
            .on_hover_text(hint)
            .clicked()
        {
            intents.push(intent);
        }
    } else {
        ui.add_space(ACTION_SLOT_WIDTH);
    }
    if job.phase.is_finished()
        && ui
            .button("Remove")
            .accessible_name(format!("Remove job {name}"))
            .on_hover_text("Take the job off the list (the file stays on the service).")
            .clicked()
    {
        commands.backend(Command::RemoveJob(job.id));
    }
}

/// The width kept free where a job has no Cancel or Retry button.
const ACTION_SLOT_WIDTH: f32 = 52.0;

#[cfg(test)]
mod tests {
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use partlens_tasks::UploadSpec;

    fn job(phase: JobPhase) -> Job {
        let mut job = Job::new(
            UploadSpec {
                path: "/p/a.png".into(),
                role: JobRole::SearchInput,
                index_async: true,
            },
            "local".into(),
        );
        job.phase = phase;
        job
    }

    /// A job of `service` done as `uid`, uploaded from `path` as `role`.
    fn done(path: &str, role: JobRole, uid: &str, service: &str) -> Job {
        let mut job = Job::new(
            UploadSpec {
                path: path.into(),
                role,
                index_async: true,
            },
            service.into(),
        );
        job.phase = JobPhase::Done {
            uid: FileUid::from_reply(uid),
            indexed_at: "2026-12-06T13:39:57Z".into(),
        };
        job
    }

    #[test]
    fn a_finished_search_input_is_searched_by_and_a_database_file_opened() {
        let jobs = vec![
            done("/in/flange.png", JobRole::SearchInput, "s-1", "local"),
            done(
                "/in/bracket.step",
                JobRole::Database {
                    stored_path: "Parts/bracket.step".into(),
                    attributes: Vec::new(),
                    category_id: None,
                    index_components: false,
                },
                "d-1",
                "local",
            ),
            // Uploaded to another service: its UID means nothing to the one in use.
            done("/in/other.png", JobRole::SearchInput, "o-1", "elsewhere"),
        ];
        let mut harness = egui_kittest::Harness::builder()
            .with_size(egui::vec2(900.0, 300.0))
            .build_ui_state(
                move |ui, intents: &mut Vec<JobsIntent>| {
                    intents.extend(jobs_ui(ui, &jobs, "local", &mut CommandQueue::default()));
                },
                Vec::new(),
            );
        harness.run();
        harness.get_by_label("Search flange.png").click();
        harness.get_by_label("Open bracket.step").click();
        harness.run();
        assert!(harness.query_by_label("Search other.png").is_none());
        assert_eq!(
            *harness.state(),
            [
                JobsIntent::SearchBy {
                    uid: FileUid::from_reply("s-1"),
                    file_name: "flange.png".into()
                },
                JobsIntent::OpenDetail(FileUid::from_reply("d-1")),
            ]
        );
    }

    #[test]
    fn sizes_and_times_read_in_words() {
        assert_eq!(size_text(35), "35 B");
        assert_eq!(size_text(999), "999 B");
        assert_eq!(size_text(1000), "1 KB");
        assert_eq!(size_text(850_000), "850 KB");
        assert_eq!(size_text(38_493_333), "38.5 MB");
        assert!(indexed_at_text("2026-11-22T05:54:30.630Z").starts_with("indexed at "));
        assert_eq!(indexed_at_text("yesterday"), "indexed at yesterday");
    }

    #[test]
    fn phases_read_in_words() {
        let now = Utc::now();
        assert_eq!(
            phase_text(&job(JobPhase::Uploading { sent: 1, total: 4 }), now),
            "Uploading 25 %"
        );
        let since = now - chrono::Duration::seconds(75);
        assert_eq!(
            phase_text(&job(JobPhase::Indexing { since }), now),
            "Indexing for 1 min 15 s"
        );
        assert_eq!(
            phase_text(
                &job(JobPhase::Done {
                    uid: FileUid::from_reply("u"),
                    indexed_at: "t".into()
                }),
                now
            ),
            "Done"
        );
        assert_eq!(
            phase_text(&job(JobPhase::Uploading { sent: 4, total: 4 }), now),
            "Uploaded, the service is processing it"
        );
        let mut waiting = job(JobPhase::Queued);
        waiting.waiting_for_login = true;
        assert_eq!(phase_text(&waiting, now), "Waiting for login");
    }
}
