import assert from "node:assert/strict";
import { test } from "node:test";

import { enableSetting, hasFrontmatter, isLaitFile, shouldStart } from "../laitFiles";

const ACTIONS = "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest\n";

test("a README and a GitHub Actions workflow are not lait files", () => {
  assert.equal(isLaitFile("/p/README.md", "markdown", "# Project\n\nSome text.\n"), false);
  assert.equal(isLaitFile("/p/.github/workflows/ci.yml", "yaml", ACTIONS), false);
  assert.equal(isLaitFile("/p/.gitea/workflows/ci.yml", "yaml", ACTIONS), false);
  assert.equal(isLaitFile("/p/ci.yml", "yaml", ACTIONS), false); // nested steps: are GitHub's
  assert.equal(isLaitFile("/p/docs/post.md", "markdown", "---\ntitle: A post\n---\nText\n"), false);
  assert.equal(isLaitFile("/p/.github/agents/x.md", "markdown", "---\nname: x\n---\n"), false);
});

test("lait's own files are recognised by their content", () => {
  assert.equal(isLaitFile("/p/lait.config.yml", "yaml", ""), true);
  assert.equal(isLaitFile("/p/anywhere/flow.yml", "yaml", "name: f\nsteps:\n  - prompt: hi\n"), true);
  assert.equal(isLaitFile("/p/.github/workflows/flow.yml", "yaml", "steps:\n  - prompt: hi\n"), true);
  assert.equal(isLaitFile("/p/v1.yaml", "yaml", "nodes:\n  a: {}\n"), true);
  assert.equal(isLaitFile("/p/t.yml", "yaml", "workflow: flow.yml\nassert:\n  - {}\n"), true);
  assert.equal(isLaitFile("/p/t.yml", "yaml", "replay: trace.jsonl\n"), true);
  assert.equal(isLaitFile("/p/e.yml", "yaml", "target: flow.yml\ncases: []\n"), true);
  assert.equal(isLaitFile("/p/agents/reviewer.md", "markdown", "---\nname: reviewer\n---\nReview.\n"), true);
  assert.equal(isLaitFile("/p/agents/notes.md", "markdown", "# no frontmatter\n"), false);
});

test("frontmatter is a --- first line", () => {
  assert.equal(hasFrontmatter("---\na: 1\n---\n"), true);
  assert.equal(hasFrontmatter("\uFEFF---\r\na: 1\n"), true);
  assert.equal(hasFrontmatter("# ---\n"), false);
});

test("lait.enable: auto starts only where lait applies; always and never win", () => {
  const readme = [{ file: "/p/README.md", languageId: "markdown", text: "# x\n" }];
  const flow = [{ file: "/p/flow.yml", languageId: "yaml", text: "steps: []\n" }];
  assert.equal(shouldStart("auto", false, readme), false);
  assert.equal(shouldStart("auto", true, readme), true);
  assert.equal(shouldStart("auto", false, [...readme, ...flow]), true);
  assert.equal(shouldStart("always", false, []), true);
  assert.equal(shouldStart("never", true, flow), false);
  assert.equal(enableSetting("always"), "always");
  assert.equal(enableSetting("bogus"), "auto");
  assert.equal(enableSetting(undefined), "auto");
});
