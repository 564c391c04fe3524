//! Textures of thumbnails and large images, kept within a budget of BYTES and evicted by how long ago
//! they were last shown.
//!
//! Why bytes and not entries: a search can return 10,000 results, and the user scrolls through them.
//! Every thumbnail that reaches the screen becomes a GPU texture that lives as long as its
//! [`egui::TextureHandle`]; without a bound, a session keeps one texture per card ever scrolled past. An
//! entry count says nothing about cost: a 256 px thumbnail holds 256 KiB, the detail view's large image
//! up to 16 MiB. So the bound is the sum of the textures' sizes.
//!
//! Policy (after notedeck's `media/budget.rs`):
//! - Each entry remembers the frame it was last shown on ([`TextureCache::request`] and
//!   [`TextureCache::mark_shown`] record it). [`TextureCache::begin_frame`] runs once a frame, before any
//!   view draws, and sweeps.
//! - A sweep only evicts when the held bytes exceed the budget, and then evicts the least recently shown
//!   loaded textures down to 7/8 of the budget, so the next upload does not trigger another sweep.
//! - A texture shown within the last [`KEEP_SHOWN_FRAMES`] frames is never evicted, so nothing on screen
//!   disappears under a paint command. If the visible set alone exceeds the budget, the cache goes over
//!   budget rather than flicker.
//! - Pending entries (a fetch in flight) hold no texture. They stop the same image from being requested
//!   every frame. A pending entry not shown for [`ABANDON_PENDING_FRAMES`] frames belongs to a card that
//!   scrolled away: the sweep drops it and reports its key so the caller cancels the fetch.
//! - Failed entries hold no texture either and stay, so a broken URL is not retried every frame; the
//!   caller may [`TextureCache::forget`] one to retry.
//!
//! The cache is generic over the stored handle (anything that reports its size through
//! [`TextureBytes`]), so the policy is unit-tested without a GPU or an egui context.

use std::collections::HashMap;

/// The default budget: 128 MiB, about 500 thumbnails of 256 × 256 RGBA (several screens of results)
/// plus a few large images.
pub const DEFAULT_BUDGET_BYTES: usize = 128 * 1024 * 1024;

/// A texture shown within this many frames is never evicted. More than one, because egui may run
/// several passes in one frame and because a card half-scrolled off screen may come straight back.
pub const KEEP_SHOWN_FRAMES: u64 = 3;

/// A pending fetch whose card has not been shown for this many frames is abandoned (and cancelled).
pub const ABANDON_PENDING_FRAMES: u64 = 3;

/// The level a sweep evicts down to: 7/8 of the budget, leaving headroom for the next uploads.
pub fn low_water(budget_bytes: usize) -> usize {
    budget_bytes / 8 * 7
}

/// A stored texture that can say how many bytes it holds.
pub trait TextureBytes {
    /// Bytes of texture memory this value keeps alive.
    fn texture_bytes(&self) -> usize;
}

impl TextureBytes for egui::TextureHandle {
    fn texture_bytes(&self) -> usize {
        self.byte_size()
    }
}

/// What the cache holds for a key.
#[derive(Debug)]
enum Slot<T> {
    /// A fetch is in flight.
    Pending,
    /// The texture, with its size sampled once when it was stored.
    Loaded { texture: T, bytes: usize },
    /// The fetch or decode failed; the sentence says why.
    Failed { message: String },
}

#[derive(Debug)]
struct Entry<T> {
    slot: Slot<T>,
    last_shown: u64,
}

/// The answer of [`TextureCache::request`].
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup<'a, T> {
    /// The texture is here; paint it.
    Ready(&'a T),
    /// A fetch is in flight; paint a placeholder.
    Pending,
    /// The image could not be had; paint a placeholder that says so.
    Failed(&'a str),
    /// Nothing was known: the key is now pending, and the caller must start a fetch for it.
    NeedsFetch,
}

/// What a sweep removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Keys of loaded textures evicted to get back within the budget, least recently shown first.
    pub evicted: Vec<String>,
    /// Keys of pending fetches whose cards are no longer shown: cancel these fetches.
    pub abandoned: Vec<String>,
}

impl SweepReport {
    /// True when the sweep removed nothing.
    pub fn is_empty(&self) -> bool {
        self.evicted.is_empty() && self.abandoned.is_empty()
    }
}

/// Textures by key (usually the image URL), bounded in bytes; see the module documentation.
pub struct TextureCache<T> {
    entries: HashMap<String, Entry<T>>,
    budget_bytes: usize,
    held_bytes: usize,
    frame: u64,
}

impl<T> std::fmt::Debug for TextureCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys may be URLs with tokens: only the figures.
        f.debug_struct("TextureCache")
            .field("entries", &self.entries.len())
            .field("held_bytes", &self.held_bytes)
            .field("budget_bytes", &self.budget_bytes)
            .field("frame", &self.frame)
            .finish()
    }
}

