import { createWriteStream, existsSync, readFileSync } from "node:fs";
import type { Command } from "commander";
import { showControlCharacters } from "../../approval/format-arguments.js";
import { loadAuditKey, readPublicKey, resolveAuditPaths } from "../../audit/audit-key.js";
import { type DigestLog, openDigestLog } from "../../audit/digest-log.js";
import { exportTrail, readExport } from "../../audit/export-trail.js";
import type { TrailReport } from "../../audit/trail-report.js";
import { verifyStoreTrail } from "../../audit/verify-store-trail.js";
import { verifyTrail } from "../../audit/verify-trail.js";
import { loadCliConfig } from "../load-cli-config.js";
import { listSystemEvents } from "./audit-events-command.js";
import { commandFailure } from "./command-failure.js";
import { STORE_FLAG_HELP, withCommandStore } from "./open-command-store.js";
import { parseSince } from "./parse-since.js";

interface VerifyOptions {
  session?: string;
  store?: string;
  config?: string;
  publicKey?: string;
  digests?: string;
  file?: string;
  json?: boolean;
}

function auditPaths(options: { config?: string }) {
  const { runtime } = loadCliConfig({ config: options.config });
  return resolveAuditPaths(runtime.audit);
}

/**
 * Add `docket audit verify | export | key` to the `audit` command: the signed trail
 * (docs/audit.md).
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerAuditTrailCommands(program.command("audit"));
 * ```
 */
export function registerAuditTrailCommands(audit: Command): void {
  audit
    .command("verify")
    .description(
      "Check the hash chains, the signed attestations (with the public key and the digest log) and the calls, approvals and messages rows: exit 0 only when all of it holds.",
    )
    .option("--session <id>", "only this session")
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--config <file>", "docket.yaml, for audit.key_file and audit.digests")
    .option("--public-key <file>", "the public key (default: beside the configured key)")
    .option("--digests <path|url>", "the digest log (default: audit.digests, else beside the key)")
    .option("--file <export>", "verify an export (docket audit export) instead of a store")
    .option("--json", "the report as one JSON object")
    .action(async (options: VerifyOptions) => {
      const { report, systemEvents } = options.file
        ? { report: await verifyExportFile(options), systemEvents: undefined }
        : await verifyStore(options);
      printReport(report, systemEvents, options.json === true);
      switch (report.verdict) {
        case "verified":
          return;
        case "unsigned": {
          const first = report.unsigned[0];
          commandFailure(
            3,
            "docket.audit.verify",
            `not proven: session ${JSON.stringify(first?.sessionId ?? "")}, from event ${first?.seq ?? 0}: ${first?.message ?? "see above"}. No tampering was found; run verify again once docket has written to that session (or after a restart, which signs what a crashed process left).`,
          );
          break;
        }
        case "tampered": {
          const first = report.problems[0];
          commandFailure(
            1,
            "docket.audit.verify",
            `broken: session ${JSON.stringify(first?.sessionId ?? "")}, event ${first?.seq ?? 0}: ${first?.message ?? "see above"}${report.problems.length > 1 ? ` (and ${report.problems.length - 1} more problems above)` : ""}`,
          );
        }
      }
    });

  audit
    .command("export")
    .description(
      "Write whole sessions (events, messages, attestations, public key) as JSON lines, for docket audit verify --file.",
    )
    .option("--session <id>", "this session")
    .option("--since <time>", "every session with an event since then (30m, 2h, 7d, a date)", (v) =>
      parseSince(v),
    )
    .option("--out <file>", "write here instead of standard output")
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--config <file>", "docket.yaml, for audit.key_file")
    .action(
      async (options: {
        session?: string;
        since?: number;
        out?: string;
        store?: string;
        config?: string;
      }) => {
        if (options.session === undefined && options.since === undefined) {
          commandFailure(2, "docket.audit.export", "docket: give --session ID or --since TIME.");
        }
        const paths = auditPaths(options);
        const publicKey = existsSync(paths.publicKeyFile)
          ? readPublicKey(paths.publicKeyFile).pem
          : undefined;
        const out = options.out ? createWriteStream(options.out, { mode: 0o600 }) : process.stdout;
        const counts = await withCommandStore(options, (store) =>
          exportTrail(
            store,
            {
              ...(options.session !== undefined ? { sessionId: options.session } : {}),
              ...(options.since !== undefined ? { since: options.since } : {}),
              publicKey,
            },
            (line) => {
              out.write(line);
            },
          ),
        );
        if (options.out) await new Promise<void>((resolve) => out.end(() => resolve()));
        process.stderr.write(`exported ${counts.events} events of ${counts.sessions} sessions\n`);
      },
    );

  audit
    .command("key")
    .description("Print the public key that checks this docket's attestations (made when missing).")
    .option("--config <file>", "docket.yaml, for audit.key_file")
    .action((options: { config?: string }) => {
      const paths = auditPaths(options);
      const key = loadAuditKey(paths.keyFile, { create: true });
      process.stdout.write(key.publicKeyPem);
      process.stderr.write(
        `key id ${key.keyId}; private key ${paths.keyFile}${key.created ? " (created now)" : ""}; public key ${paths.publicKeyFile}; digest log ${paths.digests}\n`,
      );
    });
}

