//! The task layer's integration tests, one binary: the client's requests as they cross the wire,
//! checked by a strict server on 127.0.0.1:0.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod wire;
