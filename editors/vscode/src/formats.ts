// String formats an elicitation form or a workflow input may ask for (JSON Schema `format`).

export const FORMATS = ["email", "uri", "date", "date-time"] as const;
export type Format = (typeof FORMATS)[number];

export function isKnownFormat(format: string): format is Format {
  return (FORMATS as readonly string[]).includes(format);
}

const EMAIL = /^[^\s@"(),:;<>[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) {
    return false;
  }
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) {
    return false;
  }
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

function validDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (match === null || !validDate(match[1] ?? "")) {
    return false;
  }
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
  if (hour > 23 || minute > 59 || second > 60) {
    return false;
  }
  if (match[5] !== undefined && (Number(match[5]) > 23 || Number(match[6]) > 59)) {
    return false;
  }
  return true;
}

function validUri(text: string): boolean {
  if (!SCHEME.test(text) || /\s/.test(text)) {
    return false;
  }
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** An error message when `text` is not a valid `format`, else undefined. */
export function checkFormat(format: Format, text: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(text) ? undefined : "enter an email address, e.g. name@example.com";
    case "uri":
      return validUri(text) ? undefined : "enter an absolute URI with a scheme, e.g. https://example.com/page";
    case "date":
      return validDate(text) ? undefined : "enter a date as YYYY-MM-DD, e.g. 2026-09-01";
    case "date-time":
      return validDateTime(text)
        ? undefined
        : "enter a date and time as YYYY-MM-DDTHH:MM:SS with a zone, e.g. 2026-09-01T14:30:00Z";
  }
}

/** An example or hint shown as the input box placeholder. */
export function formatHint(format: Format): string {
  switch (format) {
    case "email":
      return "name@example.com";
    case "uri":
      return "https://…";
    case "date":
      return "YYYY-MM-DD";
    case "date-time":
      return "YYYY-MM-DDTHH:MM:SSZ";
  }
}
