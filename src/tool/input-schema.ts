import type { StandardSchemaV1 } from "@standard-schema/spec";
import { DocketError } from "../errors/docket-error.js";
import { compileJsonSchema } from "./compile-json-schema.js";

/** A JSON Schema object as published to model providers. */
export type JsonSchema = { readonly [key: string]: unknown };

/** One reason an argument object did not match a tool's input schema. */
export interface SchemaIssue {
  /** Where the problem is, as a JSON-pointer-like path (`/items/0/name`), `""` for the root. */
  readonly path: string;
  readonly message: string;
}

/** The outcome of validating arguments: the (possibly transformed) value, or every issue found. */
export type ValidationOutcome =
  | { readonly status: "valid"; readonly value: unknown }
  | { readonly status: "invalid"; readonly issues: readonly SchemaIssue[] };

/** What a tool's `input` may be: a Standard Schema (zod 4 first) or a plain JSON Schema object. */
export type ToolInput = StandardSchemaV1 | JsonSchema;

/** A tool's input, normalised: the schema providers see and the validator the checkpoint runs. */
export interface CompiledInput {
  readonly jsonSchema: JsonSchema;
  /** Synchronous when the schema allows it (zod, ajv); a Promise only for async Standard Schemas. */
  validate(value: unknown): ValidationOutcome | Promise<ValidationOutcome>;
}

interface StandardJsonSchemaCapable {
  readonly "~standard": StandardSchemaV1["~standard"] & {
    readonly jsonSchema?: { input(options: { target: string }): JsonSchema };
  };
}

/**
 * Whether a value is a Standard Schema (it has `~standard.validate`), whatever its library.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * isStandardSchema(z.string()); // true
 * isStandardSchema({ type: "object" }); // false: a JSON Schema
 * ```
 */
export function isStandardSchema(
  input: unknown,
): input is StandardSchemaV1 & StandardJsonSchemaCapable {
  if (typeof input !== "object" && typeof input !== "function") return false;
  if (input === null) return false;
  const standard = (input as { "~standard"?: unknown })["~standard"];
  return (
    typeof standard === "object" &&
    standard !== null &&
    typeof (standard as { validate?: unknown }).validate === "function"
  );
}

function pathToPointer(path: StandardSchemaV1.Issue["path"]): string {
  if (!path || path.length === 0) return "";
  return path
    .map((segment) => {
      const key = typeof segment === "object" && segment !== null ? segment.key : segment;
      return `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
    })
    .join("");
}

function fromStandardResult(result: StandardSchemaV1.Result<unknown>): ValidationOutcome {
  if (result.issues === undefined) return { status: "valid", value: result.value };
  return {
    status: "invalid",
    issues: result.issues.map((issue) => ({
      path: pathToPointer(issue.path),
      message: issue.message,
    })),
  };
}

/**
 * Normalise a tool's `input` into the JSON Schema providers see and a validator. A Standard
 * Schema must be able to describe itself as JSON Schema (zod 4 can); a plain object is taken as
 * JSON Schema and compiled with ajv. Either way a schema that cannot be used is a definition-time
 * error, so a tool never reaches a model with a menu entry that does not match its validator.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const compiled = compileInput(z.object({ path: z.string() }), "read_file");
 * compiled.validate({ path: 1 }); // { status: "invalid", issues: [{ path: "/path", ... }] }
 * ```
 */
export function compileInput(input: ToolInput, toolName: string): CompiledInput {
  const compiled = compileInputLazily(input, toolName);
  // Touched now: a schema that cannot describe itself is an error where the tool is defined.
  void compiled.jsonSchema;
  return compiled;
}

/**
 * As {@link compileInput}, but a Standard Schema's JSON Schema is derived when first read (and
 * kept), not at once: for docket's own tools, whose schemas are known good and tested, in a
 * process that never shows a menu to a model (`docket policy check`). Validation is the same; a
 * schema that cannot be expressed throws the same error, on first read.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const compiled = compileInputLazily(z.object({ path: z.string() }), "read_file");
 * compiled.validate({ path: "a" }); // { status: "valid", value: { path: "a" } }
 * compiled.jsonSchema.type; // "object", derived now
 * ```
 */
export function compileInputLazily(input: ToolInput, toolName: string): CompiledInput {
  if (isStandardSchema(input)) {
    const standard = input["~standard"];
    const describe = standard.jsonSchema;
    if (!describe) {
      // zod 3 validates through Standard Schema but has no JSON Schema of its own, and a menu
      // entry guessed from its internals could differ from what it validates.
      const zod3 =
        standard.vendor === "zod" && standard.version === 1 && "_def" in (input as object)
          ? " A zod 3 schema (zod@3, or zod/v3) has none: define it with zod 4 (`zod` 4.x or `zod/v4`), whose schemas do."
          : "";
      throw new DocketError(
        "invalid_tool",
        `Tool "${toolName}": its input schema (${standard.vendor}) cannot describe itself as JSON Schema, which the model's menu needs; pass a JSON Schema object or a schema library that implements Standard JSON Schema (zod 4 does).${zod3}`,
      );
    }
    let jsonSchema: JsonSchema | undefined;
    return {
      get jsonSchema() {
        jsonSchema ??= describedSchema(describe, toolName);
        return jsonSchema;
      },
      validate(value) {
        const result = standard.validate(value);
        return result instanceof Promise
          ? result.then(fromStandardResult)
          : fromStandardResult(result);
      },
    };
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new DocketError(
      "invalid_tool",
      `Tool "${toolName}": input must be a Standard Schema (such as a zod object) or a JSON Schema object.`,
    );
  }
  const jsonSchema = input as JsonSchema;
  assertObjectSchema(jsonSchema, toolName);
  return { jsonSchema, validate: compileJsonSchema(jsonSchema, toolName) };
}

function describedSchema(
  describe: { input(options: { target: string }): JsonSchema },
  toolName: string,
): JsonSchema {
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = describe.input({ target: "draft-2020-12" });
  } catch (cause) {
    throw new DocketError(
      "invalid_tool",
      `Tool "${toolName}": its input schema cannot be expressed as JSON Schema (${(cause as Error).message}).`,
      { cause },
    );
  }
  assertObjectSchema(jsonSchema, toolName);
  return jsonSchema;
}

function assertObjectSchema(schema: JsonSchema, toolName: string): void {
  // Providers require tool parameters to be an object schema; catching it here beats a 400 later.
  if (schema.type !== "object") {
    throw new DocketError(
      "invalid_tool",
      `Tool "${toolName}": the input schema must describe an object (type "object"), got ${JSON.stringify(schema.type ?? null)}.`,
    );
  }
}
