//! SARIF 2.1.0 (errata 01). One run; `rules[]` carries each enabled rule's
//! documentation; a taxonomy holds the families M1…P and every rule and
//! result points at its family; regions are 1-based with code-point columns;
//! URIs are relative to `%SRCROOT%` (the project root); fingerprints survive
//! line shifts.

use std::path::Path;

use serde_json::{Value, json};

use super::{LAZY, Report, artifact, dir_uri, fingerprints_with_suppressed, help_uri, write_lazy};
use crate::model::{Diagnostic, Severity};
use crate::rules::FAMILIES;
use crate::source::{SourceFile, Span};

pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const TAXONOMY: &str = "toolaudit-families";

/// GitHub code scanning rejects runs with more than 25,000 results; stay
/// well below and say so when findings are left out.
pub const MAX_RESULTS: usize = 20_000;
const FINGERPRINT_KEY: &str = "toolaudit/v1";

/// SARIF levels have the same names as toolaudit's severities.
fn level(s: Severity) -> &'static str {
    s.as_str()
}

fn family_ref(family: &str) -> Value {
    let index = FAMILIES.iter().position(|f| f.id == family).unwrap_or(0);
    json!({"id": family, "index": index, "toolComponent": {"name": TAXONOMY, "index": 0}})
}

fn artifact_location(r: &Report, path: &Path) -> Value {
    let (uri, relative) = artifact(r, path);
    if relative {
        json!({"uri": uri, "uriBaseId": "%SRCROOT%"})
    } else {
        json!({"uri": uri})
    }
}

/// Regions larger than this carry no snippet: a whole tool object of a
/// minified manifest would otherwise be copied into every result.
const MAX_SNIPPET: usize = 1024;

fn location(r: &Report, file: &SourceFile, span: Span) -> Value {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    let mut region = json!({
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": end.column,
    });
    if span.end.saturating_sub(span.start) <= MAX_SNIPPET {
        region["snippet"] = json!({"text": file.slice(span)});
    }
    json!({
        "artifactLocation": artifact_location(r, &file.path),
        "region": region,
    })
}

fn result(r: &Report, d: &Diagnostic, rule_index: usize, family: &str, fingerprint: &str) -> Value {
    let mut text = d.message.clone();
    if let Some(h) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(h);
    }
    let related: Vec<Value> = d
        .secondary
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "id": i + 1,
                "message": {"text": l.message},
                "physicalLocation": location(r, &l.file, l.span),
            })
        })
        .collect();
    let mut properties = json!({"family": family});
    if let Some(t) = &d.tool {
        properties["tool"] = json!(t);
    }
    if let Some(p) = &d.pointer {
        properties["toolPointer"] = json!(p);
    }
    let mut res = json!({
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": {"text": text},
        "locations": [{"physicalLocation": location(r, &d.file, d.span)}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "taxa": [family_ref(family)],
        "properties": properties,
    });
    if !related.is_empty() {
        res["relatedLocations"] = Value::Array(related);
    }
    res
}

/// The notice for findings left out of the SARIF file by [`MAX_RESULTS`].
pub fn cap_message(left_out: usize) -> String {
    format!(
        "{left_out} less severe findings were left out of this SARIF file: GitHub code scanning \
         accepts at most 25,000 results per run and toolaudit writes at most {MAX_RESULTS}; \
         narrow the scan (--select, --diff-base) or record existing findings with `toolaudit baseline`"
    )
}

pub fn render(r: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let version = env!("CARGO_PKG_VERSION");
    let rules: Vec<Value> = r
        .rules
        .iter()
        .map(|e| {
            let m = e.meta();
            let fam = e.family();
            json!({
                "id": e.code,
                "name": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": e.doc_section("What it does").unwrap_or(&m.summary)},
                "help": {"text": e.docs, "markdown": e.docs},
                "helpUri": help_uri(e.code),
                "defaultConfiguration": {"level": level(m.severity)},
                "properties": {"tags": [fam.id, fam.title], "precision": "very-high"},
                "relationships": [{"target": family_ref(fam.id), "kinds": ["subset"]}],
            })
        })
        .collect();
    let (fps, suppressed_fps) = fingerprints_with_suppressed(r);
    // Over the cap, keep the most severe findings (then report order).
    let mut order: Vec<usize> = (0..r.scan.diagnostics.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(r.scan.diagnostics[i].severity));
    order.truncate(MAX_RESULTS);
    order.sort_unstable();
    let left_out = r.scan.diagnostics.len() - order.len();
    let results = order.iter().filter_map(|&i| {
        let d = &r.scan.diagnostics[i];
        let index = r.rules.iter().position(|e| e.code == d.code)?;
        Some(result(r, d, index, &r.rules[index].meta().family, &fps[i]))
    });
    // Suppressed results stay in the file, marked, so code scanning shows
    // them as dismissed instead of reopening them.
    let room = if r.show_suppressed {
        MAX_RESULTS.saturating_sub(order.len())
    } else {
        0
    };
    let suppressed_left_out = if r.show_suppressed {
        r.scan.suppressed.len().saturating_sub(room)
    } else {
        0
    };
    let suppressed = r
        .scan
        .suppressed
        .iter()
        .zip(&suppressed_fps)
        .take(room)
        .filter_map(|((d, why), fp)| {
            let index = r.rules.iter().position(|e| e.code == d.code)?;
            let mut res = result(r, d, index, &r.rules[index].meta().family, fp);
            res["suppressions"] = json!([{
                "kind": if why.in_source() { "inSource" } else { "external" },
                "justification": why.justification(),
            }]);
            Some(res)
        });
    let mut notifications: Vec<Value> = r
        .scan
        .notifications
        .iter()
        .map(|n| {
            let mut v = json!({"level": level(n.level), "message": {"text": n.message}});
            if let Some(p) = &n.path {
                let mut loc = json!({"artifactLocation": artifact_location(r, Path::new(p))});
                if let Some(l) = n.line {
                    loc["region"] = json!({"startLine": l});
                }
                v["locations"] = json!([{"physicalLocation": loc}]);
            }
            v
        })
        .collect();
    if left_out > 0 {
        notifications.push(json!({
            "level": "warning",
            "message": {"text": cap_message(left_out)},
        }));
    }
    if suppressed_left_out > 0 {
        notifications.push(json!({
            "level": "warning",
            "message": {"text": format!(
                "{suppressed_left_out} suppressed findings were left out of this SARIF file: \
                 with them it would hold more than {MAX_RESULTS} results"
            )},
        }));
    }
    let taxa: Vec<Value> = FAMILIES
        .iter()
        .map(|f| json!({"id": f.id, "name": f.title, "shortDescription": {"text": f.description}}))
        .collect();
    let log = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolaudit",
                "version": version,
                "semanticVersion": version,
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
                "supportedTaxonomies": [{"name": TAXONOMY, "index": 0}],
            }},
            "taxonomies": [{
                "name": TAXONOMY,
                "version": version,
                "shortDescription": {"text": "toolaudit rule families: how a tool call goes wrong silently"},
                "isComprehensive": true,
                "taxa": taxa,
            }],
            "automationDetails": {"id": format!("{}/", r.category)},
            "invocations": [{
                "executionSuccessful": !r.scan.had_errors(),
                "toolExecutionNotifications": notifications,
            }],
            "originalUriBaseIds": {"%SRCROOT%": {"uri": dir_uri(&r.root)}},
            "columnKind": "unicodeCodePoints",
            "results": LAZY,
        }],
    });
    write_lazy(&log, results.chain(suppressed), out)
}
