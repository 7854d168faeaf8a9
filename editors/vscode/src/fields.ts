// Form fields built from JSON Schema (an elicitation's requestedSchema property, or a workflow
// input), the validation of typed text, and asking one field through the Ui. No `vscode` import.

import { checkFormat, formatHint, isKnownFormat, type Format } from "./formats";
import { isObject, type JsonSchema } from "./protocol";
import type { CancelToken, PickItem, Ui } from "./ui";

export interface Option {
  value: unknown;
  label: string;
}

interface FieldBase {
  name: string;
  title: string;
  description?: string;
  required: boolean;
}

export interface TextField extends FieldBase {
  kind: "text";
  default?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: { regex: RegExp; text: string };
  format?: Format;
}

export interface NumberField extends FieldBase {
  kind: "number";
  integer: boolean;
  default?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export interface BooleanField extends FieldBase {
  kind: "boolean";
  default?: boolean;
}

export interface ChoiceField extends FieldBase {
  kind: "choice";
  options: Option[];
  default?: unknown;
}

export interface MultiChoiceField extends FieldBase {
  kind: "multi";
  options: Option[];
  default?: unknown[];
  minItems?: number;
  maxItems?: number;
}

/** Any JSON value typed as JSON text (workflow inputs of type object/array/untyped only). */
export interface JsonField extends FieldBase {
  kind: "json";
  types: string[];
  default?: unknown;
  hasDefault: boolean;
}

export type Field = TextField | NumberField | BooleanField | ChoiceField | MultiChoiceField | JsonField;

export type FieldOrError = { field: Field } | { error: string };

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Options of an enum: `enum` (+ legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}`. */
export function enumOptions(schema: JsonSchema): Option[] | undefined {
  const values = schema["enum"];
  if (Array.isArray(values)) {
    const names = Array.isArray(schema["enumNames"]) ? (schema["enumNames"] as unknown[]) : [];
    return values.map((value, i) => ({ value, label: str(names[i]) ?? display(value) }));
  }
  const titled = Array.isArray(schema["oneOf"]) ? schema["oneOf"] : schema["anyOf"];
  if (Array.isArray(titled) && titled.length > 0 && titled.every((o) => isObject(o) && "const" in o)) {
    return titled.map((o) => {
      const item = o as JsonSchema;
      return { value: item["const"], label: str(item["title"]) ?? display(item["const"]) };
    });
  }
  return undefined;
}

/** How a value is shown in a pick list or an input box. */
export function display(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function schemaTypes(schema: JsonSchema): string[] {
  const type = schema["type"];
  if (typeof type === "string") {
    return [type];
  }
  if (Array.isArray(type)) {
    return type.filter((t): t is string => typeof t === "string");
  }
  return [];
}

/**
 * The field for one property. `allowJson`: object/array/untyped schemas become a JSON text field
 * (workflow inputs); without it (elicitation, which allows primitives only) they are an error.
 */
export function fieldFromSchema(name: string, raw: unknown, required: boolean, allowJson: boolean): FieldOrError {
  const schema: JsonSchema = isObject(raw) ? raw : {};
  const base: FieldBase = { name, title: str(schema["title"]) ?? name, required };
  const description = str(schema["description"]);
  if (description !== undefined) {
    base.description = description;
  }
  const dflt = schema["default"];
  const types = schemaTypes(schema).filter((t) => t !== "null");
  const type = types.length === 1 ? types[0] : undefined;

  const options = enumOptions(schema);
  if (options !== undefined && (type === undefined || ["string", "number", "integer", "boolean"].includes(type))) {
    const field: ChoiceField = { ...base, kind: "choice", options };
    if (dflt !== undefined) {
      field.default = dflt;
    }
    return { field };
  }
  if (type === "array" && isObject(schema["items"])) {
    const itemOptions = enumOptions(schema["items"]);
    if (itemOptions !== undefined) {
      const field: MultiChoiceField = { ...base, kind: "multi", options: itemOptions };
      if (Array.isArray(dflt)) {
        field.default = dflt;
      }
      const minItems = num(schema["minItems"]);
      const maxItems = num(schema["maxItems"]);
      if (minItems !== undefined) field.minItems = minItems;
      if (maxItems !== undefined) field.maxItems = maxItems;
      return { field };
    }
  }
  switch (type) {
    case "string": {
      const field: TextField = { ...base, kind: "text" };
      if (typeof dflt === "string") field.default = dflt;
      const minLength = num(schema["minLength"]);
      const maxLength = num(schema["maxLength"]);
      if (minLength !== undefined) field.minLength = minLength;
      if (maxLength !== undefined) field.maxLength = maxLength;
      const pattern = str(schema["pattern"]);
      if (pattern !== undefined) {
        try {
          field.pattern = { regex: new RegExp(pattern, "u"), text: pattern };
        } catch {
          // A pattern this engine cannot compile is left to the server to check.
        }
      }
      const format = str(schema["format"]);
      if (format !== undefined && isKnownFormat(format)) field.format = format;
      return { field };
    }
    case "number":
    case "integer": {
      const field: NumberField = { ...base, kind: "number", integer: type === "integer" };
      const d = num(dflt);
      if (d !== undefined) field.default = d;
      for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
        const v = num(schema[key]);
        if (v !== undefined) field[key] = v;
      }
      return { field };
    }
    case "boolean": {
      const field: BooleanField = { ...base, kind: "boolean" };
      if (typeof dflt === "boolean") field.default = dflt;
      return { field };
    }
  }
  if (!allowJson) {
    const what = types.length === 0 ? "no type" : `type ${types.join(" | ")}`;
    return { error: `field '${name}' has ${what}; a form can ask for strings, numbers, booleans and enums only` };
  }
  const field: JsonField = { ...base, kind: "json", types, hasDefault: dflt !== undefined };
  if (dflt !== undefined) field.default = dflt;
  return { field };
}

export type Parsed = { ok: true; value: unknown } | { ok: true; omitted: true } | { ok: false; error: string };

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function matchesTypes(value: unknown, types: string[]): boolean {
  if (types.length === 0) return true;
  return types.some((t) => {
    switch (t) {
      case "object":
        return isObject(value);
      case "array":
        return Array.isArray(value);
      case "string":
        return typeof value === "string";
      case "number":
        return typeof value === "number";
      case "integer":
        return typeof value === "number" && Number.isInteger(value);
      case "boolean":
        return typeof value === "boolean";
      case "null":
        return value === null;
      default:
        return true;
    }
  });
}

/** Parses and validates what was typed for a text, number or JSON field. */
export function parseText(field: TextField | NumberField | JsonField, text: string): Parsed {
  if (text === "" && !field.required) {
    return { ok: true, omitted: true };
  }
  switch (field.kind) {
    case "text": {
      const length = [...text].length;
      if (field.minLength !== undefined && length < field.minLength) {
        return { ok: false, error: `enter at least ${plural(field.minLength, "character")} (now ${length})` };
      }
      if (field.maxLength !== undefined && length > field.maxLength) {
        return { ok: false, error: `enter at most ${plural(field.maxLength, "character")} (now ${length})` };
      }
      if (field.format !== undefined) {
        const error = checkFormat(field.format, text);
        if (error !== undefined) return { ok: false, error };
      }
      if (field.pattern !== undefined && !field.pattern.regex.test(text)) {
        return { ok: false, error: `the text must match the pattern ${field.pattern.text}` };
      }
      return { ok: true, value: text };
    }
    case "number": {
      const trimmed = text.trim();
      const value = trimmed === "" ? NaN : Number(trimmed);
      if (!Number.isFinite(value)) {
        return { ok: false, error: field.integer ? "enter a whole number" : "enter a number" };
      }
      if (field.integer && !Number.isInteger(value)) {
        return { ok: false, error: "enter a whole number (no fraction)" };
      }
      if (field.minimum !== undefined && value < field.minimum) {
        return { ok: false, error: `enter a number ≥ ${field.minimum}` };
      }
      if (field.maximum !== undefined && value > field.maximum) {
        return { ok: false, error: `enter a number ≤ ${field.maximum}` };
      }
      if (field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum) {
        return { ok: false, error: `enter a number > ${field.exclusiveMinimum}` };
      }
      if (field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum) {
        return { ok: false, error: `enter a number < ${field.exclusiveMaximum}` };
      }
      return { ok: true, value };
    }
    case "json": {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        if (field.types.length === 0 || field.types.includes("string")) {
          return { ok: true, value: text };
        }
        return { ok: false, error: `enter JSON of type ${field.types.join(" or ")}, e.g. ${example(field.types)}` };
      }
      if (!matchesTypes(value, field.types)) {
        if (field.types.includes("string")) return { ok: true, value: text };
        return { ok: false, error: `enter JSON of type ${field.types.join(" or ")}, e.g. ${example(field.types)}` };
      }
      return { ok: true, value };
    }
  }
}

function example(types: string[]): string {
  if (types.includes("object")) return '{"key": "value"}';
  if (types.includes("array")) return '["a", "b"]';
  return '"text"';
}

/** Checks a multi-select answer against minItems/maxItems. */
export function checkCount(field: MultiChoiceField, count: number): string | undefined {
  if (field.minItems !== undefined && count < field.minItems) {
    return `choose at least ${field.minItems}`;
  }
  if (field.maxItems !== undefined && count > field.maxItems) {
    return `choose at most ${field.maxItems}`;
  }
  return undefined;
}

export type Answer = { status: "value"; value: unknown } | { status: "omitted" } | { status: "cancelled" };

export interface AskContext {
  /** e.g. `notes asks (2/3)`. */
  title: string;
  cancel?: CancelToken;
}

const OMIT = Symbol("omit");

function requirement(field: Field): string {
  return field.required ? "required" : "optional";
}

function promptOf(field: Field, extra?: string): string {
  const parts = [`${field.title} (${requirement(field)}${field.required ? "" : ", empty = leave out"})`];
  if (field.description !== undefined) parts.push(field.description);
  if (extra !== undefined) parts.push(extra);
  return parts.join(" — ");
}

function textDefault(field: TextField | NumberField | JsonField): string | undefined {
  if (field.kind === "json") {
    return field.hasDefault ? display(field.default) : undefined;
  }
  return field.default === undefined ? undefined : String(field.default);
}

function constraints(field: TextField | NumberField | JsonField): string | undefined {
  const notes: string[] = [];
  if (field.kind === "text") {
    if (field.minLength !== undefined) notes.push(`min ${field.minLength} chars`);
    if (field.maxLength !== undefined) notes.push(`max ${field.maxLength} chars`);
    if (field.format !== undefined) notes.push(field.format);
  } else if (field.kind === "number") {
    notes.push(field.integer ? "integer" : "number");
    if (field.minimum !== undefined) notes.push(`≥ ${field.minimum}`);
    if (field.maximum !== undefined) notes.push(`≤ ${field.maximum}`);
    if (field.exclusiveMinimum !== undefined) notes.push(`> ${field.exclusiveMinimum}`);
    if (field.exclusiveMaximum !== undefined) notes.push(`< ${field.exclusiveMaximum}`);
  } else {
    notes.push(field.types.length === 0 ? "JSON or text" : `JSON ${field.types.join(" | ")}`);
  }
  return notes.length === 0 ? undefined : notes.join(", ");
}

async function askText(ui: Ui, field: TextField | NumberField | JsonField, ctx: AskContext): Promise<Answer> {
  let value = textDefault(field);
  let error: string | undefined;
  for (;;) {
    const options: Parameters<Ui["input"]>[0] = {
      title: ctx.title,
      prompt: promptOf(field, error ?? constraints(field)),
      validate: (text: string) => {
        const parsed = parseText(field, text);
        return parsed.ok ? undefined : parsed.error;
      },
    };
    if (value !== undefined) options.value = value;
    if (field.kind === "text" && field.format !== undefined) options.placeholder = formatHint(field.format);
    if (ctx.cancel !== undefined) options.cancel = ctx.cancel;
    const text = await ui.input(options);
    if (text === undefined || ctx.cancel?.isCancellationRequested === true) {
      return { status: "cancelled" };
    }
    // The Ui may not enforce `validate` (and a scripted one does not): check again, ask again.
    const parsed = parseText(field, text);
    if (!parsed.ok) {
      error = `✗ ${parsed.error}`;
      value = text;
      continue;
    }
    return "omitted" in parsed ? { status: "omitted" } : { status: "value", value: parsed.value };
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function askChoice(ui: Ui, field: BooleanField | ChoiceField, ctx: AskContext): Promise<Answer> {
  const options: Option[] =
    field.kind === "boolean"
      ? [
          { value: true, label: "Yes" },
          { value: false, label: "No" },
        ]
      : field.options;
  const items: PickItem<unknown>[] = options.map((o) => {
    const item: PickItem<unknown> = { label: o.label, value: o.value };
    if (field.default !== undefined && sameValue(o.value, field.default)) {
      item.description = "default";
      item.picked = true;
    }
    return item;
  });
  // The default first, so Enter takes it.
  items.sort((a, b) => Number(b.picked === true) - Number(a.picked === true));
  if (!field.required) {
    items.push({ label: "Leave out", description: "no value for this optional field", value: OMIT });
  }
  const pickOptions: Parameters<Ui["pick"]>[1] = { title: ctx.title, placeholder: promptOf(field) };
  if (ctx.cancel !== undefined) pickOptions.cancel = ctx.cancel;
  const picked = await ui.pick(items, pickOptions);
  if (picked === undefined || ctx.cancel?.isCancellationRequested === true) {
    return { status: "cancelled" };
  }
  if (picked === OMIT) {
    return { status: "omitted" };
  }
  return { status: "value", value: picked };
}

async function askMulti(ui: Ui, field: MultiChoiceField, ctx: AskContext): Promise<Answer> {
  let error: string | undefined;
  for (;;) {
    const items: PickItem<unknown>[] = field.options.map((o) => {
      const item: PickItem<unknown> = { label: o.label, value: o.value };
      if (field.default?.some((d) => sameValue(d, o.value)) === true) {
        item.picked = true;
        item.description = "default";
      }
      return item;
    });
    const limits = [
      field.minItems !== undefined ? `at least ${field.minItems}` : "",
      field.maxItems !== undefined ? `at most ${field.maxItems}` : "",
    ]
      .filter((s) => s !== "")
      .join(", ");
    const pickOptions: Parameters<Ui["pickMany"]>[1] = {
      title: ctx.title,
      placeholder: promptOf(field, error ?? (limits === "" ? "choose any" : `choose ${limits}`)),
    };
    if (ctx.cancel !== undefined) pickOptions.cancel = ctx.cancel;
    const picked = await ui.pickMany(items, pickOptions);
    if (picked === undefined || ctx.cancel?.isCancellationRequested === true) {
      return { status: "cancelled" };
    }
    if (picked.length === 0 && !field.required) {
      return { status: "omitted" };
    }
    const countError = checkCount(field, picked.length);
    if (countError !== undefined) {
      error = `✗ ${countError}`;
      continue;
    }
    // Keep the schema's order, whatever order the picks came in.
    const ordered = field.options.map((o) => o.value).filter((v) => picked.some((p) => sameValue(p, v)));
    return { status: "value", value: ordered };
  }
}

/** Asks one field; re-asks until the answer is valid or the person cancels. */
export function askField(ui: Ui, field: Field, ctx: AskContext): Promise<Answer> {
  switch (field.kind) {
    case "text":
    case "number":
    case "json":
      return askText(ui, field, ctx);
    case "boolean":
    case "choice":
      return askChoice(ui, field, ctx);
    case "multi":
      return askMulti(ui, field, ctx);
  }
}
