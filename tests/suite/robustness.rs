//! No input makes toolaudit panic: property tests over the parsers and the
//! whole extract-and-check path.

use std::sync::Arc;

use proptest::prelude::*;
use toolaudit::extract::manifest;
use toolaudit::rules::{Context, REGISTRY};
use toolaudit::source::SourceFile;
use toolaudit::syntax::{json, toml, yaml};
use toolaudit::targets::TARGETS;

/// JSON-ish text built from the tokens tool manifests are made of.
fn jsonish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("\"name\"".to_string()),
        Just("\"inputSchema\"".to_string()),
        Just("\"type\"".to_string()),
        Just("\"function\"".to_string()),
        Just("\"functionDeclarations\"".to_string()),
        Just("\"a.b\"".to_string()),
        Just("\"a__b\"".to_string()),
        Just("null".to_string()),
        Just("-1.5e3".to_string()),
        Just("\"\\u00e9\\ud83d\\ude00\"".to_string()),
        Just("// c\n".to_string()),
        "\\PC{0,3}".prop_map(|s| s),
    ];
    prop::collection::vec(token, 0..64).prop_map(|v| v.concat())
}

/// JSON Schema-like objects built from the keywords the schema rules read,
/// with hostile values: bad regexes, dangling and remote `$ref`s, wrong types.
fn schemaish() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("true".to_string()),
        Just("{}".to_string()),
        Just(r#"{"type":"string","pattern":"(unclosed"}"#.to_string()),
        Just(r#"{"type":"string","pattern":"^(a+)+$","default":"aaaa"}"#.to_string()),
        Just(r##"{"$ref":"#/$defs/x"}"##.to_string()),
        Just(r##"{"$ref":"#"}"##.to_string()),
        Just(r#"{"$ref":"https://example.com/s.json"}"#.to_string()),
        Just(r#"{"type":["integer","null"],"enum":[1,"2",null],"default":3}"#.to_string()),
        Just(r#"{"type":"array","items":[{"type":"string"}],"minItems":5}"#.to_string()),
        Just(r#"{"type":"STRING","format":"date-time","const":{}}"#.to_string()),
        Just(r#"{"type":"number","multipleOf":0,"minimum":"x"}"#.to_string()),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        let key = prop_oneof![
            Just("properties"),
            Just("$defs"),
            Just("items"),
            Just("anyOf"),
            Just("allOf"),
            Just("additionalProperties"),
            Just("not"),
            Just("required"),
            Just("$schema"),
            Just("patternProperties"),
            Just("default"),
            Just("type"),
        ];
        prop::collection::vec((key, inner, "[a-z(\\[]{0,3}"), 0..5).prop_map(|members| {
            let body: Vec<String> = members
                .into_iter()
                .map(|(k, v, name)| match k {
                    "properties" | "$defs" | "patternProperties" => {
                        format!(r#""{k}":{{"{name}":{v}}}"#)
                    }
                    "anyOf" | "allOf" => format!(r#""{k}":[{v},{v}]"#),
                    "required" => format!(r#""required":["{name}"]"#),
                    "$schema" => {
                        r#""$schema":"http://json-schema.org/draft-04/schema#""#.to_string()
                    }
                    "type" => r#""type":"object""#.to_string(),
                    _ => format!(r#""{k}":{v}"#),
                })
                .collect();
            format!("{{{}}}", body.join(","))
        })
    })
}

fn check_all(text: &str, docs: &[toolaudit::syntax::Node]) {
    let file = Arc::new(SourceFile::new("p.json".into(), "p.json".into(), text));
    let tools = manifest::extract(&file, docs);
    let targets: Vec<_> = TARGETS.iter().collect();
    let ids: Vec<&str> = TARGETS.iter().map(|t| t.id).collect();
    let cx = Context {
        targets: &targets,
        named_targets: &ids,
        explicit: &["S106"],
        all: false,
        truncation_markers: &[],
        tool_budget: 1,
    };
    let refs: Vec<_> = tools.iter().collect();
    let mut out = Vec::new();
    for e in REGISTRY {
        for t in &tools {
            e.rule.check_tool(&cx, t, &mut out);
        }
        e.rule.check_group(&cx, &refs, &mut out);
    }
    for d in &out {
        // Spans must lie inside the file and on character boundaries.
        assert!(d.span.end <= text.len() && text.is_char_boundary(d.span.start));
        let _ = file.line_col(d.span.end);
    }
}

/// Rust-ish text built from the tokens tool code is made of, so the
/// analyser sees deep nesting, half-written macros and odd patterns.
fn rustish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("fn call(&self, args: Value) -> String {".to_string()),
        Just("impl Tool for X {".to_string()),
        Just("#[tool(name = \"a.b\", description = \"d\")]".to_string()),
        Just("async fn f(&self, Parameters(A { x, y: _y }): Parameters<A>) {".to_string()),
        Just("json!({\"name\": n, \"inputSchema\": {\"type\": \"object\"".to_string()),
        Just("match args[\"k\"].as_str() { Some(\"a\") => 1, _ => 0 }".to_string()),
        Just("args.get(\"k\").and_then(|v| v.as_u64()).unwrap_or(9)".to_string()),
        Just("x.min(MAX).clamp(A, B)".to_string()),
        Just("s.truncate(MAX); &s[..LIMIT]".to_string()),
        Just("format!(\"{}:{}\", a, b)".to_string()),
        Just("serde_json::from_str(&c.arguments).unwrap_or_default()".to_string()),
        Just("if f == \"md\" { a } else if f == \"x\" { b } else { c }".to_string()),
        Just("Tool::new(NAME, \"d\", schema_for!(T))".to_string()),
        Just("let x = ".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just(";".to_string()),
        "\\PC{0,4}".prop_map(|s| s),
    ];
    prop::collection::vec(token, 0..48).prop_map(|v| v.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn rust_analysis_never_panics(text in rustish()) {
        let file = Arc::new(SourceFile::new("lib.rs".into(), "lib.rs".into(), text.as_str()));
        let tree = toolaudit::rust::parse(&file.text).unwrap();
        let targets: Vec<_> = TARGETS.iter().collect();
        let ids: Vec<&str> = TARGETS.iter().map(|t| t.id).collect();
        for all in [false, true] {
            let cx = Context { targets: &targets, named_targets: &ids, explicit: &[], all, truncation_markers: &[], tool_budget: 1 };
            let rules: Vec<_> = REGISTRY.iter().collect();
            let facts = toolaudit::rust::analyze::analyze(&file, tree.root_node(), &cx, &rules);
            let mut k = toolaudit::rust::link::link(vec![facts], "crate:t", &|_| false, false, false);
            let mut out = toolaudit::link::findings(&mut k, all);
            for e in REGISTRY {
                e.rule.check_unit(&cx, &k, &mut out);
                for t in &k.tools {
                    e.rule.check_tool(&cx, &t.def, &mut out);
                }
            }
            for d in &out {
                assert!(d.span.end <= d.file.text.len());
                let _ = d.file.line_col(d.span.end);
            }
        }
    }

    #[test]
    fn json_parser_never_panics(text in "\\PC*") {
        let _ = json::parse(&text);
    }

    #[test]
    fn yaml_parser_never_panics(text in "\\PC*") {
        let _ = yaml::parse(&text);
    }

    #[test]
    fn toml_parser_never_panics(text in "\\PC*") {
        let _ = toml::parse(&text);
    }

    /// TOML tool tables with schemas as tables or as JSON text in strings,
    /// checked by every rule: spans stay inside the file.
    #[test]
    fn tomlish_input_never_panics_anywhere(
        name in "[a-z._:/ -]{0,12}",
        schema in schemaish(),
        literal in any::<bool>(),
    ) {
        let quoted = if literal {
            format!("'''\n{schema}\n'''")
        } else {
            format!("\"{}\"", schema.replace('\\', "\\\\").replace('"', "\\\""))
        };
        let text = format!("[[tools]]\nname = \"{name}\"\ndescription = \"d\"\ninput_schema = {quoted}\n");
        if let Ok(Some(doc)) = toml::parse(&text) {
            check_all(&text, &[doc]);
        }
    }

    #[test]
    fn jsonish_input_never_panics_anywhere(text in jsonish()) {
        if let Ok(doc) = json::parse(&text) {
            let docs: Vec<_> = doc.into_iter().collect();
            check_all(&text, &docs);
        }
        if let Ok(docs) = yaml::parse(&text) {
            check_all(&text, &docs);
        }
    }

    #[test]
    fn any_schema_is_checked_without_panicking(schema in schemaish()) {
        let text = format!(r#"{{"tools": [{{"name": "t", "inputSchema": {schema}}}]}}"#);
        if let Ok(Some(doc)) = json::parse(&text) {
            check_all(&text, &[doc]);
        }
    }

    #[test]
    fn any_tool_name_is_checked_without_panicking(name in "\\PC{0,200}") {
        let text = serde_json::json!({"tools": [
            {"name": name, "inputSchema": {}},
            {"name": format!("{name}_"), "inputSchema": {}},
            {"name": name, "inputSchema": {}},
        ]}).to_string();
        let docs: Vec<_> = json::parse(&text).unwrap().into_iter().collect();
        check_all(&text, &docs);
    }
}

/// Deeply nested TOML (arrays, inline tables, dotted keys) is refused with a
/// message, not a stack overflow.
#[test]
fn deeply_nested_toml_is_refused_with_a_message() {
    let n = 100_000;
    let dir = super::util::write_tree(&[
        (
            "arrays.toml",
            &format!("a = {}{}\n", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "tables.toml",
            &format!("a = {}1{}\n", "{b = ".repeat(n), "}".repeat(n)),
        ),
        ("keys.toml", &format!("a{} = 1\n", ".a".repeat(n))),
    ]);
    let out = super::util::bin()
        .timeout(std::time::Duration::from_secs(120))
        .args(["scan", "--no-config", "--color", "never"])
        .arg(dir.path())
        .assert()
        .code(0);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    for f in ["arrays.toml", "tables.toml", "keys.toml"] {
        assert!(
            stderr.contains(f) && stderr.contains("invalid TOML"),
            "{f}: {stderr}"
        );
    }
}

/// Deeply nested Rust (parentheses, blocks, `if`s, a `json!` array) is
/// analysed without overflowing the stack.
#[test]
fn deeply_nested_rust_is_survived() {
    let n = 20_000;
    let text = format!(
        "fn call(&self, args: Value) {{ let x = {}args{}; match x {{ \"a\" => 1, _ => 0 }}; json!({}{}); {}{} }}\n",
        "(".repeat(n),
        ")".repeat(n),
        "[".repeat(n),
        "]".repeat(n),
        "if a {".repeat(n),
        "}".repeat(n),
    );
    let dir = super::util::crate_with(&[("src/lib.rs", &text)]);
    super::util::bin()
        .timeout(std::time::Duration::from_secs(120))
        .args(["scan", "--color", "never"])
        .arg(dir.path())
        .assert()
        .code(0);
}
