import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { repeatedFunctions } from "./repeated-functions.js";

// A module as tsc writes it: long enough to count, with a nested helper and a class.
const MODULE = `import { z } from "zod";
export function describeRefund(order, amount) {
  const limit = order.total - order.refunded;
  if (amount > limit) {
    return { status: "refused", reason: \`\${amount} USD would exceed what is left on order \${order.id}\` };
  }
  return { status: "ok", message: \`Refunded \${amount} USD on order \${order.id}, \${limit - amount} left.\` };
}
export class RefundLedger {
  entries = [];
  add(orderId, amount) {
    this.entries.push({ orderId, amount, at: Date.now() });
    return this.entries.filter((entry) => entry.orderId === orderId).reduce((sum, entry) => sum + entry.amount, 0);
  }
}
`;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "docket-repeated-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe("repeatedFunctions", () => {
  it("finds a module shipped as tsc's file and inside a minified bundle that renamed it", () => {
    const bundled = transformSync(MODULE.replaceAll("describeRefund", "describeRefund2"), {
      loader: "js",
      minifyWhitespace: true,
      minifySyntax: true,
    }).code;
    const found = repeatedFunctions(
      write({ "src/refunds.js": MODULE, "src/chunks/chunk-A.js": `var x=1;${bundled}` }),
    );
    expect(found.map((copy) => copy.name).sort()).toEqual(["RefundLedger", "describeRefund"]);
    for (const copy of found) {
      expect([...copy.files].sort()).toEqual(["src/chunks/chunk-A.js", "src/refunds.js"]);
    }
  });

  it("finds a copy in a CommonJS file too, and nothing where each module is once", () => {
    expect(repeatedFunctions(write({ "a.js": MODULE, "b.cjs": MODULE })).length).toBe(2);
    const other = MODULE.replaceAll("USD", "EUR").replace("Date.now()", "performance.now()");
    expect(repeatedFunctions(write({ "a.js": MODULE, "b.js": other }))).toEqual([]);
  });
});
