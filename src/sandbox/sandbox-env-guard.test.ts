import { describe, expect, it } from "vitest";
import { forbiddenSandboxEnv } from "./sandbox-env-guard.js";

describe("forbiddenSandboxEnv", () => {
  it("refuses every DOCKET_ name, in any case, and the configured credential names", () => {
    for (const name of ["DOCKET_TOKEN", "docket_token", "DOCKET_STORE", "DOCKET_ANYTHING_NEW"]) {
      expect(forbiddenSandboxEnv(name)).toContain(name);
    }
    const credentials = new Map([["ALICE_TOKEN", "approvers.alice.token_env"]]);
    expect(forbiddenSandboxEnv("ALICE_TOKEN", credentials)).toContain("approvers.alice.token_env");
  });

  it("lets ordinary names through, secret-looking ones the user chose included", () => {
    for (const name of ["CI", "NPM_TOKEN", "MY_DOCKET_TOKEN", "DOCKETX"]) {
      expect(forbiddenSandboxEnv(name)).toBeUndefined();
    }
  });
});
