//! Reading and writing the run folders' label files (`metrics::LabelSet` does the work: an
//! atomic write, merged with what another session saved meanwhile).

use crate::metrics::LabelSet;
use crate::tui::msg::Msg;
use std::path::PathBuf;

/// The label sets of the run folders of `roots` (a file's folder for a file).
pub fn load(roots: &[PathBuf]) -> Msg {
    let mut folders: Vec<PathBuf> = roots.iter().map(|r| LabelSet::root_for(r)).collect();
    folders.sort();
    folders.dedup();
    Msg::LabelsLoaded(
        folders
            .into_iter()
            .map(|root| {
                let set = LabelSet::load(&root).map_err(|e| e.to_string());
                (root, set)
            })
            .collect(),
    )
}

/// Saves `set`; the saved set holds the labels other sessions added too.
pub fn save(mut set: LabelSet, edit: u64) -> Msg {
    let result = set.save().map(|()| set.clone()).map_err(|e| e.to_string());
    Msg::LabelsSaved {
        root: set.root().to_path_buf(),
        edit,
        result,
    }
}
