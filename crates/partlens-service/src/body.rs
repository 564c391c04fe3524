//! Receiving request bodies within the size limit: the declared `Content-Length` is checked first,
//! then bytes are counted as they arrive, so an oversized body gets 413 without being read whole.
//!
//! Upload bodies stream to a temporary file. The base64 body of `PUT /api/File` (a JSON string) is
//! decoded while it streams, so neither the text nor the bytes are ever held whole in memory.
//!
//! A body whose next piece does not come within the connection limits' body read timeout ends with
//! [`BodyTimedOut`] (put there by the connection layer); it is answered 408.

use std::path::{Path, PathBuf};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};
use base64::Engine as _;
use futures_util::StreamExt as _;
use tokio::io::AsyncWriteExt as _;

use super::disk::{create_private_file_async, move_into_place};
use super::error::ServiceError;
use partlens_api::encoding::BASE64;

/// A file under `tmp/` that is removed when dropped, unless it was kept.
#[derive(Debug)]
pub struct TempFile {
    path: Option<PathBuf>,
}

impl TempFile {
    /// Takes charge of `path`.
    pub fn new(path: PathBuf) -> Self {
        Self { path: Some(path) }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        self.path.as_deref().unwrap_or(Path::new(""))
    }

    /// Moves it to `destination` (same file system; the folder is made again if it went missing);
    /// it is then no longer removed on drop.
    pub fn persist(mut self, destination: &Path) -> std::io::Result<()> {
        if let Some(path) = self.path.take()
            && let Err(error) = move_into_place(&path, destination)
        {
            self.path = Some(path);
            return Err(error);
        }
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// How the bytes of an upload body are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyEncoding {
    /// The raw file bytes (`PUT /api/FileBinary`, `PUT /api/FileBinaryDirect`).
    Raw,
    /// A JSON string holding the base64 of the bytes (`PUT /api/File`).
    Base64JsonString,
}

/// An upload body received into a temporary file.
#[derive(Debug)]
pub struct ReceivedUpload {
    /// The decoded bytes.
    pub file: TempFile,
    /// Decoded size in bytes.
    pub size: u64,
    /// What the minimum upload size is measured on: bytes for raw bodies, base64 characters for the
    /// JSON-string body.
    pub measured_size: u64,
}

/// Refuses a body whose declared length is over the limit (413) before reading any of it.
pub fn check_declared_length(headers: &HeaderMap, limit: u64) -> Result<(), ServiceError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    match declared {
        Some(length) if length > limit => Err(ServiceError::PayloadTooLarge { limit }),
        _ => Ok(()),
    }
}

/// A request body stalled: its next piece did not arrive within the body read timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the request body stalled for longer than the body read timeout")]
pub struct BodyTimedOut;

/// What a failure to read a body is answered with: 408 when it stalled, else 400.
pub fn unreadable(error: axum::Error) -> ServiceError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(current) = cause {
        if current.is::<BodyTimedOut>() {
            return ServiceError::RequestTimeout;
        }
        cause = current.source();
    }
    ServiceError::BadRequest(format!("the request body could not be read: {error}"))
}

/// Reads a whole body into memory, refusing more than `limit` bytes (413).
pub async fn read_limited(
    body: Body,
    headers: &HeaderMap,
    limit: u64,
) -> Result<Bytes, ServiceError> {
    check_declared_length(headers, limit)?;
    let mut stream = body.into_data_stream();
    let mut collected = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(unreadable)?;
        if (collected.len() + chunk.len()) as u64 > limit {
            return Err(ServiceError::PayloadTooLarge { limit });
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(collected))
}

