//! A `b` share link is compressed against a built-in's text as the hwscope that wrote it
//! had it (docs/format.md). Links outlive versions, so every text a link may have been
//! written against is kept in `tests/regressions/link-texts.tsv`, and each must still open:
//! as the built-in's text now, or as a superseded text in `src/link_superseded.tsv`.

use hwscope::link::{builtin_dictionary, decode, dict_check, kept_texts, SUPERSEDED};

const ISSUED: &str = include_str!("regressions/link-texts.tsv");

fn lines(text: &str) -> Vec<(&str, &str, &str)> {
    let rows: Vec<_> = kept_texts(text).collect();
    for (name, check, text) in &rows {
        assert!(dict_check(text) == *check, "{name}: a line whose check {check} is not its text's");
    }
    rows
}

/// Each built-in's text as links are written against it now is on the list.
#[test]
fn every_builtin_text_a_link_is_written_against_is_kept() {
    let issued = lines(ISSUED);
    let missing: Vec<String> = hwscope::builtin::names()
        .filter_map(|name| {
            let (check, text) = builtin_dictionary(name)?;
            (!issued.iter().any(|(n, c, _)| *n == name && *c == check)).then(|| format!("{name}\t{check}\t{text}"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "links are now written against a built-in text not yet kept: append these lines to \
         tests/regressions/link-texts.tsv (and keep the built-in's previous line, below)\n{}",
        missing.join("\n")
    );
}

/// Every text a link may name still opens: a link written against it decodes to the same
/// scenario. A built-in whose text changed keeps its old text in src/link_superseded.tsv.
#[test]
fn every_kept_text_still_opens() {
    let superseded = lines(SUPERSEDED);
    let mut lost = Vec::new();
    for (name, check, text) in lines(ISSUED) {
        let current = builtin_dictionary(name).is_some_and(|(c, _)| c == check);
        if !current && !superseded.iter().any(|(n, c, t)| *n == name && *c == check && *t == text) {
            lost.push(format!("{name}\t{check}\t{text}"));
            continue;
        }
        // A link whose stream is one back-reference to the whole text decodes to it.
        let stream = [&[1u8][..], &varint(text.len()), &varint(text.len())].concat();
        let link = format!("v=1&s=b{name}.{check}{}", hwscope::link::base64url(&stream));
        let opened = decode(&link).map(|l| hwscope::link::minimal_json(&l.scenario)).map_err(|e| e.to_string());
        assert_eq!(opened.as_deref(), Ok(text), "{name} at check {check}");
    }
    assert!(
        lost.is_empty(),
        "links written against these built-in texts would no longer open: move the lines into \
         src/link_superseded.tsv\n{}",
        lost.join("\n")
    );
}

fn varint(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}
