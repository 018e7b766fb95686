//! What the step-visit tests compare a visit with: the whole read's steps as a visit hands
//! them over.
//!
//! Include with `#[path = "support/visited.rs"] mod visited;`.

#![allow(dead_code)]

use trajscope::model::Step;

/// `steps` without their context: a visit hands each step over alone, and a context is an
/// index into the whole read's message pool, which a visit never builds.
pub fn as_visited(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .map(|s| Step {
            context: None,
            ..s.clone()
        })
        .collect()
}
