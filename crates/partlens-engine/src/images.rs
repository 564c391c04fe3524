//! Decoding uploaded image bytes safely (format sniffing, decompression-bomb limits, no panics escaping
//! a decoder) and rendering the pictures the service hands out: the JPEG thumbnail and the large PNG.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits, RgbImage};

use super::{EngineError, LARGE_IMAGE_SIZE, THUMBNAIL_SIZE};

/// Widest or tallest image the engine decodes, in pixels; larger ones are refused as undecodable.
pub const MAX_IMAGE_SIDE: u32 = 20_000;
/// Most memory a decoder may allocate for one image, in bytes (the decoded pixels count towards it).
/// A small file that claims a huge canvas (a decompression bomb) is refused before it is expanded.
pub const MAX_DECODED_BYTES: u64 = 256 * 1024 * 1024;

/// Decodes `bytes` as an image. The format is sniffed from the content first (uploads are often
/// misnamed), then taken from `extension`. Every failure, including a decoder panic, is
/// [`EngineError::Undecodable`].
pub fn decode(extension: &str, bytes: &[u8]) -> Result<DynamicImage, EngineError> {
    let undecodable = |reason: String| EngineError::Undecodable {
        extension: extension.to_owned(),
        reason,
    };
    let mut reader = reader(extension, bytes)?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    reader.limits(limits);
    // Decoders for old formats (TIFF, GIF, BMP) have had panics on malformed input; an upload must
    // only ever fail, never take an indexing worker down with it.
    let decoded = std::panic::catch_unwind(move || -> image::ImageResult<DynamicImage> {
        let mut decoder = reader.into_decoder()?;
        // The pixel buffer is allocated from the header's claim: refuse a bomb before it is.
        if decoder.total_bytes() > MAX_DECODED_BYTES {
            return Err(image::ImageError::Limits(
                image::error::LimitError::from_kind(
                    image::error::LimitErrorKind::InsufficientMemory,
                ),
            ));
        }
        // Photos carry their camera orientation (EXIF); a part photographed sideways is upright here.
        let orientation = decoder
            .orientation()
            .unwrap_or(image::metadata::Orientation::NoTransforms);
        let mut image = DynamicImage::from_decoder(decoder)?;
        image.apply_orientation(orientation);
        Ok(image)
    })
    .map_err(|_| undecodable("the decoder gave up on malformed content".to_owned()))?;
    let image = decoded.map_err(|error| undecodable(error.to_string()))?;
    if image.width() == 0 || image.height() == 0 {
        return Err(undecodable("the image has no pixels".to_owned()));
    }
    Ok(image)
}

/// A reader of `bytes` whose format is sniffed from the content, else taken from `extension`.
fn reader<'a>(
    extension: &str,
    bytes: &'a [u8],
) -> Result<ImageReader<Cursor<&'a [u8]>>, EngineError> {
    let undecodable = |reason: String| EngineError::Undecodable {
        extension: extension.to_owned(),
        reason,
    };
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|error| undecodable(error.to_string()))?;
    if reader.format().is_none() {
        let named = ImageFormat::from_extension(extension.trim_start_matches('.'))
            .ok_or_else(|| undecodable("unknown image format".to_owned()))?;
        reader.set_format(named);
    }
    Ok(reader)
}

/// Width and height as the image's header states them, read without decoding a pixel (the pixel
/// cap of [`super::ExtractionLimits`] is checked on them before [`decode`] runs).
pub fn dimensions(extension: &str, bytes: &[u8]) -> Result<(u32, u32), EngineError> {
    let reader = reader(extension, bytes)?;
    std::panic::catch_unwind(move || reader.into_dimensions())
        .map_err(|_| "the decoder gave up on malformed content".to_owned())
        .and_then(|read| read.map_err(|error| error.to_string()))
        .map_err(|reason| EngineError::Undecodable {
            extension: extension.to_owned(),
            reason,
        })
}

/// The image as 8-bit RGB with any transparency composited over white: transparent drawings are
/// shown (and described) as drawn on paper rather than on the black their hidden pixels often hold.
pub fn flatten_on_white(image: &DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.to_rgb8();
    }
    let rgba = image.to_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let alpha = u16::from(a);
        let over_white = |channel: u8| {
            let mixed = (u16::from(channel) * alpha + 255 * (255 - alpha) + 127) / 255;
            u8::try_from(mixed).unwrap_or(u8::MAX)
        };
        image::Rgb([over_white(r), over_white(g), over_white(b)])
    })
}

/// The thumbnail: JPEG, longest side [`THUMBNAIL_SIZE`].
pub fn thumbnail_jpeg(image: &DynamicImage) -> Result<Vec<u8>, image::ImageError> {
    let thumbnail = flatten_on_white(&image.thumbnail(THUMBNAIL_SIZE, THUMBNAIL_SIZE));
    let mut jpeg = Vec::new();
    thumbnail.write_to(&mut Cursor::new(&mut jpeg), ImageFormat::Jpeg)?;
    Ok(jpeg)
}

/// The large image: PNG, longest side at most [`LARGE_IMAGE_SIZE`] (smaller images keep their size).
pub fn large_png(image: &DynamicImage) -> Result<Vec<u8>, image::ImageError> {
    let resized;
    let large = if image.width().max(image.height()) > LARGE_IMAGE_SIZE {
        resized = image.thumbnail(LARGE_IMAGE_SIZE, LARGE_IMAGE_SIZE);
        &resized
    } else {
        image
    };
    let mut png = Vec::new();
    if large.color().has_alpha() {
        large
            .to_rgba8()
            .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)?;
    } else {
        large
            .to_rgb8()
            .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)?;
    }
    Ok(png)
}
