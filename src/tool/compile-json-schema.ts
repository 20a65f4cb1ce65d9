import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type addFormatsModule from "ajv-formats";
import { DocketError } from "../errors/docket-error.js";
import type { JsonSchema, SchemaIssue, ValidationOutcome } from "./input-schema.js";

// ajv (CommonJS, and one of docket's costliest modules to load) is required on the first JSON
// Schema compiled: a process whose tools are all zod, as the built-ins are, never loads it.
const load = createRequire(import.meta.url);
const addFormats = (schemaAjv: Ajv | Ajv2020) =>
  (load("ajv-formats") as { default: typeof addFormatsModule.default }).default(schemaAjv);

let draft2020: Ajv2020 | undefined;
let draft07: Ajv | undefined;

function ajvFor(schema: JsonSchema): Ajv | Ajv2020 {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  // MCP servers and older tools still publish draft-07; 2020-12 is the default otherwise.
  if (
    dialect.includes("draft-07") ||
    dialect.includes("draft-06") ||
    dialect.includes("draft-04")
  ) {
    if (!draft07) {
      const { Ajv: Draft07 } = load("ajv") as typeof import("ajv");
      draft07 = new Draft07({ allErrors: true, strict: false, validateSchema: true });
      addFormats(draft07);
    }
    return draft07;
  }
  if (!draft2020) {
    const { Ajv2020: Draft2020 } = load("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    draft2020 = new Draft2020({ allErrors: true, strict: false, validateSchema: true });
    addFormats(draft2020);
  }
  return draft2020;
}

function describeAjvError(error: ErrorObject): SchemaIssue {
  let path = error.instancePath;
  let message = error.message ?? "is invalid";
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    path = `${path}/${params.missingProperty}`;
    message = "is required";
  } else if (
    error.keyword === "additionalProperties" &&
    typeof params.additionalProperty === "string"
  ) {
    path = `${path}/${params.additionalProperty}`;
    message = "is not allowed here (unknown property)";
  } else if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    message = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return { path, message };
}

/**
 * Compile a JSON Schema with ajv into a validator. A schema ajv rejects is a definition-time
 * error: an uncompilable schema would otherwise refuse every call at run time.
 *
 * @example
 * ```ts
 * const validate = compileJsonSchema({ type: "object", required: ["id"] }, "get_order");
 * validate({}); // { status: "invalid", issues: [{ path: "/id", message: "is required" }] }
 * ```
 */
export function compileJsonSchema(
  schema: JsonSchema,
  toolName: string,
): (value: unknown) => ValidationOutcome {
  let validator: ValidateFunction;
  try {
    validator = ajvFor(schema).compile(schema);
  } catch (cause) {
    throw new DocketError(
      "invalid_tool",
      `Tool "${toolName}": its JSON Schema does not compile (${(cause as Error).message}).`,
      { cause },
    );
  }
  return (value) => {
    if (validator(value)) return { status: "valid", value };
    return { status: "invalid", issues: (validator.errors ?? []).map(describeAjvError) };
  };
}
