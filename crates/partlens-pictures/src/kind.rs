//! Which rendered image of a file: the `type` parameter of an image link and how it is served.

/// Which rendered image of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// The thumbnail, JPEG (`type=0`).
    Thumbnail,
    /// The large image, PNG (`type=1`).
    Large,
}

impl ImageKind {
    /// The `type` parameter of an image URL.
    pub fn type_number(self) -> u8 {
        match self {
            Self::Thumbnail => 0,
            Self::Large => 1,
        }
    }

    /// Reads the `type` parameter.
    pub fn from_type_number(number: &str) -> Option<Self> {
        match number.trim() {
            "0" => Some(Self::Thumbnail),
            "1" => Some(Self::Large),
            _ => None,
        }
    }

    /// The content type it is served with.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Thumbnail => "image/jpeg",
            Self::Large => "image/png",
        }
    }
}
