//! Build conditions, in one predicate language whose text form is Rust's
//! `cfg(..)` syntax (`all(unix, feature = "x")`); other front-ends
//! translate theirs into it (Go `//go:build linux && !windows`, C# `#if`
//! symbols). Does one hold only in tests, and can two (of tool
//! declarations) hold in the same build? Platform options (`target_os`, `target_family`,
//! `target_arch`, `target_env`, `unix`, `windows`) are checked against a
//! set of real targets; every other option or feature is free (features
//! add up), but the same option has the same value in both conditions.

/// A parsed condition.
#[derive(Debug, PartialEq)]
enum Cfg {
    /// `unix`, `feature = "x"`: the name and the value, if any.
    Option(String, Option<String>),
    Not(Box<Cfg>),
    All(Vec<Cfg>),
    Any(Vec<Cfg>),
}

/// (`target_os`, `target_family`, `target_arch`, `target_env`) of the
/// targets a tool may be built for.
const TARGETS: &[(&str, &str, &str, &str)] = &[
    ("linux", "unix", "x86_64", "gnu"),
    ("linux", "unix", "aarch64", "gnu"),
    ("linux", "unix", "x86_64", "musl"),
    ("macos", "unix", "x86_64", ""),
    ("macos", "unix", "aarch64", ""),
    ("ios", "unix", "aarch64", ""),
    ("android", "unix", "aarch64", ""),
    ("freebsd", "unix", "x86_64", ""),
    ("windows", "windows", "x86_64", "msvc"),
    ("windows", "windows", "x86_64", "gnu"),
    ("windows", "windows", "aarch64", "msvc"),
    ("unknown", "wasm", "wasm32", ""),
    ("wasi", "wasm", "wasm32", "p1"),
];

/// More free options than this: assume the conditions can hold together.
const MAX_FREE: usize = 10;

/// Can conditions `a` and `b` (the text inside `#[cfg(..)]`) hold in the
/// same build? A condition that does not parse can: nothing is known.
pub fn can_hold_together(a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (parse(a), parse(b)) else {
        return true;
    };
    let mut free: Vec<(&str, Option<&str>)> = Vec::new();
    a.free_options(&mut free);
    b.free_options(&mut free);
    free.sort();
    free.dedup();
    if free.len() > MAX_FREE {
        return true;
    }
    TARGETS.iter().any(|target| {
        (0..1u32 << free.len()).any(|bits| {
            let on = |name: &str, value: Option<&str>| {
                free.iter()
                    .position(|f| *f == (name, value))
                    .is_some_and(|i| bits & (1 << i) != 0)
            };
            a.holds(target, &on) && b.holds(target, &on)
        })
    })
}

/// Does the condition hold only in tests (`test`, `all(test, not(miri))`;
/// not `feature = "x"` or `any(test, feature = "x")`)?
pub fn only_in_tests(cond: &str) -> bool {
    parse(cond).is_some_and(|c| c.outside_tests() == Some(false))
}

impl Cfg {
    /// The value outside tests: `test` is false, everything else unknown.
    fn outside_tests(&self) -> Option<bool> {
        match self {
            Cfg::Option(name, None) if name == "test" => Some(false),
            Cfg::Option(..) => None,
            Cfg::Not(c) => c.outside_tests().map(|v| !v),
            Cfg::All(cs) => three_valued(cs.iter().map(Cfg::outside_tests), false),
            Cfg::Any(cs) => three_valued(cs.iter().map(Cfg::outside_tests), true),
        }
    }

    fn free_options<'s>(&'s self, out: &mut Vec<(&'s str, Option<&'s str>)>) {
        match self {
            Cfg::Option(name, value) => {
                if !is_platform(name) {
                    out.push((name, value.as_deref()));
                }
            }
            Cfg::Not(c) => c.free_options(out),
            Cfg::All(cs) | Cfg::Any(cs) => cs.iter().for_each(|c| c.free_options(out)),
        }
    }

    fn holds(
        &self,
        (os, family, arch, env): &(&str, &str, &str, &str),
        on: &dyn Fn(&str, Option<&str>) -> bool,
    ) -> bool {
        match self {
            Cfg::Option(name, value) => match (name.as_str(), value.as_deref()) {
                ("unix", None) => *family == "unix",
                ("windows", None) => *family == "windows",
                ("target_os", Some(v)) => v == *os,
                ("target_family", Some(v)) => v == *family,
                ("target_arch", Some(v)) => v == *arch,
                ("target_env", Some(v)) => v == *env,
                (name, value) => on(name, value),
            },
            Cfg::Not(c) => !c.holds(&(os, family, arch, env), on),
            Cfg::All(cs) => cs.iter().all(|c| c.holds(&(os, family, arch, env), on)),
            Cfg::Any(cs) => cs.iter().any(|c| c.holds(&(os, family, arch, env), on)),
        }
    }
}

