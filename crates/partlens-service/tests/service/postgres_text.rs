//! Free text through the term index on PostgreSQL (issue 26, `store/postgres/text_terms.rs`): a
//! word found inside a term, kept in step when a file's attributes change, a term no file holds
//! forgotten, files indexed at start when their postings are missing, and a filter of many terms
//! answered. On a real server (skipped with a message off CI when there is none).

use partlens_testkit::service::{Session, Shape, StoreKind, TestService, png};

/// Replaces a file's saved attributes.
async fn set_attributes(session: &Session, uid: &str, attributes: &[&str]) {
    session
        .put_json(
            &format!("/api/FileAttributes?fileUID={uid}&deleteExisting=true"),
            serde_json::to_string(&serde_json::to_string(attributes).unwrap()).unwrap(),
        )
        .await
        .expect(200);
}

#[tokio::test]
async fn free_text_goes_through_the_term_index_and_follows_every_change() {
    let Some(service) = TestService::start_on(StoreKind::Postgres, |_| {}).await else {
        return;
    };
    let database = service.database.as_ref().unwrap();
    let count = |sql: &str| -> i64 { database.query_text(sql).unwrap().parse().unwrap() };
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 7), &[])
        .await;
    let bracket = ann
        .upload_database_file("Parts/bracket.png", png(Shape::Bracket, 9), &[])
        .await;
    set_attributes(&ann, &disc, &["Supplier=Zyxwvut Castings"]).await;
    set_attributes(&ann, &bracket, &["Supplier=Acme"]).await;

    // A word inside a term (not a whole term), any case; two words together; a short word (by
    // the text itself).
    assert_eq!(ann.search_uids("FT=XWVU").await, [disc.as_str()]);
    assert_eq!(ann.search_uids("FT=castings zyx").await, [disc.as_str()]);
    assert_eq!(
        ann.search_uids("FT=castings acme").await,
        Vec::<String>::new()
    );
    assert_eq!(ann.search_uids("FT=cm").await, [bracket.as_str()]);
    assert_eq!(
        count("SELECT count(*) FROM search_terms WHERE term = 'castings'"),
        1
    );

    // The disc's supplier changes: the old term leads nowhere and is forgotten, the new is found.
    set_attributes(&ann, &disc, &["Supplier=Acme"]).await;
    assert_eq!(ann.search_uids("FT=xwvu").await, Vec::<String>::new());
    assert_eq!(
        count("SELECT count(*) FROM search_terms WHERE term LIKE '%zyxwvut%'"),
        0
    );
    // Its trigrams are held by no term any more (a word goes by its rarest trigram).
    assert_eq!(
        count("SELECT terms FROM search_trigram_counts WHERE trigram = 'yxw'"),
        0
    );
    assert_eq!(
        count("SELECT terms FROM search_trigram_counts WHERE trigram = 'acm'"),
        count("SELECT count(*) FROM search_terms WHERE strpos(term, 'acm') > 0")
    );
    let mut both = vec![disc.clone(), bracket.clone()];
    both.sort();
    let mut found = ann.search_uids("FT=acme").await;
    found.sort();
    assert_eq!(found, both);

    // Many terms, repeated and distinct, answer (one sub-select for them all).
    let many: Vec<String> = (0..150).map(|n| format!("acme{n}")).collect();
    assert_eq!(
        ann.search_uids(&format!("FT={}", many.join(" "))).await,
        Vec::<String>::new()
    );
    assert_eq!(
        ann.search_uids(&format!("FT={}", vec!["acme"; 300].join(" ")))
            .await
            .len(),
        2
    );

    // Postings lost (a database copied in without them): a node starting indexes the files again.
    database.execute("DELETE FROM search_postings");
    assert_eq!(ann.search_uids("FT=acme").await, Vec::<String>::new());
    let (second, _second_dir) = service
        .another_node(|config| config.index_workers = 0)
        .await;
    let mut found = ann.search_uids("FT=acme").await;
    found.sort();
    assert_eq!(found, both);
    second.shutdown().await;
}
