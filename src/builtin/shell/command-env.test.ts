import { describe, expect, it } from "vitest";
import { buildCommandEnv, isSecretEnvName } from "./command-env.js";

describe("isSecretEnvName", () => {
  it.each([
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "aws_secret_access_key",
    "AWS_ACCESS_KEY_ID",
    "AWS_SESSION_TOKEN",
    "GITHUB_TOKEN",
    "GH_PAT",
    "NPM_TOKEN",
    "npm_config__authToken",
    "NPM_CONFIG__AUTH",
    "PGPASSWORD",
    "DB_PASSWD",
    "MYSQL_PWD",
    "CLIENT_SECRET_ID",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "SSH_PRIVATE_KEY",
    "STRIPE_KEY",
    "GPG_PASSPHRASE",
  ])("treats %s as a secret", (name) => {
    expect(isSecretEnvName(name)).toBe(true);
  });

  it.each([
    "PATH",
    "HOME",
    "PWD",
    "OLDPWD",
    "SSH_AUTH_SOCK",
    "TOKENIZERS_PARALLELISM",
    "KEYBOARD_LAYOUT",
    "LANG",
    "NODE_OPTIONS",
    "TERM",
    "PATHEXT",
  ])("passes %s through", (name) => {
    expect(isSecretEnvName(name)).toBe(false);
  });
});

describe("buildCommandEnv", () => {
  const base = { PATH: "/bin", GITHUB_TOKEN: "t", NPM_TOKEN: "n", HOME: "/h" };

  it("withholds secrets and reports their names", () => {
    expect(buildCommandEnv(base)).toEqual({
      env: { PATH: "/bin", HOME: "/h" },
      withheld: ["GITHUB_TOKEN", "NPM_TOKEN"],
    });
  });

  it("lets allowed names through, applies set last, or inherits everything", () => {
    const { env } = buildCommandEnv(base, { allow: ["npm_token"], set: { CI: "1", PATH: "/x" } });
    expect(env).toEqual({ PATH: "/x", HOME: "/h", NPM_TOKEN: "n", CI: "1" });
    expect(buildCommandEnv(base, { inheritSecrets: true }).env).toEqual(base);
  });
});
