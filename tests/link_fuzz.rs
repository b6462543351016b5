//! The share-link decoder under 100,000+ hostile inputs: random text, random
//! bytes behind each prefix, and valid links with bytes flipped, cut or
//! repeated. It must return an error or a valid scenario, never panic.

use hwscope::link::{decode, encode, LinkError};
use proptest::prelude::*;

fn valid_fragments() -> &'static [String] {
    static FRAGMENTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FRAGMENTS.get_or_init(|| {
        // Each built-in as it is (a `z` link) and changed a little (a `b` link, compressed
        // against the built-in's own text).
        hwscope::builtin::BUILTINS
            .iter()
            .flat_map(|(_, json)| {
                let s = hwscope::Scenario::from_json(json).unwrap();
                let mut changed = s.clone();
                changed.stop_at_ms += 1;
                [encode(&s, Some(7), Some("00ff00ff00ff00ff")), encode(&changed, Some(7), None)]
            })
            .collect()
    })
}

fn check(input: &str) -> Result<(), TestCaseError> {
    match decode(input) {
        Ok(link) => prop_assert!(link.scenario.validate().is_ok()),
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(s in ".{0,300}") {
        check(&s)?;
    }

    #[test]
    fn random_payloads_never_panic(kind in prop::sample::select(vec!["j", "z", "x", "", "b", "bkafka-7128.", "bkafka-7128.XYOg", "belr.p4ri"]), body in "[A-Za-z0-9_\\-]{0,400}", extra in "(&at=[0-9a-z]{0,25})?(&h=[0-9a-fA-F]{0,20})?") {
        check(&format!("v=1&s={kind}{body}{extra}"))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 30_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn damaged_links_never_panic(which in 0usize..64, cut in 0usize..4000, flip in 0usize..4000, byte in 32u8..127, repeat in 0usize..3) {
        let frags = valid_fragments();
        prop_assert!(frags.iter().any(|f| f.starts_with("v=1&s=b")), "no `b` link among the fragments");
        let mut f = frags[which % frags.len()].clone().into_bytes();
        if !f.is_empty() {
            let i = flip % f.len();
            f[i] = byte;
            f.truncate(cut.max(1).min(f.len()));
        }
        let mut s = String::from_utf8_lossy(&f).into_owned();
        for _ in 0..repeat {
            s = s.clone() + &s;
        }
        check(&s)?;
    }
}

#[test]
fn hostile_links_get_clear_messages() {
    let huge = format!("v=1&s=j{}", "A".repeat(1 << 20));
    assert!(matches!(decode(&huge), Err(LinkError::TooLong(_))));
    let title = r#"{"format":1,"title":"<script>alert(1)</script>"}"#;
    let s = hwscope::Scenario::from_json(title).unwrap();
    let link = decode(&encode(&s, None, None)).unwrap();
    assert_eq!(link.scenario.title, "<script>alert(1)</script>", "text is carried as text, never interpreted");
    let e = decode("v=1&s=j&at=99999999999999999999999").unwrap_err().to_string();
    assert!(e.contains("not valid") || e.contains("`at`") || e.contains("`s`"), "{e}");
}
