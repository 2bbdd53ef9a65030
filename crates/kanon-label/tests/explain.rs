//! The risk report in words (`kanon label explain`), as snapshots over the hand-built index.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod common;

use kanon_label::explain::explain;

#[test]
fn explains_rare_and_combination_masks_and_kept_terms() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    // k = 3: "Lilian Albano" is hers alone and "Albano" inside it is shared by 2 (rare); 1961 and
    // chemist are shared by only 2 people, and chemist has the shorter list; Marrowgate and 1961 are
    // kept (3 people share both).
    let text = "Lilian Albano was born in Marrowgate in 1961 and worked as a chemist. She retired in 1961.";
    let labeled = common::label(&index, "bio-17", "Q1", text, &common::config(3));
    assert_eq!(labeled.report.masked.len(), 3);
    insta::assert_snapshot!("rare_combination_and_kept", explain(&labeled.report));
}

#[test]
fn explains_a_document_without_terms() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    let text = "The weather was mild all week, and the harbour was quiet.";
    let labeled = common::label(&index, "bio-18", "Q2", text, &common::config(3));
    assert!(labeled.report.terms.is_empty());
    insta::assert_snapshot!("no_terms", explain(&labeled.report));
}

#[test]
fn explains_a_document_whose_terms_are_all_masked() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    let text = "Zoë Ølund, a glassblower from Marrowgate, was born in November 1961.";
    let labeled = common::label(&index, "bio-19", "Q3", text, &common::config(10));
    assert_eq!(labeled.report.k_reached, None);
    insta::assert_snapshot!("all_masked", explain(&labeled.report));
}
