import { describe, expect, it } from "vitest";
import { resumeCommand } from "./resume-hint.js";

describe("resumeCommand", () => {
  it("adds the --config and --store the operator gave, quoted for the shell", () => {
    expect(resumeCommand(["chat", "--session", "ses_1"])).toBe("docket chat --session ses_1");
    expect(
      resumeCommand(["resume", "ses_1"], { config: "my team.yaml", store: "sqlite:it's.db" }),
    ).toBe("docket resume ses_1 --config 'my team.yaml' --store 'sqlite:it'\\''s.db'");
  });

  it("carries --model, --reasoning and --as: a session begun with --model resumes with it", () => {
    expect(
      resumeCommand(["resume", "ses_1"], {
        model: "scripted:/tmp/my script.yaml",
        reasoning: "low",
        as: "alice",
        store: "sqlite:a.db",
      }),
    ).toBe(
      "docket resume ses_1 --model 'scripted:/tmp/my script.yaml' --reasoning low --as alice --store sqlite:a.db",
    );
  });
});
