//! The body of `PUT /api/Search` read as it streams: a JSON string whose content is a JSON array of
//! base64 strings (`"[\"iVBORw0…\",\"/9j/4AAQ…\"]"`), decoded byte by byte into the files it holds.
//!
//! Nothing is held whole: the outer string is unescaped as it arrives, the inner array is followed by
//! a small state machine, and each inner string is handed to the same base64 decoder as the body of
//! `PUT /api/File` ([`Base64JsonStringDecoder`]), whose bytes the caller writes to a temporary file.
//! A body of 190 MB used to cost the service ~590 MB while it was parsed; now it costs the buffers.
//! More than the allowed number of files ([`FileAllowance`]) is refused at the opening quote of the
//! first one too many,
//! a file under the minimum upload size (`partlens_api::limits::MIN_UPLOAD_SIZE` base64 characters,
//! measured as for `PUT /api/File`) at its closing quote, saying which file it is: nothing of the call is stored.

use super::body::Base64JsonStringDecoder;

/// How many files a body may hold, and the sentence that refuses one more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileAllowance {
    /// At most this many files.
    pub max_files: usize,
    /// What a client is told when the body holds more.
    pub refusal: String,
}

impl FileAllowance {
    /// At most `max_files` files, the number one search takes.
    pub fn per_search(max_files: usize) -> Self {
        Self {
            max_files,
            refusal: format!(
                "more than {max_files} files were sent; one search takes at most {max_files}"
            ),
        }
    }
}

/// What the decoder found in a piece of the body.
#[derive(Debug, PartialEq, Eq)]
pub enum SearchBodyEvent {
    /// A new file begins; its bytes follow.
    FileStarted,
    /// Decoded bytes of the current file.
    Bytes(Vec<u8>),
    /// The current file is complete.
    FileEnded,
}

/// Where the decoder is in the outer JSON string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outer {
    BeforeString,
    InString,
    Escape,
    Unicode(u8, u32),
    AfterString,
}

/// Where the decoder is in the inner JSON array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inner {
    BeforeArray,
    /// After `[` (`first`) or after `,`.
    BeforeItem {
        first: bool,
    },
    /// Inside an item string; `escape` right after a backslash.
    InItem {
        escape: bool,
    },
    AfterItem,
    AfterArray,
}

/// Decodes the body of `PUT /api/Search` piece by piece.
#[derive(Debug)]
pub struct SearchBodyDecoder {
    outer: Outer,
    inner: Inner,
    current: Option<Base64JsonStringDecoder>,
    /// Characters of the current item not yet handed to its decoder.
    item_text: Vec<u8>,
    files: usize,
    allowance: FileAllowance,
    min_characters: u64,
}

fn is_json_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

impl SearchBodyDecoder {
    /// A decoder that accepts the files `allowance` allows, each of at least `min_characters` base64
    /// characters.
    pub fn new(allowance: FileAllowance, min_characters: u64) -> Self {
        Self {
            outer: Outer::BeforeString,
            inner: Inner::BeforeArray,
            current: None,
            item_text: Vec::new(),
            files: 0,
            allowance,
            min_characters,
        }
    }

