//! Which timeline items a scrolled list has to draw. Items have different heights: the ones
//! drawn once are measured, the others are estimated at the mean of the measured ones, so the
//! spacers above and below the drawn window keep the scrollbar honest without drawing
//! thousands of items.

use std::ops::Range;

/// Heights of a list's items and the window to draw for a scroll position.
#[derive(Debug, Clone, PartialEq)]
pub struct Viewport {
    heights: Vec<Option<f64>>,
    measured_sum: f64,
    measured_count: usize,
    default_height: f64,
}

/// Pixels drawn beyond each edge of the visible area, so a scroll shows items, not a gap.
pub const OVERSCAN_PX: f64 = 600.0;

/// A window never holds fewer items than this (short lists are drawn whole).
pub const MIN_WINDOW: usize = 40;

impl Viewport {
    /// An empty list whose items are guessed at `default_height` pixels until measured.
    pub fn new(default_height: f64) -> Self {
        Self {
            heights: Vec::new(),
            measured_sum: 0.0,
            measured_count: 0,
            default_height,
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.heights.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.heights.is_empty()
    }

    /// The list now has `len` items (new ones unmeasured; call again when it grows).
    pub fn set_len(&mut self, len: usize) {
        while self.heights.len() > len {
            if let Some(Some(h)) = self.heights.pop() {
                self.measured_sum -= h;
                self.measured_count -= 1;
            }
        }
        self.heights.resize(len, None);
    }

    /// Records the drawn height of item `index`; returns whether it differs from what was
    /// assumed (then the spacers need redrawing).
    pub fn measure(&mut self, index: usize, height: f64) -> bool {
        let assumed = self.height(index);
        let Some(slot) = self.heights.get_mut(index) else {
            return false;
        };
        match slot.replace(height) {
            Some(old) => self.measured_sum += height - old,
            None => {
                self.measured_sum += height;
                self.measured_count += 1;
            }
        }
        (assumed - height).abs() > 0.5
    }

    /// The estimate for an item not measured yet.
    pub fn estimate(&self) -> f64 {
        if self.measured_count == 0 {
            self.default_height
        } else {
            self.measured_sum / self.measured_count as f64
        }
    }

    /// Height of item `index`, measured or estimated.
    pub fn height(&self, index: usize) -> f64 {
        match self.heights.get(index) {
            Some(Some(h)) => *h,
            Some(None) | None => self.estimate(),
        }
    }

    /// Distance from the top of the list to the top of item `index`.
    pub fn offset(&self, index: usize) -> f64 {
        let estimate = self.estimate();
        self.heights
            .iter()
            .take(index)
            .map(|h| h.unwrap_or(estimate))
            .sum()
    }

    /// Height of the whole list.
    pub fn total(&self) -> f64 {
        self.offset(self.heights.len())
    }

    /// The items to draw when the list is scrolled to `scroll_top` in a box `view_height` high:
    /// every item that overlaps the visible area widened by [`OVERSCAN_PX`] on both sides, and at
    /// least [`MIN_WINDOW`] items.
    pub fn window(&self, scroll_top: f64, view_height: f64) -> Range<usize> {
        let len = self.heights.len();
        let estimate = self.estimate();
        let from = scroll_top - OVERSCAN_PX;
        let to = scroll_top + view_height.max(0.0) + OVERSCAN_PX;
        let mut top = 0.0;
        let mut start = len;
        let mut end = len;
        for (index, h) in self.heights.iter().enumerate() {
            let bottom = top + h.unwrap_or(estimate);
            if start == len && bottom > from {
                start = index;
            }
            if top >= to {
                end = index;
                break;
            }
            top = bottom;
        }
        let start = start.min(len.saturating_sub(MIN_WINDOW));
        let end = end.max((start + MIN_WINDOW).min(len));
        start..end
    }

    /// The scroll position that shows item `index` at the top.
    pub fn scroll_to(&self, index: usize) -> f64 {
        self.offset(index.min(self.heights.len()))
    }
}