/// Streams an upload body into `destination` (a fresh temporary path), decoding it as it arrives,
/// refusing more than `limit` body bytes (413) and undecodable content (400).
pub async fn receive_upload(
    body: Body,
    headers: &HeaderMap,
    limit: u64,
    encoding: BodyEncoding,
    destination: PathBuf,
) -> Result<ReceivedUpload, ServiceError> {
    check_declared_length(headers, limit)?;
    let temp = TempFile::new(destination);
    let mut file = tokio::io::BufWriter::new(create_private_file_async(temp.path()).await?);
    let mut decoder = match encoding {
        BodyEncoding::Raw => None,
        BodyEncoding::Base64JsonString => Some(Base64JsonStringDecoder::default()),
    };
    let mut stream = body.into_data_stream();
    let (mut received, mut size) = (0u64, 0u64);
    let mut decoded = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(unreadable)?;
        received += chunk.len() as u64;
        if received > limit {
            return Err(ServiceError::PayloadTooLarge { limit });
        }
        match decoder.as_mut() {
            None => {
                file.write_all(&chunk).await?;
                size += chunk.len() as u64;
            }
            Some(decoder) => {
                decoded.clear();
                decoder
                    .feed(&chunk, &mut decoded)
                    .map_err(ServiceError::BadRequest)?;
                file.write_all(&decoded).await?;
                size += decoded.len() as u64;
            }
        }
    }
    let measured_size = match decoder {
        None => size,
        Some(decoder) => {
            decoded.clear();
            let characters = decoder
                .finish(&mut decoded)
                .map_err(ServiceError::BadRequest)?;
            file.write_all(&decoded).await?;
            size += decoded.len() as u64;
            characters
        }
    };
    file.flush().await?;
    file.into_inner().sync_all().await?;
    Ok(ReceivedUpload {
        file: temp,
        size,
        measured_size,
    })
}

/// Where the decoder is inside the JSON string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Position {
    /// Before the opening quote (only whitespace allowed).
    #[default]
    BeforeString,
    /// Inside the string.
    InString,
    /// Right after a backslash.
    Escape,
    /// Inside `\uXXXX`: digits read so far and their value.
    Unicode(u8, u32),
    /// After the closing quote (only whitespace allowed).
    AfterString,
}

/// Decodes a JSON string holding base64 (`"iVBORw0…"`) chunk by chunk. JSON escapes that can appear
/// in base64 text (`\/`, `\n`, `\uXXXX`) are understood; whitespace is skipped.
#[derive(Debug, Default)]
pub struct Base64JsonStringDecoder {
    position: Position,
    /// Base64 characters not yet decoded (fewer than a block, or a block awaiting the next chunk).
    pending: Vec<u8>,
    /// Base64 characters seen (what the minimum upload size measures).
    characters: u64,
    /// Padding was seen: no more data may follow.
    padded: bool,
}

/// Base64 characters decoded at once.
const DECODE_BLOCK: usize = 64 * 1024;

