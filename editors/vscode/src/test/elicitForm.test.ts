import assert from "node:assert/strict";
import { test } from "node:test";

import { elicit, formFields } from "../elicitForm";
import type { ElicitParams } from "../protocol";
import { CancelSource } from "../ui";
import { ESC, ScriptedUi } from "./scriptedUi";

const everyType: ElicitParams = {
  runId: "r1",
  server: "booking",
  mode: "form",
  message: "No table on 2024-12-25. Try another date?",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Your name", minLength: 2, maxLength: 10 },
      email: { type: "string", format: "email", description: "for the confirmation" },
      website: { type: "string", format: "uri" },
      date: { type: "string", format: "date", default: "2024-12-26" },
      at: { type: "string", format: "date-time" },
      party: { type: "integer", minimum: 1, maximum: 12, default: 2 },
      budget: { type: "number", minimum: 0 },
      checkAlternative: { type: "boolean", default: true },
      seat: { type: "string", enum: ["inside", "terrace"], enumNames: ["Inside", "On the terrace"] },
      size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }], default: "l" },
      extras: {
        type: "array",
        items: { anyOf: [{ const: "cake", title: "Cake" }, { const: "wine", title: "Wine" }, { const: "music", title: "Music" }] },
        minItems: 1,
        maxItems: 2,
      },
    },
    required: ["name", "email", "date", "party", "checkAlternative", "seat", "size", "extras"],
  },
};

test("accept: every field type, answered in schema order, typed values back", async () => {
  const ui = new ScriptedUi([
    "Answer",
    "Ann",
    "ann@example.com",
    "https://ann.example/home",
    "2024-12-27",
    "2024-12-27T19:30:00+01:00",
    "4",
    "12.5",
    "No",
    "On the terrace",
    "Small",
    ["Wine", "Cake"],
  ]);
  const result = await elicit(ui, everyType);
  assert.deepEqual(result, {
    action: "accept",
    content: {
      name: "Ann",
      email: "ann@example.com",
      website: "https://ann.example/home",
      date: "2024-12-27",
      at: "2024-12-27T19:30:00+01:00",
      party: 4,
      budget: 12.5,
      checkAlternative: false,
      seat: "terrace",
      size: "s",
      extras: ["cake", "wine"],
    },
  });
  assert.equal(ui.remaining, 0);
  const first = ui.calls[0];
  assert.deepEqual(first?.labels, ["Answer", "Decline", "Cancel"]);
  assert.equal(first?.placeholder, everyType.message);
  assert.match(first?.title ?? "", /'booking'/);
  // Titles count the fields; the title (not the key) is the prompt; the description is shown.
  assert.match(ui.calls[1]?.title ?? "", /\(1\/11\)/);
  // The server's question stays in view in every dialog's title, not only as a placeholder.
  for (const call of ui.calls) assert.ok((call.title ?? "").endsWith(`: ${everyType.message}`), call.title);
  assert.match(ui.calls[1]?.prompt ?? "", /^Your name \(required\)/);
  assert.match(ui.calls[2]?.prompt ?? "", /for the confirmation/);
  assert.equal(ui.calls[3]?.placeholder, "https://…");
});

