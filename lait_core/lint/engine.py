"""Lint files and texts: the one entry point shared by `lait lint`, stdin linting and the language server.

Config discovery (a deliberate change from the original, which searched from the current
directory only): in search mode each file is checked against the nearest ``lait.config.yml`` above
*the file*, so ``lait lint examples/`` from a repository root uses ``examples/lait.config.yml``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lait_core.documents.agent_file import parse_agent
from lait_core.documents.config_file import (
    ConfigDocument,
    ConfigMode,
    LoadedConfig,
    find_project_config,
    global_config_file,
    load_config,
    load_config_file,
    parse_config,
)
from lait_core.documents.foreign_formats import spec_of
from lait_core.documents.skill_file import parse_skill
from lait_core.documents.workflow_file import parse_workflow
from lait_core.lint.baseline import Baseline, BaselineError
from lait_core.lint.baseline import load as load_baseline
from lait_core.lint.checks.agents import check_agent_body, check_agent_content
from lait_core.lint.checks.config import check_config
from lait_core.lint.checks.workflows import WorkflowChecks
from lait_core.lint.discovery import (
    YAML_KINDS,
    FileKind,
    discover,
    file_kind,
    lait_kind,
    registered_kind,
    yaml_kind,
)
from lait_core.lint.findings import config_absent, finish, skipped_last, workflow_findings
from lait_core.lint.selection import RulePolicy, Selection, resolve
from lait_core.lint.workspace import Workspace, canonical
from lait_core.rules.capabilities.names_not_checked import SkipTracker, skipped_diagnostic
from lait_core.rules.files.unknown_file_type import CODE as UNKNOWN_FILE_TYPE
from lait_core.rules.files.unreadable_file import CODE as UNREADABLE_FILE
from lait_core.support.gcpause import freeze_survivors, paused_gc
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.positions import ZERO


@dataclass(slots=True)
class LintOptions:
    mode: ConfigMode = ConfigMode.SEARCH
    config_path: Path | None = None
    environ: dict[str, str] | None = None
    selection: Selection | None = None
    """`--select/--extend-select/--ignore` (over each config's `lint:` section)."""
    baseline: Path | None = None
    """`--baseline FILE` (instead of a config's `lint.baseline`)."""
    jobs: int = 1
    """Processes that may lint files at once (`lait lint --jobs`); see :mod:`lait_core.lint.parallel`."""
    batch: bool = False
    """A one-shot run over many files (`lait lint`): what each file's lint leaves is frozen for the
    garbage collector (:func:`lait_core.support.gcpause.freeze_survivors`)."""


@dataclass(slots=True)
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == Severity.WARNING)


@dataclass(slots=True)
class LintResult:
    reports: list[FileReport] = field(default_factory=list)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for r in self.reports for d in r.diagnostics]

    @property
    def errors(self) -> int:
        return sum(r.errors for r in self.reports)

    @property
    def warnings(self) -> int:
        return sum(r.warnings for r in self.reports)


