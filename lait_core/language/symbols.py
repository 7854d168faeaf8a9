"""Go to definition, find references and rename over a project's lait files.

A :class:`Project` answers for one document (the editor's text) and looks at the files around it:
the open documents plus the lait files under the governing lait.config.yml's directory (walked
with :func:`lait_core.lint.discovery.discover`, re-walked after a few seconds). Files are read
through the linter's reader, so an editor's unsaved buffers win over the disk; each file's index
is cached until its text changes.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from lait_core.documents.document_models import IDENTIFIER
from lait_core.language.index import (
    FILE_SCOPED,
    FileIndex,
    FileLink,
    Hit,
    Namespace,
    Occurrence,
    SymbolKey,
    build_index,
    normpath,
    with_key_occurrences,
)
from lait_core.lint.discovery import FileKind, discover, file_kind, yaml_kind
from lait_core.lint.engine import Linter
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.frontmatter import starts_with_frontmatter
from lait_core.syntax.positions import LineIndex, Position, Range
from lait_core.syntax.yaml.scalar_values import resolve_plain

RESCAN_SECONDS = 3.0
"""How long a directory walk is reused before the project is walked again."""
MAX_FILES = 5000
"""At most this many files of a project directory are considered."""

_IDENTIFIER = re.compile(IDENTIFIER)
_JQ_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_TOP_STEPS = re.compile(r"^steps\s*:", re.MULTILINE)
TEST_KINDS = (FileKind.TEST, FileKind.EVAL)


@dataclass(frozen=True, slots=True)
class Document:
    """A file as the editor sees it."""

    path: Path
    text: str
    kind: FileKind


@dataclass(frozen=True, slots=True)
class Location:
    path: str
    range: Range
    index: LineIndex = field(compare=False, repr=False)
    """The target file's line index (to convert ``range`` to UTF-16)."""


@dataclass(frozen=True, slots=True)
class Edit:
    range: Range
    new_text: str


@dataclass(frozen=True, slots=True)
class FileEdits:
    path: str
    index: LineIndex = field(compare=False, repr=False)
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True, slots=True)
class RenameTarget:
    key: SymbolKey
    range: Range
    """The exact range of the name under the cursor."""

    @property
    def name(self) -> str:
        return self.key.name


class RenameError(Exception):
    """The rename cannot be done (the message says why, for the person asking)."""


