// The tiny UI the dialog logic talks to. extension.ts implements it with quick picks and input
// boxes; the unit tests implement it with scripted answers. No `vscode` import here.

/** Structurally the same as vscode.CancellationToken. */
export interface CancelToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export interface PickItem<T> {
  label: string;
  description?: string;
  detail?: string;
  value: T;
  /** Pre-selected (multi-select) or offered first as the default (single). */
  picked?: boolean;
}

export interface PickOptions {
  title?: string;
  placeholder?: string;
  cancel?: CancelToken;
}

export interface InputOptions {
  title?: string;
  prompt?: string;
  placeholder?: string;
  /** Pre-filled text (the default). */
  value?: string;
  /** Returns an error message for text that cannot be accepted. */
  validate?: (text: string) => string | undefined;
  cancel?: CancelToken;
}

/** Every method resolves `undefined` when the person dismissed the dialog (Escape). */
export interface Ui {
  pick<T>(items: readonly PickItem<T>[], options: PickOptions): Promise<T | undefined>;
  pickMany<T>(items: readonly PickItem<T>[], options: PickOptions): Promise<T[] | undefined>;
  input(options: InputOptions): Promise<string | undefined>;
  /** Opens a URL outside the editor; false when it could not. */
  openExternal(url: string): Promise<boolean>;
}

/** A cancellation source without `vscode` (the dialog queue and the tests use it). */
export class CancelSource {
  private cancelled = false;
  private listeners: Array<() => unknown> = [];

  readonly token: CancelToken;

  constructor() {
    const source = this;
    this.token = {
      get isCancellationRequested(): boolean {
        return source.cancelled;
      },
      onCancellationRequested: (listener: () => unknown) => source.listen(listener),
    };
  }

  private listen(listener: () => unknown): { dispose(): void } {
    if (this.cancelled) {
      listener();
      return { dispose: () => undefined };
    }
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  }

  get isCancelled(): boolean {
    return this.cancelled;
  }

  cancel(): void {
    if (this.cancelled) {
      return;
    }
    this.cancelled = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) {
      listener();
    }
  }
}

/** A token that is cancelled when any of `tokens` is. */
export function anyCancel(...tokens: Array<CancelToken | undefined>): CancelSource {
  const source = new CancelSource();
  for (const token of tokens) {
    if (token === undefined) {
      continue;
    }
    if (token.isCancellationRequested) {
      source.cancel();
    } else {
      token.onCancellationRequested(() => source.cancel());
    }
  }
  return source;
}
