//! OCR of a cleaned raster page with the Tesseract program (Debian's `tesseract-ocr` 5.3 and
//! `tesseract-ocr-eng`; `PARTLENS_TESSERACT` names another program). The program, not a binding:
//! the default build needs nothing but cargo, and in the service the program runs as a child of
//! the reader worker, under the worker's memory and CPU limits.
//!
//! Tesseract reads the page as sparse text (`--psm 11`: drawings have words scattered over the sheet,
//! not paragraphs) and answers in TSV: each word with its box and confidence. Limits: the run is
//! killed after [`OCR_TIME_LIMIT`], at most [`MAX_TSV_BYTES`] of its answer are read and
//! [`MAX_WORDS`] words kept; words under [`MIN_CONFIDENCE`] are dropped.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use image::GrayImage;

use super::raster::ReadWord;

/// Longest a Tesseract run may take.
pub const OCR_TIME_LIMIT: Duration = Duration::from_secs(45);
/// Most bytes of Tesseract's answer read.
pub const MAX_TSV_BYTES: u64 = 16 * 1024 * 1024;
/// Most words kept from one page.
pub const MAX_WORDS: usize = 20_000;
/// Lowest confidence (0–100) of a word kept.
pub const MIN_CONFIDENCE: f32 = 30.0;

/// The words Tesseract reads on a cleaned page, or why it could not read them.
pub fn read_words(page: &GrayImage) -> Result<Vec<ReadWord>, String> {
    let mut png = Vec::new();
    page.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|error| format!("the page could not be encoded for OCR: {error}"))?;
    let program = std::env::var_os("PARTLENS_TESSERACT").unwrap_or_else(|| "tesseract".into());
    let mut child = Command::new(&program)
        .args(["stdin", "stdout", "-l", "eng", "--psm", "11", "tsv"])
        // One thread: the reader worker's CPU limit is shared, and the machine with it.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("the OCR program {program:?} could not start: {error}"))?;
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut answer = Vec::new();
        if let Some(stdout) = stdout {
            // Past the cap the rest is not read; the program is killed below if it keeps writing.
            let _ = stdout.take(MAX_TSV_BYTES).read_to_end(&mut answer);
        }
        answer
    });
    if let Some(mut stdin) = child.stdin.take() {
        // Tesseract reads the whole image before it writes a byte, so this cannot deadlock.
        let written = stdin.write_all(&png);
        drop(stdin);
        if let Err(error) = written {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the page could not be given to OCR: {error}"));
        }
    }
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= OCR_TIME_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "OCR took longer than {} s and was stopped",
                    OCR_TIME_LIMIT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(error) => return Err(format!("OCR could not be waited for: {error}")),
        }
    };
    let answer = reader
        .join()
        .map_err(|_| "the OCR answer could not be read".to_owned())?;
    if !status.success() {
        return Err(format!("the OCR program failed ({status})"));
    }
    Ok(parse_tsv(&String::from_utf8_lossy(&answer)))
}

/// The words of Tesseract's TSV answer (level 5 rows), confident ones only.
pub fn parse_tsv(tsv: &str) -> Vec<ReadWord> {
    tsv.lines()
        .skip(1)
        .filter_map(|row| {
            let fields: Vec<&str> = row.split('\t').collect();
            if fields.len() < 12 || fields[0] != "5" {
                return None;
            }
            let number = |i: usize| fields[i].trim().parse::<i64>().ok();
            let confidence: f32 = fields[10].trim().parse().ok()?;
            let text = fields[11].trim();
            if text.is_empty() || confidence < MIN_CONFIDENCE {
                return None;
            }
            let (left, top, width, height) = (number(6)?, number(7)?, number(8)?, number(9)?);
            let line = |i: usize| fields[i].trim().parse::<u32>().ok();
            Some(ReadWord {
                text: text.to_owned(),
                box_in_page: [left, top, left + width.max(1), top + height.max(1)],
                confidence,
                line: (line(2)?, line(3)?, line(4)?),
            })
        })
        .take(MAX_WORDS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_rows_become_confident_words() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
            1\t1\t0\t0\t0\t0\t0\t0\t2000\t1000\t-1\t\n\
            5\t1\t2\t1\t1\t1\t10\t20\t30\t12\t91.5\tPART\n\
            5\t1\t2\t1\t1\t2\t45\t20\t40\t12\t12.0\t~%\n\
            5\t1\t2\t1\t1\t3\t90\t20\t40\t12\t88\tPL-1003\n";
        let words = parse_tsv(tsv);
        assert_eq!(words.len(), 2);
        assert_eq!(words[0].text, "PART");
        assert_eq!(words[0].box_in_page, [10, 20, 40, 32]);
        assert_eq!(words[1].line, (2, 1, 1));
    }
}
