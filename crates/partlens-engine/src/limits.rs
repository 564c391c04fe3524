//! What one analysis may produce and decode: text, PMI items and image pixels, with the budget that
//! counts text and items while a reader produces them.
//!
//! A small file can expand enormously: a 21 KB PDF whose 100 pages share one compressed 2 MB text
//! run, or a 10 KB DXF whose nested blocks repeat one MTEXT, gave hundreds of megabytes of text, PMI
//! and search text for one record. Readers therefore count what they produce as they produce it and
//! stop at the first character past the cap (the analysis fails: 422 with the reason), instead of
//! building everything and measuring it afterwards. Images are refused by their header's pixel count
//! before any pixel is decoded.
//!
//! A drawing's pages are pictured within one budget for the whole file
//! ([`ExtractionLimits::max_pictured_pixels`], counted by [`PictureBudget`]): rendering, describing
//! and encoding a page costs in proportion to its pixels, so a 100-page PDF must not cost a hundred
//! pages' pictures unchecked. Pages past the budget keep their text and PMI, without a picture.

/// The caps of one analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtractionLimits {
    /// Most bytes (UTF-8) of text one file may yield: every text a drawing places, visible or not.
    pub max_text_bytes: usize,
    /// Most PMI items (placed texts) one file may yield, over all its pages.
    pub max_pmi_items: usize,
    /// Most pixels (width × height, from the header) of an image that is decoded.
    pub max_image_pixels: u64,
    /// Most pixels of page pictures one drawing renders or decodes, over all its pages (page 1 is
    /// always pictured; later pages only while their pixels fit in what is left).
    pub max_pictured_pixels: u64,
}

/// Default [`ExtractionLimits::max_text_bytes`]: 1 MiB, some hundred pages of dense drawing notes.
pub const DEFAULT_MAX_TEXT_BYTES: usize = 1024 * 1024;
/// Default [`ExtractionLimits::max_pmi_items`].
pub const DEFAULT_MAX_PMI_ITEMS: usize = 20_000;
/// Default [`ExtractionLimits::max_image_pixels`]: 40 megapixels (a 7,750 × 5,160 photo). Decoding
/// and describing an image costs about 10 bytes a pixel at its peak, so one analysis stays under
/// ~400 MB and the analyses running at once (one a core) under that times the cores.
pub const DEFAULT_MAX_IMAGE_PIXELS: u64 = 40_000_000;
/// Default [`ExtractionLimits::max_pictured_pixels`]: 40 megapixels of page pictures a file, about
/// 54 pages of A-size sheets rendered at 1024 × 724 (or four 300 dpi A4 scans decoded). Reading and
/// picturing a real drawing's page took about 65 ms (docs/PERFORMANCE.md, "Drawings page by
/// page"), so a file's pictures take a few seconds, well inside the reader's 60 s.
pub const DEFAULT_MAX_PICTURED_PIXELS: u64 = 40_000_000;

impl Default for ExtractionLimits {
    fn default() -> Self {
        Self {
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
            max_pmi_items: DEFAULT_MAX_PMI_ITEMS,
            max_image_pixels: DEFAULT_MAX_IMAGE_PIXELS,
            max_pictured_pixels: DEFAULT_MAX_PICTURED_PIXELS,
        }
    }
}

/// A cap of [`ExtractionLimits`] was passed; the words say which.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OverLimit(pub String);

/// Counts the text and items a reader produces for one file.
#[derive(Clone, Debug)]
pub struct TextBudget {
    limits: ExtractionLimits,
    text_bytes: usize,
    items: usize,
}

impl TextBudget {
    /// A fresh budget under `limits`.
    pub fn new(limits: &ExtractionLimits) -> Self {
        Self {
            limits: *limits,
            text_bytes: 0,
            items: 0,
        }
    }

    /// Counts `text` as produced; past the text cap it is an error.
    pub fn take_text(&mut self, text: &str) -> Result<(), OverLimit> {
        self.text_bytes = self.text_bytes.saturating_add(text.len());
        if self.text_bytes > self.limits.max_text_bytes {
            return Err(OverLimit(format!(
                "it holds more than {} bytes of text (the limit of one file)",
                self.limits.max_text_bytes
            )));
        }
        Ok(())
    }

    /// Counts one new item with its text; past either cap it is an error.
    pub fn take_item(&mut self, text: &str) -> Result<(), OverLimit> {
        self.items += 1;
        if self.items > self.limits.max_pmi_items {
            return Err(OverLimit(format!(
                "it holds more than {} texts (the PMI item limit of one file)",
                self.limits.max_pmi_items
            )));
        }
        self.take_text(text)
    }
}

/// Counts the pixels of the page pictures one drawing makes, against
/// [`ExtractionLimits::max_pictured_pixels`].
#[derive(Clone, Debug)]
pub struct PictureBudget {
    left: u64,
    pictured: usize,
}

impl PictureBudget {
    /// A fresh budget under `limits`.
    pub fn new(limits: &ExtractionLimits) -> Self {
        Self {
            left: limits.max_pictured_pixels,
            pictured: 0,
        }
    }

    /// Whether a page picture of `pixels` may be made, and if so counts it: the first picture
    /// always may (a drawing always has page 1 pictured), a later one while it fits in what is left.
    pub fn take(&mut self, pixels: u64) -> bool {
        if self.pictured > 0 && pixels > self.left {
            return false;
        }
        self.left = self.left.saturating_sub(pixels);
        self.pictured += 1;
        true
    }
}

/// Refuses an image whose header claims more pixels than the cap.
pub fn check_pixels(width: u32, height: u32, limits: &ExtractionLimits) -> Result<(), OverLimit> {
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_image_pixels {
        return Err(OverLimit(format!(
            "the image is {width} × {height} = {pixels} pixels; at most {} are analysed",
            limits.max_image_pixels
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_items_are_counted_up_to_their_caps() {
        let limits = ExtractionLimits {
            max_text_bytes: 10,
            max_pmi_items: 2,
            max_image_pixels: 100,
            max_pictured_pixels: 1_000,
        };
        let mut budget = TextBudget::new(&limits);
        budget.take_item("abcd").unwrap();
        budget.take_text("efgh").unwrap();
        assert!(budget.take_item("ijk").unwrap_err().0.contains("10 bytes"));
        let mut budget = TextBudget::new(&limits);
        budget.take_item("a").unwrap();
        budget.take_item("b").unwrap();
        assert!(budget.take_item("c").unwrap_err().0.contains("2 texts"));
        assert!(check_pixels(10, 10, &limits).is_ok());
        assert!(check_pixels(11, 10, &limits).is_err());
    }

    #[test]
    fn the_first_picture_is_always_made_and_later_ones_while_they_fit() {
        let limits = ExtractionLimits {
            max_pictured_pixels: 1_000,
            ..ExtractionLimits::default()
        };
        let mut budget = PictureBudget::new(&limits);
        assert!(budget.take(1_500));
        assert!(!budget.take(1));
        let mut budget = PictureBudget::new(&limits);
        assert!(budget.take(600));
        assert!(!budget.take(500));
        assert!(budget.take(400));
        assert!(!budget.take(1));
    }
}
