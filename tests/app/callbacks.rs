//! Settings → Callbacks in the desktop app, driven with egui_kittest against a service on
//! 127.0.0.1 that allows private callbacks: an admin saves the URL of a receiver on loopback
//! (the secret the service makes is shown once), sends a test, the receiver gets a call signed
//! with that secret, and the deliveries table shows it; a user who is no admin sees one line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as app_support;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use app_support::*;
use base64::Engine as _;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use hmac::{KeyInit as _, Mac as _};
use partlens::ui::callbacks_card::ADMINS_ONLY;

/// One call a receiver got: its `webhook-*` headers and body.
#[derive(Clone, Debug, Default)]
struct Call {
    id: String,
    timestamp: String,
    signature: String,
    body: String,
}

/// A receiver on 127.0.0.1 answering every call 204, in a thread; the calls it got.
fn receiver() -> (String, Arc<Mutex<Vec<Call>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let calls: Arc<Mutex<Vec<Call>>> = Arc::default();
    let got = calls.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut call, mut length) = (Call::default(), 0);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                let Some((name, value)) = line.split_once(':') else {
                    continue;
                };
                let value = value.trim().to_owned();
                match name.trim().to_ascii_lowercase().as_str() {
                    "webhook-id" => call.id = value,
                    "webhook-timestamp" => call.timestamp = value,
                    "webhook-signature" => call.signature = value,
                    "content-length" => length = value.parse().unwrap_or(0),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            call.body = String::from_utf8(body).unwrap();
            got.lock().unwrap().push(call);
            let _ = stream.write_all(
                b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    (url, calls)
}

/// True when the call is signed with `secret` as Standard Webhooks sign: HMAC-SHA256 of
/// `{id}.{timestamp}.{body}` keyed by the base64 after `whsec_`.
fn signed_with(secret: &str, call: &Call) -> bool {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{}.{}.{}", call.id, call.timestamp, call.body).as_bytes());
    let expected = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    call.signature == format!("v1,{expected}")
}

/// Opens Settings.
fn open_settings(harness: &mut egui_kittest::Harness<'_, partlens::ui::App>) {
    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    harness.step();
}

#[test]
fn an_admin_saves_a_callback_tests_it_and_sees_the_delivery_and_others_see_one_line() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service = company_service_with(&runtime, &dir.path().join("service"), |config| {
        config.callbacks.allow_private = true;
    });
    let (url, calls) = receiver();

    let mut harness = app_on(
        &runtime,
        &dir.path().join("app"),
        &service,
        "boss",
        "boss password",
    );
    open_settings(&mut harness);
    step_until_label(&mut harness, "Callback URL");
    harness.get_by_label("Callback URL").scroll_to_me();
    harness.get_by_label("Callback URL").focus();
    harness.step();
    harness.get_by_label("Callback URL").type_text(&url);
    harness.step();
    click(&mut harness, "Save");
    step_until_label_contains(&mut harness, "whsec_");
    let shown = harness
        .query_all_by_label_contains("whsec_")
        .next()
        .unwrap();
    let secret = shown
        .accesskit_node()
        .label()
        .map(|label| label.to_string())
        .or_else(|| shown.value())
        .unwrap()
        .trim()
        .to_owned();
    click(&mut harness, "Send a test");
    step_until_label_contains(&mut harness, "the test was delivered");
    let call = calls.lock().unwrap().last().cloned().unwrap();
    assert!(call.body.contains("callback.test"), "{call:?}");
    assert!(signed_with(&secret, &call), "{call:?}");
    // The deliveries table lists the test, delivered, after one attempt.
    step_until_label(&mut harness, "callback.test");
    harness.get_by_label("delivered");
    close_app(&runtime, harness);

    let mut harness = app_as_alice(&runtime, &dir.path().join("app-alice"), &service);
    open_settings(&mut harness);
    step_until_label(&mut harness, ADMINS_ONLY);
    assert!(harness.query_by_label("Callback URL").is_none());
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}
