import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runOutputFormat } from "./run-output.js";

const Answer = z.object({ refunded: z.boolean(), amount_usd: z.number().nonnegative() }).strict();

describe("runOutputFormat", () => {
  it("asks the model for JSON with the schema's own JSON Schema", () => {
    const { responseFormat } = runOutputFormat(Answer);
    expect(responseFormat).toMatchObject({
      type: "json",
      schema: {
        type: "object",
        properties: { refunded: { type: "boolean" }, amount_usd: { type: "number" } },
      },
    });
  });

  it("types a matching answer, fenced in Markdown or not", async () => {
    const { check } = runOutputFormat(Answer);
    expect(await check('{"refunded":true,"amount_usd":20}')).toEqual({
      status: "valid",
      value: { refunded: true, amount_usd: 20 },
    });
    expect(await check('```json\n{"refunded":false,"amount_usd":0}\n```')).toEqual({
      status: "valid",
      value: { refunded: false, amount_usd: 0 },
    });
  });

  it("reports prose, or JSON the schema refuses, as a value with the text and the reason", async () => {
    const { check } = runOutputFormat(Answer);
    const prose = await check("I refunded 20 USD.");
    expect(prose).toMatchObject({ status: "invalid", text: "I refunded 20 USD.", issues: [] });
    expect(prose.status === "invalid" && prose.problem).toMatch(/^the final answer is not JSON/);
    const wrong = await check('{"refunded":"yes","amount_usd":-1}');
    expect(wrong).toMatchObject({ status: "invalid" });
    expect(wrong.status === "invalid" && wrong.issues.map((issue) => issue.path)).toEqual([
      "/refunded",
      "/amount_usd",
    ]);
    expect(wrong.status === "invalid" && wrong.problem).toContain("/refunded");
  });

  it("runs an asynchronous Standard Schema, and a validator that throws is a value too", async () => {
    const later = z.object({ ok: z.boolean() }).refine(async (value) => value.ok, "must be ok");
    expect(await runOutputFormat(later).check('{"ok":true}')).toEqual({
      status: "valid",
      value: { ok: true },
    });
    const throwing = z.object({ ok: z.boolean() }).refine(() => {
      throw new Error("broken check");
    });
    const outcome = await runOutputFormat(throwing).check('{"ok":true}');
    expect(outcome).toMatchObject({ status: "invalid" });
  });

  it("never throws, whatever the model wrote", async () => {
    const { check } = runOutputFormat(Answer);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json()), async (text) => {
        const outcome = await check(text);
        expect(["valid", "invalid"]).toContain(outcome.status);
        if (outcome.status === "valid") expect(Answer.parse(outcome.value)).toEqual(outcome.value);
      }),
      { numRuns: 300 },
    );
  });
});