test("defaults are offered: pre-filled text, the default pick first and marked", async () => {
  const ui = new ScriptedUi(["Answer", "Ann", "a@b.co", "", "2024-12-26", "", "2", "", "Yes", "Inside", "Large", ["Music"]]);
  const result = await elicit(ui, everyType);
  assert.equal(result.action, "accept");
  const content = result.content ?? {};
  assert.equal(content["date"], "2024-12-26");
  assert.equal(content["party"], 2);
  assert.equal(content["checkAlternative"], true);
  assert.equal(content["size"], "l");
  // Optional fields left empty are left out (website, at, budget).
  assert.deepEqual(Object.keys(content).sort(), ["checkAlternative", "date", "email", "extras", "name", "party", "seat", "size"]);
  const dateCall = ui.calls.find((c) => c.prompt?.startsWith("date"));
  assert.equal(dateCall?.value, "2024-12-26");
  const partyCall = ui.calls.find((c) => c.prompt?.startsWith("party"));
  assert.equal(partyCall?.value, "2");
  const boolCall = ui.calls.find((c) => c.placeholder?.startsWith("checkAlternative"));
  assert.deepEqual(boolCall?.labels, ["Yes", "No"]);
  assert.deepEqual(boolCall?.picked, ["Yes"]);
  assert.equal(boolCall?.descriptions?.[0], "default");
  const sizeCall = ui.calls.find((c) => c.placeholder?.startsWith("size"));
  assert.deepEqual(sizeCall?.labels, ["Large", "Small"]);
});

test("decline and cancel stay distinct", async () => {
  assert.deepEqual(await elicit(new ScriptedUi(["Decline"]), everyType), { action: "decline" });
  assert.deepEqual(await elicit(new ScriptedUi(["Cancel"]), everyType), { action: "cancel" });
  // Escape on the first choice is cancel, not decline.
  assert.deepEqual(await elicit(new ScriptedUi([ESC]), everyType), { action: "cancel" });
  // Escape in any later field is cancel, and nothing typed so far is sent.
  const ui = new ScriptedUi(["Answer", "Ann", "ann@example.com", ESC]);
  assert.deepEqual(await elicit(ui, everyType), { action: "cancel" });
  // Escape in a quick-pick field too.
  const ui2 = new ScriptedUi(["Answer", "Ann", "a@b.co", "", "", "", "", "", ESC]);
  assert.deepEqual(await elicit(ui2, everyType), { action: "cancel" });
  assert.equal(ui2.remaining, 0);
});

test("validation: an invalid answer is rejected with a message and asked again", async () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", minLength: 2, maxLength: 4 },
      email: { type: "string", format: "email" },
      n: { type: "integer", minimum: 1, maximum: 5 },
      x: { type: "number", exclusiveMaximum: 1 },
      tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, minItems: 2 },
    },
    required: ["name", "email", "n", "x", "tags"],
  };
  const ui = new ScriptedUi([
    "Answer",
    "A",
    "Annabel",
    "Ann",
    "not-an-email",
    "ann@example.com",
    "2.5",
    "9",
    "abc",
    "3",
    "1",
    "0.5",
    ["a"],
    ["a", "c"],
  ]);
  const result = await elicit(ui, { server: "s", mode: "form", message: "m", requestedSchema: schema });
  assert.deepEqual(result, { action: "accept", content: { name: "Ann", email: "ann@example.com", n: 3, x: 0.5, tags: ["a", "c"] } });
  const inputs = ui.calls.filter((c) => c.method === "input");
  assert.deepEqual(
    inputs.map((c) => c.validation),
    [
      "enter at least 2 characters (now 1)",
      "enter at most 4 characters (now 7)",
      undefined,
      "enter an email address, e.g. name@example.com",
      undefined,
      "enter a whole number (no fraction)",
      "enter a number ≤ 5",
      "enter a whole number",
      undefined,
      "enter a number < 1",
      undefined,
    ],
  );
  // The retry shows the error and keeps what was typed.
  assert.match(inputs[1]?.prompt ?? "", /✗ enter at least 2 characters/);
  assert.equal(inputs[1]?.value, "A");
  const picks = ui.calls.filter((c) => c.method === "pickMany");
  assert.match(picks[1]?.placeholder ?? "", /✗ choose at least 2/);
});

test("a form without fields is a plain accept / decline / cancel", async () => {
  const ui = new ScriptedUi(["Accept"]);
  assert.deepEqual(await elicit(ui, { server: "s", mode: "form", message: "Proceed?", requestedSchema: { type: "object", properties: {} } }), {
    action: "accept",
    content: {},
  });
});

