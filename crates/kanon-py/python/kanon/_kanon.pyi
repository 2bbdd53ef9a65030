# The native module's types (crates/kanon-py/src/lib.rs). Values cross as JSON text; the
# package's __init__ turns them into dicts and lists.
from typing import List, Optional

__version__: str

class Detector:
    @staticmethod
    def load(model: str, config_json: Optional[str] = None) -> "Detector": ...
    def detect_json(self, texts: List[str]) -> str: ...

class Sanitizer:
    def __init__(self, settings_json: Optional[str] = None) -> None: ...
    @property
    def strategy(self) -> str: ...
    def sanitize_json(
        self, texts: List[str], spans_json: str, ids: Optional[List[str]] = None
    ) -> str: ...

def run(config: str, out: Optional[str] = None) -> str: ...
