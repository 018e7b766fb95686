//! Built documents, kept for the pages seen last so that going back is instant.

use crate::tui::document::{DocKey, Document};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Documents kept. A highlighted 2,000-line observation is a few hundred KB; 48 of them
/// is a modest price for instant back-and-forth.
const CAPACITY: usize = 48;

#[derive(Debug, Clone, Default)]
pub struct Documents {
    built: HashMap<DocKey, Arc<Document>>,
    order: VecDeque<DocKey>,
    /// The build last asked for, so it is not asked for again while it runs.
    pub requested: Option<DocKey>,
}

impl Documents {
    pub fn get(&self, key: &DocKey) -> Option<&Arc<Document>> {
        self.built.get(key)
    }

    pub fn insert(&mut self, key: DocKey, document: Arc<Document>) {
        if self.built.insert(key, document).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.built.remove(&old);
            }
        }
        if self.requested == Some(key) {
            self.requested = None;
        }
    }

    pub fn len(&self) -> usize {
        self.built.len()
    }

    pub fn is_empty(&self) -> bool {
        self.built.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::document::Page;

    fn key(step: usize) -> DocKey {
        DocKey {
            trajectory: 1,
            page: Page::Step,
            step,
            width: 80,
            theme: 0,
            unfolded: false,
        }
    }

    #[test]
    fn keeps_the_most_recent() {
        let mut docs = Documents {
            requested: Some(key(1)),
            ..Documents::default()
        };
        for step in 1..=CAPACITY + 5 {
            docs.insert(key(step), Arc::new(Document::default()));
        }
        assert_eq!(docs.len(), CAPACITY);
        assert!(docs.get(&key(1)).is_none());
        assert!(docs.get(&key(CAPACITY + 5)).is_some());
        assert_eq!(docs.requested, None);
    }
}