impl Base64JsonStringDecoder {
    fn take_character(&mut self, character: u8) -> Result<(), String> {
        match character {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' if !self.padded => {
                self.pending.push(character);
                self.characters += 1;
                Ok(())
            }
            b'=' => {
                self.padded = true;
                self.pending.push(character);
                self.characters += 1;
                Ok(())
            }
            b' ' | b'\t' | b'\r' | b'\n' => Ok(()),
            _ if self.padded => Err("the base64 text goes on after its padding".into()),
            other => Err(format!(
                "the body is not base64: found {:?}",
                char::from(other)
            )),
        }
    }

    fn decode_pending(&mut self, output: &mut Vec<u8>, all: bool) -> Result<(), String> {
        let usable = if all {
            self.pending.len()
        } else {
            self.pending.len() / 4 * 4
        };
        if usable == 0 || (!all && usable < DECODE_BLOCK) {
            return Ok(());
        }
        let block: Vec<u8> = self.pending.drain(..usable).collect();
        BASE64
            .decode_vec(&block, output)
            .map_err(|error| format!("the body is not valid base64: {error}"))
    }

    /// Decodes the next chunk of the body, appending bytes to `output`.
    pub fn feed(&mut self, chunk: &[u8], output: &mut Vec<u8>) -> Result<(), String> {
        for &byte in chunk {
            self.position = match (self.position, byte) {
                (Position::BeforeString, b' ' | b'\t' | b'\r' | b'\n') => Position::BeforeString,
                (Position::BeforeString, b'"') => Position::InString,
                (Position::BeforeString, _) => {
                    return Err(
                        "the body must be a JSON string holding the base64 of the file; raw bytes \
                         go to PUT /api/FileBinary"
                            .into(),
                    );
                }
                (Position::InString, b'"') => Position::AfterString,
                (Position::InString, b'\\') => Position::Escape,
                (Position::InString, character) => {
                    self.take_character(character)?;
                    Position::InString
                }
                (Position::Escape, b'/') => {
                    self.take_character(b'/')?;
                    Position::InString
                }
                (Position::Escape, b'n' | b'r' | b't') => Position::InString,
                (Position::Escape, b'u') => Position::Unicode(0, 0),
                (Position::Escape, other) => {
                    return Err(format!(
                        "the body is not base64: found the escape \\{}",
                        char::from(other)
                    ));
                }
                (Position::Unicode(count, value), digit) => {
                    let digit = char::from(digit)
                        .to_digit(16)
                        .ok_or("a \\u escape of the body is not hexadecimal")?;
                    let value = value * 16 + digit;
                    if count == 3 {
                        let character = u8::try_from(value)
                            .map_err(|_| "the body is not base64: found a non-ASCII character")?;
                        self.take_character(character)?;
                        Position::InString
                    } else {
                        Position::Unicode(count + 1, value)
                    }
                }
                (Position::AfterString, b' ' | b'\t' | b'\r' | b'\n') => Position::AfterString,
                (Position::AfterString, _) => {
                    return Err("the body goes on after its JSON string".into());
                }
            };
        }
        self.decode_pending(output, false)
    }

    /// Ends the body: decodes what is left and returns the number of base64 characters seen.
    pub fn finish(mut self, output: &mut Vec<u8>) -> Result<u64, String> {
        match self.position {
            Position::AfterString => {}
            Position::BeforeString => {
                return Err("the body is empty: send a JSON string of base64".into());
            }
            _ => return Err("the body ends inside its JSON string".into()),
        }
        self.decode_pending(output, true)?;
        Ok(self.characters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_api::encoding::{base64_encode, base64_file_body};

    fn decode_in_chunks(body: &[u8], chunk: usize) -> Result<(Vec<u8>, u64), String> {
        let mut decoder = Base64JsonStringDecoder::default();
        let mut output = Vec::new();
        for part in body.chunks(chunk) {
            decoder.feed(part, &mut output)?;
        }
        let characters = decoder.finish(&mut output)?;
        Ok((output, characters))
    }

    #[test]
    fn decodes_the_same_whatever_the_chunking() {
        let content: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 256) as u8).collect();
        let body = base64_file_body(&content);
        for chunk in [1, 3, 1000, 65_537, body.len()] {
            let (decoded, characters) = decode_in_chunks(body.as_bytes(), chunk).unwrap();
            assert_eq!(decoded, content, "chunk {chunk}");
            assert_eq!(characters, base64_encode(&content).len() as u64);
        }
    }

    #[test]
    fn json_escapes_and_whitespace_are_understood() {
        let body = b" \"/w==\" ";
        assert_eq!(decode_in_chunks(body, 2).unwrap().0, vec![0xff]);
        let escaped = b"\"\\/w\\u003d\\u003D\\n\"";
        assert_eq!(decode_in_chunks(escaped, 1).unwrap(), (vec![0xff], 4));
        assert_eq!(decode_in_chunks(b"\"/w\"", 1).unwrap().0, vec![0xff]);
    }

    #[test]
    fn what_is_not_a_json_string_of_base64_is_refused() {
        assert!(
            decode_in_chunks(b"\x89PNG\r\n\x1a\n", 4)
                .unwrap_err()
                .contains("FileBinary")
        );
        assert!(decode_in_chunks(b"[\"AAAA\"]", 4).is_err());
        assert!(decode_in_chunks(b"\"AA!A\"", 4).is_err());
        assert!(decode_in_chunks(b"\"AAAA", 4).is_err());
        assert!(decode_in_chunks(b"\"AA==AA\"", 4).is_err());
        assert!(decode_in_chunks(b"\"AAAA\" x", 4).is_err());
        assert!(decode_in_chunks(b"", 4).is_err());
    }
}