test("a schema the form cannot show is declined without asking, and the reason is logged", async () => {
  const logged: string[] = [];
  const ui = new ScriptedUi([]);
  const nested = { type: "object", properties: { address: { type: "object", properties: { street: { type: "string" } } } } };
  const result = await elicit(ui, { server: "s", mode: "form", message: "m", requestedSchema: nested }, { log: (m) => logged.push(m) });
  assert.deepEqual(result, { action: "decline" });
  assert.equal(ui.calls.length, 0);
  assert.match(logged[0] ?? "", /field 'address' has type object/);
  assert.ok("error" in formFields({ type: "array" }));
  assert.ok("error" in formFields("nope"));
});

test("url mode: open the page = accept; decline; cancel; non-http URLs declined", async () => {
  const params: ElicitParams = { server: "pay", mode: "url", message: "Confirm the payment", url: "https://pay.example/confirm?id=1" };
  const ui = new ScriptedUi(["Open https://pay.example/confirm?id=1"]);
  assert.deepEqual(await elicit(ui, params), { action: "accept" });
  assert.deepEqual(ui.opened, ["https://pay.example/confirm?id=1"]);
  assert.deepEqual(await elicit(new ScriptedUi(["Decline"]), params), { action: "decline" });
  assert.deepEqual(await elicit(new ScriptedUi([ESC]), params), { action: "cancel" });
  const failing = new ScriptedUi(["Open https://pay.example/confirm?id=1"]);
  failing.openResult = false;
  assert.deepEqual(await elicit(failing, params), { action: "cancel" });
  const silent = new ScriptedUi([]);
  assert.deepEqual(await elicit(silent, { ...params, url: "file:///etc/passwd" }), { action: "decline" });
  assert.deepEqual(await elicit(silent, { ...params, mode: "telepathy" }), { action: "decline" });
  assert.equal(silent.calls.length, 0);
});

test("url mode for a call that needs the page first: the Open item says the call is retried", async () => {
  const params: ElicitParams = { server: "notes", mode: "url", message: "Sign in", url: "http://127.0.0.1:9/done/s", elicitationId: "s", retriesCall: true };
  const ui = new ScriptedUi(["Open http://127.0.0.1:9/done/s"]);
  assert.deepEqual(await elicit(ui, params), { action: "accept" });
  assert.equal(ui.calls[0]?.descriptions?.[0], "the tool call is retried when you are done there");
  assert.deepEqual(ui.opened, ["http://127.0.0.1:9/done/s"]);
  const plain = new ScriptedUi(["Decline"]);
  assert.deepEqual(await elicit(plain, { ...params, retriesCall: false }), { action: "decline" });
  assert.equal(plain.calls[0]?.descriptions?.[0], undefined);
});

test("a cancelled request (the run ended) answers cancel whatever the dialog returned", async () => {
  const source = new CancelSource();
  const ui = new ScriptedUi(["Answer", "Ann"]);
  const original = ui.input.bind(ui);
  ui.input = async (options) => {
    const text = await original(options);
    source.cancel();
    return text;
  };
  const result = await elicit(ui, { server: "s", mode: "form", message: "m", requestedSchema: { properties: { a: { type: "string" } } } }, { cancel: source.token });
  assert.deepEqual(result, { action: "cancel" });
});

test("optional enum and boolean fields can be left out", async () => {
  const schema = { type: "object", properties: { b: { type: "boolean" }, e: { type: "string", enum: ["x", "y"] }, m: { type: "array", items: { enum: ["p", "q"] } } } };
  const ui = new ScriptedUi(["Answer", "Leave out", "Leave out", []]);
  assert.deepEqual(await elicit(ui, { server: "s", mode: "form", message: "m", requestedSchema: schema }), { action: "accept", content: {} });
  assert.deepEqual(ui.calls[1]?.labels, ["Yes", "No", "Leave out"]);
});
