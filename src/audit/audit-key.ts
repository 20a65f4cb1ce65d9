import * as crypto from "node:crypto";
import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { DocketError } from "../errors/docket-error.js";

/** Where the signing key, its public half and the digest log are. */
export interface AuditPaths {
  readonly keyFile: string;
  readonly publicKeyFile: string;
  /** A JSON-lines file, or a postgres:// URL. */
  readonly digests: string;
}

/**
 * Resolve the audit paths: the key is `DOCKET_AUDIT_KEY`, else `audit.key_file`, else
 * `$XDG_CONFIG_HOME/docket/audit-key.pem` (`~/.config/docket/` without it): outside the
 * workspace and the store. The public key sits beside it (`.pub.pem`); the digest log is
 * `audit.digests`, else `audit-digests.jsonl` beside the key.
 *
 * @example
 * ```ts
 * resolveAuditPaths({ env: {} }).keyFile; // "/home/me/.config/docket/audit-key.pem"
 * ```
 */
export function resolveAuditPaths({
  keyFile,
  digests,
  env = process.env,
}: {
  keyFile?: string;
  digests?: string;
  env?: NodeJS.ProcessEnv;
} = {}): AuditPaths {
  const configDir = env.XDG_CONFIG_HOME
    ? join(env.XDG_CONFIG_HOME, "docket")
    : join(env.HOME || homedir(), ".config", "docket");
  const key = resolve(
    expandHome(env.DOCKET_AUDIT_KEY || keyFile || join(configDir, "audit-key.pem"), env),
  );
  return {
    keyFile: key,
    publicKeyFile: publicKeyFileOf(key),
    digests: digests
      ? /^postgres(ql)?:\/\//.test(digests)
        ? digests
        : resolve(expandHome(digests, env))
      : join(dirname(key), "audit-digests.jsonl"),
  };
}

function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  return path === "~" || path.startsWith("~/") ? join(env.HOME || homedir(), path.slice(1)) : path;
}

/**
 * The public key's file beside a private key file: `audit-key.pem` → `audit-key.pub.pem`.
 *
 * @example
 * ```ts
 * publicKeyFileOf("/k/audit-key.pem"); // "/k/audit-key.pub.pem"
 * ```
 */
export function publicKeyFileOf(keyFile: string): string {
  return keyFile.endsWith(".pem") ? `${keyFile.slice(0, -4)}.pub.pem` : `${keyFile}.pub.pem`;
}

/** A loaded key pair. */
export interface AuditKey {
  readonly privateKey: crypto.KeyObject;
  readonly publicKeyPem: string;
  readonly keyId: string;
  /** True when this call created the key. */
  readonly created: boolean;
}

/**
 * Load the Ed25519 signing key, creating it (mode 0600, its folder 0700, the public key beside
 * it) when `create` and it does not exist. A key file that others may read is refused: a key
 * anyone can read signs anything.
 *
 * Throws DocketError `audit_key_missing`, `audit_key_exposed`, `audit_key_invalid`.
 *
 * @example
 * ```ts
 * const key = loadAuditKey(resolveAuditPaths().keyFile, { create: true });
 * ```
 */
export function loadAuditKey(
  keyFile: string,
  { create = false }: { create?: boolean } = {},
): AuditKey {
  let created = false;
  let text: string;
  try {
    const mode = statSync(keyFile).mode;
    if ((mode & 0o077) !== 0) {
      throw new DocketError(
        "audit_key_exposed",
        `${keyFile}: the audit signing key may be read by others (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${keyFile}.`,
      );
    }
    text = readFileSync(keyFile, "utf8");
  } catch (error) {
    if (error instanceof DocketError) throw error;
    if ((error as { code?: string }).code !== "ENOENT" || !create) {
      throw new DocketError(
        "audit_key_missing",
        `${keyFile}: no audit signing key (${(error as { code?: string }).code ?? "unreadable"}); docket init creates one.`,
        { cause: error },
      );
    }
    text = createKeyFile(keyFile);
    created = true;
  }
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey(text);
  } catch (error) {
    throw new DocketError("audit_key_invalid", `${keyFile}: not a PEM private key.`, {
      cause: error,
    });
  }
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw new DocketError("audit_key_invalid", `${keyFile}: not an Ed25519 key.`);
  }
  const publicKeyPem = crypto
    .createPublicKey(privateKey)
    .export({ type: "spki", format: "pem" })
    .toString();
  return { privateKey, publicKeyPem, keyId: keyIdOf(publicKeyPem), created };
}

function createKeyFile(keyFile: string): string {
  const dir = dirname(keyFile);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A dangling symlink on the way (`~/.config -> gone`) fails as ENOENT: named, not a trace.
    const code = (error as { code?: string }).code ?? "unwritable";
    throw new DocketError(
      "audit_key_missing",
      `${dir}: cannot create the folder of the audit signing key (${code}; a symlink on the way may point to nothing).`,
      { cause: error },
    );
  }
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const pub = publicKey.export({ type: "spki", format: "pem" }).toString();
  // Written whole under a temporary name, then linked into place: a process that finds the key
  // never reads half of it, and two that create it at once keep the first one.
  const temp = `${keyFile}.${process.pid}.${crypto.randomUUID()}.tmp`;
  writeFileSync(temp, pem, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temp, keyFile);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return readFileSync(keyFile, "utf8");
    throw error;
  } finally {
    unlinkSync(temp);
  }
  const pubTemp = `${temp}.pub`;
  writeFileSync(pubTemp, pub, { mode: 0o644 });
  renameSync(pubTemp, publicKeyFileOf(keyFile));
  return pem;
}

/**
 * Read a public key (PEM), as an auditor holds it.
 *
 * @example
 * ```ts
 * const key = readPublicKey("audit-key.pub.pem");
 * ```
 */
export function readPublicKey(file: string): { key: crypto.KeyObject; pem: string; keyId: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new DocketError("audit_key_missing", `${file}: cannot read the public key.`, {
      cause: error,
    });
  }
  return publicKeyFromPem(text, file);
}

/**
 * A public key from its PEM text.
 *
 * @example
 * ```ts
 * declare const pem: string; // the key an export's header carries
 * publicKeyFromPem(pem, "export.jsonl").keyId;
 * ```
 */
export function publicKeyFromPem(
  text: string,
  where: string,
): { key: crypto.KeyObject; pem: string; keyId: string } {
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey(text);
  } catch (error) {
    throw new DocketError("audit_key_invalid", `${where}: not a PEM public key.`, { cause: error });
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new DocketError("audit_key_invalid", `${where}: not an Ed25519 key.`);
  }
  const pem = key.export({ type: "spki", format: "pem" }).toString();
  return { key, pem, keyId: keyIdOf(pem) };
}

/**
 * A key's id: the first 16 hex digits of SHA-256 over its public PEM.
 *
 * @example
 * ```ts
 * const { publicKeyPem } = loadAuditKey("/home/me/.config/docket/audit-key.pem");
 * keyIdOf(publicKeyPem); // "3f9a0c1e5b7d2a40"
 * ```
 */
export function keyIdOf(publicKeyPem: string): string {
  return crypto.createHash("sha256").update(publicKeyPem.trim()).digest("hex").slice(0, 16);
}
