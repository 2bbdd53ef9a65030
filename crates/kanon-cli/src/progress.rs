//! Progress bars on stderr (hidden when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};
use kanon_core::Progress;

#[derive(Debug)]
pub struct Bars {
    bar: ProgressBar,
}

impl Bars {
    pub fn new() -> Self {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>12} [{bar:30}] {pos}/{len} {per_sec} eta {eta} {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        Bars { bar }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bars {
    fn stage(&self, name: &str, total: u64) {
        self.bar.set_prefix(name.to_owned());
        self.bar.set_length(total);
        self.bar.set_position(0);
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    fn message(&self, message: &str) {
        self.bar.set_message(message.to_owned());
    }
}
