import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskSecrets } from "./mask-secrets.js";

describe("maskSecrets", () => {
  it.each([
    [
      "connect failed: postgres://user:secret@db.example.com:5432/app",
      "connect failed: postgres://user:***@db.example.com:5432/app",
    ],
    ["mysql://root:p@ss@w0rd@10.0.0.1/db down", "mysql://root:***@10.0.0.1/db down"],
    [
      "https://x-access-token:abc123@github.com/o/r.git",
      "https://x-access-token:***@github.com/o/r.git",
    ],
    ["redis://:hunter2@cache:6379", "redis://:***@cache:6379"],
    ["(postgres://u:pw@h/d)", "(postgres://u:***@h/d)"],
    ["key sk-abcdefghijklmnopqrstuvwx rejected", "key sk-*** rejected"],
    ["key sk-proj-abcdefghijklmnop_qrstuvwx rejected", "key sk-*** rejected"],
    ["key sk-ant-api03-abcdefghijklmnopqrstuv-xyz rejected", "key sk-ant-*** rejected"],
    ["token ghp_abcdefghijklmnopqrstuvwxyz0123456789 bad", "token ghp_*** bad"],
    ["token gho_abcdefghijklmnopqrstuvwxyz0123456789 bad", "token gho_*** bad"],
    ["github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_***"],
    ["slack xoxb-1234567890-abcdefghij said no", "slack xoxb-*** said no"],
    ["slack xoxp-1234567890-1234567890-abcdef said no", "slack xoxp-*** said no"],
    ["aws AKIAIOSFODNN7EXAMPLE denied", "aws AKIA*** denied"],
    [
      "Authorization: Bearer abc.def-ghi_jkl~mno+pqr/st= was refused",
      "Authorization: Bearer *** was refused",
    ],
    ["authorization: bearer abcdefgh1234", "authorization: bearer ***"],
    [
      "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U expired",
      "jwt eyJ*** expired",
    ],
  ])("masks %j", (input, expected) => {
    expect(maskSecrets(input)).toBe(expected);
  });

  it.each([
    "ENOENT: no such file or directory, open '/home/me/project/a.txt'",
    "see https://example.com/docs/page?x=1#y",
    "postgres://user@db/app has no password",
    "email me at someone@example.com",
    "task-force-planning-document-version-2 is fine",
    "The model provider at api.openai.com refused the API key (HTTP 401). Check the key.",
    "disk-usage: 99%",
  ])("leaves %j alone", (input) => {
    expect(maskSecrets(input)).toBe(input);
  });

  it("never lets the password of a URL with userinfo through, whatever surrounds it", () => {
    const passwordChar = fc.constantFrom(
      ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=%@:",
    );
    fc.assert(
      fc.property(
        fc.constantFrom("postgres", "postgresql", "mysql", "redis", "amqp", "https", "mongodb+srv"),
        fc.stringMatching(/^[a-z0-9._-]{0,12}$/),
        fc.string({ unit: passwordChar, minLength: 1, maxLength: 40 }),
        fc.domain(),
        fc.stringMatching(/^(\/[a-z0-9]{0,8}){0,3}$/),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        (scheme, user, password, host, rest, before, after) => {
          const url = `${scheme}://${user}:${password}@${host}${rest}`;
          const out = maskSecrets(`${before} ${url} ${after}`);
          // Kept with its password masked, or masked whole as the value of a secret-looking
          // name before it (`key: postgres://…` gives `key: ***`).
          if (!out.includes(`${scheme}://${user}:***@${host}${rest}`)) {
            expect(out).toMatch(/[:=]\s*\*\*\*/);
            expect(out).not.toContain(`@${host}${rest}`);
          }
          expect(out).not.toContain(`:${password}@`);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("keeps a URL's host when its user looks like a name=value (a shrunk counterexample)", () => {
    expect(maskSecrets("failed: http://key=:a@a.aa")).toBe("failed: http://key=:***@a.aa");
    expect(maskSecrets("failed: http://token=:hunter2@h.io/x")).toBe(
      "failed: http://token=:***@h.io/x",
    );
  });

  it("masks the password of every web URL fast-check generates with userinfo", () => {
    fc.assert(
      fc.property(
        fc.webUrl({ authoritySettings: { withUserInfo: true }, withQueryParameters: true }),
        (raw) => {
          // The userinfo as written (the URL class would normalise it).
          const authority = raw.slice(raw.indexOf("//") + 2).split(/[/?#]/)[0] ?? "";
          const userinfo = authority.slice(0, Math.max(0, authority.lastIndexOf("@")));
          const colon = userinfo.indexOf(":");
          fc.pre(colon >= 0 && colon < userinfo.length - 1);
          const [user, password] = [userinfo.slice(0, colon), userinfo.slice(colon + 1)];
          const out = maskSecrets(`failed: ${raw}`);
          expect(out).not.toContain(`:${password}@`);
          expect(out).toContain(`//${user}:***@`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("never throws and is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const once = maskSecrets(text);
        expect(maskSecrets(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  // A crashing MCP server or a failing command echoes its own configuration: values that docket's
  // environment never held, so only their names or shapes can give them away.
  it.each([
    ["fatal: DB_PASSWORD=hunter2-value is wrong", "hunter2-value"],
    ["PGPASSWORD='hunter2 value' psql", "hunter2 value"],
    ['config {"password":"hunter2-value","user":"x"}', "hunter2-value"],
    ["client_secret: hunter2-value", "hunter2-value"],
    ["export DOCKET_TOKEN=abc123tokenvalue", "abc123tokenvalue"],
    ["AIzaSyA-abcdefghijklmnopqrstuvwxyz12345 rejected", "abcdefghijklmnopqrstuvwxyz12345"],
    ["glpat-abcdefghijklmnopqrst denied", "abcdefghijklmnopqrst"],
    ["npm_abcdefghijklmnopqrstuvwxyz0123456789 expired", "abcdefghijklmnopqrstuvwxyz0123456789"],
    ["sk_live_abcdefghijklmnop1234 declined", "abcdefghijklmnop1234"],
    ["hf_abcdefghijklmnopqrstuvwxyz0123 bad", "abcdefghijklmnopqrstuvwxyz0123"],
    [
      "key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
      "b3BlbnNzaC1rZXktdjEAAAAA",
    ],
  ])("masks %j", (text, secret) => {
    const out = maskSecrets(text);
    expect(out).not.toContain(secret);
    expect(maskSecrets(out)).toBe(out);
  });

  it("leaves ordinary assignments and words alone", () => {
    for (const text of [
      "PATH=/usr/bin",
      "TOKENIZERS_PARALLELISM=false",
      "password reset sent",
      "keyboard: us",
    ]) {
      expect(maskSecrets(text)).toBe(text);
    }
  });
});