    /// Decodes the next piece of the body; the events are in body order.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SearchBodyEvent>, String> {
        let mut events = Vec::new();
        for &byte in chunk {
            let inner_char = match (self.outer, byte) {
                (Outer::BeforeString, byte) if is_json_space(byte) => None,
                (Outer::BeforeString, b'"') => {
                    self.outer = Outer::InString;
                    None
                }
                (Outer::BeforeString, _) => {
                    return Err(
                        "the body must be a JSON string holding a JSON array of base64 \
                                files"
                            .into(),
                    );
                }
                (Outer::InString, b'"') => {
                    self.outer = Outer::AfterString;
                    None
                }
                (Outer::InString, b'\\') => {
                    self.outer = Outer::Escape;
                    None
                }
                (Outer::InString, byte) => Some(byte),
                (Outer::Escape, escaped) => {
                    self.outer = Outer::InString;
                    match escaped {
                        b'"' | b'\\' | b'/' => Some(escaped),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => {
                            self.outer = Outer::Unicode(0, 0);
                            None
                        }
                        other => {
                            return Err(format!(
                                "the body holds the unknown escape \\{}",
                                char::from(other)
                            ));
                        }
                    }
                }
                (Outer::Unicode(count, value), digit) => {
                    let digit = char::from(digit)
                        .to_digit(16)
                        .ok_or("a \\u escape of the body is not hexadecimal")?;
                    let value = value * 16 + digit;
                    if count == 3 {
                        self.outer = Outer::InString;
                        Some(
                            u8::try_from(value)
                                .ok()
                                .filter(u8::is_ascii)
                                .ok_or("the body holds a character that is not base64")?,
                        )
                    } else {
                        self.outer = Outer::Unicode(count + 1, value);
                        None
                    }
                }
                (Outer::AfterString, byte) if is_json_space(byte) => None,
                (Outer::AfterString, _) => {
                    return Err("the body goes on after its JSON string".into());
                }
            };
            if let Some(character) = inner_char {
                self.inner_char(character, &mut events)?;
            }
        }
        self.hand_over(&mut events)?;
        Ok(events)
    }

    fn inner_char(
        &mut self,
        character: u8,
        events: &mut Vec<SearchBodyEvent>,
    ) -> Result<(), String> {
        self.inner = match (self.inner, character) {
            (state, character)
                if is_json_space(character) && !matches!(state, Inner::InItem { .. }) =>
            {
                state
            }
            (Inner::BeforeArray, b'[') => Inner::BeforeItem { first: true },
            (Inner::BeforeArray, _) => {
                return Err("the JSON string must hold a JSON array of base64 files".into());
            }
            (Inner::BeforeItem { .. }, b'"') => {
                self.files += 1;
                if self.files > self.allowance.max_files {
                    return Err(self.allowance.refusal.clone());
                }
                let mut decoder = Base64JsonStringDecoder::default();
                decoder.feed(b"\"", &mut Vec::new())?;
                self.current = Some(decoder);
                events.push(SearchBodyEvent::FileStarted);
                Inner::InItem { escape: false }
            }
            (Inner::BeforeItem { first: true }, b']') => Inner::AfterArray,
            (Inner::BeforeItem { .. }, _) => {
                return Err("the array must hold base64 strings".into());
            }
            (Inner::InItem { escape: true }, character) => {
                self.item_text.push(character);
                Inner::InItem { escape: false }
            }
            (Inner::InItem { escape: false }, b'\\') => {
                self.item_text.push(b'\\');
                Inner::InItem { escape: true }
            }
            (Inner::InItem { escape: false }, b'"') => {
                self.item_text.push(b'"');
                self.hand_over(events)?;
                let decoder = self.current.take().ok_or("a file ended that never began")?;
                let mut bytes = Vec::new();
                let characters = decoder.finish(&mut bytes)?;
                if characters < self.min_characters {
                    return Err(format!(
                        "file {} of the body is {characters} base64 characters; every file must be \
                         at least {} (the minimum upload size, measured as for PUT /api/File)",
                        self.files, self.min_characters
                    ));
                }
                if !bytes.is_empty() {
                    events.push(SearchBodyEvent::Bytes(bytes));
                }
                events.push(SearchBodyEvent::FileEnded);
                Inner::AfterItem
            }
            (Inner::InItem { escape: false }, character) => {
                self.item_text.push(character);
                Inner::InItem { escape: false }
            }
            (Inner::AfterItem, b',') => Inner::BeforeItem { first: false },
            (Inner::AfterItem, b']') => Inner::AfterArray,
            (Inner::AfterItem | Inner::AfterArray, _) => {
                return Err("the JSON array of files is malformed".into());
            }
        };
        Ok(())
    }

    /// Gives the collected characters of the current item to its decoder.
    fn hand_over(&mut self, events: &mut Vec<SearchBodyEvent>) -> Result<(), String> {
        if self.item_text.is_empty() {
            return Ok(());
        }
        let decoder = self
            .current
            .as_mut()
            .ok_or("the body holds text outside a file")?;
        let mut bytes = Vec::new();
        decoder.feed(&self.item_text, &mut bytes)?;
        self.item_text.clear();
        if !bytes.is_empty() {
            events.push(SearchBodyEvent::Bytes(bytes));
        }
        Ok(())
    }

    /// Ends the body: it must have been one whole JSON string holding one whole array. Returns how
    /// many files it held.
    pub fn finish(self) -> Result<usize, String> {
        match (self.outer, self.inner) {
            (Outer::AfterString, Inner::AfterArray) => Ok(self.files),
            (Outer::BeforeString, _) => {
                Err("the body is empty: send a JSON string holding an array of base64 files".into())
            }
            _ => Err("the body ends before its JSON array of files does".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_api::encoding::{double_encoded_strings, search_files_body};

    /// Decodes a whole body fed in pieces of `chunk` bytes into its files.
    fn files_of(body: &[u8], chunk: usize, max: usize) -> Result<Vec<Vec<u8>>, String> {
        let mut decoder = SearchBodyDecoder::new(FileAllowance::per_search(max), 0);
        let mut files: Vec<Vec<u8>> = Vec::new();
        for piece in body.chunks(chunk.max(1)) {
            for event in decoder.feed(piece)? {
                match event {
                    SearchBodyEvent::FileStarted => files.push(Vec::new()),
                    SearchBodyEvent::Bytes(bytes) => {
                        files.last_mut().ok_or("bytes before a file")?.extend(bytes)
                    }
                    SearchBodyEvent::FileEnded => {}
                }
            }
        }
        let count = decoder.finish()?;
        assert_eq!(count, files.len());
        Ok(files)
    }

    #[test]
    fn decodes_what_the_client_sends_whatever_the_pieces() {
        let first: Vec<u8> = (0..70_000u32).map(|i| (i * 13 % 251) as u8).collect();
        let second = b"\xff\xfe tiny".to_vec();
        let body = search_files_body(&[first.clone(), second.clone()]);
        for chunk in [1, 2, 3, 7, 4096, body.len()] {
            assert_eq!(
                files_of(body.as_bytes(), chunk, 10).unwrap(),
                vec![first.clone(), second.clone()],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn escapes_and_spaces_of_both_levels_are_understood() {
        // `/` escaped in the inner string (`\/`, sent as `\\/`), a \u escape in the outer one,
        // spaces around everything.
        let body = br#" "[ \"\\/w==\" , \"QUJ\u0044\" ] " "#;
        assert_eq!(
            files_of(body, 1, 10).unwrap(),
            vec![vec![0xff], b"ABC".to_vec()]
        );
        assert!(files_of(br#""[]""#, 1, 10).unwrap().is_empty());
    }

    #[test]
    fn a_file_under_the_minimum_size_is_refused_by_its_number() {
        let big = vec![7u8; 900];
        let body = search_files_body(&[big.clone(), b"small".to_vec(), big]);
        let mut decoder = SearchBodyDecoder::new(FileAllowance::per_search(10), 1024);
        let refused = decoder.feed(body.as_bytes()).unwrap_err();
        assert!(
            refused.starts_with("file 2 of the body is 8 base64"),
            "{refused}"
        );
    }

    #[test]
    fn too_many_files_and_malformed_bodies_are_refused() {
        let eleven: Vec<String> = (0..11).map(|_| "AAAA".to_owned()).collect();
        let refused = files_of(double_encoded_strings(&eleven).as_bytes(), 5, 10).unwrap_err();
        assert!(refused.contains("at most 10"), "{refused}");
        for body in [
            &b"[\"AAAA\"]"[..],
            b"\"AAAA\"",
            b"\"[\\\"AA!A\\\"]\"",
            b"\"[\\\"AAAA\\\"\"",
            b"\"[\\\"AAAA\\\"] x\"",
            b"\"[\\\"AAAA\\\"]\" x",
            b"\"[1]\"",
            b"",
        ] {
            assert!(
                files_of(body, 3, 10).is_err(),
                "{:?}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
