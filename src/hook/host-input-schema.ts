import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { JsonSchema } from "../tool/input-schema.js";
import type { PolicyArgs } from "../tool/tool.js";

/** A Standard Schema that also describes itself as JSON Schema, as zod 4's schemas do. */
export type HostInputSchema = StandardSchemaV1<Record<string, unknown>> & {
  readonly "~standard": { readonly jsonSchema: { input(options: { target: string }): JsonSchema } };
};

/**
 * The input schema of a host's tool as docket judges it: an object whose mapped keys (the
 * command, the URL, the paths) hold text, a command or URL being required, and any other key the
 * host sends left as it is. Checked by hand rather than by a schema library: a hook is a process
 * per call, and compiling a JSON Schema with ajv cost it about a quarter of its start.
 *
 * @example
 * ```ts
 * const schema = hostInputSchema({ command: "command" });
 * schema["~standard"].validate({ command: 1 }); // { issues: [{ path: ["command"], message: "must be text" }] }
 * ```
 */
export function hostInputSchema(policyArgs: PolicyArgs): HostInputSchema {
  const required = [policyArgs.command, policyArgs.url].filter(
    (key): key is string => typeof key === "string",
  );
  const paths =
    typeof policyArgs.path === "string" ? [policyArgs.path] : [...(policyArgs.path ?? [])];
  const keys = [...new Set([...required, ...paths])];
  const jsonSchema: JsonSchema = {
    type: "object",
    properties: Object.fromEntries(keys.map((key) => [key, { type: "string" }])),
    required,
  };
  const validate = (value: unknown): StandardSchemaV1.Result<Record<string, unknown>> => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { issues: [{ message: "must be an object", path: [] }] };
    const record = value as Record<string, unknown>;
    const issues: StandardSchemaV1.Issue[] = [];
    for (const key of keys) {
      const present = Object.hasOwn(record, key);
      if (!present && required.includes(key)) issues.push({ message: "is required", path: [key] });
      else if (present && typeof record[key] !== "string")
        issues.push({ message: "must be text", path: [key] });
    }
    return issues.length > 0 ? { issues } : { value: record };
  };
  return {
    "~standard": {
      version: 1,
      vendor: "docket",
      validate,
      jsonSchema: { input: () => jsonSchema },
    },
  };
}
