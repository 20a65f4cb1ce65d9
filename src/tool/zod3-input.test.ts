import { describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import { isDocketError } from "../errors/docket-error.js";
import { defineTool } from "./define-tool.js";

describe("a zod 3 schema as a tool's input", () => {
  it("is refused when the tool is defined, with the reason and what to use instead", () => {
    let error: unknown;
    try {
      defineTool({
        name: "get_order",
        description: "Look an order up.",
        input: z3.object({ order_id: z3.string() }),
        writes: false,
        handler: ({ order_id }) => order_id,
      });
    } catch (caught) {
      error = caught;
    }
    expect(isDocketError(error, "invalid_tool")).toBe(true);
    expect((error as Error).message).toMatch(/cannot describe itself as JSON Schema/);
    expect((error as Error).message).toMatch(/zod 3 schema .* define it with zod 4/);
  });
});
