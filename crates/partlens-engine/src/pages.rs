//! The pages of a drawing in an [`Analysis`](crate::Analysis): each PDF page, or a DXF's model space
//! and each of its paper-space layouts, with its own picture (large image and thumbnail), its size
//! in pixels and which of the analysis' views are its own, so that a search that matched a view can
//! say which page it matched on.
//!
//! A file that is not paged (a picture, a model, a format without a picture) has no pages: its one
//! picture is the analysis' own thumbnail and large image. A drawing has at least one page, and
//! the analysis' thumbnail and large image are page 1's (as before pages were read), so code that
//! knows nothing of pages sees page 1.
//!
//! The work pictures cost is bounded for the whole file, not a page: pages are pictured in order
//! while the pixels rendered or decoded stay within
//! [`ExtractionLimits::max_pictured_pixels`](crate::ExtractionLimits::max_pictured_pixels); later
//! pages keep their text and PMI but get no picture and no view (their `thumbnail_jpeg` is `None`
//! and `views` empty), and the analysis says so in the `pages_not_pictured` attribute.

use std::ops::Range;

/// The attribute a drawing gets when some of its pages were read but not pictured, and why.
pub const PAGES_NOT_PICTURED_ATTRIBUTE: &str = "pages_not_pictured";

/// One page of a drawing as the engine read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DrawingPage {
    /// The page's number, from 1: the `page` of its PMI page.
    pub number: u32,
    /// What the page is on a DXF: `Model` for model space, else the layout's name (`Layout1`,
    /// `Sheet2`); `None` on a PDF.
    pub name: Option<String>,
    /// Width and height of the page's picture in pixels: its large image's size, the pixels its
    /// PMI boxes are given in.
    pub size_px: [u32; 2],
    /// Thumbnail, JPEG, longest side [`THUMBNAIL_SIZE`](crate::THUMBNAIL_SIZE); `None` when the page
    /// was not pictured (past the file's picture budget).
    pub thumbnail_jpeg: Option<Vec<u8>>,
    /// Large image, PNG; `None` for a search input and for a page not pictured.
    pub large_png: Option<Vec<u8>>,
    /// Which of the analysis' `views` are this page's (empty when it was not pictured).
    pub views: Range<usize>,
}

impl DrawingPage {
    /// True when the page has a picture (and so views).
    pub fn is_pictured(&self) -> bool {
        self.thumbnail_jpeg.is_some()
    }
}

impl crate::Analysis {
    /// The number of the page that view `view` (an index into `views`) belongs to; `None` for a
    /// file without pages or an index past the views.
    pub fn page_of_view(&self, view: usize) -> Option<u32> {
        self.pages
            .iter()
            .find(|page| page.views.contains(&view))
            .map(|page| page.number)
    }

    /// Page `number` (from 1), if the file has it.
    pub fn page(&self, number: u32) -> Option<&DrawingPage> {
        self.pages.iter().find(|page| page.number == number)
    }
}
