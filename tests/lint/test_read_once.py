"""A cold run with the cache on reads and keys each document once, and the digest lint
computed is the one every target's header carries."""

from __future__ import annotations

import hashlib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from sample_documents import DOOR, HEADER, document

from generator.cache.store import Cache
from generator.lint.files import lint_files, settings_for
from generator.load.config import Config
from generator.load.discover import discover
from generator.load.source import BOM, SourceText, decode
from generator.model.document import source_sha256
from generator.targets import document_sha256


class CountingCache(Cache):
    """The real cache, counting the documents it was asked to key."""

    def __init__(self, root: Path, max_file_size: int) -> None:
        super().__init__(root, max_file_size=max_file_size)
        self.keyed: list[bytes] = []

    def key(self, data: bytes) -> str:
        self.keyed.append(data)
        return super().key(data)


def _corpus(root: Path, count: int) -> Config:
    for index in range(count):
        header = HEADER.replace("DOR-001\ntitle", f"DOR-{index:03d}\ntitle")
        text = document(DOOR, header=header)
        if index % 2:  # a BOM and CRLF line ends: bytes the decoded text must rebuild
            data = (BOM + text.replace("\n", "\r\n")).encode("utf-8")
        else:
            data = text.replace("Door", "Dör").encode("utf-8")
        (root / "specs").mkdir(exist_ok=True)
        (root / "specs" / f"d{index}.md").write_bytes(data)
    return Config(root=root, specs=(root / "specs",), out=root / "out")


def test_a_cold_cached_run_keys_each_document_once(tmp_path: Path) -> None:
    config = _corpus(tmp_path, 6)
    files = discover([], config, cwd=config.root)
    settings = settings_for(config)
    for options in ({}, {"keep_documents": True, "reuse": True}):  # lint; generate's lint
        store = CountingCache(tmp_path / str(len(options)), config.max_file_size)
        cold = lint_files(files, settings, cache=store, **options)  # type: ignore[arg-type]
        assert sorted(store.keyed) == sorted(Path(f.path).read_bytes() for f in files)
        store.keyed.clear()
        warm = lint_files(files, settings, cache=store, **options)  # type: ignore[arg-type]
        assert len(store.keyed) == len(files)
        assert warm.findings == cold.findings
        assert [r.facts for r in warm.results] == [r.facts for r in cold.results]


def test_documents_from_lint_carry_the_digest_of_their_bytes(tmp_path: Path) -> None:
    config = _corpus(tmp_path, 4)
    files = discover([], config, cwd=config.root)
    for cache in (None, Cache(tmp_path, max_file_size=config.max_file_size)):
        run = lint_files(files, settings_for(config), cache=cache, keep_documents=True, reuse=True)
        for spec, result in zip(files, run.results, strict=True):
            assert result.document is not None
            digest = hashlib.sha256(Path(spec.path).read_bytes()).hexdigest()
            assert result.sha256 == digest
            assert document_sha256(result.document.source) == digest
            fresh = SourceText(result.document.source.text, result.document.source.had_bom)
            assert document_sha256(fresh) == digest  # rebuilt, not only remembered


@given(st.text(), st.booleans())
def test_the_digest_rebuilt_from_decoded_text_is_the_bytes_digest(text: str, bom: bool) -> None:
    data = ((BOM if bom else "") + text).encode("utf-8")  # st.text() draws no surrogates
    source = decode(data)
    assert source_sha256(source) == hashlib.sha256(data).hexdigest()
    assert source_sha256(source) == source_sha256(SourceText(source.text, source.had_bom))
