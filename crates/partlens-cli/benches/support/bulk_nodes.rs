//! `-- postgres` of the bulk-load bench: the vault into one node on PostgreSQL, then into two nodes
//! on a fresh database that share one data folder (half the vault to each, at once), and the two
//! against the one. On a machine of two cores the two nodes share those cores, so the ratio is one
//! of the CPU time the nodes can use, not of machines.

use std::time::Instant;

use partlens_tasks::sync::{SyncControl, run_sync};
use partlens_testkit::service::PASSWORD;

use crate::bulk_probe::ServiceProcess;
use crate::bulk_vault::write_vault_part;

/// One run: files a minute and the nodes' CPU seconds a file.
async fn run(files: usize, nodes: usize) -> (f64, f64) {
    let database = partlens_testkit::postgres::database()
        .expect("a PostgreSQL server (PARTLENS_PG_BIN, as the tests use)");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let data = dir.path().join("service");
    let url = partlens_store::DatabaseUrl::parse(&database.url).expect("the database's URL");
    let users_data = data.clone();
    tokio::task::spawn_blocking(move || {
        partlens_service::admin::add_user_in(
            &users_data,
            Some(&url),
            "Acme",
            "bulk",
            PASSWORD,
            true,
        )
    })
    .await
    .expect("adding the user")
    .expect("the user");
    let mut services = Vec::new();
    for node in 0..nodes {
        let log = dir.path().join(format!("node-{node}.log"));
        services
            .push(ServiceProcess::start_with(&data, &log, &["--database", &database.url]).await);
    }
    let share = files.div_ceil(nodes);
    let mut syncs = Vec::new();
    let started_cpu: f64 = join_cpu(&services).await;
    let started = Instant::now();
    for (node, service) in services.iter().enumerate() {
        let part = dir.path().join(format!("vault-{node}"));
        write_vault_part(&part, node * share..((node + 1) * share).min(files));
        let client = partlens_testkit::sync::client(&service.base, "bulk", PASSWORD).await;
        let context = crate::context(
            &dir.path().join(format!("client-{node}")),
            &service.base,
            files,
            1,
        );
        syncs.push(tokio::spawn(async move {
            let summary = run_sync(
                &client,
                &crate::setup(&part),
                &context,
                &SyncControl::default(),
                &|_| {},
            )
            .await
            .expect("the sync");
            (summary.uploaded.len(), summary.failed.len())
        }));
    }
    let mut uploaded = 0;
    let mut failed = 0;
    for sync in syncs {
        let (up, down) = sync.await.expect("a sync task");
        uploaded += up;
        failed += down;
    }
    let wall = started.elapsed().as_secs_f64();
    let cpu = join_cpu(&services).await - started_cpu;
    println!(
        "| {nodes} | {files} | {uploaded} | {failed} | {wall:.0} s | {:.1} | {:.2} s |",
        files as f64 * 60.0 / wall,
        cpu / files.max(1) as f64
    );
    drop(services);
    (files as f64 * 60.0 / wall, cpu / files.max(1) as f64)
}

/// The CPU seconds of every node so far.
async fn join_cpu(services: &[ServiceProcess]) -> f64 {
    let mut total = 0.0;
    for service in services {
        total += service.snapshot().await.cpu();
    }
    total
}

/// `-- postgres`: one node, then two, on `files` files.
pub async fn nodes_on_postgres(files: usize) {
    println!("\n| nodes | files | uploaded | failed | wall | files a minute | nodes' CPU a file |");
    println!("|---|---|---|---|---|---|---|");
    let one = run(files, 1).await;
    let two = run(files, 2).await;
    println!(
        "\ntwo nodes against one: {:.2}× the files a minute, {:.2}× the nodes' CPU a file \
         (PostgreSQL's own CPU not counted)",
        two.0 / one.0,
        two.1 / one.1
    );
}
