"""lait.config.yml: discovery, the global file, strict loading and the merge rules.

* Search mode walks from the start directory upward; the first directory holding a regular file
  named ``lait.config.yml`` wins. The global ``$XDG_CONFIG_HOME/lait/config.yml`` (or
  ``~/.config/lait/config.yml``) is layered below it.
* ``--config PATH`` reads exactly PATH and never the global file; ``--no-config`` reads nothing.
* Registry paths (``workflows:``/``agents:``/``skills:``) are joined onto the directory of the
  file that defined them right after parsing, before merging.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from lait_core.documents.config_discovery import CONFIG_NAME as CONFIG_NAME  # re-exported: config's names
from lait_core.documents.config_discovery import ConfigError as ConfigError
from lait_core.documents.config_discovery import find_project_config as find_project_config
from lait_core.documents.config_discovery import global_config_path as global_config_path
from lait_core.documents.document_models import (
    ApprovalSettings,
    Config,
    DefaultSettings,
    ModelMap,
    ToolPolicy,
)
from lait_core.documents.validate import Codes, validate_mapping
from lait_core.rules.config.config_invalid_value import CODE as CONFIG_INVALID_VALUE
from lait_core.rules.config.config_unknown_key import CODE as CONFIG_UNKNOWN_KEY
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode, SourceText

CODES = Codes(unknown=CONFIG_UNKNOWN_KEY, invalid=CONFIG_INVALID_VALUE)


class ConfigMode(Enum):
    SEARCH = "search"
    EXPLICIT = "explicit"
    DISABLED = "disabled"


@dataclass(slots=True)
class ConfigDocument:
    """One parsed config file (project or global)."""

    path: str
    source: SourceText
    root: MappingNode | None = None
    model: Config | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.model is not None


def parse_config(text: str, path: str = CONFIG_NAME) -> ConfigDocument:
    source = SourceText(text, path)
    doc = ConfigDocument(path, source)
    parsed = parse_yaml(text, path, source=source)
    doc.diagnostics.extend(parsed.problems)
    if not parsed.ok:
        return doc
    root = parsed.root
    if root is None or (isinstance(root, ScalarNode) and root.value is None):
        doc.model = Config()
        return doc
    doc.model = validate_mapping(root, Config, CODES, doc.diagnostics, where="lait.config.yml")
    if isinstance(root, MappingNode):
        doc.root = root
    if doc.diagnostics:
        doc.model = None
    return doc


def load_config_file(path: Path, reader: Callable[[Path], Loaded] = read_source) -> ConfigDocument:
    loaded = reader(path)
    if loaded.text is None:
        doc = ConfigDocument(str(path), SourceText("", str(path)))
        assert loaded.problem is not None
        doc.diagnostics.append(loaded.problem)
        return doc
    doc = parse_config(loaded.text, str(path))
    if doc.model is not None:
        doc.model = resolve_registry_paths(doc.model, path.parent)
    return doc


def resolve_registry_paths(config: Config, base: Path) -> Config:
    """Join `workflows:`/`agents:`/`skills:` values onto the defining file's directory."""

    def join(values: dict[str, str]) -> dict[str, str]:
        # Absolute, so a relative --config path is not joined twice by the code that opens them.
        root = base.absolute()
        return {k: v if os.path.isabs(v) else os.path.normpath(str(root / v)) for k, v in values.items()}

    return config.model_copy(
        update={
            "workflows": join(config.workflows),
            "agents": join(config.agents),
            "skills": join(config.skills),
            "models": resolve_gguf_paths(config.models, base),
        }
    )


def gguf_path(value: str, base: Path) -> Path:
    """Where a `provider.gguf` value points: `~` expanded, relative to ``base``."""
    expanded = os.path.expanduser(value)
    return Path(expanded if os.path.isabs(expanded) else os.path.normpath(str(base / expanded)))


def resolve_gguf_paths(models: ModelMap, base: Path) -> ModelMap:
    """Join every relative `provider.gguf` of a `models:` map onto the defining file's directory
    (a workflow's embedded `models:` use the workflow's directory)."""
    out: ModelMap = {}
    for alias, definitions in models.items():
        joined = []
        for d in definitions:
            if d.provider.gguf is not None:
                path = gguf_path(d.provider.gguf, base)
                provider = d.provider.model_copy(update={"gguf": str(path)})
                d = d.model_copy(update={"provider": provider})
            joined.append(d)
        out[alias] = joined
    return out


