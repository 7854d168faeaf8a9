import assert from "node:assert/strict";
import { test } from "node:test";

import { statusView } from "../statusText";

test("version and the config file in use, relative to the workspace", () => {
  assert.deepEqual(statusView("0.4.0", { version: "0.4.0", configFile: "/w/proj/lait.config.yml", configError: null }, ["/w"]), {
    text: "$(check) lait 0.4.0 · proj/lait.config.yml",
    tooltip: "lait-ls 0.4.0\nconfig: /w/proj/lait.config.yml",
    warning: false,
  });
  assert.equal(statusView("0.4.0", { configFile: "/elsewhere/lait.config.yml" }, ["/w"]).text, "$(check) lait 0.4.0 · lait.config.yml");
});

test("no config, a broken config, a server without lait/status", () => {
  assert.equal(statusView("1.0", { configFile: null }).text, "$(check) lait 1.0 · no config");
  const broken = statusView("1.0", { configFile: "/w/lait.config.yml", configError: "lait: unknown key 'modles'" });
  assert.equal(broken.text, "$(warning) lait 1.0 · config error");
  assert.equal(broken.warning, true);
  assert.match(broken.tooltip, /unknown key 'modles'/);
  assert.equal(statusView("1.0", undefined).text, "$(check) lait 1.0");
  assert.equal(statusView(undefined, undefined).text, "$(check) lait (version unknown)");
});