async function verifyStore(
  options: VerifyOptions,
): Promise<{ report: TrailReport; systemEvents: SystemEventCounts }> {
  const paths = auditPaths(options);
  const keyFile = options.publicKey ?? paths.publicKeyFile;
  const publicKey =
    options.publicKey || existsSync(keyFile) ? readPublicKey(keyFile).key : undefined;
  const digestsAt = options.digests ?? paths.digests;
  // Without the key, a digest log proves nothing; with it, a missing log is itself a finding.
  let digests: DigestLog | undefined;
  if (publicKey) digests = await openDigestLog(digestsAt);
  try {
    return await withCommandStore(options, async (store) => ({
      report: await verifyStoreTrail(store, {
        publicKey,
        digests,
        ...(options.session !== undefined ? { sessionId: options.session } : {}),
      }),
      // Said beside the verdict: events that belong to no call are in the chains verified.
      systemEvents: countSystemEvents(
        await listSystemEvents(store, {
          ...(options.session !== undefined ? { sessionId: options.session } : {}),
          limit: Number.MAX_SAFE_INTEGER,
        }),
      ),
    }));
  } finally {
    await digests?.close();
  }
}

async function verifyExportFile(options: VerifyOptions): Promise<TrailReport> {
  const file = options.file as string;
  const { source } = readExport(readFileSync(file, "utf8"), file);
  const publicKey = options.publicKey ? readPublicKey(options.publicKey).key : undefined;
  // With --digests, the export is also held against the digest log (a cut export is then seen).
  const log = options.digests ? await openDigestLog(options.digests) : undefined;
  try {
    return await verifyTrail(source, {
      publicKey,
      digests: log && source.storeId !== undefined ? await log.read(source.storeId) : undefined,
      ...(options.session !== undefined ? { sessionId: options.session } : {}),
    });
  } finally {
    await log?.close();
  }
}

/** How many system events of each kind the verified chains hold. */
type SystemEventCounts = Readonly<Record<string, number>>;

function countSystemEvents(records: readonly { event: { kind: string } }[]): SystemEventCounts {
  const counts: Record<string, number> = {};
  for (const { event } of records) counts[event.kind] = (counts[event.kind] ?? 0) + 1;
  return counts;
}

function printReport(
  report: TrailReport,
  systemEvents: SystemEventCounts | undefined,
  json: boolean,
): void {
  if (json) {
    process.stdout.write(
      `${JSON.stringify(systemEvents === undefined ? report : { ...report, systemEvents })}\n`,
    );
    return;
  }
  const lines: string[] = [];
  const chains = `${report.events} events in ${report.sessions} chain${report.sessions === 1 ? "" : "s"}`;
  const signed =
    report.attestations > 0
      ? `, with ${report.attestations} signed attestation${report.attestations === 1 ? "" : "s"}`
      : "";
  const counts = `${chains}${signed}`;
  if (report.verdict === "verified") lines.push(`ok: ${chains} verified${signed}.`);
  if (report.verdict === "unsigned") {
    lines.push(`no tampering found in ${counts}; not everything is signed yet:`);
  }
  if (report.verdict === "tampered") lines.push(`TAMPERED: ${counts} checked:`);
  for (const problem of [...report.problems, ...report.unsigned]) {
    lines.push(
      `${problem.kind}: session ${JSON.stringify(problem.sessionId)}, event ${problem.seq}: ${problem.message}`,
    );
  }
  for (const span of report.recovered) {
    lines.push(`recovered: session ${JSON.stringify(span.sessionId)}: ${span.message}`);
  }
  for (const note of report.notProven) lines.push(`not proven: ${note}`);
  const kinds = Object.entries(systemEvents ?? {});
  if (kinds.length > 0) {
    const listed = kinds.map(([kind, count]) => `${count} ${showControlCharacters(kind)}`);
    lines.push(`system events (no call; docket audit events): ${listed.join(", ")}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
