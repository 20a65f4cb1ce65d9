import { describe, expect, it } from "vitest";
import type { Tool } from "../tool/tool.js";
import { compileFlow } from "./flow-options.js";

// Only what sensitiveOf reads of a tool: its name and the arguments it declares.
const tool = (name: string, policyArgs: Tool["policyArgs"]) =>
  ({ name, policyArgs }) as unknown as Tool;

describe("flow.sensitive on a model's arguments", () => {
  it("finds a sensitive path among more words than a spread's arguments hold", () => {
    const flow = compileFlow({ sensitive: ["data/customers/**"], workspace: "/ws" });
    const command = `${"cat a ".repeat(150_000)}data/customers/a.csv`;
    expect(flow.sensitiveOf(tool("run_command", { command: "command" }), { command })).toBe(
      "run_command data/customers/a.csv",
    );
    const paths = [...Array.from({ length: 200_000 }, () => "notes.txt"), "data/customers/b.csv"];
    expect(flow.sensitiveOf(tool("read_many", { path: "paths" }), { paths })).toBe(
      "read_many data/customers/b.csv",
    );
    expect(flow.sensitiveOf(tool("read_many", { path: "paths" }), { paths: ["a", 7] })).toBe(
      undefined,
    );
  });
});