class Project:
    """Names across the lait files of the projects an editor has open."""

    def __init__(self, linter: Linter, *, reader: Callable[[Path], Loaded] | None = None) -> None:
        self.linter = linter
        self.reader = reader or linter.reader or read_source
        self._files: dict[str, FileIndex] = {}
        self._walks: dict[str, tuple[float, list[str]]] = {}
        self._configs: dict[str, tuple[float, str]] = {}
        self.rescan_seconds = RESCAN_SECONDS
        """How long a directory walk is trusted; infinite when the editor reports file changes
        (:meth:`forget` is called for each)."""

    def forget(self, path: str | Path | None = None) -> None:
        """A file was created, changed or deleted: walk the directories again and re-read it."""
        self._walks.clear()
        self._configs.clear()
        if path is None:
            self._files.clear()
        else:
            self._files.pop(normpath(str(path)), None)

    # -- files --------------------------------------------------------------------------------
    def config_path(self, path: Path | str) -> str:
        """Absolute path of the lait.config.yml governing ``path`` ('' when there is none)."""
        p = Path(path)
        if file_kind(p) is FileKind.CONFIG or self.is_global(str(p)):
            return normpath(str(p))
        directory = normpath(str(p.parent))
        now = time.monotonic()
        cached = self._configs.get(directory)
        if cached is not None and now - cached[0] < self.rescan_seconds:
            return cached[1]
        try:
            project = self.linter.config_for(p).project
            found = normpath(project.path) if project is not None else ""
        except Exception:
            found = ""
        self._configs[directory] = (now, found)
        return found

    def index(self, doc: Document) -> FileIndex:
        """The index of an editor document (cached while its text is unchanged)."""
        return self._cached(normpath(str(doc.path)), doc.text, doc.kind)

    def _cached(self, path: str, text: str, kind: FileKind) -> FileIndex:
        config = self.config_path(path)
        hit = self._files.get(path)
        if hit is not None and hit.text == text and hit.kind is kind and hit.config == config:
            return hit
        return self.install(build_index(path, text, kind, config))

    def pending(self, doc: Document) -> str | None:
        """None when the index of ``doc`` is cached; else the config path to build it with
        (:func:`build_index`, which is pure, so it may run on another thread; then :meth:`install`)."""
        path = normpath(str(doc.path))
        config = self.config_path(path)
        hit = self._files.get(path)
        if hit is not None and hit.text == doc.text and hit.kind is doc.kind and hit.config == config:
            return None
        return config

    def install(self, index: FileIndex) -> FileIndex:
        """Cache an index made by :func:`build_index` (the names it leaves to the project resolved)."""
        if index.named_children and index.config and index.config != index.path:
            self._resolve_children(index, index.config)
        self._files[index.path] = index
        return index

    def _resolve_children(self, index: FileIndex, config: str) -> None:
        """``with:`` keys of steps calling a child workflow by its registered name."""
        cfg = self.index_path(config, FileKind.CONFIG)
        if cfg is None:
            return
        base = os.path.dirname(config)
        registry: dict[str, str] = {}
        for occ in cfg.occurrences:
            raw = getattr(occ.value, "value", None)
            if occ.definition and occ.key.namespace is Namespace.WORKFLOW and isinstance(raw, str) and raw:
                registry[occ.key.name] = os.path.join(base, raw)
        for name, node in index.named_children:
            child = registry.get(name)
            if child is not None:
                index.occurrences.extend(with_key_occurrences(node, child))

    def read(self, path: str) -> str | None:
        try:
            return self.reader(Path(path)).text
        except Exception:
            return None

    def index_path(self, path: str, kind: FileKind | None = None) -> FileIndex | None:
        """The index of a file read through the reader (kind from its name unless given)."""
        text = self.read(path)
        if text is None:
            return None
        return self._cached(normpath(path), text, kind or file_kind(path))

    def _walk(self, directory: str) -> list[str]:
        now = time.monotonic()
        cached = self._walks.get(directory)
        if cached is not None and now - cached[0] < self.rescan_seconds:
            return cached[1]
        found: list[str] = []
        try:
            for p in discover([directory]):
                found.append(normpath(p))
                if len(found) >= MAX_FILES:
                    break
        except OSError:
            pass
        self._walks[directory] = (now, found)
        return found

    def files(self, doc: Document, open_docs: Iterable[Document] = ()) -> list[FileIndex]:
        """``doc``, the open documents and the lait files under its config's directory that share its
        config."""
        here = self.index(doc)
        config = here.config
        out: dict[str, FileIndex] = {here.path: here}
        for other in open_docs:
            path = normpath(str(other.path))
            if path not in out and self.config_path(path) == config:
                out[path] = self.index(other)
        if not config:
            return list(out.values())
        if config not in out:
            cfg = self.index_path(config, FileKind.CONFIG)
            if cfg is not None:
                out[config] = cfg
        registered: set[str] = set()
        cfg_index = out.get(config)
        if cfg_index is not None:
            registered = {link.target for link in cfg_index.links}
        agents: list[str] = []
        for path in self._walk(os.path.dirname(config)):
            if path in out or self.config_path(path) != config:
                continue
            kind = file_kind(path)
            if kind is FileKind.WORKFLOW:
                text = self.read(path)
                if text is not None and (path in registered or _TOP_STEPS.search(text)):
                    out[path] = self._cached(path, text, kind)
                elif text is not None and (found := yaml_kind(path, text)) in TEST_KINDS:
                    out[path] = self._cached(path, text, found)
            elif kind is FileKind.AGENT:
                agents.append(path)
        linked = {link.target for index in out.values() for link in index.links}
        for path in agents:
            if path in registered or path in linked or os.path.basename(os.path.dirname(path)) == "agents":
                text = self.read(path)
                if text is not None and starts_with_frontmatter(text):
                    out[path] = self._cached(path, text, FileKind.AGENT)
        return list(out.values())

    # -- lookups ------------------------------------------------------------------------------
    def hit(self, doc: Document, pos: Position) -> Hit | None:
        """The name or file link at ``pos`` in ``doc``."""
        return self.index(doc).at(pos)

    def scope_index(self, doc: Document, key: SymbolKey) -> FileIndex | None:
        """The index of the file defining ``key``'s names."""
        if not key.scope:
            return None
        here = self.index(doc)
        if here.path == key.scope:
            return here
        return self.index_path(key.scope)

    def definitions(self, doc: Document, key: SymbolKey) -> list[Occurrence]:
        scope = self.scope_index(doc, key)
        found = scope.definitions(key) if scope is not None else []
        if not found and key.namespace not in FILE_SCOPED:  # a name only the global config defines
            glob = self.global_config(doc)
            if glob is not None:
                found = [
                    o
                    for o in glob.occurrences
                    if o.definition and o.key.namespace is key.namespace and o.key.name == key.name
                ]
        return found

    def global_config(self, doc: Document) -> FileIndex | None:
        """The index of the global config layered below ``doc``'s project config (None without one)."""
        try:
            loaded = self.linter.config_for(Path(doc.path))
        except Exception:
            return None
        if loaded.global_doc is None or not loaded.global_doc.path:
            return None
        return self.index_path(loaded.global_doc.path, FileKind.CONFIG)

    def global_path(self) -> str:
        """The global config's path (``$XDG_CONFIG_HOME/lait/config.yml``) when the linter searches
        for configs ('' otherwise)."""
        from lait_core.documents.config_file import global_config_file

        options = self.linter.options
        return global_config_file(options.mode, options.environ)

    def is_global(self, path: str) -> bool:
        glob = self.global_path()
        return bool(glob) and normpath(path) == glob

    def global_index(self) -> FileIndex | None:
        """The index of the global config when it exists (workspace symbols list its names)."""
        path = self.global_path()
        if not path or not os.path.isfile(path):
            return None
        return self.index_path(path, FileKind.CONFIG)

    def global_uses(
        self, key: SymbolKey, roots: Sequence[str], open_docs: Iterable[Document] = ()
    ) -> list[tuple[FileIndex, Occurrence]]:
        """The places under ``roots`` (and in open documents) that name the global config's ``key``
        and resolve to it (their project does not define the name)."""
        from lait_core.lint.discovery import lait_kind

        out: list[tuple[FileIndex, Occurrence]] = []
        glob = self.global_path()
        paths: dict[str, FileKind | None] = {normpath(str(d.path)): d.kind for d in open_docs}
        for root in roots:
            try:
                for count, raw in enumerate(discover([root])):
                    if count >= MAX_FILES:
                        break
                    paths.setdefault(normpath(raw), None)
            except OSError:
                continue
        shadowed: dict[tuple[str, str], bool] = {}
        for path, known in sorted(paths.items()):
            if path == glob:
                continue
            text = self.read(path)
            if text is None:
                continue
            kind = known or lait_kind(Path(path), text)
            if kind is None or kind in (FileKind.UNKNOWN, FileKind.SKILL):
                continue
            index = self._cached(path, text, kind)
            for o in index.occurrences:
                if o.definition or o.key.namespace is not key.namespace or o.key.name != key.name:
                    continue
                scope_key = (o.key.scope, key.name)
                if scope_key not in shadowed:
                    scope = self.index_path(o.key.scope) if o.key.scope else None
                    shadowed[scope_key] = scope is not None and bool(scope.definitions(o.key))
                if not shadowed[scope_key]:
                    out.append((index, o))
        return out

    def global_definitions(self, doc: Document, key: SymbolKey) -> tuple[FileIndex, list[Occurrence]] | None:
        """When ``key`` (named in ``doc``) is defined by the global config and not by ``doc``'s
        project: the global config's index and every occurrence of the name there (the definition
        first). None otherwise (a project definition shadows the global one, as the merge does)."""
        if key.namespace in FILE_SCOPED:
            return None
        scope = self.scope_index(doc, key)
        if scope is not None and scope.definitions(key):
            return None
        glob = self.global_config(doc)
        if glob is None or glob.path == normpath(str(doc.path)):
            return None
        found = [o for o in glob.occurrences if o.key.namespace is key.namespace and o.key.name == key.name]
        if not any(o.definition for o in found):
            return None
        found.sort(key=lambda o: (not o.definition, o.range.start))
        return glob, found

    def occurrences(
        self,
        doc: Document,
        key: SymbolKey,
        open_docs: Iterable[Document] = (),
        roots: Sequence[str] = (),
    ) -> list[tuple[FileIndex, Occurrence]]:
        """Every occurrence of ``key``: in its own file for file-scoped names, else project-wide. A
        name the global config defines, asked from the global config: its occurrences there and the
        uses under ``roots`` that resolve to it."""
        here = self.index(doc)
        if key.namespace not in FILE_SCOPED and key.scope == here.path and self.is_global(here.path):
            open_docs = list(open_docs)
            found = [(here, o) for o in here.occurrences if o.key == key]
            found += self.global_uses(key, roots, open_docs)
            found.sort(key=lambda t: (t[0].path, t[1].range.start))
            return found
        if key.namespace in FILE_SCOPED or (key.scope and key.scope != here.config):
            scope = self.scope_index(doc, key)
            files = [scope] if scope is not None else [here]
            if scope is not None and scope.path != here.path:
                files.append(here)  # a test file naming its workflow's step
            if key.namespace is Namespace.INPUT:  # a caller's `with:` keys name a child's inputs
                known = {f.path for f in files}
                files += [f for f in self.files(doc, open_docs) if f.path not in known]
            if key.namespace is Namespace.STEP and scope is not None:  # test and eval files naming it
                known = {f.path for f in files}
                files += [
                    f for f in self.files(doc, open_docs) if f.kind in TEST_KINDS and f.path not in known
                ]
        else:
            files = self.files(doc, open_docs)
        out: list[tuple[FileIndex, Occurrence]] = []
        for index in files:
            out.extend((index, o) for o in index.occurrences if o.key == key)
        out.sort(key=lambda t: (t[0].path, t[1].range.start))
        return out

    # -- the features -------------------------------------------------------------------------
    def definition(self, doc: Document, pos: Position) -> list[Location]:
        """Where the name at ``pos`` is defined (a file link: the file itself)."""
        hit = self.hit(doc, pos)
        if hit is None:
            return []
        if isinstance(hit, FileLink):
            text = self.read(hit.target)
            if text is None:
                return []
            return [Location(hit.target, Range.at(0, 0), LineIndex(text))]
        here = self.index(doc)
        out = []
        for d in self.definitions(doc, hit.key):
            scope = here if here.path == d.key.scope else self.scope_index(doc, d.key)
            if scope is not None:
                out.append(Location(scope.path, d.range, scope.source.index))
        return out

    def references(
        self,
        doc: Document,
        pos: Position,
        *,
        include_declaration: bool = True,
        open_docs: Iterable[Document] = (),
        roots: Sequence[str] = (),
    ) -> list[Location]:
        """Every place the name at ``pos`` occurs (definitions only when ``include_declaration``).
        ``roots``: the workspace folders (searched for the uses of a global config name)."""
        hit = self.hit(doc, pos)
        if not isinstance(hit, Occurrence):
            return []
        found = self.occurrences(doc, hit.key, open_docs, roots)
        glob = self.global_definitions(doc, hit.key)
        if glob is not None:  # a name only the global config defines: its places there too
            found += [(glob[0], o) for o in glob[1]]
        return [
            Location(index.path, o.range, index.source.index)
            for index, o in found
            if include_declaration or not o.definition
        ]

    def rename_refusal(self, doc: Document, key: SymbolKey) -> str | None:
        """Why the name ``key`` cannot be renamed from ``doc`` (None when it can).

        Decision: a name that only the global config defines is not renamed from a project file. The
        global config is shared by every project on the machine; renaming the definition there would
        break the projects this editor does not see, and renaming only this project's references
        would break this one. The message says where the definition is, so it can be renamed there
        on purpose (or defined in the project's lait.config.yml, which then wins)."""
        glob = self.global_definitions(doc, key)
        if glob is None:
            return None
        index, found = glob
        start = found[0].range.start
        return (
            f"{key.namespace} '{key.name}' is defined in the global config {index.path}:{start.line + 1}:"
            f"{start.character + 1}, which every project shares; change it there by hand, or define '{key.name}'"
            " in this project's lait.config.yml"
        )

    def prepare_rename(self, doc: Document, pos: Position) -> RenameTarget | None:
        hit = self.hit(doc, pos)
        if not isinstance(hit, Occurrence):
            return None
        return RenameTarget(hit.key, hit.range)

    def rename(
        self,
        doc: Document,
        pos: Position,
        new_name: str,
        open_docs: Sequence[Document] = (),
        roots: Sequence[str] = (),
    ) -> list[FileEdits]:
        """The edits renaming the name at ``pos`` everywhere it occurs. Raises :class:`RenameError`."""
        target = self.prepare_rename(doc, pos)
        if target is None:
            raise RenameError(
                "there is no step id, input, schema, agent, model alias, prompt variable or registry name here"
            )
        key = target.key
        refusal = self.rename_refusal(doc, key)
        if refusal is not None:
            raise RenameError(refusal)
        check_name(key.namespace, new_name)
        if new_name == key.name:
            return []
        found = self.occurrences(doc, key, open_docs, roots)
        scope = self.scope_index(doc, key)
        clash = replace(key, name=new_name)
        if scope is not None and scope.definitions(clash):
            raise RenameError(f"{key.namespace} '{new_name}' is already defined")
        if "-" in new_name and any(o.jq_field for _i, o in found):
            raise RenameError(
                f"'{new_name}' cannot follow '${'steps' if key.namespace is Namespace.STEP else 'inputs'}.' in jq"
                " (a '-' is not allowed there); use letters, digits and '_'"
            )
        by_file: dict[str, tuple[FileIndex, list[Edit]]] = {}
        for index, o in found:
            edits = by_file.setdefault(index.path, (index, []))[1]
            edit = Edit(o.range, new_name)
            if edit not in edits:
                edits.append(edit)
        return [
            FileEdits(path, index.source.index, tuple(edits))
            for path, (index, edits) in sorted(by_file.items())
        ]


def check_name(namespace: Namespace, name: str) -> None:
    """Raise :class:`RenameError` unless ``name`` is a valid new name in ``namespace``."""
    if namespace in FILE_SCOPED:
        if not _IDENTIFIER.match(name):
            raise RenameError(
                f"'{name}' is not a valid {namespace} name: use a letter or '_' followed by letters, digits,"
                " '_' or '-'"
            )
    elif not _NAME.match(name):
        raise RenameError(f"'{name}' is not a valid {namespace} name: use letters, digits, '_', '-' and '.'")
    if not isinstance(resolve_plain(name), str):
        raise RenameError(f"'{name}' would be read by YAML as {resolve_plain(name)!r}, not as a name")


def jq_identifier(name: str) -> bool:
    return bool(_JQ_IDENTIFIER.match(name))
