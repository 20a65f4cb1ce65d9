import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The store is split by capability (ADR 0075): `Store` and `StoreEngine` only extend one
// interface per capability, each in a file of its own named after it, so a reader finds every
// method's contract in one place and the engines' writes in `write-path-engine.ts`. This keeps
// it so: a method added to the whole instead of a part, or declared in two parts, fails here.
const root = fileURLToPath(new URL("../..", import.meta.url));
const storeDir = `${root}src/store/`;

const STORE_PARTS = {
  "session-store.ts": "SessionStore",
  "transcript-store.ts": "TranscriptStore",
  "audit-trail.ts": "AuditTrail",
  "attestation-store.ts": "AttestationStore",
  "call-store.ts": "CallStore",
  "lease-store.ts": "LeaseStore",
  "approval-store.ts": "ApprovalStore",
  "run-writes.ts": "RunWrites",
} as const;
const ENGINE_PARTS = {
  "write-path-engine.ts": "WritePathEngine",
  "session-engine.ts": "SessionEngine",
  "transcript-engine.ts": "TranscriptEngine",
  "audit-trail-engine.ts": "AuditTrailEngine",
  "attestation-engine.ts": "AttestationEngine",
  "call-engine.ts": "CallEngine",
  "approval-engine.ts": "ApprovalEngine",
  "run-writes-engine.ts": "RunWritesEngine",
} as const;
// What the whole declares itself: who it is and its life, no capability's method.
const STORE_OWN = ["close", "defaultSession", "engine", "location", "owner", "schemaVersion"];
const ENGINE_OWN = ["close", "engine", "leases", "readOnly", "schemaVersion"];

const program = ts.createProgram([`${storeDir}store.ts`, `${storeDir}store-engine.ts`], {
  strict: true,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023,
});
const checker = program.getTypeChecker();

function interfaceIn(file: string, name: string): ts.InterfaceDeclaration {
  const source = program.getSourceFile(`${storeDir}${file}`);
  const found = source?.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
  );
  if (!found) throw new Error(`${file} declares no interface ${name}`);
  return found;
}

/** Each member of the whole (its own and inherited), with the parts that declare it. */
function declaredIn(
  whole: ts.InterfaceDeclaration,
  file: string,
  parts: Readonly<Record<string, string>>,
): Map<string, string[]> {
  const declaring = new Map<string, string[]>();
  const note = (member: string, where: string) =>
    declaring.set(member, [...(declaring.get(member) ?? []), where]);
  for (const [part, type] of [[file, whole.name.text], ...Object.entries(parts)] as const) {
    for (const m of interfaceIn(part, type).members) if (m.name) note(m.name.getText(), part);
  }
  // Inherited from outside src/store (EventSink, CallLedger) and declared in no part: still one
  // place, but not the store's; listed so that the test names it.
  for (const member of checker.getTypeAtLocation(whole).getProperties()) {
    if (!declaring.has(member.name)) declaring.set(member.name, []);
  }
  return declaring;
}

describe.each([
  ["Store", "store.ts", STORE_PARTS, STORE_OWN],
  ["StoreEngine", "store-engine.ts", ENGINE_PARTS, ENGINE_OWN],
] as const)("%s, split by capability", (name, file, parts, own) => {
  const whole = interfaceIn(file, name);

  it("extends exactly its capability interfaces and declares only its own members", () => {
    const extended = (whole.heritageClauses ?? []).flatMap((c) => c.types.map((t) => t.getText()));
    expect(extended.sort()).toEqual(Object.values(parts).sort());
    const members = whole.members.map((m) => m.name?.getText()).sort();
    expect(members).toEqual([...own].sort());
  });

  it("has every method declared in exactly one capability file", () => {
    const wrong = [...declaredIn(whole, file, parts)]
      .filter(([member, files]) => {
        if ((own as readonly string[]).includes(member)) return files.join() !== file;
        return files.length !== 1 || !((files[0] as string) in parts);
      })
      .map(([member, files]) => `${member}: ${files.join(", ") || "(outside src/store)"}`);
    expect(wrong).toEqual([]);
  });

  it("keeps each capability file under 200 lines, with the part it is named after", () => {
    for (const [part, type] of Object.entries(parts)) {
      expect(interfaceIn(part, type)).toBeDefined();
      const lines = readFileSync(`${storeDir}${part}`, "utf8").split("\n").length;
      expect(lines, part).toBeLessThanOrEqual(200);
    }
  });

  it("is listed part by part in src/store/README.md's Layout", () => {
    const readme = readFileSync(`${storeDir}README.md`, "utf8");
    const layout = readme.slice(
      readme.indexOf("## Layout"),
      readme.indexOf("\n## ", readme.indexOf("## Layout") + 1),
    );
    for (const part of [file, ...Object.keys(parts)]) expect(layout, part).toContain(`\`${part}\``);
  });
});
