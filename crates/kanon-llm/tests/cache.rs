//! The on-disk response cache: reruns answer from disk, keys cover every request field, damage is named.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_llm::{CachedModel, ChatModel, ChatRequest, Error, Message, ScriptedModel};

fn scripted() -> ScriptedModel {
    ScriptedModel::new("canned")
        .reply("Paris", "1. France\n2. Europe")
        .fallback("unknown")
}

fn requests() -> Vec<ChatRequest> {
    let base = ChatRequest::new(vec![
        Message::system("Answer briefly."),
        Message::user("Where is Paris?"),
    ]);
    vec![
        base.clone(),
        base.clone().n(3),
        base.clone().temperature(0.7),
        base.clone().top_p(0.9),
        base.clone().max_tokens(8),
        base.clone().stop(vec!["\n".into()]),
        base.clone().seed(42),
        base.clone().logprobs(true),
        ChatRequest::new(vec![Message::user("Where is Oslo?")]),
    ]
}

#[test]
fn a_rerun_makes_no_model_calls() {
    let dir = tempfile::tempdir().unwrap();
    let first = CachedModel::new(scripted(), dir.path()).unwrap();
    let answers: Vec<_> = requests().iter().map(|r| first.chat(r).unwrap()).collect();
    // Every field is part of the key: nine different requests, nine calls.
    assert_eq!(first.inner().calls(), 9);
    assert_eq!(first.stats().misses, 9);

    // A new process, in effect: a fresh model and a fresh cache object over the same directory.
    let rerun = CachedModel::new(scripted(), dir.path()).unwrap();
    let again: Vec<_> = requests().iter().map(|r| rerun.chat(r).unwrap()).collect();
    assert_eq!(again, answers);
    assert_eq!(rerun.inner().calls(), 0);
    assert_eq!(rerun.stats().hits, 9);
    assert_eq!(rerun.stats().misses, 0);
    assert_eq!(rerun.id(), scripted().id());
}

#[test]
fn another_model_does_not_share_answers() {
    let dir = tempfile::tempdir().unwrap();
    let request = &requests()[0];
    CachedModel::new(scripted(), dir.path())
        .unwrap()
        .chat(request)
        .unwrap();
    let other = CachedModel::new(ScriptedModel::new("other").fallback("x"), dir.path()).unwrap();
    assert_eq!(other.chat(request).unwrap().choices[0].text, "x");
    assert_eq!(other.inner().calls(), 1);
}

#[test]
fn a_corrupt_entry_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cached = CachedModel::new(scripted(), dir.path()).unwrap();
    let request = &requests()[0];
    cached.chat(request).unwrap();
    let path = cached.entry_path(request).unwrap();
    assert!(path.starts_with(dir.path()) && path.is_file());

    std::fs::write(&path, b"{\"format\": 1, \"trunc").unwrap();
    let err = cached.chat(request).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("corrupt"), "{message}");

    // An entry that answers some other request is refused too.
    let other_path = cached.entry_path(&requests()[1]).unwrap();
    cached.chat(&requests()[1]).unwrap();
    std::fs::copy(&other_path, &path).unwrap();
    assert!(
        cached
            .chat(request)
            .unwrap_err()
            .to_string()
            .contains("different request")
    );

    // Deleting the file is the fix.
    std::fs::remove_file(&path).unwrap();
    cached.chat(request).unwrap();
}

#[test]
fn errors_are_not_cached_and_no_temporary_files_remain() {
    let dir = tempfile::tempdir().unwrap();
    let cached = CachedModel::new(ScriptedModel::new("strict"), dir.path()).unwrap();
    let request = ChatRequest::new(vec![Message::user("nothing matches")]);
    assert!(matches!(cached.chat(&request), Err(Error::NoScript { .. })));
    assert!(!cached.entry_path(&request).unwrap().exists());

    let cached = CachedModel::new(scripted(), dir.path()).unwrap();
    for request in requests() {
        cached.chat(&request).unwrap();
    }
    let files: Vec<_> = walk(dir.path());
    assert_eq!(files.len(), 9);
    assert!(
        files
            .iter()
            .all(|f| f.extension().is_some_and(|e| e == "json")),
        "{files:?}"
    );
}

#[test]
fn non_finite_parameters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cached = CachedModel::new(scripted(), dir.path()).unwrap();
    let request = requests()[0].clone().temperature(f32::NAN);
    assert!(matches!(
        cached.chat(&request),
        Err(Error::InvalidRequest(_))
    ));
}

#[test]
fn threads_share_one_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cached = CachedModel::new(scripted(), dir.path()).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for request in requests() {
                    cached.chat(&request).unwrap();
                }
            });
        }
    });
    let stats = cached.stats();
    assert_eq!(stats.hits + stats.misses, 36);
    assert!(stats.misses >= 9);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
