import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { orderTools as aiSdkAppTools } from "../examples/ai-sdk-app.js";
import { orderTools as quickstartTools } from "../examples/quickstart.js";
import { openOrdersDatabase } from "../examples/support-desk/orders-database.js";
import { supportTools } from "../examples/support-desk/support-tools.js";
import { builtinTools } from "../src/builtin/builtin-tools.js";
import { lintTools } from "../src/index.js";
import { runDocketIn } from "./loop/support/run-child.js";

const workspace = mkdtempSync(join(tmpdir(), "docket-shipped-lint-"));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

// Every tool docket ships to be offered to a model: the check docket asks of everyone else's.
const SHIPPED = {
  "the built-in tools": () => builtinTools({ workspace }),
  "the demo's support desk": () => supportTools(openOrdersDatabase(":memory:"), []),
  "examples/quickstart.ts": () => quickstartTools,
  "examples/ai-sdk-app.ts": () => aiSdkAppTools,
};

describe("the tools docket ships pass docket's own tool lint", () => {
  it.each(Object.entries(SHIPPED))("%s: no finding", (_where, tools) => {
    const offered = tools();
    expect(offered.length).toBeGreaterThan(0);
    expect(lintTools(offered)).toEqual([]);
  });

  it("docket tools --lint finds nothing in the built-in menu", async () => {
    const { code, stdout, stderr } = await runDocketIn(workspace, ["tools", "--lint", "--no-mcp"]);
    expect(stderr).toBe("");
    expect(stdout).toBe("No findings.\n");
    expect(code).toBe(0);
  });
});
