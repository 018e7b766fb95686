//! The semantic roles a theme colours, named `section.role` as in the theme files
//! (`diff.added`, `step.error`, `role.tool`). Code asks for a role, never for a colour.

macro_rules! roles {
    ($($variant:ident => $name:literal,)*) => {
        /// Something on screen that a theme gives a style to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Role {
            $($variant,)*
        }

        impl Role {
            pub const ALL: &'static [Role] = &[$(Role::$variant,)*];

            /// `section.role`, as written in theme files.
            pub fn name(self) -> &'static str {
                match self {
                    $(Role::$variant => $name,)*
                }
            }
        }
    };
}

roles! {
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

impl Role {
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|r| r.name() == name)
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
