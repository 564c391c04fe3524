//! A drawing of several pages, indexed page by page (issue 48): three real drawings of the corpus
//! joined by poppler's `pdfunite` into one three-page PDF, uploaded to the real service over
//! 127.0.0.1. Each page is pictured and listed (`includeShapelets=true`), `lgFileNumber` selects
//! the page whose images the record gives, a search by page 3's own picture says page 3, and
//! `PDFUrl` serves the stored PDF behind its own link token. Without the corpus or `pdfunite` a test
//! says so and passes, except under CI (`CI` set).

use partlens_testkit::realworld::{corpus_file, joined_drawings_pdf};
use partlens_testkit::service::{Session, Shape, TestService, png, result_uids};

/// The bytes behind a link (no bearer token: links carry their own), with its content type.
async fn fetched(url: &str) -> (u16, Option<String>, Vec<u8>) {
    let reply = reqwest::get(url).await.unwrap();
    let status = reply.status().as_u16();
    let kind = reply
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, kind, reply.bytes().await.unwrap().to_vec())
}

/// The record of `uid` with the query `extra` (`&lgFileNumber=2`…).
async fn record(session: &Session, uid: &str, extra: &str) -> serde_json::Value {
    let reply = session
        .get(&format!("/api/File?fileUID={uid}{extra}"))
        .await;
    reply.expect(200);
    reply.json()
}

