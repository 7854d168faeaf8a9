"""``lait doctor``: is this setup ready to run? (docs/cli.md, docs/mcp.md, docs/config.md)

Every check ends as OK, WARN or NG with a message, and a fix for every WARN and NG:

- ``config``: the config files parse and validate (else NG with the first problems); no config at
  all is a WARN (``lait init`` writes one).
- ``env``: every ``${VAR}`` in a value that expands (base URLs, keys, MCP servers, shell tools,
  ``jev``) names a set variable.
- ``model``: ``default.model`` and every alias resolve to endpoints; no default model is a WARN.
- ``provider``: each endpoint the aliases and the default model use answers ``GET {base_url}/models``
  with its key (``api_key_cmd`` runs): reachable, authenticated, and — ``model-id`` — each configured
  model id is among the models it lists. Nothing listening on a loopback address is a WARN (a local
  server that is not started); on another host, a timeout or a refused key is NG.
- ``local-server``: is something listening on the built-in endpoint (LM Studio's
  ``http://localhost:1234/v1``) and which models it lists (WARN when nothing listens).
- ``embedded``: is llama-cpp-python installed and the built-in GGUF found (WARN, or NG when the
  default model or an alias needs it); every ``provider.gguf`` file exists.
- ``mcp``: each ``mcp_servers:`` entry starts and initializes (and lists its tools).
- ``agents``/``skills``/``workflows``: each registered file exists and parses without errors.
- ``tools``: each shell tool's program is found.

The network and process checks run concurrently, each under ``timeout`` seconds, in one event
loop; a check that overruns is NG ("did not answer within ...") and its processes are stopped.
Heavy modules (httpx, the MCP SDK) are imported when the checks run.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from lait_core.documents.config_file import LoadedConfig
    from lait_core.documents.document_models import Config
    from lait_core.engine.llm.model_resolution import Endpoint

DEFAULT_TIMEOUT = 5.0
"""Seconds each HTTP check may take (an ``api_key_cmd`` too)."""
DEFAULT_MCP_TIMEOUT = 30.0
"""Seconds an MCP server may take to start, initialize and list its tools (``npx`` may fetch)."""
EMBEDDED_FIX = "install it with: python3 -m pip install 'lait[local]'"


class Status(StrEnum):
    OK = "OK"
    WARN = "WARN"
    NG = "NG"


@dataclass(frozen=True, slots=True)
class Check:
    area: str
    """What kind of check: config, env, model, provider, model-id, local-server, embedded, mcp,
    agents, skills, workflows, tools."""
    subject: str
    """What was checked (a file, ``models.local``, ``mcp_servers.notes``, a URL)."""
    status: Status
    message: str
    fix: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "area": self.area,
            "subject": self.subject,
            "status": self.status.value,
            "message": self.message,
            "fix": self.fix,
        }


def ok(area: str, subject: str, message: str) -> Check:
    return Check(area, subject, Status.OK, message)


def warn(area: str, subject: str, message: str, fix: str) -> Check:
    return Check(area, subject, Status.WARN, message, fix)


def ng(area: str, subject: str, message: str, fix: str) -> Check:
    return Check(area, subject, Status.NG, message, fix)


# -- config ----------------------------------------------------------------------------------------
def config_checks(loaded: LoadedConfig, explicit: Path | None, disabled: bool) -> list[Check]:
    if disabled:
        return [ok("config", "--no-config", "no config file is read (--no-config)")]
    out: list[Check] = []
    for doc in loaded.documents:
        errors = [d for d in doc.diagnostics if d.severity == "error"] if doc.diagnostics else []
        if doc.model is None or errors:
            shown = "; ".join(
                f"{d.range.start.line + 1}:{d.range.start.character + 1}: {d.message}" for d in errors[:3]
            )
            more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
            out.append(
                ng(
                    "config",
                    doc.path,
                    f"does not validate: {shown or 'unreadable'}{more}",
                    f"fix the file; `lait lint {doc.path}` shows every problem",
                )
            )
        else:
            out.append(ok("config", doc.path, "parses and validates"))
    if not loaded.present:
        where = str(explicit) if explicit is not None else "the current directory or above"
        out.append(
            warn(
                "config",
                "lait.config.yml",
                f"no lait.config.yml found in {where}; only built-in defaults apply",
                "write one with `lait init`",
            )
        )
    return out


# -- ${VAR} ----------------------------------------------------------------------------------------
def expanding_values(config: Config) -> Iterator[tuple[str, str]]:
    """(where, value) for every config value that ``${VAR}``-expands (docs/config.md)."""
    if config.base_url is not None:
        yield "base_url", config.base_url
    if config.api_key is not None:
        yield "api_key", config.api_key
    for alias, definitions in config.models.items():
        for i, d in enumerate(definitions):
            where = f"models.{alias}[{i}].provider"
            if d.provider.base_url is not None:
                yield f"{where}.base_url", d.provider.base_url
            if d.provider.api_key is not None:
                yield f"{where}.api_key", d.provider.api_key
    for name, server in config.mcp_servers.items():
        where = f"mcp_servers.{name}"
        if server.command is not None:
            yield f"{where}.command", server.command
        for i, arg in enumerate(server.args):
            yield f"{where}.args[{i}]", arg
        for key, value in server.env.items():
            yield f"{where}.env.{key}", value
        if server.cwd is not None:
            yield f"{where}.cwd", server.cwd
        if server.url is not None:
            yield f"{where}.url", server.url
        for key, value in server.headers.items():
            yield f"{where}.headers.{key}", value
    for name, tool in config.tools.items():
        for key, value in tool.env.items():
            yield f"tools.{name}.env.{key}", value
        if tool.cwd is not None:
            yield f"tools.{name}.cwd", tool.cwd
    for key in ("base_url", "api_key"):
        value = getattr(config.jev, key)
        if value is not None:
            yield f"jev.{key}", value


def env_checks(config: Config, environ: Mapping[str, str]) -> list[Check]:
    from lait_core.documents.envvars import EnvVarError, expand, placeholders

    out: list[Check] = []
    count = 0
    for where, value in expanding_values(config):
        try:
            count += len(placeholders(value))
            expand(value, environ)
        except EnvVarError as exc:
            names = ", ".join(p.name for p in _safe_placeholders(value) if p.name not in environ)
            fix = (
                f"set {names} in the environment or in ./.env"
                if names
                else "write the placeholder as ${NAME} (letters, digits and _)"
            )
            out.append(ng("env", where, exc.message, fix))
    if not out:
        text = f"{count} ${{VAR}} reference(s) resolve" if count else "no ${VAR} references"
        out.append(ok("env", "${VAR}", text))
    return out


def _safe_placeholders(value: str) -> list[Any]:
    from lait_core.documents.envvars import EnvVarError, placeholders

    try:
        return placeholders(value)
    except EnvVarError:
        return []


# -- models ----------------------------------------------------------------------------------------
@dataclass(slots=True)
class ModelUse:
    """An endpoint to probe and the model ids expected there."""

    endpoint: Endpoint
    base_url: str
    models: dict[str, str] = field(default_factory=dict)
    """model id -> the alias (or name) that uses it."""


@dataclass(slots=True)
class ModelPlan:
    checks: list[Check]
    uses: dict[tuple[str, str], ModelUse]
    """(base_url, key source) -> what to probe there."""
    needs_embedded: list[str]
    """Names that need the built-in embedded model."""
    gguf_files: dict[str, Path]
    """``models.<alias>[i]`` -> a GGUF file it runs."""


def model_plan(config: Config, environ: Mapping[str, str], model_override: str | None) -> ModelPlan:
    from lait_core.engine.llm.chat_types import ConfigurationError
    from lait_core.engine.llm.model_resolution import resolve_model

    plan = ModelPlan([], {}, [], {})
    names: list[str] = list(config.models)
    default = model_override or config.default.model
    if default is None:
        plan.checks.append(
            warn(
                "model",
                "default.model",
                "no default model: every chat and prompt step needs --model",
                "set 'default.model' in lait.config.yml (an alias from 'models:', a model id, or 'embedded')",
            )
        )
    elif default not in names:
        names.insert(0, default)
    for name in names:
        subject = f"models.{name}" if name in config.models else f"default.model ({name})"
        try:
            resolved = resolve_model(name, config)
        except ConfigurationError as exc:
            plan.checks.append(ng("model", subject, str(exc), "fix the model definition in lait.config.yml"))
            continue
        targets = []
        for i, endpoint in enumerate(resolved.endpoints):
            if endpoint.builtin_model:
                plan.needs_embedded.append(name)
                targets.append("the built-in embedded model")
                continue
            if endpoint.gguf is not None:
                plan.gguf_files[f"models.{name}[{i}]"] = Path(endpoint.gguf)
                targets.append(f"the GGUF file {endpoint.gguf}")
                continue
            try:
                base_url = endpoint.base_url(environ)
            except ConfigurationError:
                targets.append(f"{endpoint.raw_base_url} (unresolved)")
                continue  # the env check reports it
            key = (base_url, repr(endpoint.key))
            use = plan.uses.setdefault(key, ModelUse(endpoint, base_url))
            use.models.setdefault(endpoint.model_id, name)
            targets.append(f"{endpoint.model_id} at {base_url}")
        if default == name:
            subject = f"default.model ({name})" if name not in config.models else f"models.{name} (default)"
        plan.checks.append(ok("model", subject, "resolves to " + ", then ".join(targets)))
    return plan


# -- HTTP probes -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Probe:
    """What ``GET {base_url}/models`` gave."""

    kind: str
    """``ok``, ``refused``, ``timeout``, ``auth``, ``status``, ``error`` or ``key``."""
    detail: str = ""
    models: tuple[str, ...] | None = None
    """The ids listed (None: the answer had no model list)."""


async def probe_models(base_url: str, api_key: str | None, timeout: float) -> Probe:
    from lait_core.engine.llm.wire import PLACEHOLDER_KEY
    from lait_core.support.httpx_import import httpx

    headers = {"Authorization": f"Bearer {api_key or PLACEHOLDER_KEY}"}
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(timeout), follow_redirects=False) as client:
            response = await client.get(f"{base_url}/models", headers=headers)
            body = await response.aread()
    except httpx.ConnectError as exc:
        return Probe("refused", str(exc) or "connection failed")
    except httpx.TimeoutException:
        return Probe("timeout", f"did not answer within {timeout:g}s")
    except httpx.HTTPError as exc:
        return Probe("error", f"{type(exc).__name__}: {exc}")
    if response.status_code in (401, 403):
        return Probe("auth", f"HTTP {response.status_code}")
    if response.status_code != 200:
        return Probe("status", f"HTTP {response.status_code}")
    try:
        import json

        data = json.loads(body[: 4 * 1024 * 1024])
        items = data.get("data") if isinstance(data, dict) else None
        ids = (
            tuple(str(m.get("id")) for m in items if isinstance(m, dict)) if isinstance(items, list) else None
        )
    except ValueError:
        ids = None
    return Probe("ok", "", ids)


def _listed(models: tuple[str, ...]) -> str:
    shown = ", ".join(models[:8])
    return shown + (f" and {len(models) - 8} more" if len(models) > 8 else "")


START_LOCAL = "start the local model server (LM Studio: `lms server start`) or use --model embedded"


def provider_checks(use: ModelUse, probe: Probe, timeout: float) -> list[Check]:
    from lait_core.engine.llm.wire import is_loopback

    url = use.base_url
    local = is_loopback(url)
    if probe.kind == "key":
        return [ng("provider", url, probe.detail, "fix 'api_key' / 'api_key_cmd' (or OPENAI_API_KEY)")]
    if probe.kind == "refused":
        if local:
            return [
                warn(
                    "provider",
                    url,
                    "nothing is listening here (a local model server not started?)",
                    START_LOCAL,
                )
            ]
        return [ng("provider", url, f"cannot connect: {probe.detail}", "check 'base_url' and the network")]
    if probe.kind == "timeout":
        return [
            ng(
                "provider",
                url,
                f"did not answer GET /models within {timeout:g}s",
                "check that the server at this address is an OpenAI-compatible API and is not stuck",
            )
        ]
    if probe.kind == "auth":
        return [
            ng(
                "provider",
                url,
                f"the API key was refused ({probe.detail})",
                "set a valid key: 'api_key' or 'api_key_cmd' in lait.config.yml, or OPENAI_API_KEY",
            )
        ]
    if probe.kind == "status" and probe.detail == "HTTP 404":
        return [
            warn(
                "provider",
                url,
                "reachable, but offers no GET /models: model ids were not checked",
                "nothing to do if chat requests work; otherwise check 'base_url' (it usually ends in /v1)",
            )
        ]
    if probe.kind != "ok":
        return [
            ng(
                "provider",
                url,
                f"GET /models failed: {probe.detail}",
                "check 'base_url' and the server's logs",
            )
        ]
    out = [ok("provider", url, "reachable and the key is accepted")]
    if probe.models is None:
        out.append(
            warn("model-id", url, "GET /models returned no model list: ids not checked", "check 'base_url'")
        )
        return out
    for model_id, name in use.models.items():
        if model_id in probe.models:
            out.append(ok("model-id", f"{name}: {model_id}", f"served by {url}"))
        elif not probe.models:
            out.append(
                warn(
                    "model-id",
                    f"{name}: {model_id}",
                    f"{url} lists no models",
                    "load or download the model in the server",
                )
            )
        else:
            out.append(
                ng(
                    "model-id",
                    f"{name}: {model_id}",
                    f"{url} does not list this model id (it lists: {_listed(probe.models)})",
                    "set 'model_id' to one of the listed ids, or load the model in the server",
                )
            )
    return out


def local_server_check(probe: Probe) -> Check:
    from lait_core.engine.llm.wire import DEFAULT_BASE_URL

    if probe.kind == "ok":
        listed = f"lists {_listed(probe.models)}" if probe.models else "lists no models"
        return ok("local-server", DEFAULT_BASE_URL, f"something is listening; GET /models {listed}")
    if probe.kind == "refused":
        return warn("local-server", DEFAULT_BASE_URL, "nothing is listening", START_LOCAL)
    return warn("local-server", DEFAULT_BASE_URL, f"GET /models: {probe.detail}", START_LOCAL)


# -- embedded --------------------------------------------------------------------------------------
def embedded_checks(plan: ModelPlan) -> list[Check]:
    import importlib.metadata
    import importlib.util

    from lait_core.engine.embedded.locate import builtin_gguf
    from lait_core.engine.llm.chat_types import ConfigurationError

    out: list[Check] = []
    needed = bool(plan.needs_embedded or plan.gguf_files)
    users = ", ".join(plan.needs_embedded + list(plan.gguf_files))
    problem = ng if needed else warn
    if importlib.util.find_spec("llama_cpp") is None:
        out.append(
            problem(
                "embedded",
                "llama-cpp-python",
                "not installed: the embedded model (--model embedded) and GGUF models cannot run"
                + (f"; needed by {users}" if needed else ""),
                EMBEDDED_FIX,
            )
        )
    else:
        try:
            version = importlib.metadata.version("llama-cpp-python")
        except importlib.metadata.PackageNotFoundError:
            version = "(version unknown)"
        out.append(ok("embedded", "llama-cpp-python", f"installed ({version})"))
    try:
        gguf = builtin_gguf()
        out.append(ok("embedded", "embedded", f"the built-in model's GGUF is at {gguf}"))
    except ConfigurationError as exc:
        builtin_needed = bool(plan.needs_embedded)
        out.append(
            (ng if builtin_needed else warn)("embedded", "embedded", str(exc).split("; ")[0], EMBEDDED_FIX)
        )
    for where, path in plan.gguf_files.items():
        if path.is_file():
            out.append(ok("embedded", where, f"the GGUF file {path} exists"))
        else:
            out.append(ng("embedded", where, f"the GGUF file {path} does not exist", "fix 'provider.gguf'"))
    return out


# -- registries and tools --------------------------------------------------------------------------
def registry_checks(config: Config) -> list[Check]:
    from lait_core.documents.registered_files import registry_entries

    out: list[Check] = []
    for section in ("agents", "skills", "workflows"):
        registry: dict[str, str] = getattr(config, section)
        for entry in registry_entries(section, registry):  # type: ignore[arg-type]
            subject = f"{section}.{entry.name}"
            if entry.problem:
                out.append(
                    ng(
                        section,
                        subject,
                        f"{entry.path}: {entry.problem}",
                        f"fix the path under '{section}:' or the file (`lait lint {entry.path}`)",
                    )
                )
            else:
                out.append(ok(section, subject, f"{entry.path} parses"))
    return out


def tool_checks(config: Config, base: Path) -> list[Check]:
    out: list[Check] = []
    for name, tool in config.tools.items():
        program = tool.command[0] if tool.command else ""
        if "{{" in program:
            out.append(ok("tools", f"tools.{name}", "the program is chosen per call (a template)"))
            continue
        if os.sep in program:
            path = Path(program) if Path(program).is_absolute() else base / program
            found = str(path) if path.is_file() else None
        else:
            found = shutil.which(program)
        if found is None:
            out.append(
                ng(
                    "tools",
                    f"tools.{name}",
                    f"the program '{program}' is not found on PATH",
                    f"install '{program}' or fix 'tools.{name}.command'",
                )
            )
        else:
            out.append(ok("tools", f"tools.{name}", f"runs {found}"))
    return out


# -- MCP -------------------------------------------------------------------------------------------
async def mcp_check(config: Config, base: Path, name: str, options: Options) -> Check:
    from lait_core.engine.tools.mcp_tools import McpPool

    subject = f"mcp_servers.{name}"
    fix = f"check 'mcp_servers.{name}' (command, args, cwd, url); `lait mcp tools {name}` shows the server's error"
    timeout = options.mcp_timeout
    pool = McpPool(
        {name: config.mcp_servers[name]},
        base_dir=base,
        environ=options.environ,
        stderr=options.server_stderr,
        on_spawn=options.on_spawn,
        contained=config.confine == "project",
    )
    try:
        tools = await asyncio.wait_for(pool.source(name).list_tools(), timeout)
    except TimeoutError:
        return ng("mcp", subject, f"did not start and initialize within {timeout:g}s", fix)
    except Exception as exc:
        from lait_core.engine.llm.chat_types import error_chain_text

        return ng("mcp", subject, error_chain_text(exc), fix)
    finally:
        await asyncio.shield(pool.aclose())
    return ok("mcp", subject, f"started and initialized; {len(tools)} tool(s)")


# -- all together ----------------------------------------------------------------------------------
@dataclass(slots=True)
class Options:
    mode: Any
    """A :class:`~lait_core.documents.config_file.ConfigMode`."""
    explicit: Path | None = None
    cwd: Path = field(default_factory=Path.cwd)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    timeout: float = DEFAULT_TIMEOUT
    mcp_timeout: float = DEFAULT_MCP_TIMEOUT
    model: str | None = None
    """``LLM_MODEL`` / ``--model``: overrides ``default.model``."""
    on_spawn: Callable[[int], None] | None = None
    """Told the process group of every MCP server started (the CLI's Ctrl-C protocol)."""
    server_stderr: TextIO | None = None
    """Where MCP servers' stderr goes (None: lait's stderr)."""


async def _key(endpoint: Endpoint, environ: Mapping[str, str], timeout: float) -> str | None:
    from lait_core.engine.llm.model_resolution import KeyResolver

    return await KeyResolver(environ, timeout=timeout).resolve(endpoint.key)


async def _probe_use(use: ModelUse, environ: Mapping[str, str], timeout: float) -> Probe:
    from lait_core.engine.llm.chat_types import ConfigurationError

    try:
        key = await asyncio.wait_for(_key(use.endpoint, environ, timeout), timeout + 1)
    except ConfigurationError as exc:
        return Probe("key", str(exc))
    except TimeoutError:
        return Probe("key", f"the API key did not resolve within {timeout:g}s")
    return await probe_models(use.base_url, key, timeout)


async def run_checks(options: Options) -> list[Check]:
    """Every check, the slow ones concurrently; never raises for a problem of the setup."""
    from lait_core.documents.config_file import ConfigError, ConfigMode, load_config
    from lait_core.engine.llm.wire import DEFAULT_BASE_URL

    disabled = options.mode is ConfigMode.DISABLED
    try:
        loaded = load_config(
            options.mode, start=options.cwd, explicit=options.explicit, environ=dict(options.environ)
        )
    except ConfigError as exc:
        return [
            ng("config", str(options.explicit or "lait.config.yml"), str(exc), "fix the path or the file")
        ]
    checks = config_checks(loaded, options.explicit, disabled)
    config = loaded.config
    base = loaded.folder(options.cwd.absolute())
    checks += env_checks(config, options.environ)
    plan = model_plan(config, options.environ, options.model)
    checks += plan.checks

    uses = list(plan.uses.values())
    local_use = next((u for u in uses if u.base_url == DEFAULT_BASE_URL), None)
    jobs: list[Awaitable[Any]] = [_probe_use(u, options.environ, options.timeout) for u in uses]
    if local_use is None:
        jobs.append(probe_models(DEFAULT_BASE_URL, None, options.timeout))
    servers = list(config.mcp_servers)
    jobs += [mcp_check(config, base, name, options) for name in servers]
    # return_exceptions: on Ctrl-C, gather would otherwise end at the first child's cancellation
    # while the MCP checks still start and close their servers; the loop's clean-up then cancelled
    # those half-way (a hang, or tracebacks). This way every check ends before run_checks does.
    settled = await asyncio.gather(*jobs, return_exceptions=True)
    for result in settled:
        if isinstance(result, BaseException):
            raise result
    results: list[Any] = list(settled)
    probes: list[Probe] = list(results[: len(uses)])
    rest = results[len(uses) :]
    local_probe: Probe = probes[uses.index(local_use)] if local_use is not None else rest.pop(0)
    for use, probe in zip(uses, probes, strict=True):
        if use is local_use and probe.kind == "refused":
            continue  # the local-server check says it
        checks += provider_checks(use, probe, options.timeout)
    checks.append(local_server_check(local_probe))
    checks += embedded_checks(plan)
    checks += list(rest)
    checks += registry_checks(config)
    checks += tool_checks(config, base)
    return checks


def summary(checks: list[Check]) -> dict[str, int]:
    return {s.value: sum(1 for c in checks if c.status is s) for s in Status}


def render_text(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        lines.append(f"{c.status.value:<4}  {c.area:<12}  {c.subject}: {c.message}")
        if c.fix:
            lines.append(f"{'':<4}  {'':<12}  fix: {c.fix}")
    return "\n".join(lines) + "\n"
