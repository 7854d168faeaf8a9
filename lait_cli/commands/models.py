"""`lait models [--remote] [--json]` (docs/cli.md).

Without ``--remote``: the model aliases of the config in use, one per line as ``* alias  model_id
endpoint`` (``*`` marks ``default.model``; fallbacks follow as ``then ...``), plus the built-in
``embedded`` model unless ``models:`` redefines it. Nothing is contacted.

``--remote``: ``GET {base_url}/models`` of the endpoint raw model ids use (``--base-url`` /
``OPENAI_BASE_URL``, else the config's ``base_url``, else ``http://localhost:1234/v1``) with its key
(``--api-key`` / ``OPENAI_API_KEY``, else the config's), and print the ids it lists. A failure exits
4 (a model API error), like chat.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lait_cli.support.common import fail
from lait_cli.support.options import ConfigOption, NoConfigOption
from lait_cli.support.run_setup import Common

if TYPE_CHECKING:
    from lait_core.documents.document_models import Config

HELP = "List the configured model aliases ('*': the default), or with --remote the models a server offers."
REMOTE_TIMEOUT = 10.0


def register(app: typer.Typer) -> None:
    app.command(name="models", help=HELP)(models)


def models(
    remote: Annotated[bool, typer.Option("--remote", help="Ask the server: GET {base_url}/models.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", envvar="OPENAI_BASE_URL", metavar="URL", help="The server for --remote."),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", envvar="OPENAI_API_KEY", metavar="KEY", help="The key for --remote."),
    ] = None,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_cli.support.run_setup import load_run_config

    loaded, _folder = load_run_config(Common(config, no_config).merged())
    if remote:
        list_remote(loaded, base_url, api_key, as_json)
    else:
        list_aliases(loaded, as_json)


def alias_rows(config: Config) -> list[dict[str, Any]]:
    from lait_core.engine.embedded.locate import BUILTIN_MODEL_ID
    from lait_core.engine.llm.model_resolution import EMBEDDED_ALIAS

    default = config.default.model
    rows: list[dict[str, Any]] = []
    for alias, definitions in config.models.items():
        endpoints = [
            {
                "model_id": d.model_id,
                "endpoint": _shown(d.provider.base_url)
                if d.provider.gguf is None
                else f"gguf:{d.provider.gguf}",
            }
            for d in definitions
        ]
        rows.append({"alias": alias, "default": alias == default, "endpoints": endpoints, "builtin": False})
    if EMBEDDED_ALIAS not in config.models:
        rows.append(
            {
                "alias": EMBEDDED_ALIAS,
                "default": default == EMBEDDED_ALIAS,
                "endpoints": [{"model_id": BUILTIN_MODEL_ID, "endpoint": "built-in (in-process)"}],
                "builtin": True,
            }
        )
    return rows


def _shown(url: str | None) -> str | None:
    from lait_core.support.redact import redact_url

    return redact_url(url) if url is not None else None


def list_aliases(config: Config, as_json: bool) -> None:
    rows = alias_rows(config)
    default = config.default.model
    if as_json:
        payload = {"default": default, "models": rows}
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return
    width = max(len(r["alias"]) for r in rows)
    id_width = max(len(r["endpoints"][0]["model_id"]) if r["endpoints"] else 0 for r in rows)
    for row in rows:
        mark = "*" if row["default"] else " "
        first, *rest = row["endpoints"] or [{"model_id": "", "endpoint": ""}]
        line = f"{mark} {row['alias']:<{width}}  {first['model_id']:<{id_width}}  {first['endpoint'] or ''}"
        for e in rest:
            line += f"; then {e['model_id']} at {e['endpoint']}"
        sys.stdout.write(line.rstrip() + "\n")
    if default is not None and default not in {r["alias"] for r in rows}:
        sys.stderr.write(f"default.model '{default}' is a raw model id (no alias)\n")


def list_remote(config: Config, base_url: str | None, api_key: str | None, as_json: bool) -> None:
    import asyncio

    from lait_core.commands.setup_checks import probe_models
    from lait_core.engine.llm.chat_types import ConfigurationError
    from lait_core.engine.llm.model_resolution import KeyResolver, resolve_model

    # a name that can never be an alias resolves like a raw model id: the endpoint and key raw ids use
    try:
        endpoint = resolve_model(
            "\0remote", config, base_url_override=base_url, api_key_override=api_key
        ).endpoints[0]
        url = endpoint.base_url()

        async def go() -> Any:
            key = await KeyResolver().resolve(endpoint.key)
            return await probe_models(url, key, REMOTE_TIMEOUT)

        probe = asyncio.run(go())
    except ConfigurationError as exc:
        raise fail(str(exc), 1) from None
    if probe.kind != "ok":
        raise fail(f"request to {url}/models failed: {probe.detail}", 4)
    ids = list(probe.models or [])
    if as_json:
        sys.stdout.write(json.dumps({"base_url": url, "models": ids}, indent=2, ensure_ascii=False) + "\n")
        return
    for model_id in ids:
        sys.stdout.write(model_id + "\n")
    if not ids:
        sys.stderr.write(f"{url} lists no models\n")
