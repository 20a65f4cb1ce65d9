import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { parseJson } from "../shared/parse-json.js";
import { compileInput, type SchemaIssue } from "../tool/input-schema.js";

/** The schema of a run's final answer: a Standard Schema (zod 4 first) that can describe itself. */
export type OutputSchema<T = unknown> = StandardSchemaV1<unknown, T>;

/**
 * A run's final answer held to its output schema: the typed value, or why it is not one. A
 * failure is a value, as a refused call is: the run still completed, and its text is kept.
 */
export type RunOutput<T> =
  | { readonly status: "valid"; readonly value: T }
  | {
      readonly status: "invalid";
      /** The answer as the model wrote it. */
      readonly text: string;
      /** What is wrong, in one sentence. */
      readonly problem: string;
      readonly issues: readonly SchemaIssue[];
    };

/** What a run with an output schema needs: the format asked of the model, and the check. */
export interface RunOutputFormat<T> {
  readonly responseFormat: NonNullable<LanguageModelV4CallOptions["responseFormat"]>;
  check(text: string): Promise<RunOutput<T>>;
}

// A model asked for JSON may still wrap it in one Markdown fence.
const FENCED = /^\s*```[a-z]*\s*\n([\s\S]*?)\n\s*```\s*$/i;

/**
 * Compile an output schema: its JSON Schema goes to the model as the response format of every
 * turn (as the AI SDK's structured output does), and the final answer is parsed and validated
 * against the schema itself. A schema that cannot describe itself as JSON Schema throws
 * `DocketError("invalid_tool")` at once, before the run starts.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const format = runOutputFormat(z.object({ refunded: z.boolean() }));
 * await format.check('{"refunded":true}'); // { status: "valid", value: { refunded: true } }
 * await format.check("Done!"); // { status: "invalid", problem: "the final answer is not JSON…", … }
 * ```
 */
export function runOutputFormat<T>(schema: OutputSchema<T>): RunOutputFormat<T> {
  const compiled = compileInput(schema, "the run's output");
  return {
    responseFormat: { type: "json", schema: compiled.jsonSchema as never, name: "output" },
    async check(text) {
      const invalid = (problem: string, issues: readonly SchemaIssue[] = []): RunOutput<T> => ({
        status: "invalid",
        text,
        problem,
        issues,
      });
      let value: unknown;
      try {
        value = parseJson(FENCED.exec(text)?.[1] ?? text);
      } catch (error) {
        return invalid(`the final answer is not JSON (${(error as Error).message})`);
      }
      let outcome: Awaited<ReturnType<typeof compiled.validate>>;
      try {
        outcome = await compiled.validate(value);
      } catch (error) {
        return invalid(`the output schema's validator failed (${(error as Error).message})`);
      }
      if (outcome.status === "valid") return { status: "valid", value: outcome.value as T };
      const listed = outcome.issues
        .slice(0, 10)
        .map((issue) => `${issue.path || "(the answer)"}: ${issue.message}`)
        .join("; ");
      return invalid(
        `the final answer does not match the output schema: ${listed}`,
        outcome.issues,
      );
    },
  };
}
