import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanSecrets } from "./scan-secrets.js";

const GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const AWS = "AKIAIOSFODNN7EXAMPLE";
const RANDOM = "q8Vn2LxR7tKp0ZsY4mWc9HbJ3fDg6AeU1oQi";

describe("scanSecrets", () => {
  it.each([
    [`token ${GITHUB} here`, "github token", "token ghp_*** here"],
    [`aws_access_key_id = ${AWS}`, "aws access key", "aws_access_key_id = AKIA***"],
    ["db postgres://app:hunter2@db/app", "url password", "db postgres://app:***@db/app"],
    ['{"password":"correct-horse-battery"}', "password", '{"password":"***"}'],
    [`key ${RANDOM} end`, "high-entropy token", "key *** end"],
    [
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
      "private key",
      "-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----",
    ],
  ])("finds and masks %j", (text, kind, masked) => {
    const scan = scanSecrets(text);
    expect(scan).toMatchObject({ status: "found", masked });
    expect(scan.status === "found" && scan.kinds).toContain(kind);
  });

  it.each([
    "plain words and numbers 12345",
    '{"order":"SU-1001","amount":42,"status":"shipped"}',
    "/usr/lib/x86_64-linux-gnu/libc.so.6 and /home/ada/project/src/index.ts",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "createCheckpointWithEveryOptionSetToDefault",
    '{"password":"short"}',
  ])("leaves %j alone", (text) => {
    expect(scanSecrets(text)).toEqual({ status: "clean" });
  });

  it("never lets a planted token through, whatever surrounds it, and masking is stable", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.constantFrom(
          GITHUB,
          AWS,
          RANDOM,
          "sk-ant-api03-abcdefghijklmnop",
          "xoxb-1234567890-abcdef",
        ),
        fc.string({ maxLength: 200 }),
        (before, token, after) => {
          const scan = scanSecrets(`${before} ${token} ${after}`);
          expect(scan.status).toBe("found");
          if (scan.status !== "found") return;
          expect(scan.masked).not.toContain(token);
          expect(scanSecrets(scan.masked)).toEqual({ status: "clean" });
        },
      ),
      { numRuns: 2000 },
    );
  });
});
