import assert from "node:assert/strict";
import { test } from "node:test";

import { DialogQueue } from "../dialogQueue";
import { CancelSource, type CancelToken } from "../ui";

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test("dialogs never overlap: the second waits until the first is answered", async () => {
  const queue = new DialogQueue();
  const order: string[] = [];
  const first = deferred<string>();
  const a = queue.enqueue("r1", async () => {
    order.push("a shown");
    const answer = await first.promise;
    order.push("a answered");
    return answer;
  }, "none");
  const b = queue.enqueue("r2", async () => {
    order.push("b shown");
    return "b";
  }, "none");
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(order, ["a shown"]);
  assert.equal(queue.pending, 2);
  first.resolve("a");
  assert.deepEqual(await Promise.all([a, b]), ["a", "b"]);
  assert.deepEqual(order, ["a shown", "a answered", "b shown"]);
  assert.equal(queue.pending, 0);
});

test("ending a run dismisses its open dialog and answers its queued ones without showing them", async () => {
  const queue = new DialogQueue();
  let seen: CancelToken | undefined;
  const open = queue.enqueue("r1", (cancel) => {
    seen = cancel;
    return new Promise<string>((resolve) => cancel.onCancellationRequested(() => resolve("dismissed")));
  }, "deny");
  let shown = false;
  const queued = queue.enqueue("r1", async () => {
    shown = true;
    return "allow";
  }, "deny");
  const other = queue.enqueue("r2", async () => "r2 answer", "deny");
  await new Promise((r) => setTimeout(r, 5));
  queue.endRun("r1");
  assert.equal(seen?.isCancellationRequested, true);
  assert.deepEqual(await Promise.all([open, queued, other]), ["deny", "deny", "r2 answer"]);
  assert.equal(shown, false);
  // A request arriving for an ended run is not shown either.
  assert.equal(await queue.enqueue("r1", async () => "late", "deny"), "deny");
});

test("a request the server cancels is dismissed; a failing dialog does not block the next", async () => {
  const queue = new DialogQueue();
  const request = new CancelSource();
  const cancelled = queue.enqueue(undefined, (cancel) => new Promise<string>((resolve) => cancel.onCancellationRequested(() => resolve("x"))), "cancel", request.token);
  const failing = queue.enqueue(undefined, async () => {
    throw new Error("ui broke");
  }, "n");
  const next = queue.enqueue(undefined, async () => "next", "n");
  request.cancel();
  assert.equal(await cancelled, "cancel");
  await assert.rejects(failing, /ui broke/);
  assert.equal(await next, "next");
});