impl<T> Default for TextureCache<T> {
    fn default() -> Self {
        Self::new(DEFAULT_BUDGET_BYTES)
    }
}

impl<T> TextureCache<T> {
    /// An empty cache that keeps at most `budget_bytes` of textures (beyond what is on screen).
    pub fn new(budget_bytes: usize) -> Self {
        Self {
            entries: HashMap::new(),
            budget_bytes,
            held_bytes: 0,
            // Frame numbers start high enough that "shown KEEP_SHOWN_FRAMES ago" never underflows.
            frame: KEEP_SHOWN_FRAMES.max(ABANDON_PENDING_FRAMES),
        }
    }

    /// The budget in bytes.
    pub fn budget_bytes(&self) -> usize {
        self.budget_bytes
    }

    /// Changes the budget (Settings); the next sweep applies it.
    pub fn set_budget_bytes(&mut self, budget_bytes: usize) {
        self.budget_bytes = budget_bytes;
    }

    /// Bytes of texture memory held by loaded entries.
    pub fn held_bytes(&self) -> usize {
        self.held_bytes
    }

    /// Number of entries of every kind (loaded, pending, failed).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of loaded textures.
    pub fn loaded_count(&self) -> usize {
        self.entries
            .values()
            .filter(|entry| matches!(entry.slot, Slot::Loaded { .. }))
            .count()
    }

    /// True when the texture of `key` is loaded (without marking it shown).
    pub fn is_loaded(&self, key: &str) -> bool {
        self.entries
            .get(key)
            .is_some_and(|entry| matches!(entry.slot, Slot::Loaded { .. }))
    }

    /// Number of fetches in flight.
    pub fn pending_count(&self) -> usize {
        self.entries
            .values()
            .filter(|entry| matches!(entry.slot, Slot::Pending))
            .count()
    }

    /// The current frame number (advanced by [`TextureCache::begin_frame`]).
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Looks a key up for painting this frame and records it as shown. An unknown key becomes pending
    /// and the answer is [`Lookup::NeedsFetch`]: exactly one caller is told to fetch it.
    pub fn request(&mut self, key: &str) -> Lookup<'_, T> {
        let frame = self.frame;
        if !self.entries.contains_key(key) {
            self.entries.insert(
                key.to_owned(),
                Entry {
                    slot: Slot::Pending,
                    last_shown: frame,
                },
            );
            return Lookup::NeedsFetch;
        }
        let Some(entry) = self.entries.get_mut(key) else {
            return Lookup::NeedsFetch;
        };
        entry.last_shown = frame;
        match &entry.slot {
            Slot::Pending => Lookup::Pending,
            Slot::Loaded { texture, .. } => Lookup::Ready(texture),
            Slot::Failed { message } => Lookup::Failed(message),
        }
    }

    /// The texture of a key, if loaded, without recording it as shown.
    pub fn peek(&self, key: &str) -> Option<&T> {
        match &self.entries.get(key)?.slot {
            Slot::Loaded { texture, .. } => Some(texture),
            Slot::Pending | Slot::Failed { .. } => None,
        }
    }

    /// Records a key as shown this frame without looking it up.
    pub fn mark_shown(&mut self, key: &str) {
        let frame = self.frame;
        if let Some(entry) = self.entries.get_mut(key) {
            entry.last_shown = frame;
        }
    }

    /// True when a fetch for `key` is in flight and still wanted. A decoded image that arrives for a
    /// key that is not pending (its card scrolled away) need not be uploaded as a texture.
    pub fn is_pending(&self, key: &str) -> bool {
        self.entries
            .get(key)
            .is_some_and(|entry| matches!(entry.slot, Slot::Pending))
    }

    /// Records that the image of `key` could not be fetched or decoded.
    pub fn insert_failed(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.replace(
            key.into(),
            Slot::Failed {
                message: message.into(),
            },
        );
    }

    /// Drops an entry of any kind (for example to retry a failed image). Returns true if there was one.
    pub fn forget(&mut self, key: &str) -> bool {
        match self.entries.remove(key) {
            Some(entry) => {
                self.release(&entry.slot);
                true
            }
            None => false,
        }
    }

    /// Drops everything (on logout, or when the service changes).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.held_bytes = 0;
    }

    /// Advances to the next frame and sweeps. Call once a frame, before the views draw.
    pub fn begin_frame(&mut self) -> SweepReport {
        self.frame += 1;
        self.sweep()
    }

    /// Abandons pending fetches that are no longer shown and, when over budget, evicts the least
    /// recently shown textures down to [`low_water`]. See the module documentation.
    pub fn sweep(&mut self) -> SweepReport {
        let frame = self.frame;
        let mut report = SweepReport::default();

        let mut abandoned: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, entry)| {
                matches!(entry.slot, Slot::Pending)
                    && entry.last_shown + ABANDON_PENDING_FRAMES <= frame
            })
            .map(|(key, _)| key.clone())
            .collect();
        abandoned.sort();
        for key in &abandoned {
            self.entries.remove(key);
        }
        report.abandoned = abandoned;

        if self.held_bytes <= self.budget_bytes {
            return report;
        }
        let target = low_water(self.budget_bytes);
        let mut candidates: Vec<(u64, &String, usize)> = self
            .entries
            .iter()
            .filter_map(|(key, entry)| match entry.slot {
                Slot::Loaded { bytes, .. } if entry.last_shown + KEEP_SHOWN_FRAMES <= frame => {
                    Some((entry.last_shown, key, bytes))
                }
                _ => None,
            })
            .collect();
        // Least recently shown first; the key breaks ties so eviction is deterministic.
        candidates.sort_unstable();
        let mut held = self.held_bytes;
        let mut evicted = Vec::new();
        for (_, key, bytes) in candidates {
            if held <= target {
                break;
            }
            held = held.saturating_sub(bytes);
            evicted.push(key.clone());
        }
        for key in &evicted {
            self.entries.remove(key);
        }
        self.held_bytes = held;
        report.evicted = evicted;
        report
    }

    fn replace(&mut self, key: String, slot: Slot<T>) {
        let frame = self.frame;
        let added = match &slot {
            Slot::Loaded { bytes, .. } => *bytes,
            Slot::Pending | Slot::Failed { .. } => 0,
        };
        let previous = self.entries.insert(
            key,
            Entry {
                slot,
                last_shown: frame,
            },
        );
        if let Some(previous) = previous {
            self.release(&previous.slot);
        }
        self.held_bytes += added;
    }

    fn release(&mut self, slot: &Slot<T>) {
        if let Slot::Loaded { bytes, .. } = slot {
            self.held_bytes = self.held_bytes.saturating_sub(*bytes);
        }
    }
}

