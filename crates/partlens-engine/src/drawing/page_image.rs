//! A scanned PDF page's picture decoded: the image XObject the PDF reader kept for a page
//! ([`PageImage`]), as a picture the raster reader can read (`raster.rs`, OCR with the `ocr`
//! feature).
//!
//! Decoded: JPEG (`DCTDecode`), and raw samples (no filter or Flate) of 8 bits in grey or RGB or
//! of 1 bit in grey (a black-and-white scan). Not decoded, with a reason that names the format:
//! CCITT fax, JBIG2, JPEG 2000, other colour spaces and bit depths. The pixel limit of the
//! extraction limits is checked on the stated size before a byte is decoded.

use image::{DynamicImage, GrayImage, ImageFormat, RgbImage};

use super::pdf_scene::PageImage;
use crate::limits::{ExtractionLimits, check_pixels};

/// Share of the page the picture must cover for the page to be taken for a scan.
pub const MIN_SCAN_COVERAGE: f64 = 0.5;

/// The picture of a page image, or why it could not be decoded.
pub fn decode(image: &PageImage, limits: &ExtractionLimits) -> Result<DynamicImage, String> {
    check_pixels(image.width, image.height, limits).map_err(|over| over.0)?;
    let (width, height) = (image.width, image.height);
    let pixels = width as usize * height as usize;
    match (
        image.filter.as_str(),
        image.components,
        image.bits_per_component,
    ) {
        ("DCTDecode", ..) => image::load_from_memory_with_format(&image.data, ImageFormat::Jpeg)
            .map_err(|error| format!("its JPEG page image could not be decoded: {error}")),
        ("", 1, 8) => image
            .data
            .get(..pixels)
            .and_then(|samples| GrayImage::from_raw(width, height, samples.to_vec()))
            .map(DynamicImage::ImageLuma8)
            .ok_or_else(short),
        ("", 3, 8) => image
            .data
            .get(..pixels * 3)
            .and_then(|samples| RgbImage::from_raw(width, height, samples.to_vec()))
            .map(DynamicImage::ImageRgb8)
            .ok_or_else(short),
        ("", 1, 1) => {
            let row_bytes = (width as usize).div_ceil(8);
            let rows = image
                .data
                .get(..row_bytes * height as usize)
                .ok_or_else(short)?;
            // 1 is white, 0 black (DeviceGray's default decode).
            Ok(DynamicImage::ImageLuma8(GrayImage::from_fn(
                width,
                height,
                |x, y| {
                    let byte = rows[y as usize * row_bytes + x as usize / 8];
                    let bit = (byte >> (7 - x % 8)) & 1;
                    image::Luma([if bit == 1 { 255 } else { 0 }])
                },
            )))
        }
        ("", components, bits) => Err(format!(
            "its page image has {bits}-bit samples of {} components, which partlens does not decode",
            components
        )),
        (filter, ..) => Err(format!(
            "its page image is compressed with {filter}, which partlens does not decode"
        )),
    }
}

fn short() -> String {
    "its page image holds fewer samples than its size states".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_image(filter: &str, components: u8, bits: u8, data: Vec<u8>) -> PageImage {
        PageImage {
            coverage: 1.0,
            filter: filter.to_owned(),
            width: 10,
            height: 2,
            bits_per_component: bits,
            components,
            data,
        }
    }

    #[test]
    fn grey_rgb_and_black_and_white_samples_are_decoded() {
        let limits = ExtractionLimits::default();
        let grey = decode(&page_image("", 1, 8, vec![200; 20]), &limits).unwrap();
        assert_eq!(grey.to_luma8().get_pixel(9, 1).0, [200]);
        let rgb = decode(&page_image("", 3, 8, vec![7; 60]), &limits).unwrap();
        assert_eq!(rgb.to_rgb8().get_pixel(0, 0).0, [7, 7, 7]);
        // Two rows of 10 bits (2 bytes each): the first pixel of each row black.
        let bits = decode(&page_image("", 1, 1, vec![0x7f, 0xff, 0x7f, 0xff]), &limits)
            .unwrap()
            .to_luma8();
        assert_eq!(bits.get_pixel(0, 1).0, [0]);
        assert_eq!(bits.get_pixel(1, 1).0, [255]);
    }

    #[test]
    fn what_is_not_decoded_says_why() {
        let limits = ExtractionLimits::default();
        let fax = decode(&page_image("CCITTFaxDecode", 1, 1, vec![0; 4]), &limits).unwrap_err();
        assert!(fax.contains("CCITTFaxDecode"), "{fax}");
        let short = decode(&page_image("", 1, 8, vec![0; 5]), &limits).unwrap_err();
        assert!(short.contains("fewer samples"), "{short}");
        let jpeg = decode(&page_image("DCTDecode", 3, 8, vec![1, 2, 3]), &limits).unwrap_err();
        assert!(jpeg.contains("JPEG"), "{jpeg}");
        let mut huge = page_image("", 1, 8, Vec::new());
        huge.width = 1_000_000;
        huge.height = 1_000_000;
        assert!(decode(&huge, &limits).unwrap_err().contains("pixels"));
    }
}
