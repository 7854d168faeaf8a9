// Dialogs never overlap: server requests wait their turn here. When a run ends or is cancelled,
// its open dialog is dismissed and its queued ones are answered without asking. No `vscode` import.

import { anyCancel, type CancelSource, type CancelToken } from "./ui";

interface Entry {
  runId: string | undefined;
  source: CancelSource;
}

export class DialogQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly entries = new Set<Entry>();
  private readonly ended = new Set<string>();

  /**
   * Runs `show` after every earlier dialog has closed. `show` gets a token that is cancelled when
   * the request is cancelled (`requestToken`) or its run ends; a dialog whose token is already
   * cancelled when its turn comes is not shown and `whenCancelled` is answered.
   */
  enqueue<T>(runId: string | undefined, show: (cancel: CancelToken) => Promise<T>, whenCancelled: T, requestToken?: CancelToken): Promise<T> {
    const source = anyCancel(requestToken);
    if (runId !== undefined && this.ended.has(runId)) {
      source.cancel();
    }
    const entry: Entry = { runId, source };
    this.entries.add(entry);
    const result = this.tail.then(async () => {
      if (source.isCancelled) {
        return whenCancelled;
      }
      try {
        const answer = await show(source.token);
        return source.isCancelled ? whenCancelled : answer;
      } finally {
        this.entries.delete(entry);
      }
    });
    this.tail = result.catch(() => undefined);
    result.finally(() => this.entries.delete(entry)).catch(() => undefined);
    return result;
  }

  /** Dismisses every open or queued dialog of `runId` (the run ended or was cancelled). */
  endRun(runId: string): void {
    this.ended.add(runId);
    for (const entry of this.entries) {
      if (entry.runId === runId) {
        entry.source.cancel();
      }
    }
  }

  get pending(): number {
    return this.entries.size;
  }
}
