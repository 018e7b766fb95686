//! A window of a list of pool ids that many step contexts share.
//!
//! A conversation whose messages the pool holds once each, in any order (Inspect samples,
//! where equal messages are pooled once), gives each step a prefix of the same id list.
//! Copying that prefix into every step made the contexts of an n-step conversation cost
//! n²/2 ids (a 20 MB sample: 2.3 GB); sharing the list costs it once, and each step a
//! window into it.

use serde::{Serialize, Serializer};
use std::sync::Arc;

/// `ids[from..to]` of a shared list of pool ids.
#[derive(Debug, Clone)]
pub struct SharedIds {
    ids: Arc<[u32]>,
    from: usize,
    to: usize,
}

impl SharedIds {
    /// The ids of `ids` from `from` up to (not including) `to`, bounds clamped to the list.
    pub fn new(ids: Arc<[u32]>, from: usize, to: usize) -> SharedIds {
        let to = to.min(ids.len());
        SharedIds {
            from: from.min(to),
            to,
            ids,
        }
    }

    /// Whether `self` and `other` are windows of one list, not of two copies.
    pub fn shares_list_with(&self, other: &SharedIds) -> bool {
        Arc::ptr_eq(&self.ids, &other.ids)
    }

    /// The window's ids, in order.
    pub fn as_slice(&self) -> &[u32] {
        &self.ids[self.from..self.to]
    }
}

/// Equal when the windows hold the same ids, whatever list they share.
impl PartialEq for SharedIds {
    fn eq(&self, other: &SharedIds) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// Written as the list of the window's ids, as a listed context is.
impl Serialize for SharedIds {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_share_one_list() {
        let list: Arc<[u32]> = vec![4, 0, 4, 2].into();
        let a = SharedIds::new(list.clone(), 0, 3);
        let b = SharedIds::new(list.clone(), 1, 9);
        assert_eq!(a.as_slice(), [4, 0, 4]);
        assert_eq!(b.as_slice(), [0, 4, 2]);
        assert_eq!(Arc::strong_count(&list), 3, "no window copies the list");
        assert!(a.shares_list_with(&b));
        assert_eq!(
            SharedIds::new(list.clone(), 3, 1).as_slice(),
            [] as [u32; 0]
        );
        let copy = SharedIds::new(vec![4, 0, 4].into(), 0, 3);
        assert_eq!(a, copy);
        assert!(!a.shares_list_with(&copy));
        assert_ne!(a, b);
    }

    #[test]
    fn a_window_is_written_as_its_ids() {
        let window = SharedIds::new(vec![7, 8, 9].into(), 1, 3);
        assert_eq!(serde_json::to_string(&window).unwrap(), "[8,9]");
        let context = crate::model::StepContext::shared(
            crate::model::Exactness::Reconstructed,
            vec![7, 8, 9].into(),
            1,
            3,
        );
        let listed =
            crate::model::StepContext::list(crate::model::Exactness::Reconstructed, vec![8, 9]);
        assert_eq!(
            serde_json::to_string(&context).unwrap(),
            serde_json::to_string(&listed).unwrap(),
            "written as the list it stands for"
        );
    }
}
