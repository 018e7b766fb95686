//! The semantic paints a theme colours, named `section.name` as in the theme files, which
//! call them roles (`diff.added`, `step.error`, `role.tool`). Code asks for a paint, never
//! for a colour. Named `Paint`, not `Role`, so that it never meets a message's
//! [`crate::model::Role`] (whose colours are the `role.*` paints).

macro_rules! paints {
    ($($variant:ident => $name:literal,)*) => {
        /// Something on screen that a theme gives a style to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Paint {
            $($variant,)*
        }

        impl Paint {
            pub const ALL: &'static [Paint] = &[$(Paint::$variant,)*];

            /// `section.role`, as written in theme files.
            pub fn name(self) -> &'static str {
                match self {
                    $(Paint::$variant => $name,)*
                }
            }
        }
    };
}

paints! {
    Text => "ui.text",
    Dim => "ui.dim",
    Border => "ui.border",
    Title => "ui.title",
    Selected => "ui.selected",
    Gauge => "ui.gauge",

    StatusBar => "status.bar",
    StatusKey => "status.key",
    StatusPlace => "status.place",
    StatusNotice => "status.notice",
    StatusError => "status.error",

    RunHeader => "run.header",
    RunSorted => "run.sorted",
    RunSummary => "run.summary",
    RunFailed => "run.failed",

    Resolved => "outcome.resolved",
    Unresolved => "outcome.unresolved",
    Unknown => "outcome.unknown",

    StepIndex => "step.index",
    StepTool => "step.tool",
    StepAgent => "step.agent",
    StepError => "step.error",
    StepSummary => "step.summary",

    SectionTitle => "section.title",
    SectionMeta => "section.meta",
    FoldMarker => "section.fold",

    TabActive => "tab.active",
    TabInactive => "tab.inactive",

    DiffAdded => "diff.added",
    DiffRemoved => "diff.removed",
    DiffHunk => "diff.hunk",
    DiffHeader => "diff.header",
    DiffContext => "diff.context",

    RoleSystem => "role.system",
    RoleUser => "role.user",
    RoleAssistant => "role.assistant",
    RoleTool => "role.tool",

    ContextExact => "context.exact",
    ContextReconstructed => "context.reconstructed",

    TracebackFrame => "traceback.frame",
    TracebackError => "traceback.error",

    SearchHit => "search.hit",
    SearchCurrent => "search.current",

    FinderMatch => "finder.match",
    FinderPrompt => "finder.prompt",

    HelpKey => "help.key",
    HelpSection => "help.section",

    ScrollbarTrack => "scrollbar.track",
    ScrollbarThumb => "scrollbar.thumb",
    ScrollbarError => "scrollbar.error",
    ScrollbarHit => "scrollbar.hit",
}

impl Paint {
    pub fn from_name(name: &str) -> Option<Paint> {
        Paint::ALL.iter().copied().find(|r| r.name() == name)
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
