"""One step of the native provider's lifecycle through the real engine, as an Automation API inline program on the
generated Python SDK (pulumi_webhooks, sdk/python): the program runs in this process, so no Python language host
is needed, only the `pulumi` CLI on PATH. The engine finds the plugin pulumi-resource-webhooks where
`pulumi plugin install` put it (PULUMI_HOME).

    python lifecycle.py up|preview|refresh|destroy

Environment, output and the program itself are those of test/e2e/programs/go-auto/main.go (read its comment):
LIFECYCLE_WORK_DIR, LIFECYCLE_CONFIG ({key: {"value": str | None, "secret": bool}}), one JSON line on stdout with
the step, the engine's change counts and the outputs (a secret one as its SHA-256, never its value), the engine's
output on stderr.
"""

import hashlib
import json
import os
import sys

import pulumi
import pulumi_webhooks as webhooks
from pulumi import automation as auto

PROJECT = "webhooks-python-auto"


def program() -> None:
    cfg = pulumi.Config()
    orders = webhooks.WebhookEndpoint("orders", webhook_url=cfg.require("ordersUrl"))
    pulumi.export("ordersId", orders.webhook_id)
    pulumi.export("ordersSecret", orders.sign_secret)
    for region in ("eu", "us"):
        provider = webhooks.Provider(
            region, base_url=cfg.require(f"{region}BaseUrl"), access_token=cfg.require_secret(f"{region}Token")
        )
        endpoint = webhooks.WebhookEndpoint(
            "orders" + region.capitalize(),
            webhook_name="orders",
            webhook_url=f"https://example.com/hooks/{region}",
            opts=pulumi.ResourceOptions(provider=provider),
        )
        pulumi.export(f"{region}Id", endpoint.webhook_id)
    legacy_id = cfg.get("legacyId")
    if legacy_id:
        legacy = webhooks.WebhookEndpoint(
            "legacy",
            webhook_name="legacy",
            webhook_url="https://example.com/hooks/legacy",
            opts=pulumi.ResourceOptions(import_=legacy_id),
        )
        pulumi.export("legacyId", legacy.webhook_id)
        pulumi.export("legacySecret", legacy.sign_secret)


def main(step: str) -> None:
    stack = auto.create_or_select_stack(
        "dev",
        project_name=PROJECT,
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=os.environ["LIFECYCLE_WORK_DIR"],
            secrets_provider="passphrase",
            project_settings=auto.ProjectSettings(
                name=PROJECT,
                runtime="python",
                backend=auto.ProjectBackend(url=os.environ["PULUMI_BACKEND_URL"]),
            ),
        ),
    )
    for key, entry in json.loads(os.environ["LIFECYCLE_CONFIG"]).items():
        if entry["value"] is None:
            stack.remove_config(key)
        else:
            stack.set_config(key, auto.ConfigValue(value=entry["value"], secret=entry["secret"]))

    def progress(text: str) -> None:
        print(text, file=sys.stderr)

    if step == "up":
        changes = stack.up(on_output=progress).summary.resource_changes
    elif step == "preview":
        changes = stack.preview(expect_no_changes=True, on_output=progress).change_summary
    elif step == "refresh":
        changes = stack.refresh(on_output=progress).summary.resource_changes
    elif step == "destroy":
        changes = stack.destroy(on_output=progress).summary.resource_changes
    else:
        raise SystemExit(f"unknown step {step!r}")
    outputs = {}
    for name, output in stack.outputs().items():
        if output.secret:
            outputs[name] = {"secret": True, "sha256": hashlib.sha256(str(output.value).encode()).hexdigest()}
        else:
            outputs[name] = {"secret": False, "value": output.value}
    changes = {str(getattr(op, "value", op)): n for op, n in (changes or {}).items()}
    print(json.dumps({"step": step, "changes": changes, "outputs": outputs}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: lifecycle.py up|preview|refresh|destroy")
    main(sys.argv[1])