impl<T: TextureBytes> TextureCache<T> {
    /// Stores a texture for `key` (replacing whatever was there), counted as shown this frame so the
    /// sweep of this frame cannot drop what was just uploaded.
    pub fn insert(&mut self, key: impl Into<String>, texture: T) {
        let bytes = texture.texture_bytes();
        self.replace(key.into(), Slot::Loaded { texture, bytes });
    }
}

/// Uploads decoded pixels as an egui texture (on the UI thread; the decoding happened elsewhere).
pub fn load_decoded(
    ctx: &egui::Context,
    image: &partlens_tasks::thumbnails::DecodedImage,
) -> egui::TextureHandle {
    let pixels = egui::ColorImage::from_rgba_unmultiplied(image.size, &image.rgba);
    ctx.load_texture(image.key.clone(), pixels, egui::TextureOptions::LINEAR)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A texture of a chosen size, so the policy is tested without a GPU.
    #[derive(Debug, PartialEq, Eq)]
    struct FakeTexture(usize);

    impl TextureBytes for FakeTexture {
        fn texture_bytes(&self) -> usize {
            self.0
        }
    }

    fn advance(cache: &mut TextureCache<FakeTexture>, frames: u64) -> SweepReport {
        let mut last = SweepReport::default();
        for _ in 0..frames {
            last = cache.begin_frame();
        }
        last
    }

    #[test]
    fn an_unknown_key_is_fetched_once_then_pending() {
        let mut cache: TextureCache<FakeTexture> = TextureCache::new(1000);
        assert_eq!(cache.request("a"), Lookup::NeedsFetch);
        assert_eq!(cache.request("a"), Lookup::Pending);
        assert!(cache.is_pending("a"));
        cache.insert("a", FakeTexture(10));
        assert_eq!(cache.request("a"), Lookup::Ready(&FakeTexture(10)));
        assert_eq!(cache.held_bytes(), 10);
    }

    #[test]
    fn held_bytes_follow_inserts_replacements_and_forgets() {
        let mut cache = TextureCache::new(1000);
        cache.insert("a", FakeTexture(100));
        cache.insert("b", FakeTexture(250));
        assert_eq!(cache.held_bytes(), 350);
        cache.insert("a", FakeTexture(400));
        assert_eq!(cache.held_bytes(), 650);
        cache.insert_failed("b", "broken");
        assert_eq!(cache.held_bytes(), 400);
        assert!(cache.forget("a"));
        assert_eq!(cache.held_bytes(), 0);
        assert!(!cache.forget("a"));
    }

    #[test]
    fn nothing_is_evicted_within_the_budget() {
        let mut cache = TextureCache::new(1000);
        cache.insert("a", FakeTexture(500));
        cache.insert("b", FakeTexture(500));
        let report = advance(&mut cache, 10);
        assert!(report.is_empty());
        assert_eq!(cache.loaded_count(), 2);
    }

    #[test]
    fn eviction_takes_the_least_recently_shown_first_down_to_low_water() {
        // Budget 800, low water 700. Four textures of 300 bytes, one inserted a frame.
        let mut cache = TextureCache::new(800);
        let mut evicted = Vec::new();
        for key in ["oldest", "old", "recent", "newest"] {
            cache.insert(key, FakeTexture(300));
            evicted.extend(cache.begin_frame().evicted);
        }
        for _ in 0..KEEP_SHOWN_FRAMES {
            evicted.extend(cache.begin_frame().evicted);
        }
        // 1200 held; two evictions reach 600 ≤ 700 and the sweep stops there.
        assert_eq!(evicted, vec!["oldest".to_owned(), "old".to_owned()]);
        assert_eq!(cache.held_bytes(), 600);
        assert!(cache.peek("recent").is_some());
        assert!(cache.peek("newest").is_some());
    }

    #[test]
    fn eviction_order_is_by_frame_not_by_size() {
        // Budget 1000, low water 875. An old small texture and a newer big one age together under
        // the budget; a third one pushes the total over.
        let mut cache = TextureCache::new(1000);
        cache.insert("small-old", FakeTexture(200));
        cache.begin_frame();
        cache.insert("big-newer", FakeTexture(700));
        assert!(advance(&mut cache, 5).is_empty());
        cache.insert("on-screen", FakeTexture(150));
        let report = cache.begin_frame();
        // 1050 held: dropping the older small one reaches 850 ≤ 875; the bigger one stays.
        assert_eq!(report.evicted, vec!["small-old".to_owned()]);
        assert!(cache.peek("big-newer").is_some());
        assert_eq!(cache.held_bytes(), 850);
    }

    #[test]
    fn what_was_shown_recently_survives_even_over_budget() {
        let mut cache = TextureCache::new(500);
        cache.insert("a", FakeTexture(400));
        cache.insert("b", FakeTexture(400));
        for _ in 0..10 {
            cache.begin_frame();
            cache.request("a");
            cache.request("b");
        }
        assert_eq!(cache.loaded_count(), 2);
        assert_eq!(cache.held_bytes(), 800);
    }

    #[test]
    fn pending_fetches_not_shown_are_abandoned_and_reported() {
        let mut cache: TextureCache<FakeTexture> = TextureCache::new(1000);
        assert_eq!(cache.request("scrolled-away"), Lookup::NeedsFetch);
        assert_eq!(cache.request("still-visible"), Lookup::NeedsFetch);
        let mut abandoned = Vec::new();
        for _ in 0..ABANDON_PENDING_FRAMES + 1 {
            abandoned.extend(cache.begin_frame().abandoned);
            cache.request("still-visible");
        }
        assert_eq!(abandoned, vec!["scrolled-away".to_owned()]);
        assert!(cache.is_pending("still-visible"));
        // Scrolled back: it is fetched again.
        assert_eq!(cache.request("scrolled-away"), Lookup::NeedsFetch);
    }

    #[test]
    fn failed_entries_stay_and_are_not_refetched() {
        let mut cache: TextureCache<FakeTexture> = TextureCache::new(10);
        cache.request("broken");
        cache.insert_failed("broken", "not an image");
        advance(&mut cache, 20);
        assert_eq!(cache.request("broken"), Lookup::Failed("not an image"));
        assert!(cache.forget("broken"));
        assert_eq!(cache.request("broken"), Lookup::NeedsFetch);
    }

    #[test]
    fn a_smaller_budget_applies_at_the_next_sweep() {
        let mut cache = TextureCache::new(1000);
        cache.insert("a", FakeTexture(400));
        cache.begin_frame();
        cache.insert("b", FakeTexture(400));
        advance(&mut cache, KEEP_SHOWN_FRAMES + 1);
        assert_eq!(cache.loaded_count(), 2);
        cache.set_budget_bytes(500);
        let report = cache.begin_frame();
        assert_eq!(report.evicted, vec!["a".to_owned()]);
        assert_eq!(cache.held_bytes(), 400);
    }

    #[test]
    fn clear_drops_everything() {
        let mut cache = TextureCache::new(1000);
        cache.insert("a", FakeTexture(100));
        cache.request("b");
        cache.clear();
        assert!(cache.is_empty());
        assert_eq!(cache.held_bytes(), 0);
    }

    #[test]
    fn egui_textures_report_their_bytes() {
        let ctx = egui::Context::default();
        let texture = ctx.load_texture(
            "t",
            egui::ColorImage::filled([16, 8], egui::Color32::RED),
            egui::TextureOptions::LINEAR,
        );
        let mut cache = TextureCache::new(1 << 20);
        cache.insert("t", texture);
        assert_eq!(cache.held_bytes(), 16 * 8 * 4);
    }
}
