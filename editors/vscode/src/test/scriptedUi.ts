// A Ui that answers from a script: the input of the units under test (not a stand-in for lait).

import type { CancelToken, InputOptions, PickItem, PickOptions, Ui } from "../ui";

/** Escape: the person dismissed the dialog. */
export const ESC = Symbol("escape");
/** The person does not answer: the dialog stays open until its cancel token fires. */
export const HANG = Symbol("hang");

export type Scripted = string | string[] | typeof ESC | typeof HANG;

export interface Call {
  method: "pick" | "pickMany" | "input";
  title?: string | undefined;
  placeholder?: string | undefined;
  prompt?: string | undefined;
  value?: string | undefined;
  labels?: string[];
  descriptions?: Array<string | undefined>;
  picked?: string[];
  /** What `validate` said about the scripted answer (input only). */
  validation?: string | undefined;
  /** A HANG dialog that was closed by its cancel token. */
  dismissed?: boolean;
}

export class ScriptedUi implements Ui {
  readonly calls: Call[] = [];
  readonly opened: string[] = [];
  openResult = true;
  /** Called when a HANG dialog opens (e.g. to cancel the run meanwhile). */
  onHang: (() => void) | undefined;

  constructor(private readonly script: Scripted[]) {}

  get remaining(): number {
    return this.script.length;
  }

  private next(): Scripted {
    const answer = this.script.shift();
    if (answer === undefined) {
      throw new Error("the script ran out of answers");
    }
    return answer;
  }

  /** Waits for `cancel` (a HANG answer); marks the call dismissed. */
  private hang(call: Call, cancel: CancelToken | undefined): Promise<undefined> {
    return new Promise((resolve) => {
      if (cancel === undefined) return; // never answered: the test times out, as a person who left would
      cancel.onCancellationRequested(() => {
        call.dismissed = true;
        resolve(undefined);
      });
      this.onHang?.();
    });
  }

  private record<T>(method: Call["method"], items: readonly PickItem<T>[], options: PickOptions): Call {
    const call: Call = {
      method,
      title: options.title,
      placeholder: options.placeholder,
      labels: items.map((i) => i.label),
      descriptions: items.map((i) => i.description),
      picked: items.filter((i) => i.picked === true).map((i) => i.label),
    };
    this.calls.push(call);
    return call;
  }

  async pick<T>(items: readonly PickItem<T>[], options: PickOptions): Promise<T | undefined> {
    const call = this.record("pick", items, options);
    const answer = this.next();
    if (answer === ESC) return undefined;
    if (answer === HANG) return this.hang(call, options.cancel);
    if (typeof answer !== "string") throw new Error(`pick expected one label, got ${JSON.stringify(answer)}`);
    const item = items.find((i) => i.label === answer);
    if (item === undefined) throw new Error(`no item '${answer}' in ${JSON.stringify(items.map((i) => i.label))}`);
    return item.value;
  }

  async pickMany<T>(items: readonly PickItem<T>[], options: PickOptions): Promise<T[] | undefined> {
    const call = this.record("pickMany", items, options);
    const answer = this.next();
    if (answer === ESC) return undefined;
    if (answer === HANG) return this.hang(call, options.cancel);
    if (!Array.isArray(answer)) throw new Error(`pickMany expected labels, got ${JSON.stringify(answer)}`);
    return answer.map((label) => {
      const item = items.find((i) => i.label === label);
      if (item === undefined) throw new Error(`no item '${label}'`);
      return item.value;
    });
  }

  async input(options: InputOptions): Promise<string | undefined> {
    const call: Call = { method: "input", title: options.title, prompt: options.prompt, value: options.value, placeholder: options.placeholder };
    this.calls.push(call);
    const answer = this.next();
    if (answer === ESC) return undefined;
    if (answer === HANG) return this.hang(call, options.cancel);
    if (typeof answer !== "string") throw new Error(`input expected text, got ${JSON.stringify(answer)}`);
    call.validation = options.validate?.(answer);
    return answer;
  }

  async openExternal(url: string): Promise<boolean> {
    this.opened.push(url);
    return this.openResult;
  }
}
