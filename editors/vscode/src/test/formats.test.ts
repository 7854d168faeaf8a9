import assert from "node:assert/strict";
import { test } from "node:test";

import { fieldFromSchema, parseText, type Field } from "../fields";
import { checkFormat } from "../formats";

test("email", () => {
  for (const ok of ["a@b.co", "first.last+tag@mail.example.org"]) assert.equal(checkFormat("email", ok), undefined, ok);
  for (const bad of ["", "a", "a@", "@b.co", "a@b", "a b@c.de", "a@b..de", "a@-b.de"]) assert.notEqual(checkFormat("email", bad), undefined, bad);
});

test("uri", () => {
  for (const ok of ["https://example.com", "http://127.0.0.1:8080/x?y=1#z", "mailto:a@b.co", "urn:isbn:0451450523"]) assert.equal(checkFormat("uri", ok), undefined, ok);
  for (const bad of ["", "example.com", "/relative/path", "https://exa mple.com", "1http://x"]) assert.notEqual(checkFormat("uri", bad), undefined, bad);
});

test("date: calendar-checked, leap years", () => {
  for (const ok of ["2024-02-29", "2000-02-29", "2026-12-31", "2026-01-01"]) assert.equal(checkFormat("date", ok), undefined, ok);
  for (const bad of ["2023-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-4-1", "26-04-01", "2026-04-01T00:00:00Z"])
    assert.notEqual(checkFormat("date", bad), undefined, bad);
});

test("date-time: RFC 3339 with a zone", () => {
  for (const ok of ["2026-09-01T14:30:00Z", "2026-09-01t14:30:00.123+02:00", "2026-09-01 00:00:00-05:30", "2016-12-31T23:59:60Z"])
    assert.equal(checkFormat("date-time", ok), undefined, ok);
  for (const bad of ["2026-09-01", "2026-09-01T14:30:00", "2026-09-01T24:00:00Z", "2026-09-01T12:60:00Z", "2026-02-30T10:00:00Z", "2026-09-01T10:00:00+25:00"])
    assert.notEqual(checkFormat("date-time", bad), undefined, bad);
});

function field(schema: object, required = true, allowJson = false): Field {
  const result = fieldFromSchema("f", schema, required, allowJson);
  if ("error" in result) throw new Error(result.error);
  return result.field;
}

test("fieldFromSchema: kinds", () => {
  assert.equal(field({ type: "string" }).kind, "text");
  assert.equal(field({ type: ["string", "null"] }).kind, "text");
  assert.deepEqual(field({ type: "integer", minimum: 1 }), { name: "f", title: "f", required: true, kind: "number", integer: true, minimum: 1 });
  assert.equal(field({ type: "boolean", default: false }).kind, "boolean");
  assert.deepEqual(field({ type: "string", enum: ["a", "b"], enumNames: ["A"] }), {
    name: "f",
    title: "f",
    required: true,
    kind: "choice",
    options: [
      { value: "a", label: "A" },
      { value: "b", label: "b" },
    ],
  });
  assert.equal(field({ enum: [1, 2] }).kind, "choice");
  assert.equal(field({ type: "array", items: { type: "string", enum: ["x"] }, default: ["x"] }).kind, "multi");
  assert.ok("error" in fieldFromSchema("f", {}, true, false));
  assert.ok("error" in fieldFromSchema("f", { type: "array", items: { type: "string" } }, true, false));
  assert.equal(field({}, true, true).kind, "json");
  assert.equal(field({ type: "object" }, true, true).kind, "json");
  // An unknown format is left to the server (not enforced here).
  const text = field({ type: "string", format: "hostname" });
  assert.ok(text.kind === "text" && text.format === undefined);
});

test("parseText: strings count code points, pattern, optional empty", () => {
  const f = field({ type: "string", minLength: 2, maxLength: 2 });
  assert.ok(f.kind === "text");
  assert.deepEqual(parseText(f, "😀😀"), { ok: true, value: "😀😀" });
  assert.deepEqual(parseText(f, "é"), { ok: false, error: "enter at least 2 characters (now 1)" });
  const p = field({ type: "string", pattern: "^[A-Z]{3}$" }, false);
  assert.ok(p.kind === "text");
  assert.equal(parseText(p, "ABC").ok, true);
  assert.deepEqual(parseText(p, "abc"), { ok: false, error: "the text must match the pattern ^[A-Z]{3}$" });
  assert.deepEqual(parseText(p, ""), { ok: true, omitted: true });
  const r = field({ type: "string" });
  assert.ok(r.kind === "text");
  assert.deepEqual(parseText(r, ""), { ok: true, value: "" });
});

test("parseText: numbers", () => {
  const n = field({ type: "number", minimum: -1.5, exclusiveMinimum: -2 });
  assert.ok(n.kind === "number");
  assert.deepEqual(parseText(n, " 1e2 "), { ok: true, value: 100 });
  assert.deepEqual(parseText(n, "-1.5"), { ok: true, value: -1.5 });
  assert.deepEqual(parseText(n, "-1.6"), { ok: false, error: "enter a number ≥ -1.5" });
  for (const bad of ["", "x", "Infinity", "NaN", "1,5"]) assert.deepEqual(parseText(n, bad), { ok: false, error: "enter a number" }, bad);
  const i = field({ type: "integer" });
  assert.ok(i.kind === "number");
  assert.deepEqual(parseText(i, "7"), { ok: true, value: 7 });
  assert.deepEqual(parseText(i, "7.5"), { ok: false, error: "enter a whole number (no fraction)" });
});

test("parseText: JSON inputs", () => {
  const o = field({ type: "object" }, true, true);
  assert.ok(o.kind === "json");
  assert.deepEqual(parseText(o, '{"a": 1}'), { ok: true, value: { a: 1 } });
  assert.equal(parseText(o, "[1]").ok, false);
  assert.equal(parseText(o, "nope").ok, false);
  const any = field({}, true, true);
  assert.ok(any.kind === "json");
  assert.deepEqual(parseText(any, "[1, 2]"), { ok: true, value: [1, 2] });
  assert.deepEqual(parseText(any, "plain text"), { ok: true, value: "plain text" });
  const so = field({ type: ["string", "object"] }, true, true);
  assert.ok(so.kind === "json");
  assert.deepEqual(parseText(so, "42"), { ok: true, value: "42" });
});
