//! Which backends a replay talks to, from the flags (the choice itself is
//! `trajscope::backend::select`, shared with the app).

use super::Args;
use anyhow::Result;
use trajscope::backend::{AdHoc, Backend, BackendsFile, select};

pub fn resolve(args: &Args) -> Result<Vec<Backend>> {
    let ad_hoc = AdHoc {
        base_url: args.base_url.clone(),
        model: args.model.clone(),
        kind: args.kind,
        api_key_env: args.api_key_env.clone(),
    };
    Ok(select(
        &ad_hoc,
        &args.backends,
        BackendsFile::load_default,
        &args.sampling(),
    )?)
}
