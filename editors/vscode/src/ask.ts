// `lait/ask`: a workflow `ask:` step as an input box, or a quick pick when it has choices.
// No `vscode` import.

import type { AskParams, AskResult } from "./protocol";
import type { CancelToken, PickItem, Ui } from "./ui";

/** Asks; `null` when the person dismissed the dialog (the step then fails as cancelled). */
export async function ask(ui: Ui, params: AskParams, cancel?: CancelToken): Promise<AskResult> {
  const title = "lait: the workflow asks";
  const dflt = params.default ?? undefined;
  if (params.choices && params.choices.length > 0) {
    const items: PickItem<string>[] = params.choices.map((choice) =>
      choice === dflt ? { label: choice, description: "default", value: choice, picked: true } : { label: choice, value: choice },
    );
    items.sort((a, b) => Number(b.picked === true) - Number(a.picked === true));
    const options: Parameters<Ui["pick"]>[1] = { title, placeholder: params.question };
    if (cancel !== undefined) options.cancel = cancel;
    const picked = await ui.pick(items, options);
    return picked === undefined || cancel?.isCancellationRequested === true ? null : { answer: picked };
  }
  const options: Parameters<Ui["input"]>[0] = {
    title,
    prompt: params.multiline ? `${params.question} (type \\n for a new line)` : params.question,
  };
  if (dflt !== undefined) options.value = dflt;
  if (cancel !== undefined) options.cancel = cancel;
  const text = await ui.input(options);
  if (text === undefined || cancel?.isCancellationRequested === true) {
    return null;
  }
  return { answer: params.multiline ? text.replace(/\\n/g, "\n") : text };
}
