import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicyFile } from "./load-policy-files.js";
import { policyNetworkIssues } from "./policy-network-issues.js";

describe("policyNetworkIssues", () => {
  it("accepts allow, ask and deny lists of host patterns", () => {
    expect(
      policyNetworkIssues({ allow: ["registry.npmjs.org"], ask: ["*.github.com"], deny: ["*"] }),
    ).toEqual([]);
  });

  it("names each bad key, list and pattern", () => {
    const issues = policyNetworkIssues({ allow: ["a*b.org", 7], block: [], ask: "x.org" });
    expect(issues.map((issue) => issue.path)).toEqual([
      ["network", "allow", 0],
      ["network", "allow", 1],
      ["network", "block"],
      ["network", "ask"],
    ]);
    expect(policyNetworkIssues(["x.org"])).toMatchObject([{ path: ["network"] }]);
  });
});

describe("a policy file's network section", () => {
  it("is loaded into the layer, and a bad pattern stops the load with file and line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-policy-network-"));
    const good = join(dir, "managed.yaml");
    await writeFile(good, "policy:\n  network:\n    deny: [pastebin.com]\n");
    expect(loadPolicyFile(good, "managed").network).toEqual({ deny: ["pastebin.com"] });
    const bad = join(dir, "user.yaml");
    await writeFile(
      bad,
      "policy:\n  network:\n    allow:\n      - ok.example.org\n      - a*b.org\n",
    );
    expect(() => loadPolicyFile(bad, "user")).toThrow(
      new RegExp(
        `^${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:5: network\\.allow\\[1\\]: bad host pattern`,
      ),
    );
  });
});
