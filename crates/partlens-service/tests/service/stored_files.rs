//! The running service tells the program that runs it where a stored file's bytes are (the app's
//! local workspace reads models for its 3D preview from there), from its own store and disk.

use partlens_api::FileUid;
use partlens_service::{RunningService, ServiceConfig};
use partlens_testkit::service::{Session, Shape, add_standard_users, png};

#[tokio::test]
async fn a_stored_file_is_found_on_disk_by_its_uid_and_an_unknown_uid_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServiceConfig::new(dir.path());
    config.addr = "127.0.0.1:0".parse().unwrap();
    add_standard_users(&config);
    let service = RunningService::start(config).await.unwrap();
    let ann = Session::login(&service.base_url(), "ann").await;
    let bytes = png(Shape::Disc, 7);
    let uid = ann
        .upload_database_file("Parts/washer.png", bytes.clone(), &[])
        .await;

    let files = service.stored_files();
    let content = files
        .content(&FileUid::from_reply(&uid.to_uppercase()))
        .await
        .unwrap()
        .expect("the uploaded file is stored");
    assert_eq!(std::fs::read(&content.path).unwrap(), bytes);
    assert_eq!(content.extension, ".png");
    assert_eq!(content.stored_path, "Parts/washer.png");

    let unknown = FileUid::from_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3301");
    assert_eq!(files.content(&unknown).await.unwrap(), None);
    service.shutdown().await;
}