def global_config_file(mode: ConfigMode, environ: dict[str, str] | None = None) -> str:
    """The global config's absolute, normalised path when configs are searched for (the only mode
    that reads it); '' in the other modes or without a home directory."""
    if mode is not ConfigMode.SEARCH:
        return ""
    try:
        return os.path.normpath(os.path.abspath(global_config_path(environ)))
    except ConfigError:
        return ""


def merge(low: Config, high: Config, high_set: set[str]) -> Config:
    """Layer ``high`` (a file whose explicitly set keys are ``high_set``) over ``low``."""
    default_fields = {
        name: getattr(high.default, name)
        if name in high.default.model_fields_set
        else getattr(low.default, name)
        for name in DefaultSettings.model_fields
    }
    jev = low.jev.model_copy(update={k: getattr(high.jev, k) for k in high.jev.model_fields_set})
    if {"api_key", "api_key_cmd"} & high.jev.model_fields_set:
        jev = jev.model_copy(update={"api_key": high.jev.api_key, "api_key_cmd": high.jev.api_key_cmd})
    if {"api_key", "api_key_cmd"} & high_set:
        api_key, api_key_cmd = high.api_key, high.api_key_cmd
    else:
        api_key, api_key_cmd = low.api_key, low.api_key_cmd
    return Config.model_construct(
        base_url=high.base_url if "base_url" in high_set else low.base_url,
        api_key=api_key,
        api_key_cmd=api_key_cmd,
        default=DefaultSettings.model_construct(**default_fields),
        models={**low.models, **high.models},
        mcp_servers={**low.mcp_servers, **high.mcp_servers},
        skills={**low.skills, **high.skills},
        agents={**low.agents, **high.agents},
        prompts={**low.prompts, **high.prompts},
        workflows={**low.workflows, **high.workflows},
        tool_policy=ToolPolicy.model_construct(
            allow=[*low.tool_policy.allow, *high.tool_policy.allow],
            deny=[*low.tool_policy.deny, *high.tool_policy.deny],
        ),
        tools={**low.tools, **high.tools},
        jev=jev,
        # confinement only tightens: a global `confine: project` holds whatever a project says
        confine="project"
        if "project" in (low.confine, high.confine)
        else (high.confine if "confine" in high_set else low.confine),
        approvals=ApprovalSettings.model_construct(
            read_only=[
                *low.approvals.read_only,
                *(s for s in high.approvals.read_only if s not in low.approvals.read_only),
            ]
        ),
        serve=low.serve.model_copy(update={k: getattr(high.serve, k) for k in high.serve.model_fields_set}),
        lint=low.lint.model_copy(update={k: getattr(high.lint, k) for k in high.lint.model_fields_set}),
    )


@dataclass(slots=True)
class LoadedConfig:
    """The merged configuration and the files it came from."""

    config: Config
    present: bool
    """A project file was found or given, or (search mode) the global file exists."""
    project: ConfigDocument | None = None
    global_doc: ConfigDocument | None = None

    @property
    def display(self) -> str:
        return self.project.path if self.project else CONFIG_NAME

    def folder(self, default: Path) -> Path:
        """The folder of the project config in use (absolute), else ``default``: relative registry
        paths, MCP ``cwd`` values and a run's config-relative files resolve against it."""
        return Path(self.project.path).absolute().parent if self.project is not None else default

    @property
    def documents(self) -> list[ConfigDocument]:
        return [d for d in (self.global_doc, self.project) if d is not None]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d.at(doc.path) for doc in self.documents for d in doc.diagnostics]


def load_config(
    mode: ConfigMode = ConfigMode.SEARCH,
    *,
    start: Path | None = None,
    explicit: Path | None = None,
    environ: dict[str, str] | None = None,
    reader: Callable[[Path], Loaded] = read_source,
) -> LoadedConfig:
    """Load the configuration as the CLI does. Invalid files are returned with diagnostics."""
    if mode is ConfigMode.DISABLED:
        return LoadedConfig(Config.model_construct(), present=False)
    project_path: Path | None
    if mode is ConfigMode.EXPLICIT:
        assert explicit is not None
        project_path = explicit
    else:
        project_path = find_project_config(start or Path.cwd())
    global_doc: ConfigDocument | None = None
    if mode is ConfigMode.SEARCH:
        gpath = global_config_path(environ)
        if gpath.is_file():
            global_doc = load_config_file(gpath, reader)
    project = load_config_file(project_path, reader) if project_path is not None else None
    config = Config.model_construct()  # the defaults: nothing to validate
    for doc in (global_doc, project):
        if doc is not None and doc.model is not None:
            config = merge(config, doc.model, set(doc.model.model_fields_set))
    return LoadedConfig(
        config, present=project is not None or global_doc is not None, project=project, global_doc=global_doc
    )