class Linter:
    """Holds the configs and workspaces of one run (an editor keeps one for the session)."""

    def __init__(
        self, options: LintOptions | None = None, *, reader: Callable[[Path], Loaded] | None = None
    ) -> None:
        self.options = options or LintOptions()
        self.reader = reader
        self._configs: dict[str, LoadedConfig] = {}
        self._workspaces: dict[str, Workspace] = {}
        self._policies: dict[str, tuple[RulePolicy, Baseline | None]] = {}
        self._project_configs: dict[str, Path | None] = {}
        """The project config found from each folder (batch runs and snapshots, see :meth:`_project_config`)."""
        self._snapshots = 0
        """How many :meth:`snapshot` blocks are open."""
        self.baselined = 0
        """Findings left out because the baseline records them."""
        self.baseline_problems: list[str] = []
        """Config baselines that could not be read (each named once)."""
        self._baseline = load_baseline(self.options.baseline) if self.options.baseline else None
        """Raises :class:`BaselineError` for an unreadable `--baseline FILE`."""

    def invalidate(self, path: Path | None = None) -> None:
        """Forget cached configs (when ``path`` is a config or None) and cached documents."""
        if path is None or file_kind(path) is FileKind.CONFIG or self._is_config(path):
            self._configs.clear()
            self._workspaces.clear()
            self._policies.clear()
            self._project_configs.clear()
            return
        for ws in self._workspaces.values():
            ws.invalidate(path)

    def _is_config(self, path: Path) -> bool:
        """``path`` is a config file though not named lait.config.yml: the global config
        (``$XDG_CONFIG_HOME/lait/config.yml``) or one this linter loaded (``--config FILE``)."""
        here = os.path.normpath(os.path.abspath(path))
        glob = global_config_file(self.options.mode, self.options.environ)
        return here == glob or here in self.config_files()

    # -- configuration ------------------------------------------------------------------------
    def config_for(self, path: Path) -> LoadedConfig:
        opts = self.options
        if opts.mode is ConfigMode.SEARCH:
            found = self._project_config(path.parent if path.suffix or not path.is_dir() else path)
            key = str(found) if found else ""
        else:
            key = f"<{opts.mode.value}>"
        loaded = self._configs.get(key)
        if loaded is None:
            start = path.parent
            loaded = load_config(
                opts.mode,
                start=start,
                explicit=opts.config_path,
                environ=opts.environ,
                reader=self.reader or read_source,
            )
            self._configs[key] = loaded
        return loaded

    def _project_config(self, start: Path) -> Path | None:
        """:func:`find_project_config` from ``start``; a batch run (``LintOptions.batch``) walks up
        from each folder once (it was about 6% of a lint's CPU: three walks per file). An editor's
        linter always looks again, as a config file may appear without its being told, except
        within one workspace lint (:meth:`snapshot`)."""
        if not self.options.batch and not self._snapshots:
            return find_project_config(start)
        key = str(start)
        if key not in self._project_configs:
            self._project_configs[key] = find_project_config(start)
        return self._project_configs[key]

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Within, a batch's shortcuts for one lint of many files (an editor's workspace pull, see
        docs/performance.md): each folder's project config is looked for once and each folder is
        resolved once (:func:`~lait_core.lint.workspace.resolved_folders`, in this thread only), as
        if no config appeared and no folder moved during it. They are forgotten at the end."""
        from lait_core.lint.workspace import resolved_folders

        self._snapshots += 1
        try:
            with resolved_folders():
                yield
        finally:
            self._snapshots -= 1
            if not self._snapshots and not self.options.batch:
                self._project_configs.clear()

    def workspace_for(self, path: Path) -> Workspace:
        loaded = self.config_for(path)
        key = loaded.project.path if loaded.project else f"<{self.options.mode.value}>"
        ws = self._workspaces.get(key)
        if ws is None:
            ws = Workspace(
                loaded if all(d.ok for d in loaded.documents) else _broken(loaded), reader=self.reader
            )
            self._workspaces[key] = ws
        return ws

    def policy_for(self, path: Path) -> tuple[RulePolicy, Baseline | None]:
        """The rule selection and severities (command line over the config's `lint:` section) and the
        baseline that govern ``path``."""
        loaded = self.config_for(path)
        key = loaded.project.path if loaded.project else f"<{self.options.mode.value}>"
        found = self._policies.get(key)
        if found is None:
            settings = getattr(loaded.config, "lint", None)
            baseline = self._baseline
            name = getattr(settings, "baseline", None)
            if baseline is None and name:
                where = loaded.folder(Path.cwd()) / name
                try:
                    baseline = load_baseline(where)
                except BaselineError as exc:
                    if str(exc) not in self.baseline_problems:
                        self.baseline_problems.append(str(exc))
            found = (resolve(self.options.selection, settings), baseline)
            self._policies[key] = found
        return found

    def govern(self, diags: list[Diagnostic], text: str | None, path: Path) -> list[Diagnostic]:
        """``diags`` of the file at ``path`` under its rule policy and baseline."""
        policy, baseline = self.policy_for(path)
        if not policy.trivial:
            diags = policy.apply(diags)
        if baseline is not None:
            diags, matched = baseline.filter(diags, text, str(path))
            self.baselined += matched
        return diags

    def foreign_enabled(self, path: Path) -> bool:
        return bool(getattr(getattr(self.config_for(path).config, "lint", None), "foreign", True))

    def loaded_configs(self) -> dict[str, LoadedConfig]:
        """The configs loaded so far, by project config path ("" or ``<mode>``: no project file)."""
        return dict(self._configs)

    def config_files(self) -> list[str]:
        """The config files this linter has loaded (global and project), absolute."""
        return sorted(
            {os.path.abspath(d.path) for loaded in self._configs.values() for d in loaded.documents}
        )

    def config_reports(self) -> dict[str, FileReport]:
        """Reports for every config file this run used (their parse errors and config-level checks)."""
        reports: dict[str, FileReport] = {}
        for loaded in self._configs.values():
            for doc in loaded.documents:
                key = canonical(Path(doc.path))
                if key not in reports:
                    diags = self.govern(self._config_diagnostics(doc), doc.source.text, Path(doc.path))
                    reports[key] = FileReport(_display(doc.path), diags)
        return reports

    @staticmethod
    def _config_diagnostics(doc: ConfigDocument) -> list[Diagnostic]:
        diags = list(doc.diagnostics)
        if doc.ok:
            diags += check_config(doc)
        return finish(diags, doc.source.text, _display(doc.path))

    # -- files --------------------------------------------------------------------------------
    def lint_text(self, text: str, path: Path, kind: FileKind | None = None) -> list[Diagnostic]:
        """Diagnostics of one file's text (suppressions applied, sorted, attributed to ``path``)."""
        with paused_gc():  # see lait_core.support.gcpause: collections during a lint only rescan the heap
            return self.govern(self._lint_text(text, path, kind), text, path)

    def _lint_text(self, text: str, path: Path, kind: FileKind | None) -> list[Diagnostic]:
        kind = kind or self.kind_of(path)
        if kind is FileKind.WORKFLOW:
            kind = yaml_kind(path, text)
        display = _display(str(path))
        if kind is FileKind.CONFIG:
            doc = parse_config(text, display)
            diags = list(doc.diagnostics)
            if doc.ok:
                diags += check_config(doc)
            return finish(diags, text, display)
        ws = self.workspace_for(path)
        skip = SkipTracker()
        diags = []
        if kind is FileKind.WORKFLOW:
            return workflow_findings(parse_workflow(text, display), path, WorkflowChecks(ws, skip))
        elif kind is FileKind.AGENT:
            agent = parse_agent(text, display)
            diags = list(agent.diagnostics)
            if agent.ok:
                check_agent_body(agent, diags)
                check_agent_content(agent.front, "the agent", path.parent, ws.config, diags, skip)
                from lait_core.rules.agents.context_budget import check_budget

                loaded = ws.loaded_config
                check_budget(
                    agent,
                    ws.config,
                    loaded.folder(path.parent) if loaded else path.parent,
                    diags,
                    self.reader,
                )
        elif kind is FileKind.SKILL:
            diags = list(parse_skill(text, display).diagnostics)
        elif kind is FileKind.FOREIGN and not self.foreign_enabled(path):
            return []  # `lint: {foreign: false}`
        elif kind is FileKind.FOREIGN and spec_of(path) is not None:
            from lait_core.lint.foreign_check import check_foreign

            spec = spec_of(path)
            assert spec is not None
            diags = check_foreign(text, path, spec, reader=self.reader)
        elif kind in (FileKind.TEST, FileKind.EVAL):
            from lait_core.rules.testfiles.checks import check_file

            diags = check_file(text, path, display, kind, ws)
        else:
            diags = [
                Diagnostic(
                    UNKNOWN_FILE_TYPE,
                    f"cannot determine the file type of '{display}'; expected a '.yml'/'.yaml' workflow file,"
                    " a '.md' agent file or lait.config.yml",
                    ZERO,
                )
            ]
        if skip.skipped and config_absent(ws) and kind is not FileKind.FOREIGN:
            diags.append(skipped_diagnostic())
        return skipped_last(finish(diags, text, display, markdown=kind not in YAML_KINDS))

    def kind_of(self, path: Path) -> FileKind:
        """The file's kind by name, with a Markdown file registered under ``skills:`` a skill."""
        first = file_kind(path)
        config = self.workspace_for(path).config if first in (FileKind.AGENT, FileKind.FOREIGN) else None
        return registered_kind(path, config.skills if config else None, config.agents if config else None)

    def lint_file(self, path: Path) -> FileReport:
        display = _display(str(path))
        kind = self.kind_of(path)
        if kind is FileKind.UNKNOWN and path.exists():
            return FileReport(display, self.lint_text("", path, kind))
        ws = self.workspace_for(path)
        loaded = ws.read(path)
        if loaded.text is None and loaded.problem is not None and loaded.problem.code == UNREADABLE_FILE:
            return FileReport(display, [loaded.problem.at(display)])
        if loaded.text is None:
            assert loaded.problem is not None
            return FileReport(display, [loaded.problem.at(display)])
        if kind is FileKind.CONFIG:
            return FileReport(display, [])  # reported once, by config_reports()
        return FileReport(display, self.lint_text(loaded.text, path, kind))

    def lint_file_of_batch(self, path: Path) -> FileReport:
        """:meth:`lint_file`, then what it left frozen for the collector (``LintOptions.batch``)."""
        report = self.lint_file(path)
        freeze_survivors()
        return report

    def is_lait_file(self, path: Path) -> bool:
        """Whether ``path`` is a lait file by content (see :func:`lait_kind`); for `--only-lait-files`."""
        loaded = (self.reader or read_source)(path)
        if loaded.text is None:
            return False
        config = self.workspace_for(path).config
        workflows = config.workflows if config else {}
        agents = config.agents if config else {}
        skills = config.skills if config else {}
        return lait_kind(path, loaded.text, workflows=workflows, agents=agents, skills=skills) is not None

    def lint_paths(
        self,
        paths: list[str],
        *,
        only_lait_files: bool = False,
        lint_file: Callable[[Path], FileReport] | None = None,
    ) -> LintResult:
        """Lint files and directories. With ``only_lait_files`` (the pre-commit hook), files that are
        not lait files by content are skipped instead of reported, even when named explicitly.
        ``lint_file`` replaces :meth:`lint_file` for each file (an editor's per-file cache)."""
        result = LintResult()
        found_configs: list[Path] = []
        todo: list[Path] = []
        for p in discover(paths):
            path = Path(p)
            if file_kind(path) is FileKind.CONFIG:
                found_configs.append(path)
                continue
            if only_lait_files and not self.is_lait_file(path):
                continue
            if file_kind(path) is FileKind.FOREIGN and not self.foreign_enabled(path):
                continue
            todo.append(path)
        result.reports = self._lint_files(todo, lint_file)
        used = self.config_reports()
        for path in found_configs:
            key = canonical(path)
            if key not in used:
                doc = load_config_file(path)
                diags = self.govern(self._config_diagnostics(doc), doc.source.text, path)
                used[key] = FileReport(_display(str(path)), diags)
        result.reports = list(used.values()) + result.reports
        return result

    def _lint_files(
        self, paths: list[Path], lint_file: Callable[[Path], FileReport] | None
    ) -> list[FileReport]:
        from lait_core.lint.parallel import worker_count

        workers = worker_count(len(paths), self.options.jobs) if lint_file is None else 1
        if lint_file is None and self.options.batch:
            with self.snapshot():  # a batch run is one snapshot from its first file to its last
                if workers == 1:
                    return [self.lint_file_of_batch(path) for path in paths]
                return self._lint_in_pool(paths, workers)
        if workers == 1:
            return [(lint_file or self.lint_file)(path) for path in paths]
        return self._lint_in_pool(paths, workers)

    def _lint_in_pool(self, paths: list[Path], workers: int) -> list[FileReport]:
        from lait_core.lint.parallel import lint_in_pool

        for path in paths:  # configs and policies load here, in the order a serial run loads them
            self.workspace_for(path)
            self.policy_for(path)
        return list(lint_in_pool(self, paths, workers))


def _broken(loaded: LoadedConfig) -> LoadedConfig:
    """A config with errors: its own report says so; other files skip name checks quietly."""
    return LoadedConfig(loaded.config, present=False, project=loaded.project, global_doc=loaded.global_doc)


def _display(path: str) -> str:
    if not os.path.isabs(path):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def lint_paths(paths: list[str], options: LintOptions | None = None) -> LintResult:
    return Linter(options).lint_paths(paths)