/// A string field of a JSON object.
fn text<'a>(value: &'a serde_json::Value, field: &str) -> &'a str {
    value[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} in {value}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_page_drawing_is_pictured_selected_and_found_page_by_page() {
    let Some(pdf) = joined_drawings_pdf() else {
        return;
    };
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Drawings/three-pages.pdf", pdf.clone(), &[])
        .await;

    // Without includeShapelets the record lists no pages; with it, three, each pictured.
    let plain = record(&ann, &uid, "").await;
    assert!(plain.get("Pages").is_none(), "{plain}");
    assert!(plain.get("Page").is_none(), "{plain}");
    let detailed = record(&ann, &uid, "&includeShapelets=true").await;
    let pages = detailed["Pages"].as_array().unwrap();
    assert_eq!(pages.len(), 3, "{detailed}");
    let mut large = Vec::new();
    for (index, page) in pages.iter().enumerate() {
        assert_eq!(page["Page"], index + 1, "{page}");
        assert_eq!(page["ViewCount"], 1, "{page}");
        let size = page["ImageSize"].as_array().unwrap();
        assert!(size.iter().all(|side| side.as_u64().unwrap() > 0), "{page}");
        let (status, kind, bytes) = fetched(text(page, "PNGURLFromID")).await;
        assert_eq!(
            (status, kind.as_deref()),
            (200, Some("image/png")),
            "{page}"
        );
        let picture = image::load_from_memory(&bytes).unwrap();
        assert_eq!(
            [u64::from(picture.width()), u64::from(picture.height())],
            [size[0].as_u64().unwrap(), size[1].as_u64().unwrap()]
        );
        let (status, kind, _) = fetched(text(page, "ThumbNailURLFromID")).await;
        assert_eq!(
            (status, kind.as_deref()),
            (200, Some("image/jpeg")),
            "{page}"
        );
        large.push(bytes);
    }
    assert_eq!(detailed["ViewCount"], 3);
    assert_ne!(large[0], large[1]);
    assert_ne!(large[1], large[2]);
    // Page 1 is the record's own picture.
    assert_eq!(fetched(text(&plain, "PNGURLFromID")).await.2, large[0]);

    // lgFileNumber=2 gives page 2's images; a page past the last is a 400 that says the count.
    let second = record(&ann, &uid, "&lgFileNumber=2").await;
    assert_eq!(second["Page"], 2);
    assert_eq!(fetched(text(&second, "PNGURLFromID")).await.2, large[1]);
    let (_, kind, _) = fetched(text(&second, "ThumbNailURLFromID")).await;
    assert_eq!(kind.as_deref(), Some("image/jpeg"));
    let past = ann
        .get(&format!("/api/File?fileUID={uid}&lgFileNumber=4"))
        .await;
    past.expect(400);
    assert!(past.text().contains("has 3 pages"), "{}", past.text());
    ann.get(&format!("/api/File?fileUID={uid}&lgFileNumber=second"))
        .await
        .expect(400);
    // A page's link opens only that page.
    let page_two = text(&second, "PNGURLFromID").replace("page=2", "page=3");
    assert_eq!(fetched(&page_two).await.0, 401);

    // A search by page 3's own picture finds the drawing and says page 3, with its images.
    let input = ann.upload_search_input(".png", &large[2], false).await;
    let reply = ann.search(&format!("fileUID={input}")).await;
    reply.expect(200);
    let results = reply.json();
    assert_eq!(result_uids(&results).first(), Some(&uid), "{results}");
    let found = &results["ResultsList"][0];
    assert_eq!(found["Page"], 3, "{found}");
    assert_eq!(fetched(text(found, "PNGURLFromID")).await.2, large[2]);

    // PDFUrl serves the bytes uploaded, inline, with its own token and refuses without it.
    let pdf_url = text(&plain, "PDFUrl");
    let (status, kind, bytes) = fetched(pdf_url).await;
    assert_eq!((status, kind.as_deref()), (200, Some("application/pdf")));
    assert!(bytes == pdf, "the PDF served is the PDF uploaded");
    let reply = reqwest::get(pdf_url).await.unwrap();
    let disposition = reply.headers()["content-disposition"].to_str().unwrap();
    assert!(disposition.starts_with("inline"), "{disposition}");
    let (without_token, _) = pdf_url.split_once("&token=").unwrap();
    assert_eq!(fetched(without_token).await.0, 401);
    // An image's token does not open the PDF, nor the PDF's an image.
    let (_, image_token) = text(&plain, "PNGURLFromID").split_once("&token=").unwrap();
    assert_eq!(
        fetched(&format!("{without_token}&token={image_token}"))
            .await
            .0,
        401
    );
    // The images of pages 2 and 3 go with the file.
    let folder = service.config.data_dir.join("images/pages").join(&uid);
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 4);
    let admin = service.session("admin").await;
    admin
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(200);
    assert!(!folder.exists(), "{}", folder.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_without_pages_is_one_page_and_has_no_pdf_link() {
    let service = TestService::start().await;
    let admin = service.session("admin").await;
    // FileBinaryDirect reads both parameters: page 1 of a picture, listed with no pages.
    let reply = admin
        .put_binary(
            "/api/FileBinaryDirect?file=Parts/disc.png&isSearchInput=false&lgFileNumber=1&includeShapelets=true",
            png(Shape::Disc, 1),
        )
        .await;
    reply.expect(200);
    let map = reply.json();
    assert_eq!(map["Page"], 1, "{map}");
    assert_eq!(map["Pages"], serde_json::json!([]), "{map}");
    assert!(map["ViewCount"].as_u64().unwrap() >= 1, "{map}");
    assert_eq!(map["PDFUrl"], "", "{map}");
    let uid = text(&map, "UID").to_owned();
    let past = admin
        .get(&format!("/api/File?fileUID={uid}&lgFileNumber=2"))
        .await;
    past.expect(400);
    assert!(past.text().contains("has 1 page;"), "{}", past.text());
    // A value that is no page number is refused before anything is stored.
    admin
        .put_binary(
            "/api/FileBinaryDirect?file=Parts/other.png&isSearchInput=false&lgFileNumber=0",
            png(Shape::Disc, 2),
        )
        .await
        .expect(400);
    admin
        .get("/api/File?fileName=Parts/other.png")
        .await
        .expect(404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dxf_with_a_layout_is_model_space_then_the_layout_page_by_page() {
    // A real DXF of ezdxf's with a paper-space layout: page 1 is model space, page 2 the layout.
    let Some(dxf) = corpus_file("dxf/ezdxf__VP4.dxf") else {
        return;
    };
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let uid = ann.upload_database_file("Drawings/vp4.dxf", dxf, &[]).await;
    let detailed = record(&ann, &uid, "&includeShapelets=true").await;
    let pages = detailed["Pages"].as_array().unwrap();
    let names: Vec<&str> = pages.iter().map(|page| text(page, "Name")).collect();
    assert_eq!(names, ["Model", "Layout1"], "{detailed}");
    let first = fetched(text(&pages[0], "PNGURLFromID")).await;
    let second = fetched(text(&pages[1], "PNGURLFromID")).await;
    assert_eq!((first.0, second.0), (200, 200));
    assert_ne!(first.2, second.2, "each page its own picture");
    // lgFileNumber=2 gives the layout's picture; the PDF link is for PDFs only.
    let layout = record(&ann, &uid, "&lgFileNumber=2").await;
    assert_eq!(layout["Page"], 2, "{layout}");
    assert_eq!(fetched(text(&layout, "PNGURLFromID")).await.2, second.2);
    assert_eq!(layout["PDFUrl"], "", "{layout}");
}
