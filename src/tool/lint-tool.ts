import type { MenuEntry } from "./tool-surface.js";

/** What makes a tool surface worse for the model. */
export type LintCode =
  | "no_description"
  | "one_word_description"
  | "no_when_to_use"
  | "undescribed_parameter"
  | "enum_in_prose"
  | "hidden_refinement";

/** One finding: the tool, what is wrong, where (a parameter path), and what to do. */
export interface LintFinding {
  readonly tool: string;
  readonly code: LintCode;
  /** The parameter's path (`items[].sku`); absent for the tool itself. */
  readonly path?: string;
  readonly message: string;
}

// Words that tell a model when (or when not) to reach for a tool.
const WHEN = /\b(use|used|when|whenever|if|before|after|instead|only|unless|prefer|avoid)\b/i;
// Prose that lists the allowed values of a free string.
const PROSE_CHOICE =
  /\b(one of|either|possible values|allowed values|valid values|must be (?:one of|either))\b|["'`][^"'`\s]{1,40}["'`]\s*(?:,|\||\/|or)\s*["'`][^"'`\s]{1,40}["'`]/i;

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function walkParameters(
  schema: Schema,
  path: string,
  visit: (path: string, schema: Schema) => void,
  depth = 0,
): void {
  if (depth > 16) return;
  const properties = schema.properties;
  if (isSchema(properties)) {
    for (const [name, child] of Object.entries(properties)) {
      if (!isSchema(child)) continue;
      const childPath = path ? `${path}.${name}` : name;
      visit(childPath, child);
      walkParameters(child, childPath, visit, depth + 1);
    }
  }
  if (isSchema(schema.items)) walkParameters(schema.items, `${path}[]`, visit, depth + 1);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const option of list)
        if (isSchema(option)) walkParameters(option, path, visit, depth + 1);
  }
}

function describedSomewhere(schema: Schema): boolean {
  if (typeof schema.description === "string" && schema.description.trim() !== "") return true;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = schema[key];
    if (Array.isArray(list) && list.some((o) => isSchema(o) && describedSomewhere(o))) return true;
  }
  return false;
}

function isFreeString(schema: Schema): boolean {
  return schema.type === "string" && schema.enum === undefined && schema.const === undefined;
}

/**
 * Lint one menu entry as the model sees it (name, description, JSON Schema), and, when given,
 * the schema `defineTool` was given: a zod refinement or transform is checked by the handler's
 * validator but never published, so the model cannot know the rule it is then refused for.
 *
 * @example
 * ```ts
 * lintTool({ name: "lookup", description: "Lookup.", inputSchema: { type: "object" } });
 * // [{ tool: "lookup", code: "one_word_description", … }, { code: "no_when_to_use", … }]
 * ```
 */
export function lintTool(entry: MenuEntry, input?: unknown): LintFinding[] {
  const findings: LintFinding[] = [];
  const tool = entry.name;
  const add = (code: LintCode, message: string, path?: string) =>
    findings.push({ tool, code, message, ...(path === undefined ? {} : { path }) });
  const description = (entry.description ?? "").trim();
  if (description === "") {
    add("no_description", "no description: the model has only the name to go on.");
  } else if (description.split(/\s+/).length < 2) {
    add("one_word_description", `a one-word description ("${description}"): say what it does.`);
  }
  if (description !== "" && !WHEN.test(description)) {
    add("no_when_to_use", 'the description never says when to use it ("Use it when …").');
  }
  if (isSchema(entry.inputSchema)) {
    walkParameters(entry.inputSchema, "", (path, schema) => {
      if (!describedSomewhere(schema)) {
        add("undescribed_parameter", "a parameter without a description.", path);
      } else if (
        isFreeString(schema) &&
        typeof schema.description === "string" &&
        PROSE_CHOICE.test(schema.description)
      ) {
        add(
          "enum_in_prose",
          "the description lists the allowed values in words: make it an enum, which the model is held to.",
          path,
        );
      }
    });
  }
  for (const hidden of hiddenRefinements(input)) {
    add(
      "hidden_refinement",
      `a ${hidden.kind} the published JSON Schema cannot show: the model is refused for a rule it was never told. Say it in the description, or express it in the schema.`,
      hidden.path || undefined,
    );
  }
  return findings;
}

interface ZodLike {
  readonly _zod: { readonly def: Record<string, unknown> };
}

function isZod(value: unknown): value is ZodLike {
  return (
    typeof value === "object" &&
    value !== null &&
    isSchema((value as { _zod?: unknown })._zod) &&
    isSchema((value as ZodLike)._zod.def)
  );
}

/**
 * The refinements and transforms inside a zod 4 schema, with their paths. Other Standard
 * Schema libraries are not looked into.
 */
function hiddenRefinements(
  input: unknown,
  path = "",
  depth = 0,
): { kind: "refinement" | "transform"; path: string }[] {
  if (!isZod(input) || depth > 16) return [];
  const def = input._zod.def;
  const found: { kind: "refinement" | "transform"; path: string }[] = [];
  const checks = Array.isArray(def.checks) ? def.checks : [];
  for (const check of checks) {
    if (isZod(check) && check._zod.def.check === "custom") found.push({ kind: "refinement", path });
  }
  if (def.type === "transform") found.push({ kind: "transform", path });
  const into = (child: unknown, childPath: string) =>
    found.push(...hiddenRefinements(child, childPath, depth + 1));
  if (isSchema(def.shape)) {
    for (const [name, child] of Object.entries(def.shape))
      into(child, path ? `${path}.${name}` : name);
  }
  if (def.element !== undefined) into(def.element, `${path}[]`);
  for (const key of ["innerType", "in", "out"]) if (def[key] !== undefined) into(def[key], path);
  if (Array.isArray(def.options)) for (const option of def.options) into(option, path);
  return found;
}
