//! Asking for the right pane's document when it is not built yet.

use crate::tui::effect::Effect;
use crate::tui::state::State;

/// Requests the current document unless it is built or already being built.
pub fn request(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(request) = state.document_request() else {
        return;
    };
    let key = request.key;
    if state.documents.get(&key).is_some() || state.documents.requested == Some(key) {
        return;
    }
    state.documents.requested = Some(key);
    fx.push(Effect::BuildDocument(request));
}
