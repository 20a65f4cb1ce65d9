import { APICallError } from "@ai-sdk/provider";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
import { sanitiseError } from "../checkpoint/sanitise-error.js";
import { commandFailure } from "../cli/commands/command-failure.js";
import { runCli } from "../cli/run-cli.js";
import { explainCallError } from "../mcp/explain-call-error.js";
import { classifyModelError } from "../model/model-failure.js";

// Every exit where docket prints or returns an error masks credentials by shape, whatever the
// environment holds (these tests pass an empty one where they can).
const URL_WITH_PASSWORD = "postgres://app:s3cr3t-pw@db.internal:5432/prod";
const TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const leaks = (text: string) => text.includes("s3cr3t-pw") || text.includes(TOKEN);

describe("credentials in error messages", () => {
  it("are masked in a tool's failed result (sanitiseError)", () => {
    const out = sanitiseError(
      new Error(`cannot connect to ${URL_WITH_PASSWORD} with ${TOKEN}`),
      {},
    );
    expect(out).toBe("cannot connect to postgres://app:***@db.internal:5432/prod with ghp_***");
  });

  it("are masked in MCP upstream errors", () => {
    for (const error of [
      new Error(`fetch ${URL_WITH_PASSWORD} failed`),
      new McpError(-32603, `upstream said ${TOKEN} is invalid`),
    ]) {
      const { error: explained } = explainCallError(error, "db", undefined);
      expect(leaks(explained.message)).toBe(false);
      expect(explained.message).toMatch(/\*\*\*/);
    }
  });

  it("are masked in model failures", () => {
    const failures = [
      classifyModelError(new Error(`socket hang up at ${URL_WITH_PASSWORD}`)),
      classifyModelError({ error: { type: "invalid_request_error", message: `bad key ${TOKEN}` } }),
      classifyModelError(
        new APICallError({
          message: `invalid header Authorization: Bearer ${TOKEN}`,
          url: "https://api.example.com/v1/messages",
          requestBodyValues: {},
          statusCode: 400,
        }),
      ),
    ];
    for (const failure of failures) {
      expect(leaks(failure.message)).toBe(false);
      expect(failure.message).toMatch(/\*\*\*/);
    }
  });

  it("are masked where a command fails", () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let thrown: unknown;
    try {
      commandFailure(2, "docket.test", `cannot open ${URL_WITH_PASSWORD}`);
    } catch (error) {
      thrown = error;
    } finally {
      spy.mockRestore();
      process.exitCode = undefined;
    }
    expect(written.join("")).toContain("postgres://app:***@db.internal");
    expect(leaks(written.join(""))).toBe(false);
    expect(leaks((thrown as Error).message)).toBe(false);
  });

  it("are masked in the CLI's last-resort error line", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    const previous = process.env.DOCKET_STORE;
    // Not a scheme docket knows: refused, and the URL is named in the error, masked.
    process.env.DOCKET_STORE = "mysql://app:s3cr3t-pw@127.0.0.1:1/prod";
    try {
      const code = await runCli(["sessions", "list"]);
      expect(code).not.toBe(0);
    } finally {
      spy.mockRestore();
      if (previous === undefined) delete process.env.DOCKET_STORE;
      else process.env.DOCKET_STORE = previous;
      process.exitCode = undefined;
    }
    expect(lines.join("\n")).toMatch(/docket: /);
    expect(leaks(lines.join("\n"))).toBe(false);
  }, 20_000);
});
