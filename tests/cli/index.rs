//! `kanon index stats|query|match`: what a person reads.

use crate::common::{ok, p, small_index};

#[test]
fn index_stats_query_and_match_read_well() {
    let (_dir, _, _, index) = small_index(300, 11);
    insta::assert_snapshot!("index_stats", ok(&["index", "stats", "--index", p(&index)]));
    let query = ok(&[
        "index",
        "query",
        "--index",
        p(&index),
        "United States",
        "AMERICAN",
        "Nowhere At All",
    ]);
    insta::assert_snapshot!("index_query", query);
    let text = "Zoë Ölund, an American actor born in Lyon on 5 May 1990.";
    insta::assert_snapshot!(
        "index_match",
        ok(&["index", "match", "--index", p(&index), "--text", text])
    );
}

#[test]
fn query_intersection_is_the_count_of_people_sharing_all_terms() {
    let (_dir, _, _, index) = small_index(300, 11);
    let out = ok(&["index", "query", "--index", p(&index), "American", "actor"]);
    let counts: Vec<u64> = out
        .lines()
        .map(|l| {
            l.rsplit(": ")
                .next()
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(counts.len(), 3, "{out}");
    assert!(counts[2] <= counts[0].min(counts[1]), "{out}");
    assert!(out.lines().last().unwrap().starts_with("intersection: "));
}
