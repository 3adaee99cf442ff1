/**
 * A mounted server's request for input (MCP elicitation, form mode) as the apps show it:
 * the form's fields read from its flat JSON Schema, an answer typed as text turned into the
 * field's value, and the answers checked against the schema (types, required fields, enums,
 * bounds, formats) with the validator of tool arguments, so a bad answer is asked again.
 * The apps ask; with no one to ask, the request is declined.
 */
import { jsonSchemaValidator } from "./json-schema.ts";

/** A value a form field takes. */
export type FieldValue = string | number | boolean | string[];

/** One field of the form, in the schema's order. */
export interface FormField {
  /** The property name, the key of its answer. */
  readonly name: string;
  /** What the person is shown: the schema's `title`, else the name. */
  readonly title: string;
  readonly description?: string;
  /** `choice`: one of `options`; `choices`: any of them. */
  readonly type: "string" | "number" | "integer" | "boolean" | "choice" | "choices";
  readonly required: boolean;
  /** The values of a choice, with the label to show for each. */
  readonly options?: readonly { readonly value: string; readonly label: string }[];
  readonly default?: FieldValue;
  /** `email`, `uri`, `date`, `date-time` for a string. */
  readonly format?: string;
}

/** A server's request, as an app shows it. */
export interface ElicitationRequest {
  /** The server's name in the config. */
  readonly server: string;
  readonly message: string;
  readonly fields: readonly FormField[];
  /** The schema as the server sent it: answers are checked against it. */
  readonly schema: Readonly<Record<string, unknown>>;
}

/** What the person did: filled in the form, said no, or dismissed it. */
export type ElicitationAnswer =
  | { readonly action: "accept"; readonly content: Readonly<Record<string, FieldValue>> }
  | { readonly action: "decline" }
  | { readonly action: "cancel" };

/** Shows a request to the person and resolves with their answer; `signal` ends the question (the answer is then `cancel`). */
export type Elicitor = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/**
 * The request the apps show, from the server's `elicitation/create` parameters.
 *
 * @example elicitationRequest("github", "Which repo?", { type: "object", properties: { repo: { type: "string" } } }).fields[0]?.title // "repo"
 */
export function elicitationRequest(server: string, message: string, schema: Readonly<Record<string, unknown>>): ElicitationRequest {
  const properties = record(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === "string") : []);
  const fields = Object.entries(properties).map(([name, value]) => fieldOf(name, record(value), required.has(name)));
  return { server, message, fields, schema };
}

/**
 * A field's answer typed as text, as its value: a blank answer is the field's default, or
 * `undefined` when it has none; else the value, or the problem with the text.
 * A choice is its value, its label or its number in the list; several are separated by commas.
 */
export function parseField(field: FormField, text: string): { value: FieldValue | undefined } | { problem: string } {
  const typed = text.trim();
  if (typed === "") return { value: field.default };
  switch (field.type) {
    case "string":
      return { value: text };
    case "number":
    case "integer": {
      const value = Number(typed);
      return Number.isFinite(value) ? { value } : { problem: `must be a number` };
    }
    case "boolean":
      if (/^(y|yes|true)$/i.test(typed)) return { value: true };
      if (/^(n|no|false)$/i.test(typed)) return { value: false };
      return { problem: "must be yes or no" };
    case "choice":
      return choiceOf(field, typed) ?? { problem: `must be one of: ${labels(field)}` };
    case "choices": {
      const picked = typed.split(",").map((part) => choiceOf(field, part.trim()));
      const values = picked.flatMap((choice) => (choice === undefined ? [] : [String(choice.value)]));
      return values.length === picked.length ? { value: values } : { problem: `must be among: ${labels(field)} (separated by commas)` };
    }
  }
}

/**
 * What is wrong with a whole answer, one `field: problem` line each (in the words of
 * argument errors: `age: must be integer`, `color: must be present`); none when it is valid.
 */
export function answerProblems(request: ElicitationRequest, content: Readonly<Record<string, unknown>>): readonly string[] {
  return validatorOf(request.schema)(content);
}

/** The problems of one field's value on its own (`undefined` when blank). */
export function fieldProblems(request: ElicitationRequest, field: FormField, value: FieldValue | undefined): readonly string[] {
  const property = record(request.schema.properties)[field.name];
  const schema = { type: "object", properties: { [field.name]: property }, required: field.required ? [field.name] : [] };
  return validatorOf(schema)(value === undefined ? {} : { [field.name]: value });
}

const validators = new WeakMap<object, (value: unknown) => readonly string[]>();

function validatorOf(schema: Readonly<Record<string, unknown>>): (value: unknown) => readonly string[] {
  const known = validators.get(schema);
  if (known) return known;
  const compiled = jsonSchemaValidator(schema);
  validators.set(schema, compiled);
  return compiled;
}

function fieldOf(name: string, schema: Readonly<Record<string, unknown>>, required: boolean): FormField {
  const title = typeof schema.title === "string" ? schema.title : name;
  const base = {
    name,
    title,
    required,
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
    ...(typeof schema.format === "string" ? { format: schema.format } : {}),
    ...(isValue(schema.default) ? { default: schema.default } : {}),
  };
  const single = optionsOf(schema);
  if (single) return { ...base, type: "choice", options: single };
  const items = record(schema.items);
  const many = schema.type === "array" ? optionsOf(items) : undefined;
  if (many) return { ...base, type: "choices", options: many };
  const type = schema.type === "number" || schema.type === "integer" || schema.type === "boolean" ? schema.type : "string";
  return { ...base, type };
}

/** A choice's options: `enum` (with the legacy `enumNames` as labels), or `oneOf`/`anyOf` of `{ const, title }`. */
function optionsOf(schema: Readonly<Record<string, unknown>>): FormField["options"] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => ({ value: String(value), label: typeof names[index] === "string" ? names[index] : String(value) }));
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (titled === undefined) return undefined;
  return titled.map(record).map((option) => ({ value: String(option.const), label: typeof option.title === "string" ? option.title : String(option.const) }));
}

function choiceOf(field: FormField, typed: string): { value: string } | undefined {
  const options = field.options ?? [];
  const byNumber = /^\d+$/.test(typed) ? options[Number(typed) - 1] : undefined;
  const found = byNumber ?? options.find((option) => option.value === typed || option.label.toLowerCase() === typed.toLowerCase());
  return found === undefined ? undefined : { value: found.value };
}

function labels(field: FormField): string {
  return (field.options ?? []).map((option) => option.value).join(", ");
}

function isValue(value: unknown): value is FieldValue {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" || (Array.isArray(value) && value.every((item) => typeof item === "string"));
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