/// `all` (`absorbing` false) or `any` (`absorbing` true) of values that
/// may be unknown: the absorbing value wins, else unknown stays unknown.
fn three_valued(values: impl Iterator<Item = Option<bool>>, absorbing: bool) -> Option<bool> {
    let mut unknown = false;
    for v in values {
        match v {
            Some(b) if b == absorbing => return Some(absorbing),
            None => unknown = true,
            Some(_) => {}
        }
    }
    (!unknown).then_some(!absorbing)
}

fn is_platform(name: &str) -> bool {
    matches!(
        name,
        "unix" | "windows" | "target_os" | "target_family" | "target_arch" | "target_env"
    )
}

/// Parses a condition; `None` when it is not one.
fn parse(text: &str) -> Option<Cfg> {
    let text = text.trim();
    let text = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(text);
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let c = p.cfg()?;
    p.blank();
    (p.at == p.s.len()).then_some(c)
}

struct Parser<'s> {
    s: &'s [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn blank(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.blank();
        let ok = self.s.get(self.at) == Some(&b);
        self.at += usize::from(ok);
        ok
    }

    fn word(&mut self) -> Option<String> {
        self.blank();
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
    }

    fn string(&mut self) -> Option<String> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        while self.s.get(self.at).is_some_and(|b| *b != b'"') {
            self.at += 1;
        }
        let value = String::from_utf8_lossy(self.s.get(start..self.at)?).into_owned();
        self.eat(b'"').then_some(value)
    }

    fn cfg(&mut self) -> Option<Cfg> {
        self.depth += 1;
        if self.depth > 32 {
            return None;
        }
        let name = self.word()?;
        let c = if self.eat(b'(') {
            let mut items = Vec::new();
            while !self.eat(b')') {
                items.push(self.cfg()?);
                if !self.eat(b',') {
                    self.eat(b')').then_some(())?;
                    break;
                }
            }
            match name.as_str() {
                "not" if items.len() == 1 => Cfg::Not(Box::new(items.pop()?)),
                "all" => Cfg::All(items),
                "any" => Cfg::Any(items),
                _ => return None,
            }
        } else if self.eat(b'=') {
            Cfg::Option(name, Some(self.string()?))
        } else {
            Cfg::Option(name, None)
        };
        self.depth -= 1;
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms_that_cannot_both_hold_exclude_each_other() {
        for (a, b) in [
            (r#"target_os = "windows""#, r#"not(target_os = "windows")"#),
            (r#"target_os = "windows""#, "unix"),
            (r#"target_arch = "x86_64""#, r#"target_arch = "aarch64""#),
            (
                r#"target_os = "windows""#,
                r#"not(any(target_os = "windows", target_os = "macos"))"#,
            ),
            (r#"feature = "a""#, r#"not(feature = "a")"#),
            (r#"all(unix, feature = "x")"#, "windows"),
        ] {
            assert!(!can_hold_together(a, b), "{a} / {b}");
        }
    }

    #[test]
    fn conditions_that_can_hold_together_do() {
        for (a, b) in [
            ("unix", r#"target_os = "linux""#),
            (r#"feature = "csv""#, r#"feature = "json""#),
            (r#"target_os = "linux""#, r#"target_arch = "x86_64""#),
            (r#"not(windows)"#, r#"target_os = "macos""#),
            ("tokio_unstable", "unix"),
            ("garbage ((", "unix"),
        ] {
            assert!(can_hold_together(a, b), "{a} / {b}");
        }
    }

    #[test]
    fn test_only_conditions_are_told_apart() {
        for c in [
            "(test)",
            "all(test, not(miri))",
            "all(test, feature = \"x\")",
        ] {
            assert!(only_in_tests(c), "{c}");
        }
        for c in [
            "(feature = \"x\")",
            "any(test, feature = \"x\")",
            "not(test)",
            "unix",
        ] {
            assert!(!only_in_tests(c), "{c}");
        }
    }

    #[test]
    fn conditions_parse() {
        assert_eq!(
            parse(r#"(any(unix, feature = "x"))"#),
            Some(Cfg::Any(vec![
                Cfg::Option("unix".into(), None),
                Cfg::Option("feature".into(), Some("x".into())),
            ]))
        );
        assert_eq!(parse("not(a, b)"), None);
        assert_eq!(parse("all()"), Some(Cfg::All(Vec::new())));
    }
}
