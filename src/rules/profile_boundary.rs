//! P102 profile-boundary: a tool that a profile's `deny` list names is in
//! that profile, let in by `extends`, `groups` or `include`.

use super::{Context, Rule, SurfaceView};
use crate::model::{Diagnostic, Severity};

pub struct ProfileBoundary;

impl Rule for ProfileBoundary {
    fn check_surface(&self, _cx: &Context, s: &SurfaceView, out: &mut Vec<Diagnostic>) {
        for p in s.profiles {
            let Some(members) = s.current.members.get(&p.name) else {
                continue;
            };
            for ((group, index), entered) in members {
                let (Some(t), Some(def)) =
                    (s.current.tool(group, *index), s.current.def(group, *index))
                else {
                    continue;
                };
                let Some(deny) = p.deny.iter().find(|d| d.matches(t)) else {
                    continue;
                };
                let mut d = Diagnostic::new("P102", Severity::Error, &def.name_file, def.name.span)
                    .message(format!(
                        "tool `{}` is in profile `{}`, which denies it (`deny` pattern `{}`)",
                        t.name, p.name, deny.text
                    ))
                    .label(format!("denied in profile `{}`", p.name))
                    .note(format!(
                        "how it got in: {} (profile `{}` at {})",
                        entered.describe(),
                        p.name,
                        p.origin
                    ))
                    .note(
                        "every model turn of that role is offered this tool: a tool that adds servers, spawns agents or changes the system widens what the role can do",
                    )
                    .help(format!(
                        "add `{}` to the profile's `exclude`, or narrow what let it in; if the role should have it, take it out of `deny`",
                        t.name
                    ));
                d.tool = Some(t.name.clone());
                d.pointer = Some(format!("/profile/{}", p.name));
                out.push(d);
            }
        }
    }
}
