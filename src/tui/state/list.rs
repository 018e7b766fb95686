//! A cursor over a list that scrolls: which row is selected and which is at the top.

/// Selection and scroll offset of a list of `len` rows shown `height` rows at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListCursor {
    pub selected: usize,
    /// The first visible row.
    pub offset: usize,
}

impl ListCursor {
    /// Moves the selection by `delta` rows, stopping at either end.
    pub fn move_by(&mut self, delta: isize, len: usize) {
        let target = self.selected.saturating_add_signed(delta);
        self.select(target, len);
    }

    pub fn select(&mut self, index: usize, len: usize) {
        self.selected = index.min(len.saturating_sub(1));
    }

    /// Clamps the selection to `len` rows and scrolls so that it is visible in `height`
    /// rows, keeping a margin of context above and below where there is room.
    pub fn settle(&mut self, len: usize, height: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        if height == 0 {
            return;
        }
        let margin = if height > 8 { 2 } else { 0 };
        if self.selected < self.offset + margin {
            self.offset = self.selected.saturating_sub(margin);
        } else if self.selected + margin >= self.offset + height {
            self.offset = (self.selected + margin + 1).saturating_sub(height);
        }
        self.offset = self.offset.min(len.saturating_sub(height));
    }

    /// The row at `y` rows below the top of the visible list, if there is one.
    pub fn row_at(&self, y: usize, len: usize) -> Option<usize> {
        let row = self.offset + y;
        (row < len).then_some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_stops_at_the_ends() {
        let mut c = ListCursor::default();
        c.move_by(-3, 10);
        assert_eq!(c.selected, 0);
        c.move_by(25, 10);
        assert_eq!(c.selected, 9);
        c.move_by(1, 0);
        assert_eq!(c.selected, 0);
    }

    #[test]
    fn settling_scrolls_the_selection_into_view() {
        let mut c = ListCursor::default();
        c.select(15, 100);
        c.settle(100, 10);
        assert!(c.offset <= 15 && 15 < c.offset + 10, "{c:?}");
        assert_eq!(c.offset, 8, "two rows of context below");
        c.select(3, 100);
        c.settle(100, 10);
        assert_eq!(c.offset, 1);
        c.select(99, 100);
        c.settle(100, 10);
        assert_eq!(c.offset, 90, "never past the end");
        c.settle(5, 10);
        assert_eq!((c.selected, c.offset), (4, 0));
    }
}
